//! Players' requests before a game, as every protocol that has them hands them to the
//! supervisor (TEXT-PROTOCOL.md §4.4: names, accounts, API tokens, history), and what
//! the supervisor answers. The text protocol (and the page's WebSocket, which speaks
//! its lines) reads and writes them; the binary protocols have none, so their clients
//! stay anonymous.

use reversi_games::registry::Module;
use reversi_store::{ApiToken, GameId, Name, Password, TokenId};

use crate::terms::ShownRating;

/// The most games one `GAME HISTORY` lists, and how many when it says no count.
pub const HISTORY_MAX: usize = 100;
pub const HISTORY_DEFAULT: usize = 20;

/// What a waiting client asks about who it is or what the store keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// `GAME NAME name`: a guest's name for this connection.
    Name(Name),
    /// `GAME REGISTER name password…`.
    Register { name: Name, password: Password },
    /// `GAME SIGNIN …`.
    SignIn(Credentials),
    /// `GAME SIGNOUT`.
    SignOut,
    /// `GAME APITOKEN NEW label`.
    NewToken { label: String },
    /// `GAME APITOKENS`.
    Tokens,
    /// `GAME APITOKEN REVOKE id`.
    Revoke(TokenId),
    /// `GAME HISTORY [name] [game] [count]`; no name: the signed-in account's.
    History {
        name: Option<Name>,
        game: Option<&'static Module>,
        count: usize,
    },
    /// `GAME EXPORT id [format]`; no format: the game's own.
    Export { id: GameId, format: Option<Format> },
}

impl Request {
    /// Whether the request changes who the connection is (refused while it waits for a
    /// game: the seat it will take was chosen as it is).
    pub fn changes_identity(&self) -> bool {
        matches!(
            self,
            Request::Name(_) | Request::Register { .. } | Request::SignIn(_) | Request::SignOut
        )
    }
}

/// How a client signs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    Password { name: Name, password: Password },
    Token(ApiToken),
}

/// A file format `GAME EXPORT` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Ggf,
    Pdn,
    Txt,
    Json,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::Ggf, Format::Pdn, Format::Txt, Format::Json];

    pub fn word(self) -> &'static str {
        match self {
            Format::Ggf => "ggf",
            Format::Pdn => "pdn",
            Format::Txt => "txt",
            Format::Json => "json",
        }
    }

    pub fn from_word(word: &str) -> Option<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.word().eq_ignore_ascii_case(word))
    }
}

/// One archived game as `GAME ARCHIVED` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Archived {
    pub id: String,
    pub game: String,
    pub ended_ms: i64,
    /// `1-0`, `0-1`, `1/2`, `aborted`.
    pub result: String,
    pub rated: bool,
    /// One word each, in team order: `Alice`, `bob~` (a guest), `-` (anonymous).
    pub players: Vec<String>,
}

/// One API token as `GAME APITOKENS` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub id: String,
    pub label: String,
    pub created_ms: i64,
    /// Its last sign-in (to the minute); `None`: never used.
    pub last_used_ms: Option<i64>,
}

/// What the supervisor answers a [`Request`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// `GAME GUEST name`.
    Guest(String),
    /// `GAME SIGNEDIN name game=rating…`.
    SignedIn {
        name: String,
        ratings: Vec<(String, ShownRating)>,
    },
    /// `GAME SIGNEDOUT`.
    SignedOut,
    /// `GAME APITOKEN id token label`: the whole token, shown this once.
    NewToken { token: ApiToken, label: String },
    /// `GAME APITOKEN id - label created last-used` each, then `GAME APITOKENS n`.
    Tokens(Vec<Listed>),
    /// `GAME NEWS API token id revoked`.
    Revoked(String),
    /// `GAME ARCHIVED …` each, then `GAME HISTORY n`.
    History(Vec<Archived>),
    /// `GAME FILE id format n`, then the file's n lines as `GAME LINE text`.
    File {
        id: String,
        format: Format,
        text: String,
    },
}
