//! `--log-format json`: every line reversid and its sessions log is one JSON object.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};

use reversi_pdu::{Colour, Pdu};
use reversi_tests::{play_out, reversid_binary, Client, Rng, PATIENCE};

/// Each line of `stderr`, as it comes.
fn lines_of(stderr: ChildStderr) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// Reads lines, each parsed as JSON, until one whose msg contains `needle`.
fn wait_for(lines: &Receiver<String>, needle: &str) -> serde_json::Value {
    loop {
        let line = lines
            .recv_timeout(PATIENCE)
            .unwrap_or_else(|e| panic!("no line with {needle:?}: {e}"));
        let json: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        for field in ["ts", "level", "target", "msg"] {
            assert!(json[field].is_string(), "{field} in {line}");
        }
        assert!(json["pid"].is_u64(), "pid in {line}");
        if json["msg"].as_str().unwrap().contains(needle) {
            return json;
        }
    }
}

struct Reversid(Child);

impl Drop for Reversid {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn json_lines_from_the_supervisor_and_its_sessions() {
    let mut child = Command::new(reversid_binary())
        .args([
            "--listen",
            "127.0.0.1:0",
            "--no-store",
            "--log-format",
            "json",
        ])
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start reversid");
    let lines = lines_of(child.stderr.take().unwrap());
    let server = Reversid(child);
    let listening = wait_for(&lines, "listening on ");
    let msg = listening["msg"].as_str().unwrap();
    let addr: SocketAddr = msg.rsplit("listening on ").next().unwrap().parse().unwrap();
    let supervisor = listening["pid"].as_u64().unwrap();
    assert_eq!(supervisor, u64::from(server.0.id()));

    let mut a = Client::connect(addr);
    a.send(&Pdu::Connect);
    let mut b = Client::connect(addr);
    b.send(&Pdu::Connect);
    let colour = a.expect_connect_ok();
    b.expect_connect_ok();
    for c in [&mut a, &mut b] {
        c.expect_initial_position();
    }
    let (mut black, mut white) = if colour == Colour::Black {
        (a, b)
    } else {
        (b, a)
    };
    play_out(&mut black, &mut white, &mut Rng::new(9));
    // The session's own line, written in its own process.
    let over = wait_for(&lines, "game over");
    assert_ne!(over["pid"].as_u64().unwrap(), supervisor);
    assert_eq!(over["level"], "INFO");
    wait_for(&lines, "exited with status 0");
}
