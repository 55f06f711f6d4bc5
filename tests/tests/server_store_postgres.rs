//! The store in PostgreSQL, end to end (spec/STORE.md §10): reversid with `--database`
//! archives its games there, and games that end while PostgreSQL is down wait in their
//! journals and are archived, each once, when it is back. Skipped, with a message, where
//! PostgreSQL's programs are not installed (scripts/install-tools.sh).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use reversi_store::{Outcome, PostgresStore, Store, StoredGame};
use reversi_tests::postgres;
use reversi_tests::{Msg, Server};

const DB: &str = "reversid";

/// Waits until the archive at `conninfo` holds `count` games; returns them.
fn archived(conninfo: &str, count: usize) -> Vec<StoredGame> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut store = PostgresStore::connect(conninfo).expect("connect to the archive");
        let games = store.recent_games(100_000).unwrap();
        if games.len() >= count || Instant::now() > deadline {
            assert_eq!(games.len(), count, "games archived");
            return games
                .iter()
                .map(|g| store.game(&g.id).unwrap().expect("a listed game"))
                .collect();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Plays one game to black's first move (f5) and hangs up: white wins.
fn one_move_game(server: &Server) {
    let (mut black, mut white) = server.pair();
    black.expect(Msg::Turn);
    black.place(5, 4);
    while !matches!(white.recv(), Msg::UpdateBoard(..)) {}
    black.hang_up();
    while white.recv() != Msg::Closed {}
}

fn journals(server: &Server) -> usize {
    reversi_tests::journals_in(&server.data_dir().path().join("journals"))
}

#[test]
fn games_wait_in_their_journals_while_postgresql_is_down_and_are_archived_once() {
    let db = match postgres::Server::start() {
        Ok(db) => db,
        Err(why) => return reversi_tests::skipped(&why),
    };
    db.create_db(DB).expect("create the archive's database");
    let conninfo = db.params(DB);
    let server = Server::start(&["--database", &conninfo, "--fixed-colours"]);
    for _ in 0..3 {
        one_move_game(&server);
    }
    let before = archived(&conninfo, 3);
    let replay = get(&server, &format!("/games/{}", before[0].id.as_str()));
    assert!(replay.starts_with("HTTP/1.1 200 OK\r\n"), "{replay}");

    db.stop().expect("stop PostgreSQL");
    for _ in 0..6 {
        one_move_game(&server);
    }
    server.wait_log("games stay in their journals until the store takes them");
    assert!(journals(&server) > 0, "the refused games wait in journals");

    db.start_again().expect("start PostgreSQL again");
    server.wait_log("the store takes games again");
    let all = archived(&conninfo, 9);
    let deadline = Instant::now() + Duration::from_secs(60);
    while journals(&server) > 0 {
        assert!(Instant::now() < deadline, "journals left after archiving");
        std::thread::sleep(Duration::from_millis(100));
    }
    let ids: HashSet<&str> = all.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(ids.len(), 9, "each game once");
    assert_eq!(archived(&conninfo, 9).len(), 9, "and no more afterwards");
    for game in &all {
        assert_eq!(game.moves.len(), 1, "{game:?}");
        assert_eq!(game.moves[0].notation, "f5");
        assert!(
            matches!(game.outcome, Outcome::Win { team: 1, .. }),
            "{game:?}"
        );
    }
    let errors = server
        .logs()
        .into_iter()
        .filter(|l| l.contains("until the store takes them"))
        .count();
    assert_eq!(errors, 1, "one error line an outage: {:#?}", server.logs());
    // The page workers' connections came back too.
    let replay = get(&server, &format!("/games/{}", all[0].id.as_str()));
    assert!(replay.starts_with("HTTP/1.1 200 OK\r\n"), "{replay}");
}

/// `GET path` on the server's port; the whole answer.
fn get(server: &Server, path: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}
