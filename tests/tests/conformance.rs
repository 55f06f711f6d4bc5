//! The conformance kit (`reversi-conformance`, conformance/README.md) run as
//! CI runs it: against the real reversid with short timeouts, so that every
//! section's checks run, and as a scripted server against the project's own
//! client. Each also shows the kit can fail: a server or client that breaks
//! the spec gets exit status 1 and the check named in the report.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};

use reversi_tests::{reversi_binary, target_dir, Server};

/// The kit's binary, next to the test's (built by `cargo test --workspace`).
fn kit() -> Command {
    let path = target_dir().join("reversi-conformance");
    assert!(
        path.exists(),
        "{} is missing: build it first (cargo build -p reversi-conformance)",
        path.display()
    );
    Command::new(path)
}

fn show(output: &Output) -> String {
    format!(
        "status {:?}\n--- report ---\n{}\n--- progress ---\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The timeouts the server runs with, and that the kit is told, in seconds.
const SHORT: &[&str] = &[
    "--handshake-timeout",
    "2",
    "--move-timeout",
    "2",
    "--first-move-timeout",
    "2",
];

#[test]
fn the_kit_passes_against_reversid() {
    let seeds = [
        "--listen-seed",
        "duell=127.0.0.1:0",
        "--listen-seed",
        "foxes=127.0.0.1:0",
    ];
    let server = Server::start(&[SHORT, &seeds].concat());
    let duell = server.seed_addr("duell").to_string();
    let foxes = server.seed_addr("foxes").to_string();
    let output = kit()
        .args(["server", &server.addr().to_string()])
        .args(["--seed-duell", &duell, "--seed-foxes", &foxes])
        .args(SHORT)
        .output()
        .expect("run reversi-conformance");
    let report = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    let summary = report.lines().last().unwrap_or_default();
    assert!(summary.contains(" 0 failed, "), "{}", show(&output));
    assert!(summary.ends_with(" 0 skipped"), "{}", show(&output));
    for section in [
        "binary §8.4",
        "text §1",
        "text §4",
        "text §5.3",
        "text §6.3",
        "text §7",
        "text §8",
        "text §10.2",
        "text §14",
    ] {
        assert!(
            report.lines().any(|l| l == section),
            "no {section}: {}",
            show(&output)
        );
    }
}

#[test]
fn the_kit_fails_a_server_whose_move_clock_is_not_as_told() {
    // The server's move clock is 1 s; the kit is told 4 s and so expects
    // silence for 3.5 s, which the server's forfeit breaks.
    let server = Server::start(&["--move-timeout", "1"]);
    let output = kit()
        .args(["server", &server.addr().to_string(), "--move-timeout", "4"])
        .args(["--only", "the mover's team loses"])
        .output()
        .expect("run reversi-conformance");
    let report = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{}", show(&output));
    assert!(
        report.starts_with("text §8\n  FAIL  the move clock"),
        "{}",
        show(&output)
    );
    assert!(
        report.contains("O: got      \"GAME OVER 1 O ran out of time\""),
        "{}",
        show(&output)
    );
}

/// Starts the kit as a server for one game of `game`; returns it and its address.
fn client_kit(game: &str) -> (Child, String) {
    let mut child = kit()
        .args(["client", "--listen", "127.0.0.1:0", game])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run reversi-conformance client");
    let mut line = String::new();
    let stderr = child.stderr.as_mut().expect("piped");
    BufReader::new(stderr)
        .read_line(&mut line)
        .expect("the kit says where it listens");
    let addr = line
        .rsplit(" on ")
        .next()
        .expect("an address")
        .trim()
        .to_owned();
    (child, addr)
}

#[test]
fn the_projects_bot_passes_the_client_kit() {
    for game in ["tictactoe", "draughts"] {
        let (kit, addr) = client_kit(game);
        let bot = Command::new(reversi_binary())
            .args([
                "bot",
                "--game",
                game,
                &addr,
                "--games",
                "1",
                "--move-time",
                "30",
                "--level",
                "1",
            ])
            .output()
            .expect("run reversi bot");
        assert_eq!(bot.status.code(), Some(0), "{game}: {}", show(&bot));
        let output = kit.wait_with_output().expect("the kit ends");
        assert_eq!(output.status.code(), Some(0), "{game}: {}", show(&output));
        let report = String::from_utf8_lossy(&output.stdout);
        assert!(
            report.ends_with("6 checks: 6 passed, 0 failed, 0 known deviations, 0 skipped\n"),
            "{}",
            show(&output)
        );
    }
}

#[test]
fn the_client_kit_fails_a_client_that_moves_before_ready() {
    let (kit, addr) = client_kit("tictactoe");
    let mut client = TcpStream::connect(&addr).expect("connect to the kit");
    // The kit gives the client O, which must wait for X's move first.
    client
        .write_all(b"GAME TYPE tictactoe\nMOVE b2\n")
        .expect("send");
    // It then says nothing more, and leaves: the kit reports what it saw.
    let mut reader = BufReader::new(client.try_clone().expect("clone"));
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "READY\n" {
        line.clear();
    }
    client.shutdown(std::net::Shutdown::Both).expect("close");
    let output = kit.wait_with_output().expect("the kit ends");
    let report = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{}", show(&output));
    assert!(
        report.contains("client §4\n  pass  joins with GAME TYPE"),
        "{}",
        show(&output)
    );
    assert!(
        report.contains("client §5.2\n  FAIL  sends no move before its READY\n          client: expected no move before READY\n          client: got      \"MOVE b2\""),
        "{}",
        show(&output)
    );
}
