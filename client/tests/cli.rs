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
    let stdout = text(&reversi(&["perft", "0"]).stdout);
    assert!(stdout.starts_with("perft(0) = 1 leaf in "), "{stdout}");
}

#[test]
fn perft_counts_draughts_too() {
    let out = reversi(&["perft", "--game", "draughts", "6"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("perft(6) = 36768 leaves in "),
        "{stdout}"
    );
}

/// The FFO endgame set the engine keeps, as OBF lines.
fn ffo_file() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/data/ffo-40-59.obf")
}

/// FFO position `number` (40 to 59), board and side only.
fn ffo(number: usize) -> String {
    let text = std::fs::read_to_string(ffo_file()).expect("the FFO file");
    let line = text
        .lines()
        .filter(|l| !l.starts_with('%'))
        .nth(number - 40)
        .expect("a position");
    line.split(';').next().unwrap().trim().to_string()
}

#[test]
fn solve_finds_the_known_result() {
    // FFO endgame #40: black to move wins by 38 with a2.
    let out = reversi(&["solve", &ffo(40)]);
    assert!(out.status.success(), "{out:?}");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("20 empties: score +38"), "{stdout}");
    assert!(stdout.contains("best move a2"), "{stdout}");
    assert!(stdout.contains(" nodes in "), "{stdout}");
    let out = reversi(&["solve", "XO X"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("board has 2 squares, expected 64"));
}

#[test]
fn solve_takes_positions_starting_with_a_dash() {
    // FFO #41 starts with '-': as one argument, or with the side apart.
    let position = ffo(41);
    assert!(position.starts_with('-'));
    let (board, side) = position.split_once(' ').unwrap();
    for args in [vec!["solve", &position], vec!["solve", board, side]] {
        let out = reversi(&args);
        assert!(out.status.success(), "{out:?}");
        let stdout = text(&out.stdout);
        assert!(stdout.contains("score +0"), "{stdout}");
        assert!(stdout.contains("best move h4"), "{stdout}");
    }
}

#[test]
fn solve_file_prints_a_line_per_position_and_the_total() {
    let dir = std::env::temp_dir().join(format!("reversi-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.obf");
    let near_end = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXOO-- X";
    std::fs::write(
        &good,
        format!("% two\n{near_end}; G8:+64;\n\n{}\n", ffo(40)),
    )
    .unwrap();
    let out = reversi(&["solve", "--file", good.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(
        lines[0].starts_with("#1 (line 2): black to move, 2 empties: +64 g8 (as expected +64 g8)"),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("#2 (line 4): black to move, 20 empties: +38 a2 in "),
        "{stdout}"
    );
    assert!(lines[2].starts_with("total: 2 positions in "), "{stdout}");
    assert!(
        lines[2].ends_with("; 1 of 1 checked results as expected"),
        "{stdout}"
    );

    // A wrong expectation fails; a line that does not parse is bad input.
    let wrong = dir.join("wrong.obf");
    std::fs::write(&wrong, format!("{near_end}; G8:+10;\n")).unwrap();
    let out = reversi(&["solve", "--file", wrong.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        text(&out.stdout).contains("WRONG, expected +10 g8"),
        "{out:?}"
    );
    let bad = dir.join("bad.obf");
    std::fs::write(&bad, format!("{near_end}\n{near_end}; X9:+1;\n")).unwrap();
    let out = reversi(&["solve", "--file", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        text(&out.stderr).contains("bad.obf:2: \"X9:+1\" is not a move"),
        "{out:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn match_without_the_gtp_engine_fails_clearly() {
    let out = reversi(&["match", "--gtp", "/nonexistent/gtp-engine", "--games", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("could not start \"/nonexistent/gtp-engine\""));
}

/// Engines that exit, echo instead of answering, or never answer: each
/// gives one clear line and exit code 2, never a signal or a hang.
#[test]
fn broken_gtp_engines_fail_clearly() {
    for (engine, says) in [
        ("true", "true exited (exit status: 0)"),
        (
            "cat",
            "cat answered \"boardsize 8\" with \"boardsize 8\": not GTP",
        ),
        (
            "sleep 30",
            "sleep 30 did not answer \"boardsize 8\" within 0.5 s",
        ),
    ] {
        let out = reversi(&[
            "match",
            "--gtp",
            engine,
            "--games",
            "1",
            "--gtp-timeout",
            "0.5",
        ]);
        assert_eq!(out.status.code(), Some(2), "{engine}: {out:?}");
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{engine}: {err}");
        assert!(err.contains(says), "{engine}: {err}");
    }
}
