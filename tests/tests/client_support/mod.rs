//! Running the `reversi` binary from the client suites: with a script on
//! stdin (or stdin held open), its output collected, and a generous limit
//! after which a stuck process is killed and the test fails (no timing is
//! asserted otherwise).

#![allow(dead_code)] // each suite uses its own part

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use reversi_engine::{Game, Side, Square};

/// How long one `reversi` process may run before the test gives up on it.
pub const LIMIT: Duration = Duration::from_secs(60);

/// A running `reversi`.
pub struct Reversi {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<JoinHandle<String>>,
    stderr: Option<JoinHandle<String>>,
    /// stdout so far, for [`Reversi::wait_stdout`].
    printed: Arc<Mutex<Vec<u8>>>,
}

/// What a finished `reversi` left behind.
#[derive(Debug)]
pub struct Finished {
    /// The exit code (`None` if killed by a signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Reads `pipe` to its end, keeping what came so far in `so_far`.
fn collect(
    mut pipe: impl Read + Send + 'static,
    so_far: Arc<Mutex<Vec<u8>>>,
) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n @ 1..) = pipe.read(&mut chunk) {
            so_far.lock().unwrap().extend_from_slice(&chunk[..n]);
        }
        let bytes = so_far.lock().unwrap();
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

impl Reversi {
    /// Starts `reversi ARGS` with stdin piped and held open, NO_COLOR set.
    pub fn start(args: &[&str]) -> Reversi {
        Reversi::start_with_env(args, &[])
    }

    /// [`Reversi::start`] with `env` added to the environment.
    pub fn start_with_env(args: &[&str], env: &[(&str, &std::path::Path)]) -> Reversi {
        let mut child = Command::new(reversi_tests::reversi_binary())
            .args(args)
            .envs(env.iter().copied())
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn reversi");
        let printed = Arc::default();
        let stdout = child
            .stdout
            .take()
            .map(|p| collect(p, Arc::clone(&printed)));
        let stderr = child.stderr.take().map(|p| collect(p, Arc::default()));
        Reversi {
            stdin: child.stdin.take(),
            child,
            stdout,
            stderr,
            printed,
        }
    }

    /// Starts `reversi ARGS` with `script` on stdin, then EOF.
    pub fn scripted(args: &[&str], script: &str) -> Reversi {
        let mut reversi = Reversi::start(args);
        if let Some(mut stdin) = reversi.stdin.take() {
            // The client may already be gone (that is for the test to judge).
            let _ = stdin.write_all(script.as_bytes());
        }
        reversi
    }

    /// Writes `script` on stdin, then closes it.
    pub fn end_script(&mut self, script: &str) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(script.as_bytes());
        }
    }

    /// Waits until stdout has shown `needle` (failing after [`LIMIT`]).
    pub fn wait_stdout(&self, needle: &str) {
        let deadline = Instant::now() + LIMIT;
        loop {
            let printed = String::from_utf8_lossy(&self.printed.lock().unwrap()).into_owned();
            if printed.contains(needle) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "reversi never printed {needle:?}:\n{printed}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the exit (killing the process after [`LIMIT`]).
    pub fn finish(mut self) -> Finished {
        let deadline = Instant::now() + LIMIT;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("reversi did not finish within {LIMIT:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        drop(self.stdin.take());
        let take = |h: Option<JoinHandle<String>>| h.map(|h| h.join().unwrap()).unwrap_or_default();
        Finished {
            code: status.code(),
            stdout: take(self.stdout.take()),
            stderr: take(self.stderr.take()),
        }
    }
}

impl Drop for Reversi {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A complete legal game, chosen deterministically, in which at least one
/// player has to pass; returns its moves with the side that played each.
pub fn game_with_a_pass() -> Vec<(Side, Square)> {
    let mut rng = reversi_tests::Rng::new(7);
    loop {
        let mut game = Game::new();
        let mut moves = Vec::new();
        let mut passed = false;
        while let Some(side) = game.side_to_move() {
            let legal: Vec<Square> = game.legal_moves().collect();
            let square = legal[rng.below(legal.len())];
            passed |= game.play(square).expect("legal").next == Some(side);
            moves.push((side, square));
        }
        if passed {
            return moves;
        }
    }
}
