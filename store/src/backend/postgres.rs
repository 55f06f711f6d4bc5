//! PostgreSQL through the `postgres` crate: several hosts, one database.

use postgres::error::SqlState;
use postgres::types::{ToSql, Type};
use postgres::{Client, NoTls, Statement};
use std::collections::HashMap;

use super::{DbError, Dialect, Row, Sql, Value};
use crate::logic::SqlStore;
use crate::store::StoreError;

/// The store on PostgreSQL.
pub type PostgresStore = SqlStore<PgConnection>;

/// A client and the statements it has prepared (one round trip saved a statement).
/// A client whose connection was lost (PostgreSQL restarted, say) is replaced by a new
/// one at the next statement outside a transaction, and a statement outside one that
/// finds its connection lost (an idle client learns of it only then) is run once more on
/// a new one: the writer, the page and account workers hold theirs for the server's life.
/// Inside a transaction a lost connection stays an error, so that no later statement of
/// the transaction runs on its own (the store writes only inside transactions).
pub struct PgConnection {
    client: Client,
    prepared: HashMap<String, Statement>,
    /// The connection string, to connect again (never printed: it may hold a password).
    params: String,
    in_transaction: bool,
}

impl PgConnection {
    /// Connects again if the connection was lost outside a transaction.
    fn alive(&mut self) -> Result<(), DbError> {
        if self.in_transaction || !self.client.is_closed() {
            return Ok(());
        }
        self.client = Client::connect(&self.params, NoTls)
            .map_err(|e| DbError::fatal(format!("connecting to PostgreSQL again: {e}")))?;
        self.prepared.clear();
        Ok(())
    }

    /// Runs `work`, and once more on a new connection if it found the connection lost
    /// outside a transaction.
    fn again<T>(
        &mut self,
        mut work: impl FnMut(&mut Self) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        self.alive()?;
        match work(self) {
            Err(_) if !self.in_transaction && self.client.is_closed() => {
                self.alive()?;
                work(self)
            }
            done => done,
        }
    }

    fn statement(&mut self, sql: &str) -> Result<Statement, DbError> {
        if let Some(statement) = self.prepared.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql).map_err(error)?;
        self.prepared.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }
}

impl SqlStore<PgConnection> {
    /// Connects with a libpq-style string (`host=/run/postgresql dbname=reversid`
    /// or `postgresql://user@host/db`) and brings the schema up to date.
    /// Without TLS: the database is on the host or on a private network.
    pub fn connect(params: &str) -> Result<PostgresStore, StoreError> {
        let client = Client::connect(params, NoTls)
            .map_err(|e| StoreError::Database(format!("connecting to PostgreSQL: {e}")))?;
        SqlStore::start(PgConnection {
            client,
            prepared: HashMap::new(),
            params: params.to_owned(),
            in_transaction: false,
        })
    }
}

fn error(e: postgres::Error) -> DbError {
    let retry = matches!(
        e.code(),
        Some(&SqlState::T_R_SERIALIZATION_FAILURE)
            | Some(&SqlState::T_R_DEADLOCK_DETECTED)
            | Some(&SqlState::UNIQUE_VIOLATION)
    );
    // The server's own message, not just "db error".
    let message = e
        .as_db_error()
        .map_or_else(|| e.to_string(), |db| db.to_string());
    DbError { message, retry }
}

fn params(values: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    values
        .iter()
        .map(|v| -> &(dyn ToSql + Sync) {
            match v {
                Value::Int(v) => v,
                Value::Real(v) => v,
                Value::Text(v) => v,
                Value::Blob(v) => v,
            }
        })
        .collect()
}

fn row(row: &postgres::Row) -> Result<Row, DbError> {
    let mut values = Vec::with_capacity(row.len());
    for (i, column) in row.columns().iter().enumerate() {
        let value = match *column.type_() {
            Type::INT8 => Value::Int(row.try_get(i).map_err(error)?),
            Type::INT4 => Value::Int(
                row.try_get::<_, Option<i32>>(i)
                    .map_err(error)?
                    .map(i64::from),
            ),
            Type::FLOAT8 => Value::Real(row.try_get(i).map_err(error)?),
            Type::TEXT | Type::VARCHAR => Value::Text(row.try_get(i).map_err(error)?),
            Type::BYTEA => Value::Blob(row.try_get(i).map_err(error)?),
            ref other => {
                return Err(DbError::fatal(format!(
                    "no column of type {other} expected"
                )))
            }
        };
        values.push(value);
    }
    Ok(Row::new(values))
}

impl Sql for PgConnection {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn batch(&mut self, sql: &str) -> Result<(), DbError> {
        // The store's transactions begin with `BEGIN…` and end with a lone `COMMIT` or
        // `ROLLBACK` (a savepoint's `ROLLBACK TO` does not end one). Ended only after the
        // statement: a `COMMIT` that finds its connection lost must fail, not run again.
        let done = self.again(|c| c.client.batch_execute(sql).map_err(error));
        if sql.starts_with("BEGIN") && done.is_ok() {
            self.in_transaction = true;
        } else if sql == "COMMIT" || sql == "ROLLBACK" {
            self.in_transaction = false;
        }
        done
    }

    fn execute(&mut self, sql: &str, values: &[Value]) -> Result<u64, DbError> {
        self.again(|c| {
            let statement = c.statement(sql)?;
            c.client.execute(&statement, &params(values)).map_err(error)
        })
    }

    fn query(&mut self, sql: &str, values: &[Value]) -> Result<Vec<Row>, DbError> {
        self.again(|c| {
            let statement = c.statement(sql)?;
            c.client
                .query(&statement, &params(values))
                .map_err(error)?
                .iter()
                .map(row)
                .collect()
        })
    }
}
