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
        match TcpStream::connect_timeout(target, CONNECT_TIMEOUT) {
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
    fn the_name_a_certificate_is_checked_for_is_the_host_without_its_port() {
        assert_eq!(host_of("games.example:8765"), "games.example");
        assert_eq!(host_of("localhost:8765 (the default port)"), "localhost");
        assert_eq!(host_of("[::1]:8765 (the default port)"), "::1");
        assert_eq!(host_of("127.0.0.1:9"), "127.0.0.1");
    }
}
