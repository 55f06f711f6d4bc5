//! One connection of a session: its socket, its wire adapter and its output,
//! read and written without blocking.

use std::io::{self, Read};
use std::net::Shutdown;
use std::time::Instant;

use log::debug;

use super::referee::Who;
use crate::outbox::Outbox;
use crate::protocols::{Input, Wire};

/// After our last message, a client that sends more than this is closed at once:
/// discarding a fast sender's stream would otherwise keep the session past its
/// linger for as long as the client likes.
pub const MAX_DISCARD: usize = 64 * 1024;
/// How much is read in one go, and from one connection in one turn of the loop: a
/// flooder's bytes wait in its socket while the others and the clock have their turn.
pub const READ_BUDGET: usize = 256;

pub struct Conn {
    pub stream: mio::net::TcpStream,
    pub peer: String,
    pub who: Who,
    pub wire: Box<dyn Wire>,
    pub out: Outbox,
    /// Closed on our side.
    pub closed: bool,
    /// Our sending side is shut: only discarding input until EOF.
    pub write_shut: bool,
    /// Nothing more will be sent to it: close once the output is out.
    pub finishing: bool,
    /// A readable event came and reading has not yet hit WouldBlock since.
    pub readable: bool,
    /// The last flush stopped at WouldBlock: wait for writable.
    pub blocked: bool,
    /// Bytes read and thrown away after our last message.
    pub discarded: usize,
    /// Bytes it may still be read this turn ([`READ_BUDGET`] at each turn's start).
    pub budget: usize,
    /// When it was told its last message: it is closed a linger after, closed or not.
    pub finishing_since: Option<Instant>,
    /// A viewer: how many of the events for viewers it has been given (an index into
    /// the session's [`super::Broadcast`], counted from the game's start).
    pub seen: usize,
    /// Registered for writable events too: a viewer is only while its output is blocked,
    /// so that the writes to a thousand viewers do not bury a player's event.
    pub watch_writable: bool,
}

impl Conn {
    /// The kernel's smoothed round trip to the client (TCP_INFO), on a direct connection
    /// only: behind a proxy (the client's address is not the socket's peer) it would be
    /// the proxy's.
    pub fn kernel_rtt(&self) -> Option<std::time::Duration> {
        use std::os::fd::AsRawFd;
        let direct = self.stream.peer_addr().ok()?.to_string() == self.peer;
        if !direct {
            return None;
        }
        // SAFETY: tcp_info is plain integers, for which all zeroes is a value.
        let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
        // SAFETY: getsockopt writes at most `len` bytes into `info`, which has them.
        let rc = unsafe {
            libc::getsockopt(
                self.stream.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_INFO,
                (&mut info as *mut libc::tcp_info).cast(),
                &mut len,
            )
        };
        (rc == 0).then(|| std::time::Duration::from_micros(u64::from(info.tcpi_rtt)))
    }
}

/// What a read found.
pub enum ReadOutcome {
    /// Everything available was read (WouldBlock).
    Drained,
    /// Some bytes, turned into inputs; there may be more.
    Got,
    /// The peer closed (or the connection failed).
    Eof,
    /// This turn's budget is spent; what is left waits for the next turn.
    Spent,
}

impl Conn {
    pub fn new(stream: mio::net::TcpStream, peer: String, who: Who, wire: Box<dyn Wire>) -> Conn {
        Conn {
            stream,
            peer,
            who,
            wire,
            out: Outbox::new(),
            closed: false,
            write_shut: false,
            finishing: false,
            // Bytes may be waiting already: the first pump reads without an event.
            readable: true,
            blocked: false,
            discarded: 0,
            budget: READ_BUDGET,
            finishing_since: None,
            seen: 0,
            watch_writable: true,
        }
    }

    /// Nothing more will be sent to it but its last messages.
    pub fn finish(&mut self, now: Instant) {
        self.finishing = true;
        self.finishing_since.get_or_insert(now);
    }

    /// Writes what is queued. `Err`: the peer is gone.
    pub fn flush(&mut self) -> io::Result<()> {
        let done = self.out.flush(&mut self.stream)?;
        self.blocked = !done;
        Ok(())
    }

    /// Hands `bytes` from the client to the wire adapter, and queues what its protocol
    /// owes the client in return.
    pub fn receive(&mut self, bytes: &[u8], inputs: &mut Vec<Input>) {
        self.wire.receive(bytes, inputs);
        self.wire.owed(&mut self.out);
    }

    /// Reads one chunk, within this turn's budget, and hands it to the wire adapter.
    pub fn read_inputs(&mut self, inputs: &mut Vec<Input>) -> ReadOutcome {
        let mut buf = [0u8; READ_BUDGET];
        if self.budget == 0 {
            return ReadOutcome::Spent;
        }
        loop {
            match self.stream.read(&mut buf[..self.budget]) {
                Ok(0) => return ReadOutcome::Eof,
                Ok(n) => {
                    self.budget -= n;
                    self.receive(&buf[..n], inputs);
                    return ReadOutcome::Got;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.readable = false;
                    return ReadOutcome::Drained;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    debug!("read from {}: {e}", self.peer);
                    return ReadOutcome::Eof;
                }
            }
        }
    }

    /// Once everything is out: shut our side, then read and forget until EOF.
    /// Returns true when the connection can be closed.
    pub fn wind_down(&mut self) -> bool {
        if !self.write_shut {
            self.wire.farewell(&mut self.out);
        }
        if !self.out.is_empty() {
            // The farewell may have just been queued: send it now, not at the next event.
            if self.flush().is_err() {
                return true;
            }
            if !self.out.is_empty() {
                return false;
            }
        }
        if !self.write_shut {
            let _ = self.stream.shutdown(Shutdown::Write);
            self.write_shut = true;
        }
        self.discard_input()
    }

    /// Reads and forgets input until WouldBlock (false) or EOF, an error, or more than
    /// [`MAX_DISCARD`] bytes in all (true).
    pub fn discard_input(&mut self) -> bool {
        let mut buf = [0u8; 512];
        loop {
            match self.stream.read(&mut buf) {
                Ok(0) => return true,
                Ok(n) => {
                    self.discarded += n;
                    if self.discarded > MAX_DISCARD {
                        debug!(
                            "{}: still sending after its last message; closing",
                            self.peer
                        );
                        return true;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return false,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return true,
            }
        }
    }

    pub fn close(&mut self) {
        if !self.closed {
            self.closed = true;
            self.out = Outbox::new();
            let _ = self.stream.shutdown(Shutdown::Both);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::time::{Duration, Instant};

    #[test]
    fn discarding_gives_up_on_a_client_that_keeps_sending() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (served, _) = listener.accept().unwrap();
        served.set_nonblocking(true).unwrap();
        let mut conn = Conn::new(
            mio::net::TcpStream::from_std(served),
            "test".into(),
            Who::Viewer,
            crate::protocols::WireKind::Text.adapter(),
        );
        client.write_all(&[0; MAX_DISCARD + 4096]).unwrap();
        // The client neither stops nor closes: only the cap can end the discarding.
        let deadline = Instant::now() + Duration::from_secs(2);
        while !conn.discard_input() {
            assert!(
                Instant::now() < deadline,
                "discarded {} bytes",
                conn.discarded
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(conn.discarded > MAX_DISCARD);
    }
}
