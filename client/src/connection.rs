//! Opening a TCP connection to a server, for either protocol's transport
//! ([`crate::transport`]): the default port and one-line errors.

use std::io;
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// The port of §3.1, used when an address has none.
pub const DEFAULT_PORT: u16 = 8765;

/// How long one connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

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
        let stream = match SOURCE.get() {
            Some(&source) => connect_from(source, target),
            None => TcpStream::connect_timeout(target, CONNECT_TIMEOUT),
        };
        match stream {
            Ok(stream) => {
                // Small messages, one at a time: do not wait to coalesce them.
                let _ = stream.set_nodelay(true);
                log::info!("connected to {target}");
                return match crate::transport::tls::enabled() {
                    Some(trust) => crate::transport::tls::wrap(stream, host_of(&tried), trust),
                    None => Ok(stream),
                };
            }
            Err(err) => last_error = Some(err),
        }
    }
    Err(match last_error {
        Some(err) => fail(&err),
        None => fail(&"the name resolves to no address"),
    })
}

/// The local address every connection is made from (`--bind`), if one is set.
static SOURCE: std::sync::OnceLock<std::net::IpAddr> = std::sync::OnceLock::new();

/// Makes every later connection from `source` (`reversi --bind 127.0.0.2`): a server
/// counts sign-ins per address, so bots on one machine may each need their own.
pub fn bind_source(source: std::net::IpAddr) {
    let _ = SOURCE.set(source);
}

/// A TCP connection to `target` from `source` (any port): bound before it connects.
fn connect_from(source: std::net::IpAddr, target: &SocketAddr) -> io::Result<TcpStream> {
    use std::os::fd::FromRawFd;
    let local = SocketAddr::new(source, 0);
    let (family, local_raw, target_raw) = match (local, target) {
        (SocketAddr::V4(l), SocketAddr::V4(t)) => (libc::AF_INET, raw_v4(&l), raw_v4(t)),
        (SocketAddr::V6(l), SocketAddr::V6(t)) => (libc::AF_INET6, raw_v6(&l), raw_v6(t)),
        _ => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("--bind {source} and {target} are not of one IP version"),
            ))
        }
    };
    let len = |raw: &Vec<u8>| raw.len() as libc::socklen_t;
    // SAFETY: a new socket; the addresses are sockaddr_in/sockaddr_in6 laid out in
    // byte vectors of their exact size; the descriptor is owned by the TcpStream after.
    unsafe {
        let fd = libc::socket(family, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let stream = TcpStream::from_raw_fd(fd);
        if libc::bind(fd, local_raw.as_ptr().cast(), len(&local_raw)) != 0
            || libc::connect(fd, target_raw.as_ptr().cast(), len(&target_raw)) != 0
        {
            return Err(io::Error::last_os_error());
        }
        Ok(stream)
    }
}

/// A `sockaddr_in`'s bytes.
fn raw_v4(addr: &std::net::SocketAddrV4) -> Vec<u8> {
    let raw = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: addr.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from_ne_bytes(addr.ip().octets()),
        },
        sin_zero: [0; 8],
    };
    // SAFETY: plain data, read as the bytes it is made of.
    unsafe { as_bytes(&raw) }
}

/// A `sockaddr_in6`'s bytes.
fn raw_v6(addr: &std::net::SocketAddrV6) -> Vec<u8> {
    let raw = libc::sockaddr_in6 {
        sin6_family: libc::AF_INET6 as libc::sa_family_t,
        sin6_port: addr.port().to_be(),
        sin6_flowinfo: addr.flowinfo(),
        sin6_addr: libc::in6_addr {
            s6_addr: addr.ip().octets(),
        },
        sin6_scope_id: addr.scope_id(),
    };
    // SAFETY: plain data, read as the bytes it is made of.
    unsafe { as_bytes(&raw) }
}

/// The bytes of a plain C struct.
unsafe fn as_bytes<T>(value: &T) -> Vec<u8> {
    std::slice::from_raw_parts((value as *const T).cast::<u8>(), std::mem::size_of::<T>()).to_vec()
}

/// The host of `host:port` (or `[v6]:port`), as a certificate names it.
fn host_of(tried: &str) -> &str {
    let addr = tried.split(' ').next().unwrap_or(tried);
    let host = addr.rsplit_once(':').map_or(addr, |(host, _)| host);
    host.trim_start_matches('[').trim_end_matches(']')
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

    #[test]
    fn a_connection_bound_to_a_source_address_comes_from_it() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let target = listener.local_addr().unwrap();
        let stream = connect_from("127.0.0.3".parse().unwrap(), &target).unwrap();
        let (_, peer) = listener.accept().unwrap();
        assert_eq!(peer.ip().to_string(), "127.0.0.3");
        assert_eq!(stream.peer_addr().unwrap(), target);
        let v6: SocketAddr = "[::1]:9".parse().unwrap();
        assert!(connect_from("127.0.0.3".parse().unwrap(), &v6).is_err());
    }

    #[test]
    fn the_name_a_certificate_is_checked_for_is_the_host_without_its_port() {
        assert_eq!(host_of("games.example:8765"), "games.example");
        assert_eq!(host_of("localhost:8765 (the default port)"), "localhost");
        assert_eq!(host_of("[::1]:8765 (the default port)"), "::1");
        assert_eq!(host_of("127.0.0.1:9"), "127.0.0.1");
    }
}
