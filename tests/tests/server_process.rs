//! The supervisor as a process: timeouts, limits, session children dying,
//! shutdown, daemon mode, and many games at once.

use std::time::Duration;

use reversi_pdu::{Colour, Pdu, Winner};
use reversi_tests::{play_out, reversid_binary, Client, Msg, Rng, Server, Signal};

/// The pid in a "session PID started" log line.
fn session_pid(line: &str) -> i32 {
    let rest = line.split("session ").nth(1).expect("a session line");
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn handshake_timeout_closes_silently() {
    let server = Server::start(&["--handshake-timeout", "1"]);
    let mut idle = Client::connect(server.addr());
    let mut half = Client::connect(server.addr());
    half.send_raw(&[0, 4, 0]);
    idle.expect_closed();
    half.expect_closed();
    server.wait_logs("no handshake within the timeout", 2);
    // A client that did send connect in time stays queued past the timeout.
    let mut queued = server.join();
    server.wait_logs("queued (1 waiting)", 1);
    assert_eq!(queued.recv_within(Duration::from_millis(1500)), None);
    let mut other = server.join();
    queued.expect_connect_ok();
    other.expect_connect_ok();
}

#[test]
fn move_clock_expiry_tells_both_and_place_error_does_not_restart_it() {
    let server = Server::start(&["--move-timeout", "1"]);
    let (mut black, mut white) = server.pair();
    black.expect(Msg::Turn);
    black.place(0, 0);
    black.expect(Msg::PlaceError);
    for c in [&mut black, &mut white] {
        c.expect(Msg::Winner(Winner::White));
        c.expect_closed();
    }
    let line = server.wait_log("game over");
    assert!(line.contains("end timeout by black"), "{line}");
}

#[test]
fn a_killed_session_closes_both_and_is_reaped() {
    let server = Server::start(&[]);
    let (mut black, mut white) = server.pair();
    let pid = session_pid(&server.wait_log("session "));
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), Signal::SIGKILL).unwrap();
    black.expect(Msg::Turn);
    black.expect_closed();
    white.expect_closed();
    let line = server.wait_log(&format!("session {pid} killed by SIGKILL"));
    assert!(line.contains("WARN"), "{line}");
    let (mut black, mut white) = server.pair();
    play_out(&mut black, &mut white, &mut Rng::new(3));
}

#[test]
fn smart_shutdown_lets_the_game_finish() {
    let mut server = Server::start_with_log(&[], "debug");
    let (mut black, mut white) = server.pair();
    let mut waiting = server.join();
    server.wait_log("queued (1 waiting)");
    let mut handshaking = Client::connect(server.addr());
    // Accepted (not just in the backlog, which closing the listener would reset).
    server.wait_logs(": accepted", 4);
    server.signal(Signal::SIGTERM);
    server.wait_log("draining");
    waiting.expect(Msg::Error);
    waiting.expect_closed();
    handshaking.expect(Msg::Error);
    handshaking.expect_closed();
    // No longer listening.
    assert!(std::net::TcpStream::connect(server.addr()).is_err());
    // The game in progress is played to its end.
    play_out(&mut black, &mut white, &mut Rng::new(4));
    assert!(server.wait_exit().success());
}

#[test]
fn a_second_signal_aborts_the_sessions() {
    let mut server = Server::start(&[]);
    let (mut black, mut white) = server.pair();
    black.expect(Msg::Turn);
    server.signal(Signal::SIGINT);
    server.wait_log("draining");
    server.signal(Signal::SIGTERM);
    for c in [&mut black, &mut white] {
        c.expect(Msg::Error);
        c.expect_closed();
    }
    assert!(server.wait_exit().success());
    assert!(server.logs().iter().any(|l| l.contains("end aborted")));
}

#[test]
fn the_shutdown_timeout_turns_smart_into_fast() {
    let mut server = Server::start(&["--shutdown-timeout", "1"]);
    let (mut black, mut white) = server.pair();
    server.signal(Signal::SIGTERM);
    black.expect(Msg::Turn);
    for c in [&mut black, &mut white] {
        c.expect(Msg::Error);
        c.expect_closed();
    }
    assert!(server.wait_exit().success());
}

#[test]
fn max_sessions_keeps_pairs_queued_until_a_slot_frees() {
    let server = Server::start(&["--max-sessions", "1"]);
    let (mut black, mut white) = server.pair();
    let mut c = server.join();
    let mut d = server.join();
    server.wait_log("queued (2 waiting)");
    assert_eq!(c.recv_within(Duration::from_millis(300)), None);
    black.send(&Pdu::Quit);
    white.expect(Msg::Winner(Winner::White));
    white.expect_closed();
    let cc = c.expect_connect_ok();
    let cd = d.expect_connect_ok();
    assert_ne!(cc, cd);
}

#[test]
fn max_pending_refuses_the_excess() {
    let server = Server::start(&["--max-pending", "2"]);
    // Both waiting connections are queued (one for each game): none can make room.
    let _a = server.join();
    let mut b = reversi_tests::text::TextClient::join(server.addr(), "tictactoe");
    b.next_is("GAME WAITING 1");
    let mut third = Client::connect(server.addr());
    third.expect(Msg::Error);
    third.expect_closed();
    server.wait_log("pending limit (2) reached");
    // An idle connection (still in handshake) is closed to make room for a newcomer.
    drop(b);
    server.wait_log("left the queue");
    let mut idle = Client::connect(server.addr());
    let mut newcomer = server.join();
    idle.expect(Msg::Error);
    idle.expect_closed();
    server.wait_log("closed to make room");
    newcomer.expect_connect_ok();
}

#[test]
fn running_out_of_descriptors_sheds_idle_connections_so_games_start() {
    // 52 descriptors: about 26 for the supervisor itself (with its store: six SQLite
    // connections, each with its database and log files), 16 in reserve, the rest (about 10)
    // for connections.
    let server = Server::start_with_nofile(&[], 52);
    let hogs: Vec<Client> = (0..60).map(|_| Client::connect(server.addr())).collect();
    server.wait_log("descriptors running low; closed to make room");
    // With the hogs still there, a game starts and is played.
    let (mut black, mut white) = server.pair();
    black.expect(Msg::Turn);
    white.send(&Pdu::Quit);
    black.expect(Msg::Winner(Winner::Black));
    black.expect_closed();
    server.wait_log("(forfeited) after");
    drop(hogs);
}

#[test]
fn a_failed_fork_refuses_both_clients_and_the_supervisor_lives_on() {
    let Some(server) = Server::start_unable_to_fork(&[]) else {
        reversi_tests::skipped("needs root to run reversid as nobody with RLIMIT_NPROC 0");
        return;
    };
    for round in 1..=2 {
        let mut a = server.join();
        let mut b = server.join();
        for c in [&mut a, &mut b] {
            c.expect(Msg::Error);
            c.expect_closed();
        }
        server.wait_logs("cannot start a session", round);
    }
}

#[test]
fn a_hundred_concurrent_games_every_move_checked() {
    let server = Server::start(&[]);
    let addr = server.addr();
    let games: Vec<_> = (0..100u64)
        .map(|i| {
            std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || {
                    let mut a = Client::connect(addr);
                    a.send(&Pdu::Connect);
                    let mut b = Client::connect(addr);
                    b.send(&Pdu::Connect);
                    (a, b, i)
                })
                .unwrap()
        })
        .map(|h| h.join().unwrap())
        .collect();
    // Pairing is first come, first served across all 200 connections, so a thread
    // does not know its opponent in advance: match them by the sockets' colours.
    let mut clients: Vec<Client> = games.into_iter().flat_map(|(a, b, _)| [a, b]).collect();
    let mut by_session: std::collections::HashMap<std::net::SocketAddr, usize> = Default::default();
    for (i, c) in clients.iter().enumerate() {
        by_session.insert(c.stream().local_addr().unwrap(), i);
    }
    let lines = server.wait_logs("plays black", 100);
    let mut pairs = Vec::new();
    for line in lines {
        // "session: A plays X, B plays Y"
        let body = line.split("session: ").nth(1).unwrap();
        let mut parts = body.split(", ");
        let first: Vec<&str> = parts.next().unwrap().split(" plays ").collect();
        let second: Vec<&str> = parts.next().unwrap().split(" plays ").collect();
        let (black, white) = if first[1] == "black" {
            (first[0], second[0])
        } else {
            (second[0], first[0])
        };
        pairs.push((
            by_session[&black.parse().unwrap()],
            by_session[&white.parse().unwrap()],
        ));
    }
    let mut slots: Vec<Option<Client>> = clients.drain(..).map(Some).collect();
    let handles: Vec<_> = pairs
        .into_iter()
        .enumerate()
        .map(|(i, (b, w))| {
            let mut black = slots[b].take().unwrap();
            let mut white = slots[w].take().unwrap();
            std::thread::spawn(move || {
                assert_eq!(black.expect_connect_ok(), Colour::Black);
                assert_eq!(white.expect_connect_ok(), Colour::White);
                black.expect_initial_position();
                white.expect_initial_position();
                play_out(&mut black, &mut white, &mut Rng::new(i as u64 + 100)).moves
            })
        })
        .collect();
    let moves: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert!(moves >= 100 * 9);
    server.wait_logs("end normal", 100);
    server.wait_logs("exited with status 0", 100);
}

/// Heavy: 2,000 sessions at once through the load generator (release build advised).
#[test]
#[ignore]
fn two_thousand_concurrent_sessions_with_the_load_generator() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_reversi-load"))
        .args(["--concurrency", "2000", "--games", "2000", "--think", "200"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("errors          : 0"), "{text}");
    let peak: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("peak sessions   : "))
        .and_then(|n| n.trim().parse().ok())
        .expect("a peak line");
    assert!(peak >= 1900, "{text}");
}

#[test]
fn daemon_with_a_pid_file_refuses_a_second_instance() {
    let dir = std::env::temp_dir().join(format!("reversid-daemon-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pid_file = dir.join("reversid.pid");
    let log_file = dir.join("reversid.log");
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let listen = format!("127.0.0.1:{port}");
    let run = |extra: &[&str]| {
        std::process::Command::new(reversid_binary())
            .args(["--listen", &listen, "--no-store", "--daemon", "--pid-file"])
            .arg(&pid_file)
            .arg("--log-file")
            .arg(&log_file)
            .args(extra)
            .output()
            .unwrap()
    };
    let first = run(&[]);
    assert!(first.status.success(), "{first:?}");
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let daemon = nix::unistd::Pid::from_raw(pid);
    struct Kill(nix::unistd::Pid);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = nix::sys::signal::kill(self.0, Signal::SIGKILL);
        }
    }
    let _guard = Kill(daemon);
    // A second instance with the same pid file refuses to start, with a reason.
    let second = std::process::Command::new(reversid_binary())
        .args([
            "--listen",
            "127.0.0.1:0",
            "--no-store",
            "--daemon",
            "--pid-file",
        ])
        .arg(&pid_file)
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(1));
    let text = String::from_utf8_lossy(&second.stderr);
    assert!(text.contains("another reversid is running"), "{text}");
    assert!(text.contains(&pid.to_string()), "{text}");
    // The daemon serves games.
    let addr = listen.parse().unwrap();
    let mut a = Client::connect(addr);
    a.send(&Pdu::Connect);
    let mut b = Client::connect(addr);
    b.send(&Pdu::Connect);
    a.expect_connect_ok();
    b.expect_connect_ok();
    a.send(&Pdu::Quit);
    b.expect_initial_position();
    let mut last = b.recv();
    if last == Msg::Turn {
        last = b.recv();
    }
    assert!(matches!(last, Msg::Winner(_)), "{last:?}");
    // SIGTERM: it exits and removes its pid file.
    nix::sys::signal::kill(daemon, Signal::SIGTERM).unwrap();
    let deadline = std::time::Instant::now() + reversi_tests::PATIENCE;
    while nix::sys::signal::kill(daemon, None).is_ok() {
        assert!(std::time::Instant::now() < deadline, "daemon did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!pid_file.exists());
    let log = std::fs::read_to_string(&log_file).unwrap();
    assert!(log.contains("shutdown complete"), "{log}");
    // What it listened on reached the log file too.
    assert!(log.contains(&format!("listening on {listen}")), "{log}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_move_that_arrived_in_time_is_not_late_because_the_session_was_slow() {
    // White's place is in the socket before its clock runs out, but the session process is
    // stopped until well after: it must read the move before it judges the clock.
    let server = Server::start(&["--move-timeout", "2", "--fixed-colours"]);
    let (mut black, mut white) = server.pair();
    let pid = nix::unistd::Pid::from_raw(session_pid(&server.wait_log("session ")));
    black.expect(Msg::Turn);
    black.place(5, 4); // f5
    let f5 = reversi_pdu::Square::new(5, 4).unwrap();
    let e5 = reversi_pdu::Square::new(4, 4).unwrap();
    for c in [&mut black, &mut white] {
        c.expect(Msg::UpdateBoard(Colour::Black, vec![f5, e5]));
    }
    white.expect(Msg::Turn);
    nix::sys::signal::kill(pid, Signal::SIGSTOP).unwrap();
    white.place(3, 5); // d6
    std::thread::sleep(Duration::from_millis(3500));
    nix::sys::signal::kill(pid, Signal::SIGCONT).unwrap();
    let d6 = reversi_pdu::Square::new(3, 5).unwrap();
    let d5 = reversi_pdu::Square::new(3, 4).unwrap();
    for c in [&mut white, &mut black] {
        c.expect(Msg::UpdateBoard(Colour::White, vec![d6, d5]));
    }
    black.expect(Msg::Turn);
}

#[test]
fn a_killed_session_loses_no_move_its_journal_becomes_an_aborted_record() {
    let dir = std::env::temp_dir().join(format!("reversid-killed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let server = Server::start(&["--record-dir", dir.to_str().unwrap(), "--fixed-colours"]);
    let (mut black, mut white) = server.pair();
    let pid = session_pid(&server.wait_log("session "));
    let until_turn = |c: &mut Client| while c.recv() != Msg::Turn {};
    until_turn(&mut black);
    black.place(5, 4); // f5
    until_turn(&mut white);
    white.place(3, 5); // d6
    until_turn(&mut black);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), Signal::SIGKILL).unwrap();
    black.expect_closed();
    let line = server.wait_log("result aborted");
    assert!(line.contains("end killed by SIGKILL"), "{line}");
    assert!(
        line.contains("moves 2 transcript black f5, white d6"),
        "{line}"
    );
    let records: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(records.len(), 1, "{records:?}");
    let text = std::fs::read_to_string(records[0].path()).unwrap();
    assert!(
        text.contains("black f5\nwhite d6\naborted killed by SIGKILL"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The directory a reversid started without --journal-dir keeps its journals in.
fn own_journals(server: &Server) -> String {
    let prefix = format!("reversid-{}-", server.pid());
    let entries = server.temp_dir().entries();
    let own = entries
        .iter()
        .find(|e| e.starts_with(&prefix) && e.ends_with("-journals"));
    own.cloned()
        .unwrap_or_else(|| panic!("no {prefix}NONCE-journals in {entries:?}"))
}

#[test]
fn a_clean_shutdown_removes_the_servers_own_journal_directory() {
    let mut server = Server::start(&["--no-store"]);
    assert_eq!(server.temp_dir().entries(), [own_journals(&server)]);
    let (mut black, mut white) = server.pair();
    let pid = session_pid(&server.wait_log("session "));
    play_out(&mut black, &mut white, &mut Rng::new(5));
    server.wait_log(&format!("session {pid} exited with status 0"));
    server.signal(Signal::SIGTERM);
    assert!(server.wait_exit().success());
    assert_eq!(server.temp_dir().entries(), Vec::<String>::new());
}

#[test]
fn a_journal_still_there_at_exit_is_kept_and_the_log_says_where() {
    let mut server = Server::start(&["--no-store"]);
    let dir = server.temp_dir().path().join(own_journals(&server));
    // As a session that could not be reaped would leave it.
    let journal = dir.join(".journal-1-1");
    std::fs::write(&journal, "game reversi id 1 players a b\nblack f5\n").unwrap();
    server.signal(Signal::SIGTERM);
    assert!(server.wait_exit().success());
    assert!(journal.exists(), "a played game is never thrown away");
    let line = server.wait_log("kept the journal directory");
    assert!(
        line.contains(&dir.display().to_string()) && line.contains(".journal-1-1"),
        "{line}"
    );
}

#[test]
fn a_journal_directory_given_is_never_removed() {
    let given = reversi_tests::scratch::Scratch::new("journals");
    let mut server = Server::start(&["--journal-dir", given.path().to_str().unwrap()]);
    server.signal(Signal::SIGTERM);
    assert!(server.wait_exit().success());
    assert!(given.path().is_dir());
    assert_eq!(server.temp_dir().entries(), Vec::<String>::new());
}

/// The pid in the "fork server PID started" log line.
fn fork_server_pid(server: &Server) -> i32 {
    let line = server.wait_log("fork server ");
    let rest = line.split("fork server ").nth(1).unwrap();
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

/// The parent of process `pid`, from /proc.
fn parent_of(pid: i32) -> i32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after_name = stat.rsplit(')').next().unwrap();
    after_name
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn sessions_come_from_the_fork_server_but_are_the_supervisors_children() {
    let server = Server::start(&[]);
    let forks = fork_server_pid(&server);
    assert_eq!(parent_of(forks), server.pid());
    let (mut black, mut white) = server.pair();
    let pid = session_pid(&server.wait_log("session "));
    assert_eq!(parent_of(pid), server.pid(), "the session's parent");
    play_out(&mut black, &mut white, &mut Rng::new(5));
    server.wait_log(&format!("session {pid} exited with status 0"));
    // It kept its journal where the supervisor keeps them, and nothing went wrong.
    let logs = server.logs();
    assert!(
        !logs
            .iter()
            .any(|l| l.contains("WARN") || l.contains("ERROR")),
        "{logs:#?}"
    );
}

#[test]
fn a_killed_fork_server_leaves_the_supervisor_forking_sessions_itself() {
    let server = Server::start(&[]);
    let forks = fork_server_pid(&server);
    let (mut black, mut white) = server.pair();
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(forks), Signal::SIGKILL).unwrap();
    let line = server.wait_log("the fork server was killed by SIGKILL");
    assert!(line.contains("forked from the supervisor"), "{line}");
    // The game it started plays on, and new games still start.
    play_out(&mut black, &mut white, &mut Rng::new(6));
    let (mut black, mut white) = server.pair();
    play_out(&mut black, &mut white, &mut Rng::new(7));
    server.wait_logs("exited with status 0", 2);
}

#[test]
fn fork_directly_starts_no_fork_server() {
    let server = Server::start(&["--fork-directly"]);
    let (mut black, mut white) = server.pair();
    play_out(&mut black, &mut white, &mut Rng::new(8));
    server.wait_log("exited with status 0");
    assert!(!server.logs().iter().any(|l| l.contains("fork server")));
}

#[test]
fn the_fork_server_ends_with_the_supervisor_and_is_collected() {
    let mut server = Server::start(&[]);
    let forks = fork_server_pid(&server);
    server.signal(Signal::SIGTERM);
    assert!(server.wait_exit().success());
    // Collected by the supervisor, not left a zombie for init.
    assert!(!std::path::Path::new(&format!("/proc/{forks}")).exists());
}
