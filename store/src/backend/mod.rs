//! The little the store's logic needs of a database connection, implemented
//! for rusqlite's and for postgres's. Statements are written once, with
//! PostgreSQL's `$1` placeholders (SQLite reads them as `?1`).

pub(crate) mod postgres;
pub(crate) mod sqlite;

/// A parameter or a column, typed even when NULL (PostgreSQL wants to know).
#[derive(Clone, PartialEq, Debug)]
pub enum Value {
    Int(Option<i64>),
    Real(Option<f64>),
    Text(Option<String>),
    Blob(Option<Vec<u8>>),
}

/// What went wrong in the database; `retry` when running the transaction
/// again may succeed (a serialisation conflict, a lost race on a key).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DbError {
    pub message: String,
    pub retry: bool,
}

impl DbError {
    pub fn fatal(message: impl Into<String>) -> DbError {
        DbError {
            message: message.into(),
            retry: false,
        }
    }
}

/// Where the SQL the backends speak differs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

impl Dialect {
    /// Starts a transaction that writes: SQLite takes its write lock at once
    /// (no deadlock on upgrading); PostgreSQL checks that concurrent hosts'
    /// transactions could have run one after the other.
    pub fn begin(self) -> &'static str {
        match self {
            Dialect::Sqlite => "BEGIN IMMEDIATE",
            Dialect::Postgres => "BEGIN ISOLATION LEVEL SERIALIZABLE",
        }
    }
}

/// One connection.
pub trait Sql: Send {
    fn dialect(&self) -> Dialect;
    /// Statements without parameters, `;`-separated.
    fn batch(&mut self, sql: &str) -> Result<(), DbError>;
    /// One statement; the number of rows it changed.
    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, DbError>;
    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, DbError>;
}

/// A row of a query's answer, read column by column in order.
pub struct Row {
    values: std::vec::IntoIter<Value>,
}

impl Row {
    pub fn new(values: Vec<Value>) -> Row {
        Row {
            values: values.into_iter(),
        }
    }

    fn next(&mut self) -> Value {
        self.values.next().unwrap_or(Value::Int(None))
    }

    pub fn opt_int(&mut self) -> Result<Option<i64>, DbError> {
        match self.next() {
            Value::Int(v) => Ok(v),
            other => Err(DbError::fatal(format!(
                "expected an integer, got {other:?}"
            ))),
        }
    }

    pub fn int(&mut self) -> Result<i64, DbError> {
        self.opt_int()?
            .ok_or_else(|| DbError::fatal("expected an integer, got NULL"))
    }

    pub fn opt_real(&mut self) -> Result<Option<f64>, DbError> {
        match self.next() {
            Value::Real(v) => Ok(v),
            // SQLite stores a whole REAL like 1500.0 as such, but a NULL has no type.
            Value::Int(None) => Ok(None),
            other => Err(DbError::fatal(format!("expected a real, got {other:?}"))),
        }
    }

    pub fn real(&mut self) -> Result<f64, DbError> {
        self.opt_real()?
            .ok_or_else(|| DbError::fatal("expected a real, got NULL"))
    }

    pub fn text(&mut self) -> Result<String, DbError> {
        match self.next() {
            Value::Text(Some(v)) => Ok(v),
            other => Err(DbError::fatal(format!("expected text, got {other:?}"))),
        }
    }

    pub fn blob(&mut self) -> Result<Vec<u8>, DbError> {
        match self.next() {
            Value::Blob(Some(v)) => Ok(v),
            other => Err(DbError::fatal(format!("expected bytes, got {other:?}"))),
        }
    }
}
