//! The values of the lines that let people play together (challenges, time
//! controls: `docs/design/play-together.md` §2–§4): a challenge's terms, a time
//! control as `GAME TIME` writes it, and join codes.

use std::fmt;

use crate::{is, ParseError, Words};

/// A challenge's options (`GAME INVITE`, `GAME CODE`, `GAME CHALLENGE`): every word
/// `key=value` or `key`. Words this crate does not know are kept (a later `rated`),
/// so that a client can ignore them and a line prints back as it came.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Terms {
    /// `time=5+3`, `time=30s+2`, `time=move:60`; `None`: the game's default.
    pub time: Option<String>,
    /// `side=black`, `side=2`, `side=random`; `None`: not said (random).
    pub side: Option<String>,
    /// `public` (listed in the lobby) or `private`.
    pub public: bool,
    /// Options not known here, in order.
    pub other: Vec<String>,
}

impl Terms {
    /// Reads the option words of a line.
    pub(crate) fn read(words: &mut Words<'_>) -> Terms {
        let mut terms = Terms::default();
        while let Some(word) = words.next_word() {
            match word.split_once('=') {
                Some((key, value)) if is(key, "time") => terms.time = Some(value.to_owned()),
                Some((key, value)) if is(key, "side") => terms.side = Some(value.to_owned()),
                None if is(word, "public") => terms.public = true,
                None if is(word, "private") => terms.public = false,
                _ => terms.other.push(word.to_owned()),
            }
        }
        terms
    }
}

impl fmt::Display for Terms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(time) = &self.time {
            write!(f, "time={time} ")?;
        }
        if let Some(side) = &self.side {
            write!(f, "side={side} ")?;
        }
        f.write_str(if self.public { "public" } else { "private" })?;
        for word in &self.other {
            write!(f, " {word}")?;
        }
        Ok(())
    }
}

/// A game's time control as `GAME TIME` announces it, in milliseconds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TimeControl {
    /// `GAME TIME fischer <base> <inc>`: each team has `base`, and gains `increment`
    /// after each of its moves.
    Fischer { base: u64, increment: u64 },
    /// `GAME TIME move <limit> <first>`: each move has `limit`; a seat's first move `first`.
    Move { limit: u64, first: u64 },
    /// `GAME TIME none`: no clock.
    None,
}

impl TimeControl {
    pub(crate) fn read(words: &mut Words<'_>) -> Result<TimeControl, ParseError> {
        const COMMAND: &str = "GAME TIME";
        let kind = words.next_word().ok_or_else(|| {
            ParseError::BadArguments(COMMAND, "fischer, move or none is missing".into())
        })?;
        if is(kind, "fischer") {
            Ok(TimeControl::Fischer {
                base: words.number(COMMAND, "the base")?,
                increment: words.number(COMMAND, "the increment")?,
            })
        } else if is(kind, "move") {
            Ok(TimeControl::Move {
                limit: words.number(COMMAND, "the move's limit")?,
                first: words.number(COMMAND, "the first move's limit")?,
            })
        } else if is(kind, "none") {
            Ok(TimeControl::None)
        } else {
            Err(ParseError::BadArguments(
                COMMAND,
                format!("{kind:?} is not fischer, move or none"),
            ))
        }
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Fischer { base, increment } => write!(f, "fischer {base} {increment}"),
            TimeControl::Move { limit, first } => write!(f, "move {limit} {first}"),
            TimeControl::None => f.write_str("none"),
        }
    }
}

/// How many digits a join code has.
pub const CODE_DIGITS: usize = 12;

/// A join code as people write it (`4821-0937-5562`, `4821 0937 5562`,
/// `482109375562`: separators `-`, `.` and blanks ignored), written the one way the
/// server shows it; `None` when it is not twelve digits.
pub fn read_code(text: &str) -> Option<String> {
    let digits: String = text
        .chars()
        .filter(|c| !matches!(c, '-' | '.' | ' ' | '\t'))
        .collect();
    if digits.len() != CODE_DIGITS || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(format!(
        "{}-{}-{}",
        &digits[..4],
        &digits[4..8],
        &digits[8..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_read_with_any_separators_and_written_in_groups_of_four() {
        for text in [
            "4821-0937-5562",
            "4821 0937 5562",
            "482109375562",
            "4821.0937-55 62",
        ] {
            assert_eq!(read_code(text).as_deref(), Some("4821-0937-5562"), "{text}");
        }
        for text in ["4821-0937", "4821-0937-556x", "48210937556212", ""] {
            assert_eq!(read_code(text), None, "{text}");
        }
    }

    #[test]
    fn terms_keep_the_options_they_do_not_know() {
        let mut words = Words::new("time=5+3 side=Black public rated name=x");
        let terms = Terms::read(&mut words);
        assert_eq!(terms.time.as_deref(), Some("5+3"));
        assert_eq!(terms.side.as_deref(), Some("Black"));
        assert!(terms.public);
        assert_eq!(terms.other, ["rated", "name=x"]);
        assert_eq!(terms.to_string(), "time=5+3 side=Black public rated name=x");
        assert_eq!(Terms::default().to_string(), "private");
    }
}
