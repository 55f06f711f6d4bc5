//! Command-line behaviour of the reversid binary. Living in server/tests also
//! makes `cargo test --workspace` build reversid before the end-to-end suites
//! of reversi-tests run.

use std::process::Command;

/// reversid without a store: these tests start many at once, and a store would be in the
/// one default data directory (`store_at_start` names its own).
fn reversid() -> Command {
    let mut command = store_at_start();
    command.arg("--no-store");
    command
}

fn store_at_start() -> Command {
    Command::new(env!("CARGO_BIN_EXE_reversid"))
}

#[test]
fn a_data_dir_that_cannot_be_made_stops_the_start_and_says_why() {
    let out = store_at_start()
        .args(["--listen", "127.0.0.1:0", "--data-dir", "/proc/reversid"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("--data-dir /proc/reversid: cannot be created in /proc"),
        "{text}"
    );
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
        "--data-dir",
        "--database",
        "--no-store",
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
    assert!(
        text.contains("another program (or another reversid) listens there"),
        "{text}"
    );
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
        text.contains(&format!("--record-dir {}: does not exist", dir.display())),
        "{text}"
    );
}

/// Runs reversid with `args` to its end; its exit code and stderr.
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let out = reversid()
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_record_dir_that_exists_but_takes_no_files_is_not_writable() {
    // /proc is there; creating a file in it fails with ENOENT (EACCES if not root),
    // and "No such file or directory" would not be the cause.
    let (code, text) = refused(&["--record-dir", "/proc"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("--record-dir /proc: not writable: "),
        "{text}"
    );
    assert!(!text.contains("No such file"), "{text}");
}

#[test]
fn a_journal_dir_is_checked_for_writing_at_start() {
    // sysfs refuses new files even to root (EACCES): a test that holds whoever runs it.
    let (code, text) = refused(&["--journal-dir", "/sys"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("--journal-dir /sys: not writable: Permission denied"),
        "{text}"
    );
    let dir = scratch("journal-file");
    let file = dir.join("plain");
    std::fs::write(&file, b"").unwrap();
    for (path, why) in [
        (file.clone(), "is not a directory".to_owned()),
        (
            file.join("sub"),
            format!("{} is not a directory", file.display()),
        ),
    ] {
        let (code, text) = refused(&["--journal-dir", path.to_str().unwrap()]);
        assert_eq!(code, Some(1), "{text}");
        let want = format!("--journal-dir {}: {why}", path.display());
        assert!(text.contains(&want), "{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_temporary_journal_dir_names_tmpdir_when_it_fails() {
    let (code, text) = {
        let out = reversid()
            .args(["--listen", "127.0.0.1:0"])
            .env("TMPDIR", "/proc")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("the journal directory under TMPDIR (--journal-dir sets another) /proc/"),
        "{text}"
    );
    assert!(text.contains("cannot be created in /proc"), "{text}");
}

/// Starts reversid with `args`, reads its log until a line contains `needle` (or it
/// ends), stops it; that line, or all it logged.
fn logs_until(name: &str, args: &[&str], needle: &str) -> Result<String, String> {
    use std::io::BufRead;
    let tmp = scratch(name);
    let mut child = reversid()
        .args(args)
        .env("TMPDIR", &tmp)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = Vec::new();
    let mut found = None;
    for line in stderr.lines() {
        let line = line.unwrap();
        if line.contains(needle) {
            found = Some(line);
            break;
        }
        seen.push(line);
    }
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
    child.wait().unwrap();
    let _ = std::fs::remove_dir_all(&tmp);
    found.ok_or_else(|| seen.join("\n"))
}

#[test]
fn a_bare_port_listens_on_the_clients_default_host() {
    let line = logs_until("bare-port", &["--listen", "0"], "listening on ").unwrap();
    assert!(line.contains("listening on 127.0.0.1:"), "{line}");
}

#[test]
fn a_bare_host_listens_on_the_default_port() {
    // 127.0.0.2 (loopback too) so as not to meet anything on the usual 127.0.0.1:8765;
    // whether that port is free or not, the line names the address read.
    let line = logs_until("bare-host", &["--listen", "127.0.0.2"], "127.0.0.2:8765")
        .unwrap_or_else(|log| panic!("no 127.0.0.2:8765 in the log:\n{log}"));
    assert!(
        line.contains("listening on 127.0.0.2:8765") || line.contains("cannot bind"),
        "{line}"
    );
}

#[test]
fn an_address_of_no_interface_here_says_so() {
    // 192.0.2.0/24 is for documentation: no machine has it.
    let (code, text) = refused(&["--listen", "192.0.2.1:0"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("cannot bind 192.0.2.1:0: ")
            && text.contains("no network interface of this machine has that address"),
        "{text}"
    );
}

#[test]
fn a_listen_address_that_is_not_one_says_why() {
    for (arg, why) in [
        (
            "localhost:9000",
            "\"localhost\" is a name: listen on an IP address",
        ),
        ("127.0.0.1:http", "\"http\" is not a port"),
        ("70000", "a port is a number from 0 to 65535"),
    ] {
        let out = reversid().args(["--listen", arg]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{arg}");
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(
            text.contains(&format!("'{arg}' for '--listen <ADDR>'")),
            "{text}"
        );
        assert!(text.contains(why), "{arg}: {text}");
    }
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
        let why = format!("{} is not a directory", dir.join("plain").display());
        assert!(
            text.contains(&format!("{option} {}: {why}", inside_a_file.display())),
            "{option}: {text}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_pid_file_or_log_file_where_no_file_can_be_made_says_so() {
    for option in ["--pid-file", "--log-file"] {
        let (code, text) = refused(&[option, "/proc/reversid.file"]);
        assert_eq!(code, Some(1), "{option}: {text}");
        assert!(
            text.contains(&format!("{option} /proc/reversid.file: ")),
            "{option}: {text}"
        );
        assert!(!text.contains("No such file"), "{option}: {text}");
    }
    let (_, text) = refused(&["--pid-file", "/nonexistent-dir/reversid.pid"]);
    assert!(
        text.contains("--pid-file /nonexistent-dir/reversid.pid: its directory /nonexistent-dir does not exist"),
        "{text}"
    );
}
