//! The store wired into reversid (spec/STORE.md §10): every finished game reaches the
//! archive, exactly once, even when the server is killed while games end.

use std::time::{Duration, Instant};

use reversi_store::{Outcome, SqliteStore, Store};
use reversi_tests::scratch::Scratch;
use reversi_tests::{Client, Msg, Server, Signal};

/// Waits until the archive in `dir` holds `count` games; returns them (newest first).
fn archived(dir: &Scratch, count: usize) -> Vec<reversi_store::StoredGame> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut store = SqliteStore::open(dir.path()).expect("open the server's store");
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

/// `games` pairs make their first move; then every pair hangs up, and the supervisor is
/// killed (SIGKILL) after a random number of them (0 to all, from a seed printed, or
/// REVERSID_SEED's), its sessions finishing on their own. A second server on the same data
/// directory archives what the first could not: every game, once, with its move.
fn burst(games: usize) {
    let seed = std::env::var("REVERSID_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            now.unwrap().as_nanos() as u64
        });
    let kill_after = reversi_tests::Rng::new(seed).below(games + 1);
    eprintln!("killed after {kill_after} of {games} pairs hung up (REVERSID_SEED={seed})");
    let data = Scratch::new("store-burst");
    let dir = data.path().to_str().unwrap();
    let mut first = Server::start(&["--data-dir", dir, "--fixed-colours"]);
    let mut pairs: Vec<(Client, Client)> = (0..games).map(|_| first.pair()).collect();
    for (black, white) in &mut pairs {
        black.expect(Msg::Turn);
        black.place(5, 4); // f5
        while !matches!(white.recv(), Msg::UpdateBoard(..)) {}
    }
    for (i, (black, white)) in pairs.iter().enumerate() {
        if i == kill_after {
            first.signal(Signal::SIGKILL);
        }
        black.hang_up();
        white.hang_up();
    }
    if kill_after == games {
        first.signal(Signal::SIGKILL);
    }
    first.wait_exit();
    let second = Server::start(&["--data-dir", dir, "--fixed-colours"]);
    let stored = archived(&data, games);
    for game in &stored {
        assert_eq!(game.kind, "reversi");
        assert_eq!(game.moves.len(), 1, "{game:?}");
        assert_eq!(game.moves[0].notation, "f5");
        assert_ne!(game.outcome, Outcome::Aborted, "{game:?}");
    }
    let journals = data.path().join("journals");
    let deadline = Instant::now() + Duration::from_secs(30);
    while reversi_tests::journals_in(&journals) > 0 {
        assert!(Instant::now() < deadline, "journals left after archiving");
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(second);
    drop(first);
}

#[test]
fn every_game_reaches_the_archive_once_though_the_server_is_killed_while_games_end() {
    burst(8);
}

#[test]
#[ignore = "a longer burst: cargo test -p reversi-tests --test server_store -- --ignored"]
fn a_long_burst_with_a_kill_loses_no_game() {
    burst(200);
}

#[test]
fn a_finished_game_is_archived_and_its_journal_removed() {
    let server = Server::start(&["--fixed-colours"]);
    let (mut black, mut white) = server.pair();
    black.expect(Msg::Turn);
    black.place(5, 4);
    while !matches!(white.recv(), Msg::UpdateBoard(..)) {}
    black.hang_up();
    while white.recv() != Msg::Closed {}
    let stored = archived(server.data_dir(), 1);
    let game = &stored[0];
    assert_eq!(game.moves[0].notation, "f5");
    assert!(game.started <= game.ended);
    assert!(
        matches!(game.outcome, Outcome::Win { team: 1, .. }),
        "white wins when black leaves: {game:?}"
    );
    assert_eq!(game.seats.len(), 2);
    assert!(
        game.seats
            .iter()
            .all(|s| s.name == reversi_store::ANONYMOUS),
        "binary clients are anonymous"
    );
    assert!(server.data_dir().path().join("reversid.sqlite3").exists());
}

/// The spares in the journal directory `dir`: (file name, inode) of each.
fn spares(dir: &std::path::Path) -> Vec<(String, u64)> {
    use std::os::unix::fs::MetadataExt;
    let mut found: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".spare-"))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, e.metadata().unwrap().ino())
        })
        .collect();
    found.sort();
    found
}

/// Waits until the journal directory `dir` holds no journal and `count` spares.
fn settled(dir: &std::path::Path, count: usize) -> Vec<(String, u64)> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while reversi_tests::journals_in(dir) > 0 || spares(dir).len() != count {
        assert!(Instant::now() < deadline, "journals: {:?}", spares(dir));
        std::thread::sleep(Duration::from_millis(50));
    }
    spares(dir)
}

/// spec/STORE.md §10, spares: an archived journal's file is the next game's journal, and
/// the spares a server leaves are the next start's. One session at most: no room to
/// double, so no spare is made in advance (a server that may run more makes some,
/// `a_server_makes_spares_in_advance_as_its_games_grow`) and the pool holds the game's.
#[test]
fn an_archived_journals_file_is_the_next_games_journal_across_restarts() {
    let data = Scratch::new("store-spares");
    let dir = data.path().to_str().unwrap();
    let journals = data.path().join("journals");
    let args = ["--data-dir", dir, "--fixed-colours", "--max-sessions", "1"];
    let first = Server::start(&args);
    one_move_game(&first);
    archived(&data, 1);
    let after_one = settled(&journals, 1);
    one_move_game(&first);
    archived(&data, 2);
    let after_two = settled(&journals, 1);
    assert_ne!(after_one[0].0, after_two[0].0, "the second game's spare");
    assert_eq!(
        after_one[0].1, after_two[0].1,
        "the same file, renamed twice"
    );
    assert_eq!(
        std::fs::metadata(journals.join(&after_two[0].0))
            .unwrap()
            .len(),
        0
    );
    drop(first);
    let second = Server::start(&args);
    second.wait_log("1 spare journals left by an earlier run are kept for new games");
    one_move_game(&second);
    let stored = archived(&data, 3);
    assert!(
        stored.iter().all(|g| g.moves[0].notation == "f5"),
        "{stored:?}"
    );
    let after_three = settled(&journals, 1);
    assert_eq!(
        after_three[0].1, after_one[0].1,
        "the first server's spare, taken"
    );
}

/// spec/STORE.md §10, spares: a server that runs games makes spares in advance, room to
/// double (as many as games running), once it has taken in those an earlier run left, and
/// counts them in its metrics; a server that has run no game makes none.
#[test]
fn a_server_makes_spares_in_advance_as_its_games_grow() {
    let data = Scratch::new("store-made");
    let dir = data.path().to_str().unwrap();
    let journals = data.path().join("journals");
    let args = ["--data-dir", dir, "--fixed-colours", "--metrics"];
    let first = Server::start(&args);
    shows(&first, &["reversid_journal_spares 0"]);
    // The first game finds no spare and creates its journal; with one game running,
    // one spare is made; the game's journal is kept as a spare once archived.
    one_move_game(&first);
    archived(&data, 1);
    let after_one = settled(&journals, 2);
    let pid = first.pid();
    let made = |spares: &[(String, u64)]| {
        (spares.iter())
            .filter(|(name, _)| name.starts_with(&format!(".spare-{pid}-0-")))
            .count()
    };
    assert_eq!(made(&after_one), 1, "{after_one:?}");
    shows(
        &first,
        &[
            "reversid_journal_spares 2",
            "reversid_journal_spares_made_total 1",
        ],
    );
    // The next game takes one, which comes back; the pool holds its aim: none is made.
    one_move_game(&first);
    archived(&data, 2);
    let after_two = settled(&journals, 2);
    let inodes = |spares: &[(String, u64)]| {
        let mut inodes: Vec<u64> = spares.iter().map(|s| s.1).collect();
        inodes.sort_unstable();
        inodes
    };
    assert_eq!(inodes(&after_two), inodes(&after_one), "the same two files");
    shows(&first, &["reversid_journal_spares_made_total 1"]);
    drop(first);
    // The next start takes them in and makes none.
    let second = Server::start(&args);
    second.wait_log("2 spare journals left by an earlier run are kept for new games");
    shows(
        &second,
        &[
            "reversid_journal_spares 2",
            "reversid_journal_spares_made_total 0",
        ],
    );
}

/// Waits until the server's metrics hold every line of `lines` (the pool is counted a moment
/// after its files are renamed).
fn shows(server: &Server, lines: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let metrics = get(server, "/metrics");
        if lines.iter().all(|line| metrics.contains(line)) {
            return;
        }
        assert!(Instant::now() < deadline, "{lines:?} not in:\n{metrics}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_second_server_may_not_use_the_same_data_directory() {
    let first = Server::start(&[]);
    let dir = first.data_dir().path().to_str().unwrap().to_owned();
    let out = std::process::Command::new(reversi_tests::reversid_binary())
        .args(["--listen", "127.0.0.1:0", "--data-dir", &dir])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("another reversid uses it"), "{err}");
}

/// Plays one game to black's first move and hangs up.
fn one_move_game(server: &Server) {
    let (mut black, mut white) = server.pair();
    black.expect(Msg::Turn);
    black.place(5, 4);
    while !matches!(white.recv(), Msg::UpdateBoard(..)) {}
    black.hang_up();
    while white.recv() != Msg::Closed {}
}

#[test]
fn records_that_cannot_be_written_wait_in_their_journals_with_one_error_line() {
    let records = Scratch::new("store-records");
    let dir = records.path().join("records");
    std::fs::create_dir(&dir).unwrap();
    let server = Server::start(&["--record-dir", dir.to_str().unwrap(), "--fixed-colours"]);
    // As a full disk does: every record fails (here the directory is gone).
    std::fs::remove_dir(&dir).unwrap();
    for _ in 0..3 {
        one_move_game(&server);
    }
    archived(server.data_dir(), 3);
    server.wait_log("cannot write records into");
    std::fs::create_dir(&dir).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::read_dir(&dir).unwrap().count() < 3 {
        assert!(
            Instant::now() < deadline,
            "the kept records were never written"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    server.wait_log("records are written into");
    let errors = server
        .logs()
        .into_iter()
        .filter(|l| l.contains("cannot write") && (l.contains("WARN") || l.contains("ERROR")))
        .count();
    assert_eq!(
        errors,
        1,
        "one error line, not one a game: {:#?}",
        server.logs()
    );
    let journals = server.data_dir().path().join("journals");
    while reversi_tests::journals_in(&journals) > 0 {
        assert!(
            Instant::now() < deadline,
            "journals left once all is written"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    for record in std::fs::read_dir(&dir).unwrap().flatten() {
        let text = std::fs::read_to_string(record.path()).unwrap();
        assert!(text.contains("f5"), "{text}");
    }
}

/// `GET path` on the server's port; the whole answer.
fn get(server: &Server, path: &str) -> String {
    reversi_tests::http::get(server.addr(), path)
}

#[test]
fn the_archive_is_served_as_pages_and_exports() {
    let server = Server::start(&["--fixed-colours"]);
    one_move_game(&server);
    let game = archived(server.data_dir(), 1).remove(0);
    let id = game.id.as_str();
    let replay = get(&server, &format!("/games/{id}"));
    assert!(replay.starts_with("HTTP/1.1 200 OK\r\n"), "{replay}");
    assert!(
        replay.contains("text/html") && replay.contains("f5"),
        "{replay}"
    );
    let json = get(&server, &format!("/games/{id}.json"));
    assert!(
        json.contains("application/json") && json.contains("\"f5\""),
        "{json}"
    );
    let ggf = get(&server, &format!("/games/{id}.ggf"));
    assert!(ggf.contains("(;GM[Othello]"), "{ggf}");
    let board = get(&server, "/leaderboard/reversi");
    assert!(board.starts_with("HTTP/1.1 200 OK\r\n"), "{board}");
    let nobody = get(&server, "/players/nobody1");
    assert!(nobody.starts_with("HTTP/1.1 404 Not Found\r\n"), "{nobody}");
    let without = Server::start(&["--no-store"]);
    let answer = get(&without, &format!("/games/{id}"));
    assert!(answer.contains("--no-store"), "{answer}");
}

/// Figures, not a check: page latency with a seeded store (`REVERSID_SEED_GAMES` games,
/// default 100,000, among 500 accounts, 60 moves each). Prints p50 and p99 a page.
#[test]
#[ignore = "figures: cargo test -p reversi-tests --test server_store figures -- --ignored --nocapture"]
fn figures_page_latency_with_a_seeded_store() {
    use reversi_store::*;
    let games: usize = std::env::var("REVERSID_SEED_GAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    const PLAYERS: usize = 500;
    let data = Scratch::new("store-figures");
    let started = Instant::now();
    let mut store = SqliteStore::open(data.path()).unwrap();
    let password = Password::new("correct horse").unwrap();
    let now = UnixMillis::now();
    let accounts: Vec<Account> = (0..PLAYERS)
        .map(|i| {
            let name = Name::new(&format!("player{i}")).unwrap();
            store.register(&name, &password, now).unwrap()
        })
        .collect();
    let writer = Writer::start(Box::new(store), 1024, None);
    for i in 0..games {
        let (a, b) = (i % PLAYERS, (i * 7 + 1) % PLAYERS);
        let b = if a == b { (b + 1) % PLAYERS } else { b };
        let mut game = FinishedGame {
            id: GameId::new(&format!("seed:{i}")).unwrap(),
            kind: "reversi".into(),
            mode: Mode::Rated,
            time_control: "5m".into(),
            seed: 0,
            seats: vec![
                Seat {
                    team: 0,
                    player: Player::Account(accounts[a].id),
                },
                Seat {
                    team: 1,
                    player: Player::Account(accounts[b].id),
                },
            ],
            moves: (0..60)
                .map(|m| MoveRecord {
                    team: (m % 2) as u8,
                    notation: "d3".into(),
                    took_ms: 1500,
                })
                .collect(),
            outcome: Outcome::Win {
                team: (i % 2) as u8,
                ending: Ending::Rules,
            },
            why: "40-24".into(),
            started: UnixMillis(i as i64 * 1000),
            ended: UnixMillis(i as i64 * 1000 + 600_000),
            host: "seed".into(),
        };
        loop {
            match writer.submit(game) {
                Ok(()) => break,
                Err(Submit::Full(back)) => {
                    game = *back;
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(Submit::Stopped(_)) => panic!("the writer stopped"),
            }
        }
    }
    let written = writer.finish();
    assert!(written.iter().all(|w| w.result.is_ok()));
    println!(
        "seeded {games} games, {PLAYERS} accounts in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let dir = data.path().to_str().unwrap();
    // 600 pages from one address, one at a time: its read limit raised.
    let server = Server::start(&["--data-dir", dir, "--store-reads-per-address", "1000"]);
    for (what, path) in [
        ("profile", "/players/player7".to_owned()),
        ("leaderboard", "/leaderboard/reversi".to_owned()),
        ("replay", format!("/games/seed:{}", games / 2)),
    ] {
        let mut took: Vec<Duration> = (0..200)
            .map(|_| {
                let at = Instant::now();
                let answer = get(&server, &path);
                assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
                at.elapsed()
            })
            .collect();
        took.sort();
        println!(
            "{what} {path}: p50 {:.1} ms, p99 {:.1} ms (200 requests, one at a time)",
            took[100].as_secs_f64() * 1000.0,
            took[197].as_secs_f64() * 1000.0
        );
    }
}

/// Figures, not a check: `REVERSID_BURST` games (default 300) end together; how long until
/// every one is archived, and the longest the supervisor's loop spent on the archive at once.
#[test]
#[ignore = "figures: cargo test -p reversi-tests --test server_store figures -- --ignored --nocapture"]
fn figures_a_burst_of_games_ending_together() {
    let games: usize = std::env::var("REVERSID_BURST")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    let mut server = Server::start(&["--fixed-colours"]);
    let mut pairs: Vec<(Client, Client)> = (0..games).map(|_| server.pair()).collect();
    for (black, white) in &mut pairs {
        black.expect(Msg::Turn);
        black.place(5, 4);
        while !matches!(white.recv(), Msg::UpdateBoard(..)) {}
    }
    let started = Instant::now();
    for (black, _) in &pairs {
        black.hang_up();
    }
    archived(server.data_dir(), games);
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{games} games ended together: all archived {seconds:.2} s after the first ended \
         ({:.0} games/s, sessions' ends included)",
        games as f64 / seconds
    );
    drop(pairs);
    server.signal(Signal::SIGTERM);
    server.wait_exit();
    println!("{}", server.wait_log("games archived; the longest"));
}

/// Sets the soft file size limit (RLIMIT_FSIZE) of process `pid`, one of ours, to `bytes`
/// (at most the hard limit, which stays, so that the soft one can be lifted again).
fn limit_file_size(pid: i32, bytes: libc::rlim_t) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: prlimit reads and writes one rlimit each.
    let rc = unsafe { libc::prlimit(pid, libc::RLIMIT_FSIZE, std::ptr::null(), &mut limit) };
    assert_eq!(
        rc,
        0,
        "reading RLIMIT_FSIZE: {}",
        std::io::Error::last_os_error()
    );
    limit.rlim_cur = bytes.min(limit.rlim_max);
    // SAFETY: as above.
    let rc = unsafe { libc::prlimit(pid, libc::RLIMIT_FSIZE, &limit, std::ptr::null_mut()) };
    assert_eq!(
        rc,
        0,
        "setting RLIMIT_FSIZE: {}",
        std::io::Error::last_os_error()
    );
}

/// The database's disk full: the supervisor (its writer thread) may write no byte past the
/// first of any file (RLIMIT_FSIZE of 1 byte, on the supervisor alone: its sessions, forked
/// by the fork server it started before, write their journals as ever). Games that end then
/// wait in their journals with one error line; once the limit is lifted every game is in the
/// archive, exactly once, and no journal is left, also after a restart.
#[test]
fn games_that_end_while_the_disk_is_full_are_archived_once_when_it_has_room() {
    let data = Scratch::new("store-full");
    let dir = data.path().to_str().unwrap();
    let args = ["--data-dir", dir, "--fixed-colours"];
    let server = Server::start(&args);
    one_move_game(&server);
    archived(&data, 1);
    limit_file_size(server.pid(), 1);
    for _ in 0..4 {
        one_move_game(&server);
    }
    server.wait_log("games stay in their journals until the store takes them");
    let journals = data.path().join("journals");
    assert_eq!(reversi_tests::journals_in(&journals), 4);
    assert_eq!(
        SqliteStore::open(data.path())
            .unwrap()
            .recent_games(100)
            .unwrap()
            .len(),
        1,
        "nothing stored while the disk is full"
    );
    limit_file_size(server.pid(), libc::RLIM_INFINITY);
    server.wait_log("the store takes games again");
    let stored = archived(&data, 5);
    let deadline = Instant::now() + Duration::from_secs(30);
    while reversi_tests::journals_in(&journals) > 0 {
        assert!(Instant::now() < deadline, "journals left after archiving");
        std::thread::sleep(Duration::from_millis(100));
    }
    let ids: std::collections::HashSet<_> = stored.iter().map(|g| g.id.clone()).collect();
    assert_eq!(ids.len(), 5, "each game once");
    assert!(stored.iter().all(|g| g.moves.len() == 1), "{stored:?}");
    let errors = server
        .logs()
        .into_iter()
        .filter(|l| l.contains("ERROR"))
        .count();
    assert_eq!(errors, 1, "one error line: {:#?}", server.logs());
    drop(server);
    let again = Server::start(&args);
    one_move_game(&again);
    archived(&data, 6);
}
