//! Which database the server uses: one value made from its options, that
//! opens a store wherever a connection is needed (the writer's thread, a
//! reader after `fork`).

use std::fmt;
use std::path::{Path, PathBuf};

use crate::backend::postgres::PostgresStore;
use crate::backend::sqlite::SqliteStore;
use crate::store::{Store, StoreError};

#[derive(Clone, PartialEq, Eq)]
pub enum Database {
    /// SQLite in this data directory (the default).
    Sqlite(PathBuf),
    /// PostgreSQL at this connection string (several hosts, one database).
    Postgres(String),
}

impl Database {
    /// PostgreSQL if a connection string is given, else SQLite in `data_dir`.
    pub fn choose(data_dir: &Path, postgres: Option<&str>) -> Database {
        match postgres {
            Some(params) => Database::Postgres(params.to_owned()),
            None => Database::Sqlite(data_dir.to_owned()),
        }
    }

    /// A new connection, the schema brought up to date.
    pub fn open(&self) -> Result<Box<dyn Store>, StoreError> {
        Ok(match self {
            Database::Sqlite(dir) => Box::new(SqliteStore::open(dir)?),
            Database::Postgres(params) => Box::new(PostgresStore::connect(params)?),
        })
    }
}

/// For logs: a connection string may hold a password, so it is not shown.
impl fmt::Debug for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Database::Sqlite(dir) => write!(f, "SQLite in {}", dir.display()),
            Database::Postgres(_) => f.write_str("PostgreSQL (connection string hidden)"),
        }
    }
}

impl fmt::Display for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_unless_a_connection_string_is_given() {
        let dir = tempfile::tempdir().unwrap();
        let database = Database::choose(dir.path(), None);
        assert_eq!(database, Database::Sqlite(dir.path().to_owned()));
        let mut store = database.open().unwrap();
        assert_eq!(store.recent_games(1), Ok(vec![]));
        assert!(dir.path().join("reversid.sqlite3").exists());
        let pg = Database::choose(dir.path(), Some("postgresql://u:secret@db/reversid"));
        assert_eq!(
            pg,
            Database::Postgres("postgresql://u:secret@db/reversid".into())
        );
    }

    #[test]
    fn connection_strings_never_print() {
        let pg = Database::Postgres("host=db password=secret".into());
        assert!(!format!("{pg} {pg:?}").contains("secret"));
    }

    #[test]
    fn a_database_that_cannot_be_reached_says_so() {
        // A socket directory with no server in it: refused at once, no network.
        let dir = tempfile::tempdir().unwrap();
        let pg = Database::Postgres(format!("host={} dbname=x", dir.path().display()));
        let error = pg.open().err().expect("no server there");
        assert!(
            matches!(&error, StoreError::Database(why) if why.starts_with("connecting to PostgreSQL")),
            "{error}"
        );
    }
}
