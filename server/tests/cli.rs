//! Command-line behaviour of the reversid binary. Living in server/tests also
//! makes `cargo test --workspace` build reversid before the end-to-end suites
//! of reversi-tests run.

use std::process::Command;

fn reversid() -> Command {
    Command::new(env!("CARGO_BIN_EXE_reversid"))
}

#[test]
fn help_lists_every_option() {
    let out = reversid().arg("--help").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for option in [
        "--listen",
        "--handshake-timeout",
        "--move-timeout",
        "--max-sessions",
        "--max-pending",
        "--shutdown-timeout",
        "--fixed-colours",
        "--record-dir",
        "--daemon",
        "--pid-file",
        "--log-file",
    ] {
        assert!(text.contains(option), "--help lacks {option}");
    }
}

#[test]
fn bad_arguments_are_refused() {
    for args in [
        &["--listen", "not-an-address"][..],
        &["--max-sessions", "0"],
        &["--move-timeout", "-1"],
        &["--no-such-option"],
    ] {
        let out = reversid().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn an_address_in_use_is_a_clear_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    // SO_REUSEADDR does not let two sockets listen on one port.
    let out = reversid().args(["--listen", &addr]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains(&format!("cannot bind {addr}")), "{text}");
}
