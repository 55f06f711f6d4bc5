//! Listening sockets, made with socket2 so the options are set before bind.

use std::io;
use std::net::SocketAddr;

use socket2::{Domain, Protocol, Socket, Type};

/// Backlog asked of listen(2); the kernel caps it at net.core.somaxconn.
const BACKLOG: i32 = 4096;
/// Each connection's kernel send and receive buffers (the kernel doubles the figure).
/// Set on the listener, so accepted sockets inherit it before their handshake: without
/// it Linux grows the buffers of a client that never reads to megabytes (autotuning),
/// far past the session's own 16 KiB output cap. A game's messages are tiny.
const SOCKET_BUFFER: usize = 32 * 1024;

/// Binds a non-blocking listener on `addr` with SO_REUSEADDR (and IPV6_V6ONLY for an IPv6
/// address, so `[::]` and `0.0.0.0` can be listened on side by side).
pub fn bind(addr: SocketAddr) -> io::Result<mio::net::TcpListener> {
    let socket = Socket::new(
        Domain::for_address(addr),
        Type::STREAM.cloexec(),
        Some(Protocol::TCP),
    )?;
    socket.set_reuse_address(true)?;
    if addr.is_ipv6() {
        socket.set_only_v6(true)?;
    }
    socket.set_tcp_nodelay(true)?;
    socket.set_send_buffer_size(SOCKET_BUFFER)?;
    socket.set_recv_buffer_size(SOCKET_BUFFER)?;
    socket.set_nonblocking(true)?;
    socket
        .bind(&addr.into())
        .map_err(|e| io::Error::new(e.kind(), format!("cannot bind {addr}: {e}")))?;
    socket.listen(BACKLOG)?;
    Ok(mio::net::TcpListener::from_std(socket.into()))
}

impl super::Supervisor {
    /// Connection `index` opened with a TLS ClientHello: the terminator (started for the
    /// first TLS client, and again after it died) takes the client's socket and the
    /// bytes read from it, and the connection's socket becomes the plaintext end of a
    /// pair, so that everything after (the inner protocol's first bytes, the address and
    /// its limits, the handshake deadline, the log, the session) goes on as for any
    /// connection. spec/TLS.md.
    pub(super) fn terminate_tls(&mut self, index: usize) {
        let now = std::time::Instant::now();
        let Some(files) = self.config.tls.clone() else {
            return self.refuse(index, "TLS is not served here", now);
        };
        if self.tls.is_none() {
            match crate::protocols::tls::Terminator::start(&files) {
                Ok(started) => {
                    log::info!("TLS terminator {} started", started.pid());
                    self.tls = Some(started);
                }
                Err(e) => {
                    log::error!("cannot start the TLS terminator: {e}");
                    return self.refuse(index, "server busy", now);
                }
            }
        }
        if let Err(e) = self.swap_for_plaintext(index) {
            let peer = self.pending.get(index).map(|c| c.peer);
            log::warn!("{peer:?}: cannot hand TLS to the terminator: {e}");
            self.metrics.refused(crate::metrics::Refused::Busy);
            self.refuse(index, "server busy", now);
        }
    }

    /// Hands connection `index`'s client to the terminator and puts the plaintext end in
    /// its place (registered under the same token). On an error nothing has changed.
    fn swap_for_plaintext(&mut self, index: usize) -> io::Result<()> {
        use std::os::fd::{FromRawFd, IntoRawFd};
        let (Some(conn), Some(tls)) = (self.pending.get_mut(index), &self.tls) else {
            return Ok(());
        };
        let (ours, theirs) = crate::protocols::tls::plaintext_pair()?;
        tls.hand(&conn.stream, &theirs, &conn.input)?;
        let _ = self.poll.registry().deregister(&mut conn.stream);
        // SAFETY: `ours` is a connected stream socket we own. A Unix socket stands in the
        // TcpStream: every call the supervisor and sessions make on a client's socket
        // (read, write, shutdown, readiness) works on both; the TCP-only ones fail and
        // are best effort (TCP_NODELAY, TCP_INFO's round trip).
        conn.stream = unsafe { mio::net::TcpStream::from_raw_fd(ours.into_raw_fd()) };
        conn.input.clear();
        conn.wire = None;
        let token = mio::Token(super::CONN_BASE + index);
        let interest = mio::Interest::READABLE | mio::Interest::WRITABLE;
        if let Err(e) = self
            .poll
            .registry()
            .register(&mut conn.stream, token, interest)
        {
            // The client went to the terminator: it sees the plaintext end close.
            log::warn!("{}: cannot register its plaintext end: {e}", conn.peer);
            self.close(index);
        }
        Ok(())
    }

    /// SIGHUP: the terminator rereads its certificate and key (connections go on).
    pub(super) fn reload_tls(&mut self) {
        if let Some(tls) = &self.tls {
            if let Err(e) = tls.reload() {
                log::error!("SIGHUP: cannot tell the TLS terminator to reload: {e}");
            }
        }
    }

    /// Whether `pid` is the TLS terminator's.
    pub(super) fn tls_ended(&self, pid: nix::unistd::Pid) -> bool {
        self.tls.as_ref().map(|t| t.pid()) == Some(pid)
    }
}
