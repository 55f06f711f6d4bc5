//! A blocking client of the text protocol (spec/TEXT-PROTOCOL.md) for the
//! end-to-end suites: send lines, wait for lines, read the board from DRAW.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use crate::PATIENCE;

/// A connection that speaks lines.
pub struct TextClient {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    /// Every line received so far, in order (skipped ones too).
    pub seen: Vec<String>,
    /// Lines that start so are noted in `seen` but never returned: suites written before
    /// `GAME TIME` (TEXT-PROTOCOL.md §8.1) and `GAME PLAYER` (§5.1) skip them; the clock
    /// and players suites return every line.
    pub skip: Vec<&'static str>,
    /// The board as DRAW lines left it: (x, y) to (square kind, piece and team).
    pub board: BTreeMap<(u8, u8), (String, Option<String>)>,
    last_square: Option<(u8, u8)>,
}

impl TextClient {
    pub fn connect(addr: SocketAddr) -> TextClient {
        TextClient::from_stream(TcpStream::connect(addr).expect("connect to reversid"))
    }

    pub fn from_stream(stream: TcpStream) -> TextClient {
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        TextClient {
            writer: stream.try_clone().unwrap(),
            reader: BufReader::new(stream),
            seen: Vec::new(),
            skip: vec!["GAME TIME ", "GAME PLAYER "],
            board: BTreeMap::new(),
            last_square: None,
        }
    }

    /// Connects and sends `GAME TYPE game`.
    pub fn join(addr: SocketAddr, game: &str) -> TextClient {
        let mut c = TextClient::connect(addr);
        c.send(&format!("GAME TYPE {game}"));
        c
    }

    pub fn stream(&self) -> &TcpStream {
        &self.writer
    }

    pub fn send(&mut self, line: &str) {
        self.send_raw(format!("{line}\n").as_bytes());
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).expect("send to reversid");
    }

    /// The next line not skipped (see `skip`), `None` at EOF (a reset counts as EOF).
    pub fn recv(&mut self) -> Option<String> {
        loop {
            let line = self.recv_any()?;
            if !self.skip.iter().any(|s| line.starts_with(s)) {
                return Some(line);
            }
        }
    }

    /// Every line returned, none skipped.
    pub fn keep_every_line(mut self) -> TextClient {
        self.skip.clear();
        self
    }

    fn recv_any(&mut self) -> Option<String> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) | Err(_) if line.is_empty() => None,
            Ok(_) | Err(_) => {
                let line = line.trim_end_matches(['\r', '\n']).to_owned();
                self.note(&line);
                self.seen.push(line.clone());
                Some(line)
            }
        }
    }

    fn note(&mut self, line: &str) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["DRAW", "SQUARE", kind, x, y] => {
                let at = (x.parse().unwrap(), y.parse().unwrap());
                self.board.insert(at, ((*kind).to_owned(), None));
                self.last_square = Some(at);
            }
            ["DRAW", "PIECE", name, team] => {
                let at = self.last_square.expect("DRAW PIECE after a DRAW SQUARE");
                if let Some(cell) = self.board.get_mut(&at) {
                    cell.1 = Some(format!("{name}/{team}"));
                }
            }
            _ => {}
        }
    }

    /// Reads until a line starts with `prefix`; returns it. Fails on EOF or timeout.
    pub fn expect(&mut self, prefix: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            assert!(
                Instant::now() < deadline,
                "no {prefix:?} in time; seen {:?}",
                self.seen
            );
            match self.recv() {
                Some(line) if line.starts_with(prefix) => return line,
                Some(_) => {}
                None => panic!("closed before {prefix:?}; seen {:?}", self.seen),
            }
        }
    }

    /// The very next line, which must start with `prefix`.
    pub fn next_is(&mut self, prefix: &str) -> String {
        match self.recv() {
            Some(line) if line.starts_with(prefix) => line,
            other => panic!("wanted {prefix:?}, got {other:?}; seen {:?}", self.seen),
        }
    }

    /// Reads to EOF; returns the lines read.
    pub fn drain(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        while let Some(line) = self.recv() {
            lines.push(line);
        }
        lines
    }

    /// Waits for EOF, failing on any line that does not start with one of `allowed`.
    pub fn expect_closed(&mut self, allowed: &[&str]) {
        for line in self.drain() {
            assert!(
                allowed.iter().any(|a| line.starts_with(a)),
                "unexpected {line:?} before the close"
            );
        }
    }

    /// Sets the read timeout (the default is [`PATIENCE`]).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.writer.set_read_timeout(Some(timeout)).unwrap();
    }
}
