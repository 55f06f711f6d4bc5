//! The store's suite on PostgreSQL: one private server for this file (see
//! `common/postgres.rs`), a fresh database for each case; then backup and
//! restore with pg_dump and pg_restore. Skipped, loudly, without PostgreSQL.

mod common;

use std::process::Command;
use std::sync::{Arc, Mutex, Weak};

use common::postgres::Server;
use common::suite::{self, register, Open};
use reversi_store::*;

macro_rules! case_list {
    ($($case:ident),*) => {
        &[$((stringify!($case), suite::$case as fn(Open))),*]
    };
}

/// A case of the suite, by name.
type Case = (&'static str, fn(Open));

const CASES: &[Case] = for_each_case!(case_list);

/// The server the tests running at once share; stopped when the last lets go.
fn server() -> Option<Arc<Server>> {
    static SHARED: Mutex<Weak<Server>> = Mutex::new(Weak::new());
    let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(server) = shared.upgrade() {
        return Some(server);
    }
    match Server::start() {
        Ok(server) => {
            let server = Arc::new(server);
            *shared = Arc::downgrade(&server);
            Some(server)
        }
        Err(why) => {
            common::skipped(&why);
            None
        }
    }
}

#[test]
fn the_suite_on_postgresql() {
    let Some(server) = server() else { return };
    // The cases at once, a thread and a database each: PostgreSQL is the slow part.
    let failed: Vec<&str> = std::thread::scope(|scope| {
        let runs: Vec<_> = CASES
            .iter()
            .enumerate()
            .map(|(i, &(case, run))| {
                let server = &server;
                let thread = std::thread::Builder::new().name(case.into());
                let handle = thread
                    .spawn_scoped(scope, move || {
                        let db = format!("case{i}");
                        server.create_db(&db).unwrap();
                        let params = server.params(&db);
                        run(&|| -> Box<dyn Store> {
                            Box::new(PostgresStore::connect(&params).unwrap())
                        });
                    })
                    .unwrap();
                (case, handle)
            })
            .collect();
        runs.into_iter()
            .filter_map(|(case, handle)| handle.join().is_err().then_some(case))
            .collect()
    });
    assert!(
        failed.is_empty(),
        "failed on PostgreSQL (panics above): {failed:?}"
    );
}

#[test]
fn pg_dump_and_pg_restore_carry_the_store() {
    let Some(server) = server() else { return };
    server.create_db("live").unwrap();
    let mut store = PostgresStore::connect(&server.params("live")).unwrap();
    let (alice, bob) = (register(&mut store, "alice"), register(&mut store, "bob"));
    let g = suite::game(
        "d1",
        [Player::Account(alice.id), Player::Account(bob.id)],
        Mode::Rated,
        0,
    );
    store.record_game(&g).unwrap();
    let dump = server.dir().join("live.dump");
    let status = server
        .tool("pg_dump")
        .args(server.host_args())
        .args(["-F", "c", "-f"])
        .arg(&dump)
        .arg("live")
        .status()
        .unwrap();
    assert!(status.success(), "pg_dump: {status}");
    server.create_db("restored").unwrap();
    let restore: &mut Command = &mut server.tool("pg_restore");
    let status = restore
        .args(server.host_args())
        .args(["-d", "restored"])
        .arg(&dump)
        .status()
        .unwrap();
    assert!(status.success(), "pg_restore: {status}");
    let mut copy = PostgresStore::connect(&server.params("restored")).unwrap();
    assert_eq!(copy.game(&g.id).unwrap(), store.game(&g.id).unwrap());
    assert_eq!(copy.account(&suite::name("bob")), Ok(Some(bob.clone())));
    // Identity columns carry on after the restored rows.
    let carol = register(&mut copy, "carol");
    assert!(carol.id > bob.id);
}

/// The server's connections live as long as it does: one that PostgreSQL lost (a restart)
/// is made again, whether the restart happened while it was idle or it was used meanwhile.
#[test]
fn a_store_connects_again_after_postgresql_restarts() {
    // A server of its own: the other tests' must not stop under them.
    let server = match Server::start() {
        Ok(server) => server,
        Err(why) => return common::skipped(&why),
    };
    server.create_db("again").unwrap();
    let mut store = PostgresStore::connect(&server.params("again")).unwrap();
    register(&mut store, "alice");
    server.stop().unwrap();
    server.start_again().unwrap();
    let alice = store.account(&suite::name("alice")).unwrap();
    assert!(alice.is_some(), "read again after an idle restart");
    server.stop().unwrap();
    assert!(store.recent_games(1).is_err(), "PostgreSQL is down");
    server.start_again().unwrap();
    register(&mut store, "bob");
    assert_eq!(store.recent_games(1).unwrap(), vec![]);
}
