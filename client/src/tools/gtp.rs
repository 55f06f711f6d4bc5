//! A GTP (Go Text Protocol) engine run as a child process, as Othello
//! programs such as gtp-rhino speak it: one command a line, answered by
//! `= result` or `? error` and a blank line.
//!
//! A broken engine must never hang or kill the match: its answers are read
//! by a thread and waited for with a time limit, an answer that is not GTP
//! is refused at once, and commands go through a socket written with
//! `MSG_NOSIGNAL`, so an engine that has exited gives an error, not a
//! SIGPIPE.

use std::io::{BufRead, BufReader, Read};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use reversi_engine::{Side, Square};

/// A running GTP engine.
pub struct Gtp {
    /// The command line, for messages.
    name: String,
    child: Child,
    /// Our end of the engine's standard input.
    input: UnixStream,
    /// The engine's output, a line at a time, from the reader thread.
    lines: Receiver<std::io::Result<String>>,
    /// How long an answer may take.
    timeout: Duration,
}

/// Why the engine could not be used.
pub type GtpError = String;

fn colour_word(side: Side) -> &'static str {
    match side {
        Side::Black => "black",
        Side::White => "white",
    }
}

impl Gtp {
    /// Starts `command` (a program and its arguments, split on whitespace)
    /// and checks it answers `boardsize 8`; every answer may take up to
    /// `timeout`.
    pub fn start(command: &str, timeout: Duration) -> Result<Gtp, GtpError> {
        let mut words = command.split_whitespace();
        let program = words
            .next()
            .ok_or_else(|| "the GTP command is empty".to_string())?;
        let (input, theirs) =
            UnixStream::pair().map_err(|err| format!("cannot make a socket pair: {err}"))?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::from(OwnedFd::from(theirs)))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|err| format!("could not start {command:?}: {err}"))?;
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{command:?} has no stdout"));
        };
        let mut gtp = Gtp {
            name: command.to_string(),
            child,
            input,
            lines: read_lines(stdout),
            timeout,
        };
        gtp.command("boardsize 8")?;
        Ok(gtp)
    }

    /// Sends one command and returns the answer's text after `=`.
    pub fn command(&mut self, command: &str) -> Result<String, GtpError> {
        log::debug!("gtp> {command}");
        self.send(&format!("{command}\n"))
            .map_err(|err| format!("{}: cannot send {command:?}: {err}", self.describe_exit()))?;
        let mut answer = String::new();
        loop {
            let line = match self.lines.recv_timeout(self.timeout) {
                Ok(Ok(line)) => line,
                Ok(Err(err)) => {
                    return Err(format!(
                        "{}: reading the answer to {command:?}: {err}",
                        self.name
                    ))
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "{} did not answer {command:?} within {} s (--gtp-timeout)",
                        self.name,
                        self.timeout.as_secs_f64()
                    ))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!(
                        "{} before answering {command:?}",
                        self.describe_exit()
                    ))
                }
            };
            let line = line.trim_end();
            if line.is_empty() {
                if answer.is_empty() {
                    continue; // blank lines before an answer
                }
                break;
            }
            if answer.is_empty() && !line.starts_with(['=', '?']) {
                return Err(format!(
                    "{} answered {command:?} with {line:?}: not GTP (an answer starts with = or ?)",
                    self.name
                ));
            }
            if !answer.is_empty() {
                answer.push('\n');
            }
            answer.push_str(line);
        }
        log::debug!("gtp< {answer}");
        match answer.strip_prefix('=') {
            Some(rest) => Ok(rest.trim().to_string()),
            None => Err(format!(
                "{} answered {command:?} with {answer:?}",
                self.name
            )),
        }
    }

    /// Writes all of `text` to the engine without risking SIGPIPE.
    fn send(&mut self, text: &str) -> std::io::Result<()> {
        let mut rest = text.as_bytes();
        while !rest.is_empty() {
            // SAFETY: the pointer and length describe `rest`, a live
            // slice; the descriptor is our open end of the socket pair.
            let sent = unsafe {
                libc::send(
                    self.input.as_raw_fd(),
                    rest.as_ptr().cast(),
                    rest.len(),
                    libc::MSG_NOSIGNAL,
                )
            };
            if sent < 0 {
                let err = std::io::Error::last_os_error();
                if err.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(err);
            }
            rest = &rest[sent as usize..];
        }
        Ok(())
    }

    /// "NAME exited with status 1" once the engine is gone, else "NAME".
    fn describe_exit(&mut self) -> String {
        // Its output has ended: give it a moment to finish exiting.
        for _ in 0..20 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return format!("{} exited ({status})", self.name);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        format!("{} closed its output", self.name)
    }

    /// Starts a new game from the initial position.
    pub fn clear_board(&mut self) -> Result<(), GtpError> {
        self.command("clear_board").map(drop)
    }

    /// Tells the engine that `side` played `square`, or passed (`None`).
    pub fn play(&mut self, side: Side, square: Option<Square>) -> Result<(), GtpError> {
        let vertex = square.map_or("pass".to_string(), |sq| sq.to_string());
        self.command(&format!("play {} {vertex}", colour_word(side)))
            .map(drop)
    }

    /// Asks the engine for `side`'s move; `None` if it passes.
    pub fn genmove(&mut self, side: Side) -> Result<Option<Square>, GtpError> {
        let answer = self.command(&format!("genmove {}", colour_word(side)))?;
        parse_vertex(&answer)
            .ok_or_else(|| format!("{} answered genmove with {answer:?}, not a move", self.name))
    }
}

/// Reads `output` a line at a time on a thread of its own; the channel
/// closes when the output ends.
fn read_lines(output: impl Read + Send + 'static) -> Receiver<std::io::Result<String>> {
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        let mut output = BufReader::new(output);
        loop {
            let mut line = String::new();
            match output.read_line(&mut line) {
                Ok(0) => return,
                Ok(_) => {
                    if send.send(Ok(line)).is_err() {
                        return;
                    }
                }
                Err(err) => {
                    let _ = send.send(Err(err));
                    return;
                }
            }
        }
    });
    lines
}

/// A GTP vertex: a square such as `C4` or `c4`, or `pass`.
pub fn parse_vertex(text: &str) -> Option<Option<Square>> {
    if text.eq_ignore_ascii_case("pass") {
        return Some(None);
    }
    text.parse().ok().map(Some)
}

impl Drop for Gtp {
    fn drop(&mut self) {
        let _ = self.send("quit\n");
        // End its input too, for engines that do not know `quit`.
        let _ = self.input.shutdown(std::net::Shutdown::Write);
        // Give it the chance to exit on `quit`, then make sure it is gone
        // (which also ends the reader thread).
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertices() {
        assert_eq!(parse_vertex("C4"), Some(Some("c4".parse().unwrap())));
        assert_eq!(parse_vertex("pass"), Some(None));
        assert_eq!(parse_vertex("PASS"), Some(None));
        assert_eq!(parse_vertex("resign"), None);
        assert_eq!(parse_vertex("z9"), None);
    }
}
