//! The store's operations, whatever the database.

use std::fmt;

use crate::glicko2::Rating;
use crate::names::Name;
use crate::secret::{ApiToken, Password, TokenId};
use crate::types::*;

/// Why an operation failed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum StoreError {
    /// Registering a name that is taken (in any case or form).
    NameTaken,
    NoSuchAccount,
    /// A new API token for an account that holds [`TOKENS_PER_ACCOUNT`] live ones already.
    TooManyTokens,
    /// A game or token the store cannot accept, and why.
    Invalid(String),
    /// The database failed (connection, disk, a bug): its words.
    Database(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::NameTaken => f.write_str("that name is taken"),
            StoreError::NoSuchAccount => f.write_str("no such account"),
            StoreError::TooManyTokens => write!(
                f,
                "an account holds at most {TOKENS_PER_ACCOUNT} API tokens; revoke one first"
            ),
            StoreError::Invalid(why) => write!(f, "invalid: {why}"),
            StoreError::Database(why) => write!(f, "database: {why}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// Players, tokens, ratings and the archive. Each implementation owns one
/// connection (`&mut self`): a thread or a process opens its own.
pub trait Store: Send {
    /// A new account; its password is stored as an Argon2id hash.
    fn register(
        &mut self,
        name: &Name,
        password: &Password,
        now: UnixMillis,
    ) -> Result<Account, StoreError>;

    /// The account if the password is its own; `None` for a wrong password or
    /// no such account, alike (and in about the same time).
    fn sign_in(&mut self, name: &Name, password: &Password) -> Result<Option<Account>, StoreError>;

    fn account(&mut self, name: &Name) -> Result<Option<Account>, StoreError>;

    fn set_password(&mut self, account: AccountId, password: &Password) -> Result<(), StoreError>;

    /// A new API token for `account`; its text is in the answer and nowhere else.
    /// Refused ([`StoreError::TooManyTokens`]) when the account holds [`TOKENS_PER_ACCOUNT`].
    fn create_token(
        &mut self,
        account: AccountId,
        label: &str,
        now: UnixMillis,
    ) -> Result<NewToken, StoreError>;

    /// The account's live tokens, oldest first.
    fn tokens(&mut self, account: AccountId) -> Result<Vec<TokenInfo>, StoreError>;

    /// Whether a token of `account`'s was revoked (false: it had no such token).
    fn revoke_token(&mut self, account: AccountId, token: &TokenId) -> Result<bool, StoreError>;

    /// The account a live token belongs to, with the token's last use as kept (a read:
    /// the caller writes the use with [`Store::record_token_use`] when it is due).
    fn token_account(&mut self, token: &ApiToken) -> Result<Option<TokenSignIn>, StoreError>;

    /// Keeps `now` as the token's last use, unless a use less than
    /// [`TOKEN_USE_RECORDED_EVERY_MS`] before it is kept already (another host's).
    fn record_token_use(&mut self, token: &TokenId, now: UnixMillis) -> Result<(), StoreError>;

    /// Archives a finished game and, if rated, moves its players' ratings.
    /// Idempotent by the game's id: the second time changes nothing.
    fn record_game(&mut self, game: &FinishedGame) -> Result<Recorded, StoreError>;

    /// Archives several games, one answer each in order, as `record_game`
    /// would; a backend may do it in one transaction (one commit, one sync).
    fn record_games(&mut self, games: &[FinishedGame]) -> Vec<Result<Recorded, StoreError>> {
        games.iter().map(|game| self.record_game(game)).collect()
    }

    /// `account`'s rating in `kind` at `now` (an unrated player's if none).
    fn rating(
        &mut self,
        account: AccountId,
        kind: &str,
        now: UnixMillis,
    ) -> Result<Rating, StoreError>;

    /// `account`'s rating in each game kind it has one in, at `now`, by kind.
    fn ratings(
        &mut self,
        account: AccountId,
        now: UnixMillis,
    ) -> Result<Vec<(String, Rating)>, StoreError>;

    /// The `limit` last finished games `account` played, of `kind` only if given, newest first.
    fn games_of(
        &mut self,
        account: AccountId,
        kind: Option<&str>,
        limit: usize,
    ) -> Result<Vec<GameSummary>, StoreError>;

    /// The player's page: ratings per game kind with history, and their `recent` last games.
    fn profile(
        &mut self,
        name: &Name,
        recent: usize,
        now: UnixMillis,
    ) -> Result<Option<Profile>, StoreError>;

    /// The best `limit` rated players of `kind`, provisional ones included (marked by their deviation).
    fn leaderboard(
        &mut self,
        kind: &str,
        limit: usize,
        now: UnixMillis,
    ) -> Result<Vec<Standing>, StoreError>;

    /// The `limit` last finished games, newest first.
    fn recent_games(&mut self, limit: usize) -> Result<Vec<GameSummary>, StoreError>;

    /// One game, whole, for replay and export.
    fn game(&mut self, id: &GameId) -> Result<Option<StoredGame>, StoreError>;

    /// Keeps tournament `id` as `state` (the server's JSON of it), replacing what was kept.
    fn save_tournament(&mut self, id: u64, state: &str) -> Result<(), StoreError>;

    /// Every tournament kept: its id and state, by id.
    fn tournaments(&mut self) -> Result<Vec<(u64, String)>, StoreError>;
}
