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
        "--journal-dir",
        "--daemon",
        "--pid-file",
        "--log-file",
        "--games",
        "--listen-seed",
    ] {
        assert!(text.contains(option), "--help lacks {option}");
    }
    // Every game built in is named.
    for game in ["reversi", "tictactoe", "draughts", "duell", "foxes"] {
        assert!(text.contains(game), "--help lacks the game {game}");
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
    let tmp = scratch("tmp");
    let out = reversid()
        .args(["--listen", &addr])
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains(&format!("cannot bind {addr}")), "{text}");
    // The journal directory it made for itself went with it.
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// A fresh directory under the system's temporary one.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("reversid-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_missing_record_dir_stops_the_start_and_names_the_path() {
    let dir = scratch("records").join("missing");
    let out = reversid()
        .args(["--listen", "127.0.0.1:0", "--record-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains(&format!("--record-dir {}", dir.display())),
        "{text}"
    );
    assert!(text.contains("No such file or directory"), "{text}");
}

#[test]
fn start_up_errors_are_printed_once_and_leave_no_pid_file() {
    let dir = scratch("pidfile");
    let pid_file = dir.join("reversid.pid");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = reversid()
        .args(["--listen", &addr, "--pid-file"])
        .arg(&pid_file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stderr);
    assert_eq!(text.matches("cannot bind").count(), 1, "{text}");
    assert!(!pid_file.exists(), "a failed start left its pid file");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unusable_pid_file_or_log_file_is_named() {
    let dir = scratch("paths");
    let inside_a_file = dir.join("plain").join("x");
    std::fs::write(dir.join("plain"), b"").unwrap();
    for option in ["--pid-file", "--log-file"] {
        let out = reversid()
            .args(["--listen", "127.0.0.1:0", option])
            .arg(&inside_a_file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{option}");
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(
            text.contains(&format!("{option} {}", inside_a_file.display())),
            "{option}: {text}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
