//! `reversi demo`: one command starts reversid and two bots, and shows the
//! whole game.

mod client_support;

use std::time::{Duration, Instant};

use client_support::{Reversi, LIMIT};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

#[test]
fn demo_shows_a_whole_game_and_stops_its_server() {
    // The demo's server makes its journal directory under TMPDIR: stopped
    // cleanly, it removes it.
    let tmp = reversi_tests::scratch::Scratch::new("demo");
    let args = ["demo", "--delay", "0", "--level", "1"];
    let done = Reversi::start_with_env(&args, &[("TMPDIR", tmp.path())]).finish();
    assert_eq!(done.code, Some(0), "{done:?}");
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert!(left.is_empty(), "the demo's server left {left:?}");
    let out = &done.stdout;
    assert!(out.starts_with("demo: reversid (pid "), "{out}");
    // Two bots play: nobody watching is "you".
    assert!(
        !out.contains("you play") && !out.contains(", you)"),
        "{out}"
    );
    assert!(out.contains("first bot plays "), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("black (team 1") && l.contains(") played ")),
        "{out}"
    );
    assert!(out.contains("game over: "), "{out}");
    assert!(out.contains("   a  b  c  d  e  f  g  h"), "{out}");
    assert!(
        out.contains("\nblack bot: ") && out.contains("\nwhite bot: "),
        "{out}"
    );
    assert!(done.stderr.is_empty(), "{}", done.stderr);
}

#[test]
fn demo_without_reversid_says_where_it_looked() {
    let dir = std::env::temp_dir().join(format!("reversi-demo-alone-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lonely = dir.join("reversi");
    std::fs::copy(reversi_tests::reversi_binary(), &lonely).unwrap();
    let out = std::process::Command::new(&lonely)
        .args(["demo", "--delay", "0"])
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("reversid not found next to reversi"), "{err}");
    assert!(
        err.contains(&dir.join("reversid").display().to_string()),
        "{err}"
    );
}

/// The children of process `parent` whose command is `name`.
fn children_named(parent: u32, name: &str) -> Vec<u32> {
    let children = std::fs::read_to_string(format!("/proc/{parent}/task/{parent}/children"))
        .unwrap_or_default();
    children
        .split_whitespace()
        .filter_map(|pid| pid.parse().ok())
        .filter(|pid| {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            comm.trim_end() == name
        })
        .collect()
}

/// Whether `pid` has ended (gone, or a zombie waiting for its new parent).
fn ended(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, tail)| tail.trim_start().starts_with('Z')),
        Err(_) => true,
    }
}

#[test]
fn a_demo_killed_by_a_signal_takes_its_server_with_it() {
    let demo = Reversi::start(&["demo", "--delay", "2000", "--level", "1"]);
    let deadline = Instant::now() + LIMIT;
    let server = loop {
        if let Some(&pid) = children_named(demo.pid(), "reversid").first() {
            break pid;
        }
        assert!(Instant::now() < deadline, "the demo started no reversid");
        std::thread::sleep(Duration::from_millis(20));
    };
    kill(Pid::from_raw(demo.pid() as i32), Signal::SIGTERM).unwrap();
    // The server first: while it lives it holds the demo's output open.
    while !ended(server) {
        if Instant::now() > deadline {
            let _ = kill(Pid::from_raw(server as i32), Signal::SIGKILL);
            panic!("reversid {server} outlived its demo");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let done = demo.finish();
    assert_eq!(done.code, None, "killed by the signal: {done:?}");
}
