//! Version 2: a binary block. Twelve bytes of signature, then
//!
//! | byte  | holds |
//! | ----- | ----- |
//! | 13    | version (high four bits, always 2) and command (LOCAL 0, PROXY 1) |
//! | 14    | address family (UNSPEC 0, INET 1, INET6 2, UNIX 3) and transport (UNSPEC 0, STREAM 1, DGRAM 2) |
//! | 15-16 | the length of what follows, big-endian |
//!
//! then the source and destination addresses, the source and destination
//! ports, and TLVs (type, 16-bit length, value) up to the length.

use alloc::vec::Vec;
use core::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use crate::{Error, Header, Status, Version, MAX_V2_LEN, V2_SIGNATURE};

/// The signature and the four fixed bytes after it.
const FIXED_LEN: usize = V2_SIGNATURE.len() + 4;

/// Parses a block that starts with [`V2_SIGNATURE`]. Each fixed byte is judged
/// as soon as it arrives, so a bad block is refused before its length is read.
pub(crate) fn parse(input: &[u8]) -> Result<Status, Error> {
    let at = |i: usize| input.get(V2_SIGNATURE.len() + i).copied();
    let Some(version_command) = at(0) else {
        return Ok(Status::Incomplete);
    };
    if version_command >> 4 != 2 {
        return Err(Error::V2Version(version_command >> 4));
    }
    let local = match version_command & 0x0f {
        0 => true,
        1 => false,
        other => return Err(Error::V2Command(other)),
    };
    let Some(family) = at(1) else {
        return Ok(Status::Incomplete);
    };
    if family >> 4 > 3 || family & 0x0f > 2 {
        return Err(Error::V2Family(family));
    }
    let (Some(hi), Some(lo)) = (at(2), at(3)) else {
        return Ok(Status::Incomplete);
    };
    let total = FIXED_LEN + usize::from(u16::from_be_bytes([hi, lo]));
    if total > MAX_V2_LEN {
        return Err(Error::V2TooLong(total));
    }
    let Some(block) = input.get(FIXED_LEN..total) else {
        return Ok(Status::Incomplete);
    };
    // LOCAL: "the receiver must ... discard the protocol block including the family".
    let header = if local {
        Header::Local
    } else {
        relayed(family, block)?
    };
    Ok(Status::Complete(header, total))
}

/// What a PROXY command's block of `family` (the 14th byte) says.
fn relayed(family: u8, block: &[u8]) -> Result<Header, Error> {
    let unknown = Header::Unknown {
        version: Version::V2,
    };
    // The addresses' length, for the families that have addresses.
    let addresses_len = match family {
        0x11 | 0x12 => 12,
        0x21 | 0x22 => 36,
        0x31 | 0x32 => 216,
        // An unspecified family or transport: the block is ignored, as the
        // specification asks.
        _ => return Ok(unknown),
    };
    let (addresses, tlvs) = block
        .split_at_checked(addresses_len)
        .ok_or(Error::V2Addresses(block.len()))?;
    let protocol = read_tlvs(tlvs)?;
    Ok(match family {
        0x11 => {
            let ip = |i: usize| IpAddr::V4(Ipv4Addr::from(bytes::<4>(addresses, i)));
            proxied(ip(0), ip(4), &addresses[8..], protocol)
        }
        0x21 => {
            let ip = |i: usize| IpAddr::V6(Ipv6Addr::from(bytes::<16>(addresses, i)));
            proxied(ip(0), ip(16), &addresses[32..], protocol)
        }
        // UDP and UNIX sockets: valid, but nothing a TCP server can use.
        _ => unknown,
    })
}

/// A client relayed from `source` to `destination`, with the ports in `ports`.
fn proxied(source: IpAddr, destination: IpAddr, ports: &[u8], protocol: Option<u8>) -> Header {
    let port = |i: usize| u16::from_be_bytes(bytes::<2>(ports, i));
    Header::Proxied {
        version: Version::V2,
        source: SocketAddr::new(source, port(0)),
        destination: SocketAddr::new(destination, port(2)),
        protocol,
    }
}

/// `N` bytes of `slice` from `at`; the callers' lengths were checked against
/// the family's address length.
fn bytes<const N: usize>(slice: &[u8], at: usize) -> [u8; N] {
    let mut out = [0; N];
    out.copy_from_slice(&slice[at..at + N]);
    out
}

/// Checks that `tlvs` is a whole number of type-length-value vectors, and returns the
/// value of a one-byte [`crate::TLV_PROTOCOL`] if there is one; the others (ALPN,
/// authority, CRC, SSL, unique id ...) are not needed here.
fn read_tlvs(mut tlvs: &[u8]) -> Result<Option<u8>, Error> {
    let mut protocol = None;
    while let [kind, hi, lo, rest @ ..] = tlvs {
        let len = usize::from(u16::from_be_bytes([*hi, *lo]));
        let value = rest.get(..len).ok_or(Error::V2Tlv)?;
        if let (crate::TLV_PROTOCOL, [byte]) = (*kind, value) {
            protocol = Some(*byte);
        }
        tlvs = &rest[len..];
    }
    if tlvs.is_empty() {
        Ok(protocol)
    } else {
        Err(Error::V2Tlv)
    }
}

/// The value of the first TLV of type `kind` in `header`, a whole v2 PROXY header (as
/// [`parse`] measured it); `None` without one, or for anything else.
pub fn tlv(header: &[u8], kind: u8) -> Option<&[u8]> {
    if !header.starts_with(V2_SIGNATURE) {
        return None;
    }
    let addresses_len = match header.get(FIXED_LEN - 3)? {
        0x11 | 0x12 => 12,
        0x21 | 0x22 => 36,
        0x31 | 0x32 => 216,
        _ => return None,
    };
    let mut tlvs = header.get(FIXED_LEN + addresses_len..)?;
    while let [this, hi, lo, rest @ ..] = tlvs {
        let len = usize::from(u16::from_be_bytes([*hi, *lo]));
        let value = rest.get(..len)?;
        if *this == kind {
            return Some(value);
        }
        tlvs = &rest[len..];
    }
    None
}

/// A PROXY command's block naming `source` as the client and `destination` as the address
/// it reached, with `tlvs` (type, value) after the addresses: what a host that relays a
/// client to another writes first (both IPv4, else both written as IPv6).
pub fn write(source: SocketAddr, destination: SocketAddr, tlvs: &[(u8, &[u8])]) -> Vec<u8> {
    let mut block = Vec::new();
    let family = match (source.ip(), destination.ip()) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            block.extend_from_slice(&s.octets());
            block.extend_from_slice(&d.octets());
            0x11
        }
        (s, d) => {
            block.extend_from_slice(&as_v6(s).octets());
            block.extend_from_slice(&as_v6(d).octets());
            0x21
        }
    };
    block.extend_from_slice(&source.port().to_be_bytes());
    block.extend_from_slice(&destination.port().to_be_bytes());
    for (kind, value) in tlvs {
        let len = u16::try_from(value.len()).unwrap_or(u16::MAX);
        block.push(*kind);
        block.extend_from_slice(&len.to_be_bytes());
        block.extend_from_slice(&value[..usize::from(len)]);
    }
    let mut header = V2_SIGNATURE.to_vec();
    header.push(0x21);
    header.push(family);
    let len = u16::try_from(block.len()).unwrap_or(u16::MAX);
    header.extend_from_slice(&len.to_be_bytes());
    header.extend_from_slice(&block);
    header
}

fn as_v6(ip: IpAddr) -> Ipv6Addr {
    match ip {
        IpAddr::V4(v4) => v4.to_ipv6_mapped(),
        IpAddr::V6(v6) => v6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;
    use std::vec::Vec;

    /// The signature, then `rest`.
    fn block(rest: &[u8]) -> Vec<u8> {
        let mut out = V2_SIGNATURE.to_vec();
        out.extend_from_slice(rest);
        out
    }

    /// HAProxy's header for a client 192.168.0.1:56324 relayed to 192.168.0.11:443.
    const TCP4: &[u8] = &[
        0x21, 0x11, 0x00, 0x0c, // v2 PROXY, TCP over IPv4, 12 bytes
        192, 168, 0, 1, 192, 168, 0, 11, // source, destination
        0xdc, 0x04, 0x01, 0xbb, // 56324, 443
    ];

    #[test]
    fn tcp_over_ipv4_then_the_clients_data() {
        let mut input = block(TCP4);
        input.extend_from_slice(&[0x00, 0x04, 0x00, 0x00]);
        assert_eq!(
            parse(&input),
            Ok(Status::Complete(
                Header::Proxied {
                    version: Version::V2,
                    source: "192.168.0.1:56324".parse().unwrap(),
                    destination: "192.168.0.11:443".parse().unwrap(),
                    protocol: None,
                },
                28
            ))
        );
    }

    #[test]
    fn tcp_over_ipv6() {
        let mut rest = std::vec![0x21, 0x21, 0x00, 0x24];
        rest.extend_from_slice(&"2001:db8::1".parse::<Ipv6Addr>().unwrap().octets());
        rest.extend_from_slice(&Ipv6Addr::LOCALHOST.octets());
        rest.extend_from_slice(&[0x30, 0x39, 0x22, 0x3d]);
        assert_eq!(
            parse(&block(&rest)),
            Ok(Status::Complete(
                Header::Proxied {
                    version: Version::V2,
                    source: "[2001:db8::1]:12345".parse().unwrap(),
                    destination: "[::1]:8765".parse().unwrap(),
                    protocol: None,
                },
                52
            ))
        );
    }

    #[test]
    fn local_is_a_health_check_whatever_its_block() {
        assert_eq!(
            parse(&block(&[0x20, 0x00, 0x00, 0x00])),
            Ok(Status::Complete(Header::Local, 16))
        );
        // "Receivers MUST always consider this field to skip the appropriate number of bytes
        // and must not assume zero is presented for LOCAL connections."
        let mut local = block(TCP4);
        local[12] = 0x20;
        assert_eq!(parse(&local), Ok(Status::Complete(Header::Local, 28)));
    }

    #[test]
    fn families_a_tcp_server_cannot_use_are_unknown() {
        let unknown = Ok(Status::Complete(
            Header::Unknown {
                version: Version::V2,
            },
            16,
        ));
        assert_eq!(parse(&block(&[0x21, 0x00, 0x00, 0x00])), unknown);
        let mut udp = block(TCP4);
        udp[13] = 0x12;
        assert!(matches!(
            parse(&udp),
            Ok(Status::Complete(Header::Unknown { .. }, 28))
        ));
        let mut unix = block(&[0x21, 0x31, 0x00, 0xd8]);
        unix.resize(16 + 216, b'/');
        assert!(matches!(
            parse(&unix),
            Ok(Status::Complete(Header::Unknown { .. }, 232))
        ));
    }

    #[test]
    fn tlvs_are_skipped_but_must_fit() {
        // A NOOP of 2 bytes and a 4-byte unique id after the addresses.
        let mut rest = TCP4.to_vec();
        rest[3] = 12 + 5 + 7;
        rest.extend_from_slice(&[0x04, 0x00, 0x02, 0xaa, 0xbb]);
        rest.extend_from_slice(&[0x05, 0x00, 0x04, 1, 2, 3, 4]);
        assert!(matches!(
            parse(&block(&rest)),
            Ok(Status::Complete(Header::Proxied { .. }, 40))
        ));
        // The unique id claims 5 bytes, the block holds 4 ...
        let last = rest.len() - 5;
        rest[last] = 0x05;
        assert_eq!(parse(&block(&rest)), Err(Error::V2Tlv));
        // ... or a TLV is cut in its type and length.
        let mut cut = TCP4.to_vec();
        cut[3] = 14;
        cut.extend_from_slice(&[0x04, 0x00]);
        assert_eq!(parse(&block(&cut)), Err(Error::V2Tlv));
    }

    #[test]
    fn every_prefix_is_incomplete() {
        let whole = block(TCP4);
        for end in 0..whole.len() {
            assert_eq!(parse(&whole[..end]), Ok(Status::Incomplete), "{end}");
        }
    }

    #[test]
    fn bad_fixed_bytes_are_refused_as_soon_as_they_arrive() {
        assert_eq!(parse(&block(&[0x11])), Err(Error::V2Version(1)));
        assert_eq!(parse(&block(&[0x22])), Err(Error::V2Command(2)));
        assert_eq!(parse(&block(&[0x21, 0x41])), Err(Error::V2Family(0x41)));
        assert_eq!(parse(&block(&[0x21, 0x13])), Err(Error::V2Family(0x13)));
        assert_eq!(
            parse(&block(&[0x21, 0x11, 0xff, 0xff])),
            Err(Error::V2TooLong(16 + 0xffff))
        );
        assert_eq!(
            parse(&block(&[0x21, 0x11, 0x03, 0xf1])),
            Err(Error::V2TooLong(MAX_V2_LEN + 1))
        );
        assert_eq!(
            parse(&block(&[0x21, 0x11, 0x00, 0x04, 1, 2, 3, 4])),
            Err(Error::V2Addresses(4))
        );
    }

    #[test]
    fn a_written_block_is_read_back_with_its_tlv() {
        let source: SocketAddr = "203.0.113.7:50000".parse().unwrap();
        let destination: SocketAddr = "10.0.0.2:8765".parse().unwrap();
        let block = write(source, destination, &[(0xE0, &[1])]);
        let expected = Header::Proxied {
            version: Version::V2,
            source,
            destination,
            protocol: Some(1),
        };
        assert_eq!(parse(&block), Ok(Status::Complete(expected, block.len())));
        let v6: SocketAddr = "[2001:db8::1]:443".parse().unwrap();
        let mixed = write(v6, destination, &[]);
        let Ok(Status::Complete(Header::Proxied { source, .. }, _)) = parse(&mixed) else {
            panic!("{mixed:?} is not read back");
        };
        assert_eq!(source, v6);
    }

    #[test]
    fn the_protocol_tlv_is_read_among_others_and_only_one_byte_long() {
        let (source, destination): (SocketAddr, SocketAddr) =
            ("10.0.0.1:1".parse().unwrap(), "10.0.0.2:2".parse().unwrap());
        let protocol_of = |tlvs: &[(u8, &[u8])]| match parse(&write(source, destination, tlvs)) {
            Ok(Status::Complete(Header::Proxied { protocol, .. }, _)) => protocol,
            other => panic!("{other:?}"),
        };
        assert_eq!(protocol_of(&[(0x01, b"h2"), (0xE0, &[4])]), Some(4));
        assert_eq!(protocol_of(&[(0xE0, &[1, 2])]), None, "not one byte");
        assert_eq!(protocol_of(&[(0xE1, &[1])]), None, "another custom type");
        assert_eq!(protocol_of(&[]), None);
    }

    #[test]
    fn a_tlv_is_found_by_its_type_in_a_whole_header() {
        let (source, destination): (SocketAddr, SocketAddr) =
            ("10.0.0.1:1".parse().unwrap(), "10.0.0.2:2".parse().unwrap());
        let header = write(
            source,
            destination,
            &[(0xE0, &[1]), (0xE1, b"account 7 alice")],
        );
        assert_eq!(tlv(&header, 0xE1), Some(&b"account 7 alice"[..]));
        assert_eq!(tlv(&header, 0xE0), Some(&[1][..]));
        assert_eq!(tlv(&header, 0xE2), None);
        let v6 = write(
            "[2001:db8::1]:443".parse().unwrap(),
            destination,
            &[(0xE1, b"x")],
        );
        assert_eq!(tlv(&v6, 0xE1), Some(&b"x"[..]));
        assert_eq!(tlv(&header[..header.len() - 1], 0xE1), None, "cut short");
        assert_eq!(tlv(b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n", 0xE1), None);
    }
}
