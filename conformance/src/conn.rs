//! One text-protocol connection as a check sees it: lines sent, lines
//! awaited with a deadline and judged one by one, and the board the `DRAW`
//! lines drew (TEXT-PROTOCOL.md §2).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use crate::report::Finding;

/// How long a check waits for a line it expects before it calls it missing.
pub const PATIENCE: Duration = Duration::from_secs(5);

/// What a square shows: its kind, and the piece on it (name, team number).
pub type Square = (String, Option<(String, u8)>);

/// A board as `DRAW` lines leave it, by (x, y).
pub type Board = BTreeMap<(u8, u8), Square>;

/// What waiting for a line gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recv {
    Line(String),
    Closed,
    Silent,
}

impl Recv {
    /// How a report shows it.
    pub fn show(&self) -> String {
        match self {
            Recv::Line(line) => format!("{line:?}"),
            Recv::Closed => "the connection closed".to_owned(),
            Recv::Silent => "no line in time".to_owned(),
        }
    }
}

/// A text connection, named for the report (`X`, `viewer`).
pub struct Conn {
    pub who: String,
    stream: TcpStream,
    reader: BufReader<TcpStream>,
    /// Bytes of a line not complete yet (kept across timeouts).
    partial: Vec<u8>,
    pub board: Board,
    last_square: Option<(u8, u8)>,
    /// A line read and put back ([`Conn::unread`]).
    pending: Option<String>,
    /// Every line received, in order.
    pub seen: Vec<String>,
    /// Closed on purpose, by [`Conn::close`].
    closed: bool,
    /// The clock's lines received (`GAME TIME`, `GAME CLOCK`, `GAME TIMER`, `GAME PING`,
    /// §3), in order: kept out of the line-by-line order the other checks judge, and
    /// judged by their own (§8).
    pub countdowns: Vec<String>,
    /// The `GAME PLAYER` lines received (§5.1): who plays, set aside as the countdowns are
    /// and judged by their own check ([`crate::server::table`]).
    pub players: Vec<String>,
}

/// Whether `line` is one of the clock's (§3, §8): a countdown, which may follow any
/// `GAME TURN` or change, the time control before the board, or a ping.
fn is_countdown(line: &str) -> bool {
    ["GAME CLOCK ", "GAME TIMER ", "GAME TIME ", "GAME PING "]
        .iter()
        .any(|p| line.starts_with(p))
}

/// A check that is done with a connection leaves with `GAME QUIT`, not by
/// dropping it: a server counts dropped games against the address (§8,
/// PROTOCOL.md §8.11), and the kit plays many.
impl Drop for Conn {
    fn drop(&mut self) {
        if !self.closed {
            let _ = self.stream.write_all(b"GAME QUIT\n");
        }
    }
}

impl Conn {
    pub fn open(addr: SocketAddr, who: &str) -> Result<Conn, Finding> {
        let stream = TcpStream::connect_timeout(&addr, PATIENCE)
            .map_err(|e| Finding::differ(who, format!("a connection to {addr}"), e.to_string()))?;
        Conn::from_stream(stream, who)
    }

    /// A connection already made (the client mode's accepted one).
    pub fn from_stream(stream: TcpStream, who: &str) -> Result<Conn, Finding> {
        let _ = stream.set_nodelay(true);
        let reader = BufReader::new(
            stream
                .try_clone()
                .map_err(|e| Finding::differ(who, "a socket", e.to_string()))?,
        );
        Ok(Conn {
            who: who.to_owned(),
            stream,
            reader,
            partial: Vec::new(),
            board: Board::new(),
            last_square: None,
            pending: None,
            seen: Vec::new(),
            closed: false,
            countdowns: Vec::new(),
            players: Vec::new(),
        })
    }

    /// Opens a connection and sends `GAME TYPE game`.
    pub fn join(addr: SocketAddr, who: &str, game: &str) -> Result<Conn, Finding> {
        let mut conn = Conn::open(addr, who)?;
        conn.send(&format!("GAME TYPE {game}"))?;
        Ok(conn)
    }

    /// The address the server sees this connection come from.
    pub fn local_addr(&self) -> String {
        self.stream
            .local_addr()
            .map_or_else(|_| "?".to_owned(), |a| a.to_string())
    }

    pub fn send(&mut self, line: &str) -> Result<(), Finding> {
        self.send_raw(format!("{line}\n").as_bytes())
    }

    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<(), Finding> {
        self.stream.write_all(bytes).map_err(|e| {
            Finding::differ(
                &self.who,
                "the connection open to send",
                format!("sending failed: {e}"),
            )
        })
    }

    /// Closes both directions without a word: the server sees the client
    /// disconnect (§6.2).
    pub fn close(mut self) {
        self.closed = true;
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }

    /// The next line within `wait`.
    pub fn recv_within(&mut self, wait: Duration) -> Recv {
        if let Some(line) = self.pending.take() {
            // Drawn again: drawing a line twice draws the same, and the board
            // may have been cleared since (a new board starts with it).
            self.note(&line);
            return Recv::Line(line);
        }
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Recv::Silent;
            }
            let _ = self.stream.set_read_timeout(Some(left));
            match self.reader.read_until(b'\n', &mut self.partial) {
                Ok(0) => return Recv::Closed,
                Ok(_) if self.partial.ends_with(b"\n") => {
                    let line = self.take_line();
                    if is_countdown(&line) {
                        self.countdowns.push(line);
                        continue;
                    }
                    if line.starts_with("GAME PLAYER ") {
                        self.players.push(line);
                        continue;
                    }
                    return Recv::Line(line);
                }
                Ok(_) => return Recv::Closed,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return Recv::Closed,
            }
        }
    }

    fn take_line(&mut self) -> String {
        let bytes = std::mem::take(&mut self.partial);
        let line = String::from_utf8_lossy(&bytes)
            .trim_end_matches(['\n', '\r'])
            .to_owned();
        self.note(&line);
        self.seen.push(line.clone());
        line
    }

    /// Puts `line` back: the next read returns it.
    pub fn unread(&mut self, line: String) {
        self.pending = Some(line);
    }

    /// The next line, waiting at most [`PATIENCE`].
    pub fn recv(&mut self) -> Recv {
        self.recv_within(PATIENCE)
    }

    /// Keeps the board up to date with `DRAW` lines.
    fn note(&mut self, line: &str) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["DRAW", "SQUARE", kind, x, y] => {
                if let (Ok(x), Ok(y)) = (x.parse(), y.parse()) {
                    self.board.insert((x, y), ((*kind).to_owned(), None));
                    self.last_square = Some((x, y));
                }
            }
            ["DRAW", "PIECE", name, team] => {
                let cell = self.last_square.and_then(|at| self.board.get_mut(&at));
                if let (Some(cell), Ok(team)) = (cell, team.parse()) {
                    cell.1 = Some(((*name).to_owned(), team));
                }
            }
            _ => {}
        }
    }

    /// The next line must be exactly `expected`.
    pub fn next_is(&mut self, expected: &str) -> Result<(), Finding> {
        match self.recv() {
            Recv::Line(line) if line == expected => Ok(()),
            got => Err(self.differ(format!("{expected:?}"), got.show())),
        }
    }

    /// The next line must start with `prefix`; returns it.
    pub fn next_starts(&mut self, prefix: &str) -> Result<String, Finding> {
        match self.recv() {
            Recv::Line(line) if line.starts_with(prefix) => Ok(line),
            got => Err(self.differ(format!("a line starting {prefix:?}"), got.show())),
        }
    }

    /// Reads past other lines to the first that starts with `prefix`.
    pub fn skip_to(&mut self, prefix: &str) -> Result<String, Finding> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.recv_within(left) {
                Recv::Line(line) if line.starts_with(prefix) => return Ok(line),
                Recv::Line(_) => {}
                got => {
                    return Err(self.differ(
                        format!("a line starting {prefix:?} (after others)"),
                        got.show(),
                    ))
                }
            }
        }
    }

    /// The server must close the connection within `wait`, sending no line first.
    pub fn closed_within(&mut self, wait: Duration) -> Result<(), Finding> {
        match self.recv_within(wait) {
            Recv::Closed => Ok(()),
            got => Err(self.differ(
                format!("the close within {} ms, no line", wait.as_millis()),
                got.show(),
            )),
        }
    }

    /// The server must close the connection, sending no line first.
    pub fn closed(&mut self) -> Result<(), Finding> {
        self.closed_within(PATIENCE)
    }

    /// No line may come for `wait` (the connection may stay open).
    pub fn silent_for(&mut self, wait: Duration) -> Result<(), Finding> {
        match self.recv_within(wait) {
            Recv::Silent => Ok(()),
            got => Err(self.differ(format!("nothing for {} ms", wait.as_millis()), got.show())),
        }
    }

    /// Every byte that comes until the server closes the connection (for a
    /// connection the server judged binary, which gets no lines).
    pub fn recv_bytes(&mut self) -> Result<Vec<u8>, Recv> {
        let mut bytes = std::mem::take(&mut self.partial);
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Recv::Silent);
            }
            let _ = self.stream.set_read_timeout(Some(left));
            let buffered = self.reader.buffer().to_vec();
            self.reader.consume(buffered.len());
            bytes.extend_from_slice(&buffered);
            let mut chunk = [0u8; 256];
            match std::io::Read::read(&mut self.stream, &mut chunk) {
                Ok(0) => return Ok(bytes),
                Ok(n) => bytes.extend_from_slice(&chunk[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) => {}
                Err(_) => return Ok(bytes),
            }
        }
    }

    /// Every line that comes until none has come for `quiet`.
    pub fn lines_until_quiet(&mut self, quiet: Duration) -> Vec<String> {
        let mut lines = Vec::new();
        while let Recv::Line(line) = self.recv_within(quiet) {
            lines.push(line);
        }
        lines
    }

    /// A difference seen on this connection.
    pub fn differ(&self, expected: impl Into<String>, got: impl Into<String>) -> Finding {
        Finding::differ(&self.who, expected, got)
    }
}
