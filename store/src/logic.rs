//! The store's operations, written once over [`Sql`]: each backend is only a
//! connection. Writes run in transactions that are run again when the
//! database says a concurrent one got in the way (several hosts, one database).

mod archive;
mod players;
mod rows;
mod tournaments;

use crate::backend::{DbError, Sql};
use crate::glicko2::{Glicko2, Rating};
use crate::names::Name;
use crate::secret::{ApiToken, Password, TokenId};
use crate::store::{Store, StoreError};
use crate::types::*;

/// How often a transaction is tried when concurrent ones keep getting in the way.
const TRIES: usize = 20;

/// A store over one connection of either backend.
pub struct SqlStore<C> {
    conn: C,
    glicko: Glicko2,
}

/// Why a transaction's work stopped.
pub(crate) enum Failure {
    Db(DbError),
    Store(StoreError),
}

impl From<DbError> for Failure {
    fn from(e: DbError) -> Failure {
        Failure::Db(e)
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Failure {
        Failure::Store(e)
    }
}

pub(crate) fn db_error(e: DbError) -> StoreError {
    StoreError::Database(e.message)
}

impl<C: Sql> SqlStore<C> {
    /// The store on `conn`, its schema brought up to date.
    pub(crate) fn start(mut conn: C) -> Result<SqlStore<C>, StoreError> {
        crate::migrations::apply(&mut conn)?;
        Ok(SqlStore {
            conn,
            glicko: Glicko2::default(),
        })
    }

    pub(crate) fn conn(&self) -> &C {
        &self.conn
    }

    pub(crate) fn conn_mut(&mut self) -> &mut C {
        &mut self.conn
    }

    /// Runs `work` in a transaction, again if the database asks for it.
    fn transaction<T>(
        &mut self,
        mut work: impl FnMut(&mut C, &Glicko2) -> Result<T, Failure>,
    ) -> Result<T, StoreError> {
        let mut tries = 0;
        loop {
            tries += 1;
            let outcome = self
                .conn
                .batch(self.conn.dialect().begin())
                .map_err(Failure::Db)
                .and_then(|()| work(&mut self.conn, &self.glicko))
                .and_then(|value| {
                    self.conn
                        .batch("COMMIT")
                        .map(|()| value)
                        .map_err(Failure::Db)
                });
            match outcome {
                Ok(value) => return Ok(value),
                Err(failure) => {
                    let _ = self.conn.batch("ROLLBACK");
                    match failure {
                        Failure::Db(e) if e.retry && tries < TRIES => back_off(tries),
                        Failure::Db(e) => return Err(db_error(e)),
                        Failure::Store(e) => return Err(e),
                    }
                }
            }
        }
    }
}

/// Waits a little before trying again, longer each time and by a different
/// amount in each process, so that two transactions that collided do not
/// collide again and again.
fn back_off(tries: usize) {
    let jitter = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() % 2000);
    let micros = (1000 + u64::from(jitter)) * tries as u64;
    std::thread::sleep(std::time::Duration::from_micros(micros));
}

impl<C: Sql> Store for SqlStore<C> {
    fn register(
        &mut self,
        name: &Name,
        password: &Password,
        now: UnixMillis,
    ) -> Result<Account, StoreError> {
        let hash = crate::secret::hash_password(password).map_err(StoreError::Database)?;
        self.transaction(|conn, _| players::register(conn, name, &hash, now))
    }

    fn sign_in(&mut self, name: &Name, password: &Password) -> Result<Option<Account>, StoreError> {
        players::sign_in(&mut self.conn, name, password).map_err(db_error)
    }

    fn account(&mut self, name: &Name) -> Result<Option<Account>, StoreError> {
        players::account(&mut self.conn, name).map_err(db_error)
    }

    fn set_password(&mut self, account: AccountId, password: &Password) -> Result<(), StoreError> {
        let hash = crate::secret::hash_password(password).map_err(StoreError::Database)?;
        self.transaction(|conn, _| players::set_password(conn, account, &hash))
    }

    fn create_token(
        &mut self,
        account: AccountId,
        label: &str,
        now: UnixMillis,
    ) -> Result<NewToken, StoreError> {
        players::check_label(label)?;
        let token = ApiToken::generate().map_err(StoreError::Database)?;
        self.transaction(|conn, _| players::create_token(conn, account, label, &token, now))
    }

    fn tokens(&mut self, account: AccountId) -> Result<Vec<TokenInfo>, StoreError> {
        players::tokens(&mut self.conn, account).map_err(db_error)
    }

    fn revoke_token(&mut self, account: AccountId, token: &TokenId) -> Result<bool, StoreError> {
        self.transaction(|conn, _| Ok(players::revoke_token(conn, account, token)?))
    }

    fn token_account(&mut self, token: &ApiToken) -> Result<Option<TokenSignIn>, StoreError> {
        players::token_account(&mut self.conn, token).map_err(db_error)
    }

    fn record_token_use(&mut self, token: &TokenId, now: UnixMillis) -> Result<(), StoreError> {
        self.transaction(|conn, _| Ok(players::record_token_use(conn, token, now)?))
    }

    fn record_game(&mut self, game: &FinishedGame) -> Result<Recorded, StoreError> {
        archive::check(game)?;
        self.transaction(|conn, glicko| archive::record(conn, glicko, game))
    }

    /// One transaction, a savepoint a game: a game refused leaves the others
    /// stored. If the batch fails as a whole, each game is tried alone.
    fn record_games(&mut self, games: &[FinishedGame]) -> Vec<Result<Recorded, StoreError>> {
        let checked: Vec<_> = games.iter().map(archive::check).collect();
        let batch = self.transaction(|conn, glicko| {
            let mut results = Vec::with_capacity(games.len());
            for (game, check) in games.iter().zip(&checked) {
                results.push(match check {
                    Err(e) => Err(e.clone()),
                    Ok(()) => archive::record_in_savepoint(conn, glicko, game)?,
                });
            }
            Ok(results)
        });
        batch.unwrap_or_else(|_| games.iter().map(|game| self.record_game(game)).collect())
    }

    fn rating(
        &mut self,
        account: AccountId,
        kind: &str,
        now: UnixMillis,
    ) -> Result<Rating, StoreError> {
        let glicko = self.glicko;
        archive::current_rating(&mut self.conn, &glicko, account, kind, now).map_err(db_error)
    }

    fn ratings(
        &mut self,
        account: AccountId,
        now: UnixMillis,
    ) -> Result<Vec<(String, Rating)>, StoreError> {
        let glicko = self.glicko;
        archive::ratings(&mut self.conn, &glicko, account, now).map_err(db_error)
    }

    fn games_of(
        &mut self,
        account: AccountId,
        kind: Option<&str>,
        limit: usize,
    ) -> Result<Vec<GameSummary>, StoreError> {
        archive::games_of(&mut self.conn, account, kind, limit).map_err(db_error)
    }

    fn profile(
        &mut self,
        name: &Name,
        recent: usize,
        now: UnixMillis,
    ) -> Result<Option<Profile>, StoreError> {
        let Some(account) = players::account(&mut self.conn, name).map_err(db_error)? else {
            return Ok(None);
        };
        let glicko = self.glicko;
        archive::profile(&mut self.conn, &glicko, account, recent, now)
            .map(Some)
            .map_err(db_error)
    }

    fn leaderboard(
        &mut self,
        kind: &str,
        limit: usize,
        now: UnixMillis,
    ) -> Result<Vec<Standing>, StoreError> {
        let glicko = self.glicko;
        archive::leaderboard(&mut self.conn, &glicko, kind, limit, now).map_err(db_error)
    }

    fn recent_games(&mut self, limit: usize) -> Result<Vec<GameSummary>, StoreError> {
        archive::recent_games(&mut self.conn, limit).map_err(db_error)
    }

    fn game(&mut self, id: &GameId) -> Result<Option<StoredGame>, StoreError> {
        archive::game(&mut self.conn, id).map_err(db_error)
    }

    fn save_tournament(&mut self, id: u64, state: &str) -> Result<(), StoreError> {
        tournaments::save(&mut self.conn, id, state, UnixMillis::now()).map_err(db_error)
    }

    fn tournaments(&mut self) -> Result<Vec<(u64, String)>, StoreError> {
        tournaments::all(&mut self.conn).map_err(db_error)
    }
}
