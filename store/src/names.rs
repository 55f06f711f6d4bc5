//! Player names, guests' and accounts' alike: normalised, checked, and keyed
//! so that names differing only in case (or in Unicode's compatibility forms,
//! `Ａｌｉｃｅ` and `Alice`) are the same name.

use std::fmt;

use unicode_normalization::UnicodeNormalization;

/// The fewest and most characters (not bytes) a name may have.
pub const NAME_CHARS: std::ops::RangeInclusive<usize> = 3..=20;

/// Words a name may not be, in any case: the text protocol's command words
/// (a name alone on a line must not read as a message) and names that would
/// pass for the server or for nobody.
const RESERVED: &[&str] = &[
    "game",
    "move",
    "draw",
    "ready",
    "error",
    "result",
    "win",
    "lose",
    "over",
    "aborted",
    "quit",
    "type",
    "list",
    "watch",
    "version",
    "offer",
    "accept",
    "decline",
    "news",
    "session",
    "sessions",
    "get",
    "reversid",
    "server",
    "admin",
    "guest",
    "nobody",
    "anonymous",
];

/// A valid player name: as the player spelt it (NFC), and its key.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Name {
    display: String,
    key: String,
}

/// Why a name was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum NameError {
    Length {
        chars: usize,
    },
    /// The first character must be a letter.
    Start(char),
    Character(char),
    Reserved,
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (min, max) = (NAME_CHARS.start(), NAME_CHARS.end());
        match self {
            NameError::Length { chars } => {
                write!(f, "a name has {min} to {max} characters, not {chars}")
            }
            NameError::Start(c) => write!(f, "a name starts with a letter, not {c:?}"),
            NameError::Character(c) => write!(
                f,
                "a name holds letters, digits, '-', '_' and '.' only, not {c:?}"
            ),
            NameError::Reserved => write!(f, "that name is reserved"),
        }
    }
}

impl std::error::Error for NameError {}

impl Name {
    /// Checks and normalises `raw`: NFC for display, NFKC and lower case for
    /// the key. Letters and digits of any script, `-`, `_` and `.`; no spaces,
    /// controls, invisible formatting or quotes, so a name cannot carry a line
    /// break or pose as a word of a protocol line.
    pub fn new(raw: &str) -> Result<Name, NameError> {
        let display: String = raw.nfc().collect();
        let chars = display.chars().count();
        if !NAME_CHARS.contains(&chars) {
            return Err(NameError::Length { chars });
        }
        let first = display.chars().next().unwrap_or(' ');
        if !first.is_alphabetic() {
            return Err(NameError::Start(first));
        }
        if let Some(bad) = display.chars().find(|&c| !allowed(c)) {
            return Err(NameError::Character(bad));
        }
        let key = key(&display);
        if RESERVED.contains(&key.as_str()) {
            return Err(NameError::Reserved);
        }
        Ok(Name { display, key })
    }

    /// The name as the player spelt it.
    pub fn as_str(&self) -> &str {
        &self.display
    }

    /// What makes two names the same: equal keys, equal names.
    pub fn key(&self) -> &str {
        &self.key
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display)
    }
}

fn allowed(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// NFKC folds compatibility forms, lower case folds case; NFC again because
/// lower-casing may undo a composition.
fn key(display: &str) -> String {
    let folded: String = display.nfkc().collect::<String>().to_lowercase();
    folded.nfc().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_pass_and_keep_their_spelling() {
        let name = Name::new("Alice_1.b-c").unwrap();
        assert_eq!(name.as_str(), "Alice_1.b-c");
        assert_eq!(name.key(), "alice_1.b-c");
        assert_eq!(Name::new("Ørjan").unwrap().key(), "ørjan");
        assert_eq!(Name::new("名人戦者").unwrap().as_str(), "名人戦者");
    }

    #[test]
    fn names_differing_in_case_or_compatibility_form_share_a_key() {
        let a = Name::new("Alice").unwrap();
        assert_eq!(a.key(), Name::new("aLICE").unwrap().key());
        assert_eq!(a.key(), Name::new("Ａｌｉｃｅ").unwrap().key());
        // é composed and decomposed are one name, shown composed.
        let composed = Name::new("Andr\u{e9}").unwrap();
        let decomposed = Name::new("Andre\u{301}").unwrap();
        assert_eq!(composed, decomposed);
        assert_eq!(decomposed.as_str(), "Andr\u{e9}");
    }

    #[test]
    fn lengths_count_characters() {
        assert_eq!(Name::new("ab"), Err(NameError::Length { chars: 2 }));
        assert!(Name::new("abc").is_ok());
        assert!(Name::new(&"é".repeat(20)).is_ok());
        assert_eq!(
            Name::new(&"a".repeat(21)),
            Err(NameError::Length { chars: 21 })
        );
    }

    #[test]
    fn spaces_controls_and_invisible_characters_are_refused() {
        for (raw, bad) in [
            ("ali ce", ' '),
            ("alice\n", '\n'),
            ("ali\u{7f}ce", '\u{7f}'),
            ("ali\u{200b}ce", '\u{200b}'),
            ("ali\u{202e}ce", '\u{202e}'),
            ("al\"ice", '"'),
            ("ali\tce", '\t'),
        ] {
            assert_eq!(Name::new(raw), Err(NameError::Character(bad)), "{raw:?}");
        }
    }

    #[test]
    fn names_that_read_as_protocol_words_or_numbers_are_refused() {
        assert_eq!(Name::new("GAME"), Err(NameError::Reserved));
        assert_eq!(Name::new("Ready"), Err(NameError::Reserved));
        assert_eq!(Name::new("1234"), Err(NameError::Start('1')));
        assert_eq!(Name::new("-abc"), Err(NameError::Start('-')));
    }
}
