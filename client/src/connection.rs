//! The TCP side: opening the connection, turning its bytes into machine
//! events with the codec's [`FrameBuffer`], and sending PDUs. [`connect`] opens
//! connections for the text protocol too.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

use reversi_pdu::{Direction, FrameBuffer, MAX_PDU_LEN};

use crate::driver::{Machine, Runner};
use crate::state::{Event, Incoming, Notice, Outgoing, State};

/// The binary protocol's client on a TCP connection.
pub type Driver = Runner<State, Writer>;

/// The port of §3.1, used when an address has none.
pub const DEFAULT_PORT: u16 = 8765;

/// How long one connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Opens a connection to `addr` (`host:port`, or a bare host for port
/// [`DEFAULT_PORT`]), for the binary protocol.
/// The error is one line: "could not connect to ADDR: why".
pub fn open(addr: &str) -> Result<(Reader, Writer), String> {
    let stream = connect(addr)?;
    let reader = stream
        .try_clone()
        .map_err(|e| format!("could not connect to {addr}: {e}"))?;
    Ok((Reader::new(reader), Writer { stream }))
}

/// Opens a TCP connection to `addr` (`host:port`, or a bare host for port
/// [`DEFAULT_PORT`]). The error is one line naming the address tried, and
/// saying so when the port was the default one: "could not connect to
/// localhost:8765 (the default port): Connection refused".
pub fn connect(addr: &str) -> Result<TcpStream, String> {
    let (targets, tried) =
        resolve(addr).map_err(|e| format!("could not connect to {addr}: {e}"))?;
    let fail = |why: &dyn std::fmt::Display| format!("could not connect to {tried}: {why}");
    let mut last_error = None;
    for target in &targets {
        match TcpStream::connect_timeout(target, CONNECT_TIMEOUT) {
            Ok(stream) => {
                // Small messages, one at a time: do not wait to coalesce them.
                let _ = stream.set_nodelay(true);
                log::info!("connected to {target}");
                return Ok(stream);
            }
            Err(err) => last_error = Some(err),
        }
    }
    Err(match last_error {
        Some(err) => fail(&err),
        None => fail(&"the name resolves to no address"),
    })
}

/// The socket addresses of `addr`, and how to name what was tried: `addr`
/// itself, or `host:8765 (the default port)` when it had no port.
fn resolve(addr: &str) -> io::Result<(Vec<SocketAddr>, String)> {
    match addr.to_socket_addrs() {
        Ok(found) => Ok((found.collect(), addr.to_owned())),
        // "localhost" or "::1" without a port: use the default one.
        Err(err) => {
            let host = addr.trim_start_matches('[').trim_end_matches(']');
            if host.parse::<std::net::IpAddr>().is_ok() || !host.contains(':') {
                let found = (host, DEFAULT_PORT).to_socket_addrs()?.collect();
                let name = match host.parse::<std::net::IpAddr>() {
                    Ok(ip) => SocketAddr::new(ip, DEFAULT_PORT).to_string(),
                    Err(_) => format!("{host}:{DEFAULT_PORT}"),
                };
                Ok((found, format!("{name} (the default port)")))
            } else {
                Err(err)
            }
        }
    }
}

/// The receiving half: bytes in, [`Event`]s out.
pub struct Reader {
    stream: TcpStream,
    frames: FrameBuffer,
    /// Set after EOF, `error`, `winner` or a malformed frame: nothing more
    /// is read (§3.4, §3.5).
    done: bool,
}

impl Reader {
    fn new(stream: TcpStream) -> Reader {
        Reader {
            stream,
            frames: FrameBuffer::new(),
            done: false,
        }
    }

    /// Blocks until the next event: a whole PDU, a malformed frame, or EOF.
    /// After the last PDU of a connection it keeps returning EOF.
    pub fn next_event(&mut self) -> Event {
        loop {
            if self.done {
                return Event::Eof;
            }
            match self.frames.next(Direction::ServerToClient) {
                Ok(Some(pdu)) => {
                    log::debug!("received {pdu}");
                    let event = Event::from_pdu(&pdu);
                    self.done = matches!(
                        event,
                        Event::Received(Incoming::Error | Incoming::Winner(_))
                            | Event::Malformed(_)
                    );
                    return event;
                }
                Ok(None) => {}
                Err(err) => {
                    log::debug!("malformed frame: {err}");
                    self.done = true;
                    return Event::Malformed(err);
                }
            }
            match self.stream.read(self.frames.spare_mut()) {
                Ok(0) => {
                    // A partial PDU at EOF is EOF, not a malformed PDU (§3.4).
                    log::debug!("EOF with {} bytes buffered", self.frames.buffered());
                    self.done = true;
                }
                Ok(n) => self.frames.commit(n),
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => {
                    log::debug!("read failed: {err}");
                    self.done = true;
                }
            }
        }
    }
}

/// The sending half.
pub struct Writer {
    stream: TcpStream,
}

impl crate::driver::Link for Writer {
    type Message = Outgoing;
    type Source = Reader;

    fn send(&mut self, out: &Outgoing) -> io::Result<Vec<Event>> {
        Writer::send(self, *out).map(|()| Vec::new())
    }

    fn close(&self) {
        Writer::close(self)
    }
}

impl Writer {
    /// Encodes and sends one PDU.
    pub fn send(&mut self, out: Outgoing) -> io::Result<()> {
        let pdu = out.pdu();
        let mut buf = [0u8; MAX_PDU_LEN];
        let len = pdu
            .encode(&mut buf)
            .map_err(|err| io::Error::new(io::ErrorKind::InvalidData, err.to_string()))?;
        log::debug!("sending {pdu}");
        self.stream.write_all(&buf[..len])
    }

    /// Closes both directions; a reader blocked on this connection wakes up
    /// with EOF.
    pub fn close(&self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}

impl Driver {
    /// A disconnected client for the server at `addr`.
    pub fn new(addr: &str) -> Driver {
        Runner::with(addr, State::Disconnected, open)
    }

    /// The machine's current state.
    pub fn state(&self) -> &State {
        self.machine()
    }
}

impl Machine for State {
    type Event = Event;
    type Message = crate::state::Outgoing;
    type Notice = Notice;

    fn feed(&mut self, event: Event) -> Vec<crate::state::Action> {
        log::trace!("{} + {event:?}", self.name());
        let state = std::mem::replace(self, State::Disconnected);
        let (next, actions) = state.step(event);
        *self = next;
        actions
    }

    fn opened(result: Result<(), String>) -> Event {
        Event::Opened(result)
    }

    fn eof() -> Event {
        Event::Eof
    }
}

impl crate::driver::Source for Reader {
    type Event = Event;
    fn next_event(&mut self) -> Event {
        Reader::next_event(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_without_a_port_says_it_tried_the_default_one() {
        let (found, tried) = resolve("127.0.0.1").unwrap();
        assert_eq!(found, ["127.0.0.1:8765".parse::<SocketAddr>().unwrap()]);
        assert_eq!(tried, "127.0.0.1:8765 (the default port)");
        let (_, tried) = resolve("::1").unwrap();
        assert_eq!(tried, "[::1]:8765 (the default port)");
        let (_, tried) = resolve("localhost").unwrap();
        assert_eq!(tried, "localhost:8765 (the default port)");
        let (_, tried) = resolve("127.0.0.1:9").unwrap();
        assert_eq!(tried, "127.0.0.1:9");
    }
}
