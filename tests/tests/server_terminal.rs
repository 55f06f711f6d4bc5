//! reversid run in a terminal, as a person starts it: ^C typed there is a smart
//! shutdown that lets running games finish with a result, a second ^C a fast one
//! (spec/TEXT-PROTOCOL.md §8), whether sessions come from the fork server or
//! from the supervisor itself (`--fork-directly`).
//!
//! The terminal is a real pseudo-terminal whose foreground process group is
//! reversid's: typing ^C makes the kernel send SIGINT to that whole group, which
//! `kill` of the supervisor's pid alone would not show.

use std::fs::File;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::os::fd::OwnedFd;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use reversi_tests::scratch::Scratch;
use reversi_tests::text::TextClient;
use reversi_tests::{reversid_binary, AS_BEFORE, PATIENCE, UNLIMITED};

/// What the terminal shows, line by line.
#[derive(Default)]
struct Screen {
    lines: Mutex<Vec<String>>,
    grew: Condvar,
}

/// A reversid whose controlling terminal is a pseudo-terminal we hold the master of.
struct Terminal {
    master: File,
    child: Child,
    screen: Arc<Screen>,
    exited: Option<ExitStatus>,
    addr: SocketAddr,
    _tmp: Scratch,
}

impl Terminal {
    fn start(args: &[&str]) -> Terminal {
        let pty = nix::pty::openpty(None, None).expect("openpty");
        let tmp = Scratch::new("terminal");
        let mut cmd = Command::new(reversid_binary());
        cmd.args(["--listen", "127.0.0.1:0"])
            .args(UNLIMITED)
            .args(AS_BEFORE)
            .args(args)
            .env("RUST_LOG", "info")
            .env("TMPDIR", tmp.path())
            .stdin(stdio(&pty.slave))
            .stdout(stdio(&pty.slave))
            .stderr(stdio(&pty.slave));
        // As a shell starts a job in the foreground: a session whose controlling terminal
        // is the pty (setsid, then TIOCSCTTY on stdin, the slave).
        // SAFETY: setsid and ioctl are async-signal-safe.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            })
        };
        let child = cmd.spawn().expect("spawn reversid");
        drop(pty.slave);
        let master = File::from(pty.master);
        let screen = Arc::new(Screen::default());
        show(master.try_clone().expect("dup the pty master"), &screen);
        let mut terminal = Terminal {
            master,
            child,
            screen,
            exited: None,
            addr: "127.0.0.1:0".parse().unwrap(),
            _tmp: tmp,
        };
        let line = terminal.wait_line("listening on ");
        let addr = line.rsplit("listening on ").next().unwrap().trim();
        terminal.addr = addr.parse().expect("reversid shows its address");
        terminal
    }

    /// Types ^C at the terminal.
    fn ctrl_c(&mut self) {
        self.master.write_all(&[0x03]).expect("type ^C");
    }

    /// Waits until a line on the screen contains `needle`; returns it.
    fn wait_line(&self, needle: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        let mut lines = self.screen.lines.lock().unwrap();
        loop {
            if let Some(line) = lines.iter().find(|l| l.contains(needle)) {
                return line.clone();
            }
            let now = Instant::now();
            assert!(
                now < deadline,
                "the terminal never showed {needle:?}:\n{}",
                lines.join("\n")
            );
            lines = self
                .screen
                .grew
                .wait_timeout(lines, deadline - now)
                .unwrap()
                .0;
        }
    }

    fn screen(&self) -> String {
        self.screen.lines.lock().unwrap().join("\n")
    }

    fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                self.exited = Some(status);
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "reversid did not exit; screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        if self.exited.is_none() {
            let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
            let _ = self.child.wait();
        }
    }
}

fn stdio(slave: &OwnedFd) -> Stdio {
    Stdio::from(slave.try_clone().expect("dup the pty slave"))
}

/// Copies what the terminal shows into `screen`, a line at a time, until every
/// process holding the slave has closed it.
fn show(mut master: File, screen: &Arc<Screen>) {
    let screen = Arc::clone(screen);
    std::thread::spawn(move || {
        let mut pending = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = master.read(&mut buf) {
            pending.extend_from_slice(&buf[..n]);
            while let Some(end) = pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = pending.drain(..=end).collect();
                let text = String::from_utf8_lossy(&line);
                screen
                    .lines
                    .lock()
                    .unwrap()
                    .push(text.trim_end().to_owned());
                screen.grew.notify_all();
            }
        }
    });
}

/// Two Tic-Tac-Toe players, X (joined first) and O; X has READY.
fn tictactoe(addr: SocketAddr) -> (TextClient, TextClient) {
    let mut x = TextClient::join(addr, "tictactoe");
    x.expect("GAME WAITING");
    let mut o = TextClient::join(addr, "tictactoe");
    x.expect("GAME TEAM 1 X");
    o.expect("GAME TEAM 2 O");
    x.expect("READY");
    (x, o)
}

/// Plays `moves` alternately, X first (it is X's turn); each is seen by both.
fn play(x: &mut TextClient, o: &mut TextClient, moves: &[&str]) {
    for (i, m) in moves.iter().enumerate() {
        let (mover, other, team) = if i % 2 == 0 {
            (&mut *x, &mut *o, 1)
        } else {
            (&mut *o, &mut *x, 2)
        };
        mover.send(&format!("MOVE {m}"));
        let moved = format!("GAME MOVED {team} {m}");
        mover.expect(&moved);
        other.expect(&moved);
    }
}

fn ctrl_c_lets_the_running_game_finish(args: &[&str]) {
    let mut terminal = Terminal::start(args);
    let (mut x, mut o) = tictactoe(terminal.addr);
    play(&mut x, &mut o, &["a1", "b1"]);
    terminal.ctrl_c();
    terminal.wait_line("draining: 1 sessions running");
    // No longer listening, but the game goes on to its result.
    assert!(std::net::TcpStream::connect(terminal.addr).is_err());
    play(&mut x, &mut o, &["a2", "b2", "a3"]);
    x.expect("GAME OVER 1");
    x.next_is("RESULT WIN");
    o.expect("RESULT LOSE");
    x.expect_closed(&[]);
    o.expect_closed(&[]);
    let status = terminal.wait_exit();
    let screen = terminal.screen();
    assert!(status.success(), "{status}; screen:\n{screen}");
    assert!(screen.contains("shutdown complete"), "{screen}");
    assert!(!screen.contains("killed by"), "{screen}");
}

fn a_second_ctrl_c_aborts_the_running_game(args: &[&str]) {
    let mut terminal = Terminal::start(args);
    let (mut x, mut o) = tictactoe(terminal.addr);
    play(&mut x, &mut o, &["a1"]);
    terminal.ctrl_c();
    terminal.wait_line("draining: 1 sessions running");
    terminal.ctrl_c();
    for c in [&mut x, &mut o] {
        c.expect("GAME ABORTED the server is shutting down");
        c.expect_closed(&[]);
    }
    let status = terminal.wait_exit();
    let screen = terminal.screen();
    assert!(status.success(), "{status}; screen:\n{screen}");
    assert!(screen.contains("second shutdown signal"), "{screen}");
    assert!(!screen.contains("killed by"), "{screen}");
}

#[test]
fn ctrl_c_lets_a_game_of_the_fork_server_finish() {
    ctrl_c_lets_the_running_game_finish(&[]);
}

#[test]
fn ctrl_c_lets_a_game_forked_directly_finish() {
    ctrl_c_lets_the_running_game_finish(&["--fork-directly"]);
}

#[test]
fn a_second_ctrl_c_aborts_a_game_of_the_fork_server() {
    a_second_ctrl_c_aborts_the_running_game(&[]);
}

#[test]
fn a_second_ctrl_c_aborts_a_game_forked_directly() {
    a_second_ctrl_c_aborts_the_running_game(&["--fork-directly"]);
}
