//! The terms a game is played on, fixed before it starts: its time control,
//! whether it is rated, who sits in each seat, and the tokens that let a dropped
//! player take its seat back.
//!
//! All are chosen by the supervisor (a challenge's `time=`, the game's default,
//! the players' names, a fresh token per resumable seat) and carried to the
//! session in its start message; the session applies them and never chooses
//! them. See `spec/TEXT-PROTOCOL.md` (time controls, players, resuming) for what
//! clients see.

use std::fmt;
use std::time::Duration;

use reversi_store::{AccountId, Name};

/// What a session's game is played under, beside its seats: chosen by the supervisor
/// (a challenge, the load) and carried whole to the session by the fork server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Terms {
    /// A challenge's control; `None`: the game's default.
    pub control: Option<TimeControl>,
    /// The seats are in team order already (a challenge's: seat i plays team i mod the
    /// teams): no teams are drawn.
    pub teams_by_seat: bool,
    /// The server is nearly full: a first move must come within the handshake timeout, so
    /// that pairs who never move give their places back sooner (TEXT-PROTOCOL.md §8.11).
    pub hurry: bool,
    /// The game moves its players' ratings (a rated challenge between two accounts).
    pub rated: bool,
    /// One game, no automatic rematch whatever the game's default (a tournament's game:
    /// the pairing is one game, and its players are called to their next one).
    pub single: bool,
}

/// Who sits in a seat, as the supervisor knew the connection when the game started.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum SeatPlayer {
    /// No name given (every binary Reversi client, and anyone who did not say).
    #[default]
    Anonymous,
    /// A name chosen for the connection only (`GAME NAME`).
    Guest(Name),
    /// A signed-in account, with its rating in this game when it starts.
    Account {
        id: AccountId,
        name: Name,
        rating: Option<ShownRating>,
    },
}

/// A rating as players are shown it: whole points, and whether it is still provisional
/// (written `1500?`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShownRating {
    pub points: u16,
    pub provisional: bool,
}

impl std::str::FromStr for ShownRating {
    type Err = ();

    /// Reads what `Display` writes: `1532`, `1500?`.
    fn from_str(text: &str) -> Result<ShownRating, ()> {
        let (points, provisional) = match text.strip_suffix('?') {
            Some(points) => (points, true),
            None => (text, false),
        };
        let points = points.parse().map_err(|_| ())?;
        Ok(ShownRating {
            points,
            provisional,
        })
    }
}

impl fmt::Display for ShownRating {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = if self.provisional { "?" } else { "" };
        write!(f, "{}{mark}", self.points)
    }
}

/// How a turn-based game's time is kept. Real-time games have `None` and their own timers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// No clock.
    None,
    /// Each move has `limit`; a seat's first move of the game has `first` (today's move clock).
    PerMove { limit: Duration, first: Duration },
    /// Each team has `base` for the game and gains `increment` after each of its moves.
    Fischer { base: Duration, increment: Duration },
}

/// Why a `time=` value was refused; its `Display` is the text after `ERROR `.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadTime {
    /// Not in any of the forms.
    Unreadable(String),
    /// Readable, but outside the server's bounds.
    OutOfBounds { spec: String, bounds: Bounds },
}

/// What a challenger may choose (the operator's defaults are not bounded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The least and most of base + 40 × increment (lichess's estimate of one side's time).
    pub min_total: Duration,
    pub max_total: Duration,
}

/// Fischer's base, at least; and its increment, at most.
const MIN_BASE: Duration = Duration::from_secs(10);
const MAX_INCREMENT: Duration = Duration::from_secs(60);
/// The per-move limit a challenger may choose.
const MOVE_LIMITS: std::ops::RangeInclusive<u64> = 5..=3600;
/// Moves counted in a game's estimated length (base + 40 × increment).
const ESTIMATED_MOVES: u32 = 40;

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            min_total: Duration::from_secs(15),
            max_total: Duration::from_secs(10_800),
        }
    }
}

impl TimeControl {
    /// Reads a control as written in `time=` and `--time-control`: `5+3` (5 minutes, 3 s a
    /// move), `30s+2`, `move:60`, or `none`. `first` is the first-move limit a `move:` control
    /// gets (the server's `--first-move-timeout`).
    pub fn parse(spec: &str, first: Duration) -> Result<TimeControl, BadTime> {
        let unreadable = || BadTime::Unreadable(spec.to_string());
        if spec.eq_ignore_ascii_case("none") {
            return Ok(TimeControl::None);
        }
        if let Some(seconds) = spec.strip_prefix("move:") {
            let limit = Duration::from_secs(seconds.parse().map_err(|_| unreadable())?);
            return Ok(TimeControl::PerMove { limit, first });
        }
        let (base, increment) = spec.split_once('+').ok_or_else(unreadable)?;
        let base = match base.strip_suffix('s') {
            Some(seconds) => Duration::from_secs(seconds.parse().map_err(|_| unreadable())?),
            None => Duration::from_secs(60 * base.parse::<u64>().map_err(|_| unreadable())?),
        };
        let increment = Duration::from_secs(increment.parse().map_err(|_| unreadable())?);
        Ok(TimeControl::Fischer { base, increment })
    }

    /// Whether a challenger may choose this control under `bounds`.
    pub fn check(self, bounds: Bounds) -> Result<TimeControl, BadTime> {
        let allowed = match self {
            TimeControl::None => false,
            TimeControl::PerMove { limit, .. } => MOVE_LIMITS.contains(&limit.as_secs()),
            TimeControl::Fischer { base, increment } => {
                let total = base + increment * ESTIMATED_MOVES;
                base >= MIN_BASE
                    && increment <= MAX_INCREMENT
                    && (bounds.min_total..=bounds.max_total).contains(&total)
            }
        };
        if allowed {
            Ok(self)
        } else {
            Err(BadTime::OutOfBounds {
                spec: self.to_string(),
                bounds,
            })
        }
    }
}

/// The form `parse` reads: `5+3`, `30s+2`, `move:60`, `none`.
impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::None => write!(f, "none"),
            TimeControl::PerMove { limit, .. } => write!(f, "move:{}", limit.as_secs()),
            TimeControl::Fischer { base, increment } if base.as_secs() % 60 == 0 => {
                write!(f, "{}+{}", base.as_secs() / 60, increment.as_secs())
            }
            TimeControl::Fischer { base, increment } => {
                write!(f, "{}s+{}", base.as_secs(), increment.as_secs())
            }
        }
    }
}

impl fmt::Display for BadTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadTime::Unreadable(spec) => write!(
                f,
                "bad time \"{spec}\" (write 5+3 for 5 minutes and 3 s a move, 30s+2, or move:60)"
            ),
            BadTime::OutOfBounds { spec, bounds } => write!(
                f,
                "time={spec} is outside this server's bounds: base at least {} s, increment at most {} s, \
                 base + {ESTIMATED_MOVES} × increment from {} s to {} min; move:{} to move:{}",
                MIN_BASE.as_secs(),
                MAX_INCREMENT.as_secs(),
                bounds.min_total.as_secs(),
                bounds.max_total.as_secs() / 60,
                MOVE_LIMITS.start(),
                MOVE_LIMITS.end(),
            ),
        }
    }
}

/// Crockford's base 32: digits and letters without I, L, O and U.
const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/// Random symbols in a token: 26 × 5 = 130 bits.
const RANDOM_SYMBOLS: usize = 26;
/// A token's length: the host's symbol, then the random ones.
pub const TOKEN_LEN: usize = 1 + RANDOM_SYMBOLS;

/// A seat's resume token: the host's symbol and 130 random bits, in Crockford's base 32.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResumeToken([u8; TOKEN_LEN]);

/// Why a string is not a token; its `Display` is the text after `ERROR `.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotAToken(pub String);

impl ResumeToken {
    /// A fresh token for a seat of host `host` (one Crockford symbol), from the kernel's
    /// random bits.
    pub fn draw(host: u8) -> std::io::Result<ResumeToken> {
        let mut random = [0u8; RANDOM_SYMBOLS];
        getrandom(&mut random)?;
        let mut token = [host; TOKEN_LEN];
        for (symbol, byte) in token[1..].iter_mut().zip(random) {
            *symbol = CROCKFORD[usize::from(byte & 31)];
        }
        Ok(ResumeToken(token))
    }

    /// Reads a token as a client wrote it: any case; Crockford's look-alikes (I, L -> 1, O -> 0).
    pub fn parse(text: &str) -> Result<ResumeToken, NotAToken> {
        let not = || NotAToken(text.chars().take(40).collect());
        let bytes = text.as_bytes();
        if bytes.len() != TOKEN_LEN {
            return Err(not());
        }
        let mut token = [0u8; TOKEN_LEN];
        for (out, &byte) in token.iter_mut().zip(bytes) {
            *out = match byte.to_ascii_uppercase() {
                b'I' | b'L' => b'1',
                b'O' => b'0',
                upper if CROCKFORD.contains(&upper) => upper,
                _ => return Err(not()),
            };
        }
        Ok(ResumeToken(token))
    }

    pub fn as_bytes(&self) -> &[u8; TOKEN_LEN] {
        &self.0
    }

    /// Rebuilds a token from bytes the supervisor wrote (the session's start message).
    pub fn from_bytes(bytes: [u8; TOKEN_LEN]) -> Option<ResumeToken> {
        std::str::from_utf8(&bytes)
            .ok()
            .and_then(|text| ResumeToken::parse(text).ok())
    }

    /// Equality that takes the same time wherever the tokens differ, so that a guesser
    /// learns nothing from how fast a wrong token is refused.
    pub fn same_as(&self, other: &ResumeToken) -> bool {
        self.0
            .iter()
            .zip(other.0.iter())
            .fold(0u8, |diff, (a, b)| diff | (a ^ b))
            == 0
    }
}

impl fmt::Display for ResumeToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Only Crockford symbols are ever stored.
        f.write_str(std::str::from_utf8(&self.0).unwrap_or("?"))
    }
}

/// Tokens never reach a log whole: a `{:?}` shows the host and the first two symbols.
impl fmt::Debug for ResumeToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ResumeToken({}…)", String::from_utf8_lossy(&self.0[..3]))
    }
}

impl fmt::Display for NotAToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "\"{}\" is not a token (GAME TOKEN gave you {TOKEN_LEN} letters and digits)",
            self.0
        )
    }
}

/// The host symbol for `--host-id`: one Crockford symbol.
pub fn host_symbol(text: &str) -> Option<u8> {
    match text.as_bytes() {
        [one] => CROCKFORD
            .iter()
            .copied()
            .find(|&c| c == one.to_ascii_uppercase()),
        _ => None,
    }
}

/// Fills `bytes` from the kernel's random source (join codes, seats drawn for a challenge).
pub(crate) fn random_bytes(bytes: &mut [u8]) -> std::io::Result<()> {
    getrandom(bytes)
}

/// Fills `bytes` from the kernel's random source.
fn getrandom(bytes: &mut [u8]) -> std::io::Result<()> {
    let mut filled = 0;
    while filled < bytes.len() {
        let rest = &mut bytes[filled..];
        // SAFETY: the kernel writes at most rest.len() bytes into rest.
        let n = unsafe { libc::getrandom(rest.as_mut_ptr().cast(), rest.len(), 0) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        } else {
            filled += n as usize;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIRST: Duration = Duration::from_secs(30);

    fn parse(spec: &str) -> Result<TimeControl, BadTime> {
        TimeControl::parse(spec, FIRST)
    }

    #[test]
    fn every_form_of_a_control_reads_and_writes_back() {
        let fischer = |b, i| TimeControl::Fischer {
            base: Duration::from_secs(b),
            increment: Duration::from_secs(i),
        };
        assert_eq!(parse("5+3"), Ok(fischer(300, 3)));
        assert_eq!(parse("30s+2"), Ok(fischer(30, 2)));
        assert_eq!(parse("90s+0"), Ok(fischer(90, 0)));
        assert_eq!(
            parse("move:60"),
            Ok(TimeControl::PerMove {
                limit: Duration::from_secs(60),
                first: FIRST
            })
        );
        assert_eq!(parse("NONE"), Ok(TimeControl::None));
        for spec in ["5+3", "30s+2", "move:60", "none"] {
            assert_eq!(parse(spec).unwrap().to_string(), spec);
        }
        assert_eq!(parse("120s+1").unwrap().to_string(), "2+1");
    }

    #[test]
    fn unreadable_controls_say_how_to_write_one() {
        for spec in [
            "5:3", "", "+", "5+", "x+3", "move:", "move:-1", "5m+3", "5+3s",
        ] {
            let e = parse(spec).unwrap_err();
            assert_eq!(e, BadTime::Unreadable(spec.to_string()));
            assert!(e.to_string().contains("write 5+3"), "{e}");
        }
    }

    #[test]
    fn a_challenger_stays_within_the_bounds() {
        let bounds = Bounds::default();
        for good in ["5+3", "10s+1", "1+0", "180+0", "move:5", "move:3600"] {
            assert!(parse(good).unwrap().check(bounds).is_ok(), "{good}");
        }
        for bad in [
            "0+1",
            "9s+5",
            "10s+0",
            "1+61",
            "181+0",
            "move:4",
            "move:3601",
            "none",
        ] {
            let e = parse(bad).unwrap().check(bounds).unwrap_err();
            assert!(
                e.to_string().contains("outside this server's bounds"),
                "{e}"
            );
        }
        assert_eq!(
            parse("0+1").unwrap().check(bounds).unwrap_err().to_string(),
            "time=0+1 is outside this server's bounds: base at least 10 s, increment at most 60 s, \
             base + 40 × increment from 15 s to 180 min; move:5 to move:3600"
        );
    }

    #[test]
    fn tokens_are_27_crockford_symbols_behind_the_host() {
        let token = ResumeToken::draw(b'3').unwrap();
        let text = token.to_string();
        assert_eq!(text.len(), TOKEN_LEN);
        assert_eq!(token.as_bytes()[0], b'3', "the host's symbol first");
        assert!(text.bytes().all(|b| CROCKFORD.contains(&b)), "{text}");
        assert_ne!(token, ResumeToken::draw(b'3').unwrap());
        assert_eq!(ResumeToken::parse(&text), Ok(token));
        assert_eq!(ResumeToken::parse(&text.to_lowercase()), Ok(token));
        assert_eq!(ResumeToken::from_bytes(*token.as_bytes()), Some(token));
        assert!(token.same_as(&token));
        assert!(!token.same_as(&ResumeToken::draw(b'3').unwrap()));
    }

    #[test]
    fn look_alike_letters_read_as_the_digits_they_resemble() {
        let written = "0ILO".to_string() + &"A".repeat(23);
        let token = ResumeToken::parse(&written).unwrap();
        assert_eq!(token.to_string(), "0110".to_string() + &"A".repeat(23));
    }

    #[test]
    fn what_is_not_a_token_is_named() {
        for text in [
            "x7",
            "",
            &"A".repeat(28),
            &("U".to_string() + &"A".repeat(26)),
        ] {
            let e = ResumeToken::parse(text).unwrap_err();
            assert!(e.to_string().contains("is not a token"), "{e}");
        }
    }

    #[test]
    fn a_token_in_a_log_shows_three_symbols() {
        let token = ResumeToken::parse(&"3KQ7M2X9AV0C4TZP8RWD5NHJ6EB".to_lowercase()).unwrap();
        assert_eq!(format!("{token:?}"), "ResumeToken(3KQ…)");
    }

    #[test]
    fn host_symbols_are_one_crockford_symbol() {
        assert_eq!(host_symbol("0"), Some(b'0'));
        assert_eq!(host_symbol("z"), Some(b'Z'));
        assert_eq!(host_symbol("U"), None);
        assert_eq!(host_symbol("12"), None);
    }
}
