//! One control connection's machine: the bytes it sends cut into request lines, within
//! the limits of [`super`] (a line's length, the time it may stay silent). Pure: the shell
//! (`crate::supervisor::control`) gives it the bytes read, the end of the stream and the
//! time, and does what each [`Step`] says.

use std::time::Instant;

use super::{IDLE, MAX_LINE};

/// What the shell does next for this connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A request line (without its line end), to answer.
    Ask(String),
    /// Send this `ERROR …` line; the connection stays.
    Tell(String),
    /// Send this line, if any, and close once everything is sent. Nothing follows.
    Hang(Option<String>),
}

/// The connection's state: what it sent and has not been cut into lines yet, whether its
/// stream ended, and until when it may stay silent.
#[derive(Debug)]
pub struct Conn {
    input: Vec<u8>,
    eof: bool,
    /// Hung up: every later step is nothing.
    done: bool,
    silent_until: Instant,
}

impl Conn {
    /// A connection accepted at `now`.
    pub fn new(now: Instant) -> Conn {
        Conn {
            input: Vec::new(),
            eof: false,
            done: false,
            silent_until: now + IDLE,
        }
    }

    /// Whether the shell should read more: not after the end, and never more than a line
    /// beyond what is buffered (a client that floods is cut off by [`Conn::next`]).
    pub fn wants_input(&self) -> bool {
        !self.eof && !self.done && self.input.len() <= MAX_LINE
    }

    /// Bytes read from the connection.
    pub fn received(&mut self, bytes: &[u8]) {
        if !self.done {
            self.input.extend_from_slice(bytes);
        }
    }

    /// The client closed its side (it may still read the answers).
    pub fn ended(&mut self) {
        self.eof = true;
    }

    /// When the shell must ask [`Conn::next`] again, if nothing else happens.
    pub fn deadline(&self) -> Option<Instant> {
        (!self.done).then_some(self.silent_until)
    }

    /// The next step at `now`, or `None` when the connection waits for more.
    pub fn next(&mut self, now: Instant) -> Option<Step> {
        if self.done {
            return None;
        }
        if let Some(end) = self.input.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.input.drain(..=end).collect();
            return Some(self.line(&line[..end], now));
        }
        if self.input.len() > MAX_LINE {
            return Some(self.hang(format!(
                "ERROR a line longer than {MAX_LINE} bytes: closing"
            )));
        }
        if self.eof {
            // A last line without its line end is a line all the same.
            if !self.input.is_empty() {
                let line = std::mem::take(&mut self.input);
                return Some(self.line(&line, now));
            }
            self.done = true;
            return Some(Step::Hang(None));
        }
        if now >= self.silent_until {
            let secs = IDLE.as_secs();
            return Some(self.hang(format!("ERROR nothing asked for {secs} s: closing")));
        }
        None
    }

    /// A whole line (its `\n` taken off).
    fn line(&mut self, line: &[u8], now: Instant) -> Step {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.len() > MAX_LINE {
            return self.hang(format!(
                "ERROR a line longer than {MAX_LINE} bytes: closing"
            ));
        }
        self.silent_until = now + IDLE;
        match std::str::from_utf8(line) {
            Ok(text) if text.trim().is_empty() => {
                Step::Tell("ERROR an empty line asks nothing".into())
            }
            Ok(text) => Step::Ask(text.trim().to_owned()),
            Err(_) => Step::Tell("ERROR a request is UTF-8 text".into()),
        }
    }

    fn hang(&mut self, line: String) -> Step {
        self.done = true;
        self.input.clear();
        Step::Hang(Some(line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn steps(conn: &mut Conn, now: Instant) -> Vec<Step> {
        std::iter::from_fn(|| conn.next(now)).collect()
    }

    fn ask(line: &str) -> Step {
        Step::Ask(line.into())
    }

    #[test]
    fn a_fresh_connection_waits() {
        let now = Instant::now();
        let mut conn = Conn::new(now);
        assert!(conn.wants_input());
        assert_eq!(conn.next(now), None);
        assert_eq!(conn.deadline(), Some(now + IDLE));
    }

    #[test]
    fn lines_are_asked_in_order_and_parts_wait_for_their_end() {
        let now = Instant::now();
        let mut conn = Conn::new(now);
        conn.received(b"TOURNAMENTS\r\nSTAND");
        assert_eq!(steps(&mut conn, now), [ask("TOURNAMENTS")]);
        conn.received(b"INGS 1\nEXPORT 1 csv\n");
        assert_eq!(
            steps(&mut conn, now),
            [ask("STANDINGS 1"), ask("EXPORT 1 csv")]
        );
    }

    #[test]
    fn an_empty_or_binary_line_is_refused_and_the_connection_stays() {
        let now = Instant::now();
        let mut conn = Conn::new(now);
        conn.received(b"\n\xff\xfe\nTOURNAMENTS\n");
        let got = steps(&mut conn, now);
        assert!(matches!(&got[0], Step::Tell(l) if l.starts_with("ERROR ")));
        assert!(matches!(&got[1], Step::Tell(l) if l.contains("UTF-8")));
        assert_eq!(got[2], ask("TOURNAMENTS"));
        assert_eq!(got.len(), 3);
    }

    #[test]
    fn a_line_too_long_hangs_up_with_or_without_its_end() {
        let now = Instant::now();
        for end in [&b""[..], b"\n"] {
            let mut conn = Conn::new(now);
            conn.received(&vec![b'x'; MAX_LINE + 1]);
            conn.received(end);
            assert!(!conn.wants_input());
            let got = steps(&mut conn, now);
            assert!(
                matches!(&got[..], [Step::Hang(Some(l))] if l.contains("longer than")),
                "{got:?}"
            );
            conn.received(b"TOURNAMENTS\n");
            assert_eq!(conn.next(now), None, "nothing after hanging up");
            assert_eq!(conn.deadline(), None);
        }
    }

    #[test]
    fn the_end_of_the_stream_answers_what_came_then_hangs_up() {
        let now = Instant::now();
        let mut conn = Conn::new(now);
        conn.received(b"TOURNAMENTS\nSTANDINGS 2");
        conn.ended();
        assert!(!conn.wants_input());
        assert_eq!(
            steps(&mut conn, now),
            [ask("TOURNAMENTS"), ask("STANDINGS 2"), Step::Hang(None)]
        );
    }

    #[test]
    fn silence_past_the_idle_time_hangs_up_and_each_line_restarts_it() {
        let start = Instant::now();
        let mut conn = Conn::new(start);
        let later = start + IDLE - Duration::from_secs(1);
        conn.received(b"TOURNAMENTS\n");
        assert_eq!(steps(&mut conn, later), [ask("TOURNAMENTS")]);
        assert_eq!(conn.deadline(), Some(later + IDLE));
        assert_eq!(conn.next(start + IDLE), None, "the line restarted it");
        let got = steps(&mut conn, later + IDLE);
        assert!(
            matches!(&got[..], [Step::Hang(Some(l))] if l.contains("nothing asked")),
            "{got:?}"
        );
    }
}
