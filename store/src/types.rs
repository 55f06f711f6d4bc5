//! What the store takes and gives: accounts, tokens, finished games and the
//! views the pages need (profiles, leaderboards, game lists).

use std::fmt;

use crate::glicko2::Rating;
use crate::names::Name;
use crate::secret::{ApiToken, TokenId};

/// Milliseconds since the Unix epoch, UTC.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct UnixMillis(pub i64);

impl UnixMillis {
    pub fn now() -> UnixMillis {
        let since = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        UnixMillis(i64::try_from(since.as_millis()).unwrap_or(i64::MAX))
    }

    pub fn to_system_time(self) -> std::time::SystemTime {
        let millis = u64::try_from(self.0).unwrap_or(0);
        std::time::UNIX_EPOCH + std::time::Duration::from_millis(millis)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct AccountId(pub i64);

/// A registered player.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Account {
    pub id: AccountId,
    /// As the player spelt it when registering.
    pub name: String,
    pub created: UnixMillis,
}

/// An API token as its owner's list shows it (never its secret).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TokenInfo {
    pub id: TokenId,
    pub label: String,
    pub created: UnixMillis,
    /// Its last sign-in, to the minute ([`TOKEN_USE_RECORDED_EVERY_MS`]); `None`: never used.
    pub last_used: Option<UnixMillis>,
}

/// A sign-in with an API token: the account it signs in as, and the token's last use as kept.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TokenSignIn {
    pub account: Account,
    pub token: TokenId,
    pub last_used: Option<UnixMillis>,
}

impl TokenSignIn {
    /// Whether `now` is to be written as the token's last use: the use kept is a minute
    /// old or more, or there is none.
    pub fn use_is_due(&self, now: UnixMillis) -> bool {
        self.last_used
            .is_none_or(|last| now.0 - last.0 >= TOKEN_USE_RECORDED_EVERY_MS)
    }
}

/// The most live API tokens an account holds: a new one past it is refused until one is revoked.
pub const TOKENS_PER_ACCOUNT: usize = 20;

/// A token's last use is written at most this often (a bot signing in again and again
/// writes once a minute, not once a sign-in).
pub const TOKEN_USE_RECORDED_EVERY_MS: i64 = 60_000;

/// A token just created: the only time its whole text exists outside the program that holds it.
#[derive(Debug)]
pub struct NewToken {
    pub info: TokenInfo,
    pub token: ApiToken,
}

/// A game's unique id, the archive's key (so a game recorded twice is stored once):
/// 1 to 64 characters of ASCII letters, digits, `-`, `_`, `.` and `:`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct GameId(String);

impl GameId {
    pub fn new(text: &str) -> Option<GameId> {
        let ok = (1..=64).contains(&text.len())
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b));
        ok.then(|| GameId(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Who sat in a seat.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Player {
    Account(AccountId),
    /// A name picked for the connection only.
    Guest(Name),
    /// A player who gave no name (a binary Reversi client, a text client that never sent
    /// `GAME NAME`): stored as [`ANONYMOUS`].
    Anonymous,
}

/// The name an anonymous player's seat is stored with (a reserved word: no one can take it).
pub const ANONYMOUS: &str = "anonymous";

/// One player of a finished game and the team they played for (teams count from 0).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Seat {
    pub team: u8,
    pub player: Player,
}

/// Whether a game moves ratings. Only games whose every seat is an account can be rated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    Rated,
    Casual,
}

/// How a game ended, for its result.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ending {
    /// By the rules, on the board.
    Rules,
    /// The players agreed (a draw offer accepted).
    Agreement,
    /// A player ran out of time.
    Time,
    /// A player resigned (left the game on purpose).
    Resignation,
    /// A player vanished: disconnected, broke the protocol, never moved.
    Abandonment,
    /// Stopped by the server: no result.
    Aborted,
}

impl Ending {
    pub const ALL: [Ending; 6] = [
        Ending::Rules,
        Ending::Agreement,
        Ending::Time,
        Ending::Resignation,
        Ending::Abandonment,
        Ending::Aborted,
    ];

    /// The word the database and the JSON export write.
    pub fn word(self) -> &'static str {
        match self {
            Ending::Rules => "rules",
            Ending::Agreement => "agreement",
            Ending::Time => "time",
            Ending::Resignation => "resignation",
            Ending::Abandonment => "abandonment",
            Ending::Aborted => "aborted",
        }
    }

    pub fn from_word(word: &str) -> Option<Ending> {
        Ending::ALL.into_iter().find(|e| e.word() == word)
    }
}

/// A finished game's result: a winning team, a draw, or none (aborted).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Outcome {
    Win { team: u8, ending: Ending },
    Draw { ending: Ending },
    Aborted,
}

impl Outcome {
    pub fn ending(&self) -> Ending {
        match self {
            Outcome::Win { ending, .. } | Outcome::Draw { ending } => *ending,
            Outcome::Aborted => Ending::Aborted,
        }
    }
}

/// One move: who made it, in the game's own notation, and how long it took.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MoveRecord {
    pub team: u8,
    pub notation: String,
    pub took_ms: u32,
}

/// A finished game as the server hands it to the store.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FinishedGame {
    pub id: GameId,
    /// The game's registry name (`reversi`, `draughts`).
    pub kind: String,
    pub mode: Mode,
    /// The clock, in the game's own words (`5m+3s`, `10s a move`).
    pub time_control: String,
    /// The seed of a game with a random set-up, to replay it.
    pub seed: u64,
    pub seats: Vec<Seat>,
    pub moves: Vec<MoveRecord>,
    pub outcome: Outcome,
    /// The result in words (`black wins 40-24`, `white left`).
    pub why: String,
    pub started: UnixMillis,
    pub ended: UnixMillis,
    /// The host the game ran on.
    pub host: String,
}

/// Whether `record_game` stored the game now, or had it already.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Recorded {
    Stored,
    AlreadyStored,
}

/// A seat as stored: the player's name then, and the ratings around a rated game.
#[derive(Clone, PartialEq, Debug)]
pub struct StoredSeat {
    pub team: u8,
    pub name: String,
    /// `None` for a guest.
    pub account: Option<AccountId>,
    pub before: Option<Rating>,
    pub after: Option<Rating>,
}

/// A game from the archive, whole: for replay and export.
#[derive(Clone, PartialEq, Debug)]
pub struct StoredGame {
    pub id: GameId,
    pub kind: String,
    pub mode: Mode,
    pub time_control: String,
    pub seed: u64,
    pub seats: Vec<StoredSeat>,
    pub moves: Vec<MoveRecord>,
    pub outcome: Outcome,
    pub why: String,
    pub started: UnixMillis,
    pub ended: UnixMillis,
    pub host: String,
}

/// A game in a list: no moves.
#[derive(Clone, PartialEq, Debug)]
pub struct GameSummary {
    pub id: GameId,
    pub kind: String,
    pub mode: Mode,
    /// Every seat's name, in seat order, with the team.
    pub players: Vec<(u8, String)>,
    pub outcome: Outcome,
    pub why: String,
    pub ended: UnixMillis,
}

/// A rating after one rated game, for a profile's history.
#[derive(Clone, PartialEq, Debug)]
pub struct RatingPoint {
    pub game: GameId,
    pub at: UnixMillis,
    pub rating: Rating,
}

/// A player's standing in one game kind.
#[derive(Clone, PartialEq, Debug)]
pub struct KindRating {
    pub kind: String,
    /// As of now: the deviation grown by the days since the last rated game.
    pub rating: Rating,
    pub games: u32,
    /// Oldest first.
    pub history: Vec<RatingPoint>,
}

/// What a player's page shows.
#[derive(Clone, PartialEq, Debug)]
pub struct Profile {
    pub account: Account,
    pub ratings: Vec<KindRating>,
    /// Newest first.
    pub recent: Vec<GameSummary>,
}

/// One line of a game's leaderboard.
#[derive(Clone, PartialEq, Debug)]
pub struct Standing {
    pub rank: u32,
    pub name: String,
    pub rating: Rating,
    pub games: u32,
}
