//! Reaping without descriptors: the supervisor learns of every session's end from
//! signals alone, so a low open-files limit leaves no session unreaped, and shutdown
//! never waits on a session that has already ended.

use std::time::{Duration, Instant};

use reversi_tests::{Client, Server, Signal};

/// Concurrent games: more than the supervisor's open-files limit below would allow if it
/// held a descriptor per session.
const GAMES: usize = 60;
/// RLIMIT_NOFILE (soft and hard) of the server process alone.
const NOFILE: u64 = 48;

/// The supervisor's children, from /proc (every thread's list).
fn children_of(pid: i32) -> Vec<i32> {
    let mut all = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let path = task.unwrap().path().join("children");
        let list = std::fs::read_to_string(path).unwrap_or_default();
        all.extend(list.split_whitespace().map(|p| p.parse::<i32>().unwrap()));
    }
    all
}

/// The state letter of process `pid` ('Z' for a zombie), if it is still there.
fn state_of(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit(')')
        .next()?
        .split_whitespace()
        .next()?
        .chars()
        .next()
}

/// The pid in a "session PID started" log line.
fn session_pid(line: &str) -> i32 {
    let rest = line.split("session ").nth(1).expect("a session line");
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

/// Waits until the supervisor has exactly `want` children, none of them a zombie.
fn wait_for_children(server: &Server, want: usize) -> Vec<i32> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let children = children_of(server.pid());
        let zombies: Vec<i32> = children
            .iter()
            .copied()
            .filter(|&c| state_of(c) == Some('Z'))
            .collect();
        if children.len() == want && zombies.is_empty() {
            return children;
        }
        assert!(
            Instant::now() < deadline,
            "want {want} live children; have {} ({} zombies: {zombies:?})",
            children.len(),
            zombies.len()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn many_sessions_end_and_every_one_is_reaped(args: &[&str], helpers: usize) {
    let mut server = Server::start_with_nofile(args, NOFILE);
    server.wait_log(&format!("open files limit: {NOFILE}"));
    let mut leave: Vec<(Client, Client)> = (0..GAMES).map(|_| server.pair()).collect();
    let started = server.wait_logs("started: game ", GAMES);
    let sessions: Vec<i32> = started.iter().map(|l| session_pid(l)).collect();
    wait_for_children(&server, GAMES + helpers);
    // Half end as games do (their players leave) while more games start, so that
    // starting a session meets the signals of others' ends; the other half are killed
    // together, so that many exits fold into few signals.
    let killed = leave.split_off(GAMES / 2);
    let ending = std::thread::spawn(move || {
        for game in leave {
            drop(game);
            std::thread::sleep(Duration::from_millis(2));
        }
    });
    let more: Vec<(Client, Client)> = (0..GAMES / 2).map(|_| server.pair()).collect();
    ending.join().unwrap();
    for &pid in &sessions[GAMES / 2..] {
        let pid = nix::unistd::Pid::from_raw(pid);
        nix::sys::signal::kill(pid, Signal::SIGKILL).expect("kill a session");
    }
    server.wait_logs(" exited with status ", GAMES / 2);
    server.wait_logs(" killed by SIGKILL ", GAMES / 2);
    wait_for_children(&server, GAMES / 2 + helpers);
    drop(more);
    server.wait_logs(" exited with status ", GAMES);
    wait_for_children(&server, helpers);
    drop(killed);
    let logs = server.logs().join("\n");
    for trouble in [
        "cannot watch",
        "Too many open files",
        "fork server failed",
        "cannot start",
    ] {
        assert!(!logs.contains(trouble), "{logs}");
    }
    // Shutdown has no session to wait for: it ends at once.
    let asked = Instant::now();
    server.signal(Signal::SIGTERM);
    assert!(server.wait_exit().success());
    let took = asked.elapsed();
    assert!(took < Duration::from_secs(3), "shutdown took {took:?}");
}

#[test]
fn sessions_from_the_fork_server_are_reaped_past_a_low_open_files_limit() {
    many_sessions_end_and_every_one_is_reaped(&[], 1);
}

#[test]
fn sessions_forked_by_the_supervisor_are_reaped_past_a_low_open_files_limit() {
    many_sessions_end_and_every_one_is_reaped(&["--fork-directly"], 0);
}

#[test]
fn sessions_start_while_others_end_and_the_fork_server_stays() {
    let server = Server::start(&[]);
    let addr = server.addr();
    // Eight threads join two players at a time, who hang up once paired: sessions end (a
    // SIGCHLD each) while the supervisor waits for the fork server to start the next.
    let threads: Vec<_> = (0..8)
        .map(|_| {
            std::thread::spawn(move || {
                for _ in 0..50 {
                    let mut two = [Client::connect(addr), Client::connect(addr)];
                    for c in &mut two {
                        c.send(&reversi_pdu::Pdu::Connect);
                    }
                    for c in &mut two {
                        c.expect_connect_ok();
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    server.wait_logs(" exited with status ", 400);
    let logs = server.logs().join("\n");
    for trouble in ["fork server failed", "fork server is gone", "cannot start"] {
        assert!(!logs.contains(trouble), "{logs}");
    }
}

#[test]
fn sessions_cloned_by_the_fork_server_are_reaped_by_their_own_signal() {
    // Sessions cloned by the fork server end with SIGCHLD, which folds: each announces
    // its end with a queued signal that names it, so that none waits for a sweep of every
    // child (reaper.rs). Many ending at once fold many SIGCHLDs together.
    const ENDING: usize = 100;
    let server = Server::start_with_log(&[], "info,reversid::supervisor::forking=debug");
    let games: Vec<(Client, Client)> = (0..ENDING).map(|_| server.pair()).collect();
    server.wait_logs("started: game ", ENDING);
    wait_for_children(&server, ENDING + 1);
    drop(games);
    server.wait_logs(" exited with status ", ENDING);
    wait_for_children(&server, 1);
    let logs = server.logs().join("\n");
    assert!(
        !logs.contains("a sweep is needed"),
        "a session ended unannounced, or its announcement was lost:\n{logs}"
    );
    for sweep in logs
        .lines()
        .filter(|l| l.contains("swept every exited child"))
    {
        assert!(
            sweep.contains(": 0 sessions"),
            "a sweep collected sessions that had announced their end: {sweep}"
        );
    }
}
