//! The store's suite on SQLite, one test a case, each in a database of its
//! own; then SQLite's own: the file in the data directory, WAL, backup and restore.

mod common;

use common::suite::{self, name, register, T0};
use reversi_store::*;

macro_rules! sqlite_cases {
    ($($case:ident),*) => {
        $(
            #[test]
            fn $case() {
                let dir = tempfile::tempdir().unwrap();
                let open = || -> Box<dyn Store> { Box::new(SqliteStore::open(dir.path()).unwrap()) };
                suite::$case(&open);
            }
        )*
    };
}

for_each_case!(sqlite_cases);

#[test]
fn the_database_is_created_in_the_data_directory_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let store = SqliteStore::open(&data).unwrap();
    assert_eq!(store.path(), Some(data.join("reversid.sqlite3")));
    drop(store);
    let conn = rusqlite::Connection::open(data.join("reversid.sqlite3")).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let versions: i64 = conn
        .query_row("SELECT count(*) FROM schema_migrations", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(versions, 1);
}

#[test]
fn an_online_backup_restores_what_it_held() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(&dir.path().join("live")).unwrap();
    let (alice, bob) = (register(&mut store, "alice"), register(&mut store, "bob"));
    let first = suite::game(
        "b1",
        [Player::Account(alice.id), Player::Account(bob.id)],
        Mode::Rated,
        0,
    );
    store.record_game(&first).unwrap();
    let backup = dir.path().join("backup.sqlite3");
    store.backup_to(&backup).unwrap();
    // After the backup: a game and an account the backup does not hold.
    let later = suite::game(
        "b2",
        [Player::Account(bob.id), Player::Account(alice.id)],
        Mode::Rated,
        1,
    );
    store.record_game(&later).unwrap();
    register(&mut store, "carol");
    // The copy is a store of its own.
    let mut copy = SqliteStore::open_file(&backup).unwrap();
    assert!(copy.game(&first.id).unwrap().is_some());
    assert_eq!(copy.game(&later.id), Ok(None));
    // Restoring brings the live store back to the backup.
    store.restore_from(&backup).unwrap();
    assert_eq!(store.recent_games(10).unwrap().len(), 1);
    assert_eq!(store.account(&name("carol")), Ok(None));
    let rating = store.rating(alice.id, "reversi", T0).unwrap();
    assert_eq!(rating, copy.rating(alice.id, "reversi", T0).unwrap());
}
