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
//!
//! ```
//! use reversi_store::*;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let mut store = SqliteStore::open(dir.path()).unwrap(); // creates reversid.sqlite3
//! let now = UnixMillis::now();
//! let password = Password::new("correct horse").unwrap();
//! let alice = store.register(&Name::new("Alice").unwrap(), &password, now).unwrap();
//! let bob = store.register(&Name::new("Bob").unwrap(), &password, now).unwrap();
//! let game = FinishedGame {
//!     id: GameId::new("host-a:1").unwrap(),
//!     kind: "tictactoe".into(),
//!     mode: Mode::Rated,
//!     time_control: "30s a move".into(),
//!     seed: 0,
//!     seats: vec![
//!         Seat { team: 0, player: Player::Account(alice.id) },
//!         Seat { team: 1, player: Player::Account(bob.id) },
//!     ],
//!     moves: vec![MoveRecord { team: 0, notation: "b2".into(), took_ms: 900 }],
//!     outcome: Outcome::Win { team: 0, ending: Ending::Resignation },
//!     why: "O left".into(),
//!     started: now,
//!     ended: now,
//!     host: "host-a".into(),
//! };
//! assert_eq!(store.record_game(&game), Ok(Recorded::Stored));
//! assert_eq!(store.record_game(&game), Ok(Recorded::AlreadyStored));
//! let board = store.leaderboard("tictactoe", 10, now).unwrap();
//! assert_eq!(board[0].name, "Alice");
//! let stored = store.game(&game.id).unwrap().unwrap();
//! assert!(export::standard(&stored).unwrap().text.ends_with("X b2\n"));
//! ```

mod backend;
mod database;
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
pub use database::Database;
pub use glicko2::{Glicko2, Rating, Score, PROVISIONAL_DEVIATION};
pub use limiter::{AddressLimiter, Limits, SignInLimiter, TooMany};
pub use names::{Name, NameError};
pub use secret::{ApiToken, Password, PasswordError, TokenId};
pub use store::{Store, StoreError};
pub use types::*;
pub use writer::{Submit, Wake, Writer, Written};
