//! The text protocol over TCP: lines in ([`LineReader`], with the codec's
//! [`LineBuffer`]), messages out ([`LineWriter`]).

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};

use reversi_text::{ClientMessage, LineBuffer, LineError, ParseError, ServerMessage};

use crate::text::clock::Timing;
use crate::text::{players, Event};

/// Opens a connection to `addr` (`host:port`, or a bare host for the
/// default port). The error is one line naming the address tried.
pub fn open(addr: &str) -> Result<(LineReader, LineWriter), String> {
    let stream = crate::connection::connect(addr)?;
    let reader = stream
        .try_clone()
        .map_err(|e| format!("could not connect to {addr}: {e}"))?;
    Ok((
        LineReader {
            stream: reader,
            lines: LineBuffer::new(),
            done: false,
            told_since_quiet: false,
        },
        LineWriter { stream },
    ))
}

/// The receiving half: bytes in, [`Event`]s out.
pub struct LineReader {
    stream: TcpStream,
    lines: LineBuffer,
    /// After EOF or a line too long: nothing more is read.
    done: bool,
    /// Lines were returned since the last [`Event::Quiet`].
    told_since_quiet: bool,
}

impl LineReader {
    /// Another handle on the connection, to close it from elsewhere (a waiting read
    /// then ends with EOF).
    pub fn handle(&self) -> Option<TcpStream> {
        self.stream.try_clone().ok()
    }

    /// Blocks until the next event: a message, a bad line, a pause
    /// ([`Event::Quiet`], before a read that may block), or EOF (for good).
    pub fn next_event(&mut self) -> Event {
        loop {
            if self.done {
                return Event::Eof;
            }
            match self.lines.next_line() {
                Ok(Some(line)) => {
                    log::debug!("<- {line}");
                    self.told_since_quiet = true;
                    match ServerMessage::parse(&line) {
                        Ok(message) => return received(message),
                        // Later versions may add messages (spec §1): not a fault.
                        Err(ParseError::UnknownCommand(what)) => match players::parse(&line) {
                            Some(players) => return Event::Players(players),
                            None if crate::text::tournament::parse(&line).is_some() => {
                                let told = crate::text::tournament::parse(&line);
                                return Event::Tournament(told.expect("just read"));
                            }
                            None => {
                                log::debug!("ignored a message this client does not know: {what}")
                            }
                        },
                        Err(e) => return Event::BadLine(format!("{line:?}: {e}")),
                    }
                    continue;
                }
                Ok(None) => {}
                Err(e @ LineError::NotText) => return Event::BadLine(e.to_string()),
                Err(e @ LineError::TooLong) => {
                    self.done = true;
                    return Event::BadLine(e.to_string());
                }
            }
            if std::mem::take(&mut self.told_since_quiet) {
                return Event::Quiet;
            }
            let mut buf = [0u8; 4096];
            match self.stream.read(&mut buf) {
                Ok(0) => self.done = true,
                Ok(n) => self.lines.extend(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    log::debug!("read failed: {e}");
                    self.done = true;
                }
            }
        }
    }
}

/// A message as the client's event: clocks and timers with the instant they were read.
fn received(message: ServerMessage) -> Event {
    match Timing::of(&message) {
        Some(timing) => Event::Timing {
            timing,
            at: std::time::Instant::now(),
        },
        None => Event::Received(message),
    }
}

/// The sending half.
pub struct LineWriter {
    stream: TcpStream,
}

impl LineWriter {
    /// Sends one message as a line.
    pub fn send(&mut self, message: &ClientMessage) -> io::Result<()> {
        log::debug!("-> {message}");
        self.stream.write_all(format!("{message}\n").as_bytes())
    }

    /// Sends one line as written; not logged, since it may hold a token.
    pub fn send_line(&mut self, line: &str) -> io::Result<()> {
        self.stream.write_all(format!("{line}\n").as_bytes())
    }

    /// Closes both directions; a reader blocked on this connection wakes up with EOF.
    pub fn close(&self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn messages_of_later_versions_are_skipped_and_broken_ones_reported() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let (mut reader, _writer) = open(&listener.local_addr().unwrap().to_string()).unwrap();
        let (mut server, _) = listener.accept().unwrap();
        server
            .write_all(b"GAME FLY high\nFLY away\nGAME WAITING 1\nGAME CLOCK 2 500\nGAME TURN x\n")
            .unwrap();
        drop(server);
        assert_eq!(
            reader.next_event(),
            Event::Received(ServerMessage::Waiting { more: 1 })
        );
        let clock = Timing::Clock { team: 2, ms: 500 };
        assert!(matches!(reader.next_event(), Event::Timing { timing, .. } if timing == clock));
        assert!(matches!(reader.next_event(), Event::BadLine(why) if why.contains("GAME TURN")));
    }
}
