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
pub struct PgConnection {
    client: Client,
    prepared: HashMap<String, Statement>,
}

impl PgConnection {
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
        self.client.batch_execute(sql).map_err(error)
    }

    fn execute(&mut self, sql: &str, values: &[Value]) -> Result<u64, DbError> {
        let statement = self.statement(sql)?;
        self.client
            .execute(&statement, &params(values))
            .map_err(error)
    }

    fn query(&mut self, sql: &str, values: &[Value]) -> Result<Vec<Row>, DbError> {
        let statement = self.statement(sql)?;
        self.client
            .query(&statement, &params(values))
            .map_err(error)?
            .iter()
            .map(row)
            .collect()
    }
}
