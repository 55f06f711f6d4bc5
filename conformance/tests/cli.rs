//! Command-line behaviour of reversi-conformance: its exit statuses when it
//! cannot run (2) and when a target fails (1). Living in conformance/tests
//! also makes `cargo test --workspace` build the binary before
//! tests/tests/conformance.rs runs it against reversid.

use std::net::TcpListener;
use std::process::{Command, Output};

fn kit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reversi-conformance"))
        .args(args)
        .output()
        .expect("run reversi-conformance")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn help_names_both_modes_and_the_servers_settings() {
    let out = kit(&["server", "--help"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for option in [
        "--handshake-timeout",
        "--move-timeout",
        "--first-move-timeout",
        "--seed-duell",
        "--seed-foxes",
        "--only",
    ] {
        assert!(text.contains(option), "no {option} in {text}");
    }
    let out = kit(&["client", "--help"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--listen"));
}

#[test]
fn an_address_that_does_not_resolve_is_status_2() {
    let out = kit(&["server", "no-such-host.invalid:1"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("reversi-conformance: no-such-host.invalid:1"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_client_mode_refuses_a_real_time_or_unknown_game_with_status_2() {
    let out = kit(&["client", "--listen", "127.0.0.1:0", "foxes"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("plays in real time"),
        "{}",
        stderr(&out)
    );
    let out = kit(&["client", "--listen", "127.0.0.1:0", "chess"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn a_server_that_is_not_there_fails_every_check_with_status_1() {
    // A port that was free a moment ago: nothing listens on it.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = kit(&[
        "server",
        &format!("127.0.0.1:{port}"),
        "--only",
        "text §4 GAME VERSION",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.starts_with("text §4\n  FAIL  GAME VERSION is answered"),
        "{report}"
    );
    assert!(
        report.ends_with("1 checks: 0 passed, 1 failed, 0 known deviations, 0 skipped\n"),
        "{report}"
    );
}
