//! How an address to listen on is written on the command line (`--listen`,
//! `--listen-seed`): `HOST:PORT`, a bare port, or a bare IP address, read as the
//! client reads the address it connects to (client/src/cli.rs): a bare port is
//! on 127.0.0.1, the client's default host, and a bare host is on port 8765.
//! And what usually stops one from being listened on.

use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// The host of a bare port, and the port of a bare host.
pub const DEFAULT: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 8765);

/// Reads `IP:PORT` (`[IPv6]:PORT`), `PORT` or `IP`; the error says what was expected.
pub fn parse_listen(arg: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = arg.parse() {
        return Ok(addr);
    }
    if !arg.is_empty() && arg.bytes().all(|b| b.is_ascii_digit()) {
        return match arg.parse() {
            Ok(port) => Ok(SocketAddr::new(DEFAULT.ip(), port)),
            Err(_) => Err("a port is a number from 0 to 65535".into()),
        };
    }
    let bare = arg.strip_prefix('[').and_then(|a| a.strip_suffix(']'));
    if let Ok(ip) = bare.unwrap_or(arg).parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, DEFAULT.port()));
    }
    let (host, port) = arg.rsplit_once(':').unwrap_or((arg, ""));
    if !port.is_empty() && port.parse::<u16>().is_err() {
        return Err(format!("{port:?} is not a port (0 to 65535)"));
    }
    if host.bytes().any(|b| b.is_ascii_alphabetic()) && !host.contains('[') {
        return Err(format!(
            "{host:?} is a name: listen on an IP address (127.0.0.1 or [::1] for this \
             machine only, 0.0.0.0 or [::] for every interface)"
        ));
    }
    Err(
        "not an address: give IP:PORT ([IPv6]:PORT), a port (on 127.0.0.1) \
         or an IP address (port 8765)"
            .into(),
    )
}

/// A failure to bind a listener, with what usually causes it.
pub fn bind_hint(e: io::Error) -> io::Error {
    let hint = match e.kind() {
        io::ErrorKind::AddrInUse => "another program (or another reversid) listens there",
        io::ErrorKind::PermissionDenied => "ports below 1024 need root or CAP_NET_BIND_SERVICE",
        io::ErrorKind::AddrNotAvailable => "no network interface of this machine has that address",
        _ => return e,
    };
    io::Error::new(e.kind(), format!("{e}: {hint}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(arg: &str) -> String {
        parse_listen(arg).unwrap().to_string()
    }

    #[test]
    fn a_whole_address_is_taken_as_it_is() {
        assert_eq!(ok("0.0.0.0:80"), "0.0.0.0:80");
        assert_eq!(ok("[::1]:8799"), "[::1]:8799");
    }

    #[test]
    fn a_bare_port_is_on_the_clients_default_host() {
        assert_eq!(ok("8799"), "127.0.0.1:8799");
        assert_eq!(ok("0"), "127.0.0.1:0");
        assert!(parse_listen("65536").unwrap_err().contains("0 to 65535"));
    }

    #[test]
    fn a_bare_host_is_on_the_default_port() {
        assert_eq!(ok("0.0.0.0"), "0.0.0.0:8765");
        assert_eq!(ok("::1"), "[::1]:8765");
        assert_eq!(ok("[::]"), "[::]:8765");
    }

    #[test]
    fn a_bind_failure_says_what_usually_causes_it() {
        let denied = io::Error::new(io::ErrorKind::PermissionDenied, "cannot bind 0.0.0.0:80");
        assert_eq!(
            bind_hint(denied).to_string(),
            "cannot bind 0.0.0.0:80: ports below 1024 need root or CAP_NET_BIND_SERVICE"
        );
        let other = bind_hint(io::Error::other("cannot bind: odd"));
        assert_eq!(other.to_string(), "cannot bind: odd");
    }

    #[test]
    fn what_is_not_an_address_is_explained() {
        assert!(parse_listen("localhost:9000")
            .unwrap_err()
            .contains("is a name"));
        assert!(parse_listen("example.org")
            .unwrap_err()
            .contains("is a name"));
        assert!(parse_listen("127.0.0.1:http")
            .unwrap_err()
            .contains("not a port"));
        for bad in ["", "1.2.3", "[::1", "1.2.3.4:"] {
            let e = parse_listen(bad).unwrap_err();
            assert!(e.starts_with("not an address"), "{bad:?}: {e}");
        }
    }
}
