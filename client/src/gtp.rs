//! A GTP (Go Text Protocol) engine run as a child process, as Othello
//! programs such as gtp-rhino speak it: one command per line, answered by
//! `= result` or `? error` and a blank line. Passes are implicit: the engine
//! keeps the turn order itself, so only real moves are sent.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use reversi_engine::{Side, Square};

/// A running GTP engine.
pub struct Gtp {
    name: String,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
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
    /// Starts `command` (a program and its arguments, split on whitespace).
    pub fn start(command: &str) -> Result<Gtp, GtpError> {
        let mut words = command.split_whitespace();
        let program = words
            .next()
            .ok_or_else(|| "the GTP command is empty".to_string())?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|err| format!("could not start {command:?}: {err}"))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(format!("{command:?} has no stdin or stdout"));
        };
        let mut gtp = Gtp {
            name: command.to_string(),
            child,
            stdin,
            stdout: BufReader::new(stdout),
        };
        gtp.command("boardsize 8")?;
        Ok(gtp)
    }

    /// Sends one command and returns the answer's text after `=`.
    pub fn command(&mut self, command: &str) -> Result<String, GtpError> {
        log::debug!("gtp> {command}");
        writeln!(self.stdin, "{command}")
            .and_then(|()| self.stdin.flush())
            .map_err(|err| format!("{}: cannot send {command:?}: {err}", self.name))?;
        let mut answer = String::new();
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).map_err(|err| {
                format!("{}: reading the answer to {command:?}: {err}", self.name)
            })?;
            if n == 0 {
                return Err(format!("{} exited during {command:?}", self.name));
            }
            let line = line.trim_end();
            if line.is_empty() {
                if answer.is_empty() {
                    continue; // blank lines before an answer
                }
                break;
            }
            if !answer.is_empty() {
                answer.push('\n');
            }
            answer.push_str(line);
        }
        log::debug!("gtp< {answer}");
        if let Some(rest) = answer.strip_prefix('=') {
            Ok(rest.trim().to_string())
        } else {
            Err(format!(
                "{} answered {command:?} with {answer:?}",
                self.name
            ))
        }
    }

    /// Starts a new game from the initial position.
    pub fn clear_board(&mut self) -> Result<(), GtpError> {
        self.command("clear_board").map(drop)
    }

    /// Tells the engine that `side` played `square`.
    pub fn play(&mut self, side: Side, square: Square) -> Result<(), GtpError> {
        self.command(&format!("play {} {square}", colour_word(side)))
            .map(drop)
    }

    /// Asks the engine for `side`'s move; `None` if it passes.
    pub fn genmove(&mut self, side: Side) -> Result<Option<Square>, GtpError> {
        let answer = self.command(&format!("genmove {}", colour_word(side)))?;
        parse_vertex(&answer)
            .ok_or_else(|| format!("{} answered genmove with {answer:?}, not a move", self.name))
    }
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
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        // Give it the chance to exit on `quit`, then make sure it is gone.
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
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
