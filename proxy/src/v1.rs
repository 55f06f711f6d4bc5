//! Version 1: one line of US-ASCII,
//! `PROXY TCP4|TCP6 <source> <destination> <source port> <destination port>\r\n`,
//! or `PROXY UNKNOWN` followed by anything up to the CR LF.

use core::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use crate::{Error, Header, Status, Version, MAX_V1_LEN, V1_SIGNATURE};

/// Parses a line that starts with [`V1_SIGNATURE`].
pub(crate) fn parse(input: &[u8]) -> Result<Status, Error> {
    let window = &input[..input.len().min(MAX_V1_LEN)];
    let Some(lf) = window.iter().position(|&b| b == b'\n') else {
        return if input.len() >= MAX_V1_LEN {
            Err(Error::V1TooLong)
        } else {
            Ok(Status::Incomplete)
        };
    };
    let line = window[..lf].strip_suffix(b"\r").ok_or(Error::V1LineEnd)?;
    let fields = line.get(V1_SIGNATURE.len()..).ok_or(Error::V1LineEnd)?;
    Ok(Status::Complete(header(fields)?, lf + 1))
}

/// The address family a `TCP4` or `TCP6` line carries.
#[derive(Clone, Copy)]
enum Family {
    V4,
    V6,
}

/// The header that the fields after `PROXY ` describe.
fn header(fields: &[u8]) -> Result<Header, Error> {
    let mut fields = fields.split(|&b| b == b' ');
    let family = match fields.next() {
        Some(b"UNKNOWN") => {
            return Ok(Header::Unknown {
                version: Version::V1,
            })
        }
        Some(b"TCP4") => Family::V4,
        Some(b"TCP6") => Family::V6,
        _ => return Err(Error::V1Protocol),
    };
    let mut next = || fields.next().ok_or(Error::V1Fields);
    let source = address(next()?, family)?;
    let destination = address(next()?, family)?;
    let source_port = port(next()?)?;
    let destination_port = port(next()?)?;
    if fields.next().is_some() {
        return Err(Error::V1Fields);
    }
    Ok(Header::Proxied {
        version: Version::V1,
        source: SocketAddr::new(source, source_port),
        destination: SocketAddr::new(destination, destination_port),
        protocol: None,
    })
}

/// An address of `family`. core's parsers take exactly what the specification
/// allows: dotted decimal without leading zeroes, and IPv6 text with at most
/// one `::` (and no zone).
fn address(field: &[u8], family: Family) -> Result<IpAddr, Error> {
    let text = core::str::from_utf8(field).map_err(|_| Error::V1Address)?;
    match family {
        Family::V4 => text.parse::<Ipv4Addr>().map(IpAddr::V4),
        Family::V6 => text.parse::<Ipv6Addr>().map(IpAddr::V6),
    }
    .map_err(|_| Error::V1Address)
}

/// A port: 0 to 65535 in decimal, without leading zeroes.
fn port(field: &[u8]) -> Result<u16, Error> {
    let canonical = match field {
        [] => false,
        [b'0'] => true,
        [first, ..] => *first != b'0' && field.len() <= 5 && field.iter().all(u8::is_ascii_digit),
    };
    if !canonical {
        return Err(Error::V1Port);
    }
    let value = field.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    u16::try_from(value).map_err(|_| Error::V1Port)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn complete(input: &[u8]) -> (Header, usize) {
        match parse(input) {
            Ok(Status::Complete(header, used)) => (header, used),
            other => panic!("{:?}: {other:?}", core::str::from_utf8(input)),
        }
    }

    fn proxied(source: &str, destination: &str) -> Header {
        Header::Proxied {
            version: Version::V1,
            source: source.parse().unwrap(),
            destination: destination.parse().unwrap(),
            protocol: None,
        }
    }

    #[test]
    fn the_specifications_example_before_an_http_request() {
        let input = b"PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\nGET / HTTP/1.1\r\n";
        assert_eq!(
            complete(input),
            (proxied("192.168.0.1:56324", "192.168.0.11:443"), 47)
        );
    }

    #[test]
    fn the_specifications_longest_lines() {
        let v4 = b"PROXY TCP4 255.255.255.255 255.255.255.255 65535 65535\r\n";
        assert_eq!(v4.len(), 56);
        assert_eq!(
            complete(v4),
            (
                proxied("255.255.255.255:65535", "255.255.255.255:65535"),
                56
            )
        );
        let full = "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff";
        let v6 = format_line(&["TCP6", full, full, "65535", "65535"]);
        assert_eq!(v6.len(), 104);
        let socket = "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535";
        assert_eq!(complete(&v6).0, proxied(socket, socket));
        let unknown = format_line(&["UNKNOWN", full, full, "65535", "65535"]);
        assert_eq!(unknown.len(), MAX_V1_LEN);
        assert_eq!(
            complete(&unknown),
            (
                Header::Unknown {
                    version: Version::V1
                },
                107
            )
        );
        assert_eq!(
            complete(b"PROXY UNKNOWN\r\n"),
            (
                Header::Unknown {
                    version: Version::V1
                },
                15
            )
        );
    }

    /// `PROXY ` and the fields one space apart, then CR LF.
    fn format_line(fields: &[&str]) -> std::vec::Vec<u8> {
        std::format!("PROXY {}\r\n", fields.join(" ")).into_bytes()
    }

    #[test]
    fn ipv6_in_short_forms_and_ports_at_their_bounds() {
        assert_eq!(
            complete(b"PROXY TCP6 2001:db8::1 ::1 0 8765\r\n").0,
            proxied("[2001:db8::1]:0", "[::1]:8765")
        );
    }

    #[test]
    fn a_line_is_incomplete_until_its_cr_lf() {
        let line = b"PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n";
        for end in 0..line.len() {
            assert_eq!(parse(&line[..end]), Ok(Status::Incomplete), "{end}");
        }
        let mut long = [b'1'; MAX_V1_LEN];
        long[..11].copy_from_slice(b"PROXY TCP4 ");
        assert_eq!(parse(&long[..MAX_V1_LEN - 1]), Ok(Status::Incomplete));
        assert_eq!(parse(&long), Err(Error::V1TooLong));
    }

    #[test]
    fn anything_not_exactly_the_format_is_refused() {
        let cases: &[(&[u8], Error)] = &[
            (b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n", Error::V1LineEnd),
            (b"PROXY TCP5 1.2.3.4 5.6.7.8 1 2\r\n", Error::V1Protocol),
            (b"PROXY tcp4 1.2.3.4 5.6.7.8 1 2\r\n", Error::V1Protocol),
            (b"PROXY UNKNOWNX\r\n", Error::V1Protocol),
            (b"PROXY \r\n", Error::V1Protocol),
            (b"PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n", Error::V1Fields),
            (b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n", Error::V1Fields),
            (b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2 \r\n", Error::V1Fields),
            (b"PROXY TCP4 1.2.3.4  5.6.7.8 1 2\r\n", Error::V1Address),
            (b"PROXY TCP4 1.2.3.04 5.6.7.8 1 2\r\n", Error::V1Address),
            (b"PROXY TCP4 1.2.3.256 5.6.7.8 1 2\r\n", Error::V1Address),
            (b"PROXY TCP4 ::1 5.6.7.8 1 2\r\n", Error::V1Address),
            (b"PROXY TCP6 1.2.3.4 ::1 1 2\r\n", Error::V1Address),
            (b"PROXY TCP6 fe80::1%eth0 ::1 1 2\r\n", Error::V1Address),
            (b"PROXY TCP6 1::2::3 ::1 1 2\r\n", Error::V1Address),
            (b"PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\n", Error::V1Port),
            (b"PROXY TCP4 1.2.3.4 5.6.7.8 1 65536\r\n", Error::V1Port),
            (b"PROXY TCP4 1.2.3.4 5.6.7.8 1 +2\r\n", Error::V1Port),
            (b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\r\n", Error::V1Port),
            (b"PROXY TCP4 1.2.3.4 5.6.7.8 1 \xff\r\n", Error::V1Port),
            (
                b"PROXY TCP4 1.2.\xc3\xa9.4 5.6.7.8 1 2\r\n",
                Error::V1Address,
            ),
        ];
        for (input, error) in cases {
            assert_eq!(parse(input), Err(*error), "{:?}", input.escape_ascii());
        }
    }
}
