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
    // Every migration applied once, in order from 1 (tournaments 2, the seats' `ended_ms` 3).
    let (versions, first, last): (i64, i64, i64) = conn
        .query_row(
            "SELECT count(*), min(version), max(version) FROM schema_migrations",
            [],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .unwrap();
    assert_eq!((first, last), (1, versions));
    assert!(versions >= 3, "{versions} migrations applied");
}

#[test]
fn a_tournament_kept_again_replaces_what_was_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(dir.path()).unwrap();
    assert_eq!(store.tournaments(), Ok(vec![]));
    store.save_tournament(2, "{\"round\":1}").unwrap();
    store.save_tournament(1, "{}").unwrap();
    store.save_tournament(2, "{\"round\":2}").unwrap();
    drop(store);
    let mut store = SqliteStore::open(dir.path()).unwrap();
    assert_eq!(
        store.tournaments(),
        Ok(vec![(1, "{}".to_owned()), (2, "{\"round\":2}".to_owned())])
    );
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

#[test]
fn a_full_writer_queue_hands_the_game_back_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(dir.path()).unwrap();
    let (alice, bob) = (register(&mut store, "alice"), register(&mut store, "bob"));
    let game = |i: i64| {
        suite::game(
            &format!("q{i}"),
            [Player::Account(alice.id), Player::Account(bob.id)],
            Mode::Rated,
            i,
        )
    };
    // Another connection holds the write lock: the writer's first game waits on it.
    let blocker = rusqlite::Connection::open(store.path().unwrap()).unwrap();
    blocker.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let writer = Writer::start(Box::new(store), 2, None);
    let mut accepted = 0;
    let refused = loop {
        match writer.submit(game(accepted)) {
            Ok(()) => accepted += 1,
            Err(refused) => break refused,
        }
        // The queue holds 2, the writer's batch in hand what it found queued.
        assert!(accepted < 100, "the queue never filled");
    };
    let Submit::Full(back) = refused else {
        panic!("expected a full queue, got {refused:?}")
    };
    assert_eq!(*back, game(accepted), "the refused game comes back whole");
    blocker.execute_batch("COMMIT").unwrap();
    let written = writer.finish();
    assert_eq!(written.len() as i64, accepted);
    assert!(written.iter().all(|w| w.result == Ok(Recorded::Stored)));
}
