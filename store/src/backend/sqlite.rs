//! SQLite through rusqlite (its bundled SQLite): one file in the server's
//! data directory, in WAL mode, created on first start.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, ErrorCode};

use super::{DbError, Dialect, Row, Sql, Value};
use crate::logic::SqlStore;
use crate::store::StoreError;

/// The database's file name in the data directory.
pub const FILE_NAME: &str = "reversid.sqlite3";
/// Prepared statements kept: the store's few dozen, moves' chunk sizes included.
const STATEMENTS: usize = 128;
/// How long a statement waits for another connection's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The store on SQLite.
pub type SqliteStore = SqlStore<Connection>;

impl SqlStore<Connection> {
    /// Opens (creating it and the directory if need be) `dir`'s database and
    /// brings its schema up to date.
    pub fn open(dir: &Path) -> Result<SqliteStore, StoreError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::Database(format!("creating {}: {e}", dir.display())))?;
        SqliteStore::open_file(&dir.join(FILE_NAME))
    }

    /// Opens the database in the file `path`.
    pub fn open_file(path: &Path) -> Result<SqliteStore, StoreError> {
        let conn = Connection::open(path).map_err(|e| opening(path, e))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| opening(path, e))?;
        // Room for every statement the store prepares (rusqlite keeps 16 by default).
        conn.set_prepared_statement_cache_capacity(STATEMENTS);
        // WAL: readers do not block the writer nor it them; NORMAL is durable
        // across a crash of the process (what the journal guards against).
        conn.pragma_update(None, "journal_mode", "WAL")
            .and_then(|()| conn.pragma_update(None, "synchronous", "NORMAL"))
            .and_then(|()| conn.pragma_update(None, "foreign_keys", "ON"))
            .map_err(|e| opening(path, e))?;
        SqlStore::start(conn)
    }

    /// The file this store's database lives in.
    pub fn path(&self) -> Option<PathBuf> {
        self.conn().path().map(PathBuf::from)
    }

    /// Copies the whole database into the file `to`, while the store is in
    /// use (SQLite's online backup): the copy is a consistent database.
    pub fn backup_to(&self, to: &Path) -> Result<(), StoreError> {
        let mut target = Connection::open(to).map_err(|e| opening(to, e))?;
        let backup = rusqlite::backup::Backup::new(self.conn(), &mut target)
            .map_err(|e| StoreError::Database(format!("backing up: {e}")))?;
        backup
            .run_to_completion(256, Duration::from_millis(5), None)
            .map_err(|e| StoreError::Database(format!("backing up: {e}")))
    }

    /// Replaces this database's contents with the backup in `from`.
    pub fn restore_from(&mut self, from: &Path) -> Result<(), StoreError> {
        self.conn_mut()
            .restore(
                rusqlite::MAIN_DB,
                from,
                None::<fn(rusqlite::backup::Progress)>,
            )
            .map_err(|e| StoreError::Database(format!("restoring {}: {e}", from.display())))?;
        crate::migrations::apply(self.conn_mut())
    }
}

fn opening(path: &Path, e: rusqlite::Error) -> StoreError {
    StoreError::Database(format!("opening {}: {e}", path.display()))
}

fn error(e: rusqlite::Error) -> DbError {
    let retry = matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    );
    DbError {
        message: e.to_string(),
        retry,
    }
}

/// `$1` to `?1`: the statements use PostgreSQL's placeholders.
fn placeholders(sql: &str) -> String {
    sql.replace('$', "?")
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Value::Int(v) => v.to_sql()?,
            Value::Real(v) => v.to_sql()?,
            Value::Text(v) => v.to_sql()?,
            Value::Blob(v) => v.to_sql()?,
        })
    }
}

fn value(v: ValueRef<'_>) -> Result<Value, DbError> {
    Ok(match v {
        ValueRef::Null => Value::Int(None),
        ValueRef::Integer(i) => Value::Int(Some(i)),
        ValueRef::Real(r) => Value::Real(Some(r)),
        ValueRef::Text(t) => Value::Text(Some(
            String::from_utf8(t.to_vec()).map_err(|e| DbError::fatal(e.to_string()))?,
        )),
        ValueRef::Blob(b) => Value::Blob(Some(b.to_vec())),
    })
}

impl Sql for Connection {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn batch(&mut self, sql: &str) -> Result<(), DbError> {
        self.execute_batch(sql).map_err(error)
    }

    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, DbError> {
        let mut statement = self.prepare_cached(&placeholders(sql)).map_err(error)?;
        let changed = statement
            .execute(rusqlite::params_from_iter(params))
            .map_err(error)?;
        Ok(changed as u64)
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, DbError> {
        let mut statement = self.prepare_cached(&placeholders(sql)).map_err(error)?;
        let columns = statement.column_count();
        let mut rows = statement
            .query(rusqlite::params_from_iter(params))
            .map_err(error)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(error)? {
            let values = (0..columns)
                .map(|i| value(row.get_ref(i).map_err(error)?))
                .collect::<Result<Vec<_>, _>>()?;
            out.push(Row::new(values));
        }
        Ok(out)
    }
}
