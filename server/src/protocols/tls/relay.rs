//! One TLS connection's relay: the handshake, then records from the client decrypted
//! into the plaintext socket and what comes back encrypted to the client, until both
//! directions have closed.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;

use rustls::{ServerConfig, ServerConnection};

/// How long a client may take over its handshake (the supervisor's own deadline for the
/// first request runs too, on the plaintext end).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a client that does not read may hold a write to it.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the relay waits for the client to close once the server side has.
const LINGER_MS: i32 = 5_000;

/// Serves the client until both directions are closed; an error ends it early (the
/// sockets are closed when dropped, which both their peers see).
pub fn serve(
    config: Arc<ServerConfig>,
    early: &[u8],
    mut client: TcpStream,
    mut plain: UnixStream,
) -> io::Result<()> {
    // The supervisor read the client without blocking; the relay waits on it instead.
    client.set_nonblocking(false)?;
    client.set_write_timeout(Some(WRITE_TIMEOUT))?;
    let mut tls = ServerConnection::new(config).map_err(io::Error::other)?;
    handshake(&mut tls, &mut client, early)?;
    pump(&mut tls, &mut client, &mut plain)
}

/// Completes the handshake, starting with the bytes the supervisor read.
fn handshake(tls: &mut ServerConnection, client: &mut TcpStream, early: &[u8]) -> io::Result<()> {
    client.set_read_timeout(Some(HANDSHAKE_TIMEOUT))?;
    let mut early = early;
    while !early.is_empty() {
        tls.read_tls(&mut early)?;
    }
    if let Err(e) = tls.process_new_packets() {
        let _ = tls.write_tls(client);
        return Err(io::Error::other(format!("handshake: {e}")));
    }
    while tls.is_handshaking() {
        tls.complete_io(client)?;
    }
    client.set_read_timeout(None)
}

/// Which directions are still open.
struct Open {
    /// The client may still send (no close_notify, no EOF).
    from_client: bool,
    /// The server side may still send.
    from_plain: bool,
}

fn pump(
    tls: &mut ServerConnection,
    client: &mut TcpStream,
    plain: &mut UnixStream,
) -> io::Result<()> {
    let mut open = Open {
        from_client: true,
        from_plain: true,
    };
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        if open.from_client && !deliver(tls, plain, &mut buf)? {
            open.from_client = false;
            let _ = plain.shutdown(Shutdown::Write);
        }
        while tls.wants_write() {
            tls.write_tls(client)?;
        }
        if !open.from_client && !open.from_plain {
            return Ok(());
        }
        let (client_ready, plain_ready) = match wait(client, plain, &open)? {
            Some(ready) => ready,
            None => return Ok(()),
        };
        if client_ready {
            match tls.read_tls(client) {
                Ok(0) => {
                    open.from_client = false;
                    let _ = plain.shutdown(Shutdown::Write);
                }
                Ok(_) => {
                    if let Err(e) = tls.process_new_packets() {
                        let _ = tls.write_tls(client);
                        return Err(io::Error::other(e));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if plain_ready {
            match plain.read(&mut buf) {
                Ok(0) => {
                    open.from_plain = false;
                    tls.send_close_notify();
                    while tls.wants_write() {
                        tls.write_tls(client)?;
                    }
                    let _ = client.shutdown(Shutdown::Write);
                }
                Ok(n) => tls.writer().write_all(&buf[..n])?,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// Writes the plaintext rustls has decrypted to `plain`; false once the client has
/// closed its side (close_notify, or an end of stream without it).
fn deliver(tls: &mut ServerConnection, plain: &mut UnixStream, buf: &mut [u8]) -> io::Result<bool> {
    loop {
        match tls.reader().read(buf) {
            Ok(0) => return Ok(false),
            Ok(n) => plain.write_all(&buf[..n])?,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(true),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
            Err(e) => return Err(e),
        }
    }
}

/// Waits until the client or the plaintext end (those still open) has something to
/// read: which of them. `None`: the server side closed and the client did not follow
/// within [`LINGER_MS`].
fn wait(client: &TcpStream, plain: &UnixStream, open: &Open) -> io::Result<Option<(bool, bool)>> {
    let fd_if = |fd: i32, on: bool| if on { fd } else { -1 };
    let mut fds = [
        libc::pollfd {
            fd: fd_if(client.as_raw_fd(), open.from_client),
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: fd_if(plain.as_raw_fd(), open.from_plain),
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    let timeout = if open.from_plain { -1 } else { LINGER_MS };
    loop {
        // SAFETY: poll(2) on two pollfds we own, for their length.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout) };
        match n {
            0 => return Ok(None),
            n if n > 0 => return Ok(Some((fds[0].revents != 0, fds[1].revents != 0))),
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}
