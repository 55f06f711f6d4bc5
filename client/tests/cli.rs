//! The `reversi` command line: help, bad arguments, an unreachable server,
//! and the engine tools. (Also makes `cargo test --workspace` build the
//! `reversi` binary that the end-to-end suites in tests/ run.)

use std::net::TcpListener;
use std::process::{Command, Output, Stdio};

fn reversi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run reversi")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn help_lists_every_subcommand() {
    let out = reversi(&["--help"]);
    assert!(out.status.success());
    let help = text(&out.stdout);
    for sub in ["play", "bot", "perft", "solve", "match"] {
        assert!(help.contains(sub), "{sub} missing from:\n{help}");
    }
    let out = reversi(&["bot", "--help"]);
    let help = text(&out.stdout);
    for option in ["--level", "--move-time", "--seed", "--games"] {
        assert!(help.contains(option), "{option} missing from:\n{help}");
    }
}

#[test]
fn bad_arguments_exit_2_and_say_what_is_wrong() {
    for (args, mentions) in [
        (&["frobnicate"][..], "frobnicate"),
        (&["bot", "--level", "0"][..], "--level"),
        (&["bot", "--games", "many"][..], "--games"),
        (&["perft"][..], "DEPTH"),
    ] {
        let out = reversi(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains(mentions), "{args:?}: {err}");
    }
}

#[test]
fn no_server_is_one_line_and_exit_2() {
    // A port that was free a moment ago and has no listener now.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    for sub in ["play", "bot"] {
        let out = reversi(&[sub, &addr]);
        assert_eq!(out.status.code(), Some(2), "{sub}");
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{sub}: {err}");
        assert!(
            err.contains(&format!("could not connect to {addr}: ")),
            "{sub}: {err}"
        );
    }
}

#[test]
fn perft_counts_the_known_numbers() {
    let out = reversi(&["perft", "4"]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("perft(4) = 244 leaves in "), "{stdout}");
    assert!(stdout.contains("leaves/s"), "{stdout}");
}

#[test]
fn solve_finds_the_known_result() {
    // FFO endgame #40: black to move wins by 38 with a2.
    let position = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X";
    let out = reversi(&["solve", position]);
    assert!(out.status.success(), "{out:?}");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("score +38"), "{stdout}");
    assert!(stdout.contains("best move a2"), "{stdout}");
    assert!(stdout.contains(" nodes in "), "{stdout}");
    let out = reversi(&["solve", "XO X"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("board has 2 squares, expected 64"));
}

#[test]
fn match_without_the_gtp_engine_fails_clearly() {
    let out = reversi(&["match", "--gtp", "/nonexistent/gtp-engine", "--games", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("could not start \"/nonexistent/gtp-engine\""));
}
