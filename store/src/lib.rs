//! The server's memory: players (guests by name, accounts with passwords and
//! API tokens), Glicko-2 ratings per game kind, and the archive of finished
//! games with their exports. One [`Store`] trait, two backends: SQLite
//! embedded (the default) and PostgreSQL (several hosts, one database).
//!
//! The store's logic is written once ([`logic`]) over a small SQL connection
//! trait that each backend implements; only the schema's types and a few
//! statements differ per dialect ([`migrations`]). Nothing here runs on the
//! supervisor's loop: the [`Writer`] owns a connection on a thread of its own.
//! `spec/STORE.md` has the schema and the decisions.

mod backend;
pub mod export;
mod glicko2;
mod limiter;
mod logic;
mod migrations;
mod names;
mod secret;
mod store;
mod types;
mod writer;

pub use backend::postgres::PostgresStore;
pub use backend::sqlite::SqliteStore;
pub use glicko2::{Glicko2, Rating, Score, PROVISIONAL_DEVIATION};
pub use limiter::{Limits, SignInLimiter, TooMany};
pub use names::{Name, NameError};
pub use secret::{ApiToken, Password, PasswordError, TokenId};
pub use store::{Store, StoreError};
pub use types::*;
pub use writer::{Submit, Wake, Writer, Written};
