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
