//! The PROXY protocol header (HAProxy's `doc/proxy-protocol.txt`, versions 1
//! and 2): what a load balancer sends first on each connection it relays, to
//! tell the server who the client really is.
//!
//! A `no_std`, allocation-free parser in the style of httparse: hand it every
//! byte received so far and it answers [`Status::Incomplete`] (read more),
//! [`Status::Complete`] with the header and how many bytes it took, or an
//! [`Error`] saying what was wrong. A decision is final: more bytes never
//! turn an error or a complete header into something else, and every strict
//! prefix of a header is incomplete. It never reads past the header, and
//! never waits for more than [`MAX_V1_LEN`] or [`MAX_V2_LEN`] bytes.
//!
//! ```
//! use reversi_proxy::{parse, Header, Status, Version};
//!
//! let input = b"PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\nGET / HTTP/1.1\r\n";
//! match parse(input) {
//!     Ok(Status::Complete(Header::Proxied { version, source, .. }, used)) => {
//!         assert_eq!(version, Version::V1);
//!         assert_eq!(source, "192.168.0.1:56324".parse().unwrap());
//!         assert_eq!(&input[used..], b"GET / HTTP/1.1\r\n");
//!     }
//!     other => panic!("{other:?}"),
//! }
//! assert_eq!(parse(b"PROXY TCP4 192.168"), Ok(Status::Incomplete));
//! ```

#![no_std]
#![forbid(unsafe_code)]

#[cfg(test)]
extern crate std;

// The writer's header is a Vec: a heap, nothing else of std.
extern crate alloc;

mod error;
mod v1;
mod v2;

use core::net::SocketAddr;

pub use error::Error;
pub use v2::tlv;
pub use v2::write as write_v2;

/// The custom TLV (in PP2's range 0xE0-0xEF) a host that relays a client to another adds:
/// one byte, the protocol the client speaks (docs/design/play-together.md §11.1).
pub const TLV_PROTOCOL: u8 = 0xE0;

/// The custom TLV a relaying host adds for a client who signed in or took a guest's name
/// there: its identity in words (`account ID NAME [GAME=RATING…]` or `guest NAME`), which
/// the receiving host believes only from a host of its cluster (spec/DEPLOY.md §4.1).
pub const TLV_IDENTITY: u8 = 0xE1;

/// The longest version 1 line, CRLF included: the specification's worst case,
/// `PROXY UNKNOWN` followed by two full IPv6 addresses and two ports.
pub const MAX_V1_LEN: usize = 107;

/// The longest version 2 header accepted, its 16 fixed bytes, addresses and
/// TLVs included. The protocol allows 65,551; HAProxy sends 28 bytes for IPv4
/// and 52 for IPv6 plus the TLVs it is told to add (a unique id is at most
/// 128 bytes), so 1 KiB leaves room and bounds what a connection may make us
/// hold before it is judged.
pub const MAX_V2_LEN: usize = 1024;

/// The signature a version 1 header starts with.
const V1_SIGNATURE: &[u8] = b"PROXY ";

/// The signature a version 2 header starts with (it holds a NUL and a lone
/// CR LF, so that no text protocol takes it for a request).
const V2_SIGNATURE: &[u8] = b"\r\n\r\n\0\r\nQUIT\n";

/// Which version of the protocol a header was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    /// The human-readable line.
    V1,
    /// The binary block.
    V2,
}

/// What a header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Header {
    /// The proxy relays a client: `source` is the client's address and port,
    /// `destination` the address and port the client connected to.
    Proxied {
        version: Version,
        source: SocketAddr,
        destination: SocketAddr,
        /// A relaying host's TLV [`TLV_PROTOCOL`] (v2 only): the protocol the client
        /// speaks, one byte; `None` without one (a balancer's header).
        protocol: Option<u8>,
    },
    /// The proxy relays a connection whose addresses it cannot give as TCP
    /// over IP (v1 `UNKNOWN`; v2 with an unspecified family or transport, UDP
    /// or a UNIX socket): the receiver uses the connection's own addresses.
    Unknown { version: Version },
    /// The proxy's own connection, not relayed (v2 `LOCAL`): a health check.
    Local,
}

/// How far the input goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// A header may follow but is not whole yet: read more and call again.
    Incomplete,
    /// A whole header, and the number of bytes it took; what follows them is
    /// the relayed connection's own data.
    Complete(Header, usize),
}

/// Whether the input starts with a PROXY header's signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signature {
    /// It does not: no PROXY header here.
    Absent,
    /// Too few bytes to tell (every byte so far matches a signature).
    Partial,
    /// It starts with the signature of this version.
    Present(Version),
}

/// Whether `input` starts with a PROXY header's signature: at most 12 bytes
/// are needed to tell, often one.
pub fn signature(input: &[u8]) -> Signature {
    let mut partial = false;
    for (sig, version) in [(V1_SIGNATURE, Version::V1), (V2_SIGNATURE, Version::V2)] {
        if input.starts_with(sig) {
            return Signature::Present(version);
        }
        partial |= sig.starts_with(input);
    }
    if partial {
        Signature::Partial
    } else {
        Signature::Absent
    }
}

/// Parses the PROXY header at the start of `input` (every byte received so far).
pub fn parse(input: &[u8]) -> Result<Status, Error> {
    match signature(input) {
        Signature::Absent => Err(Error::NotProxy),
        Signature::Partial => Ok(Status::Incomplete),
        Signature::Present(Version::V1) => v1::parse(input),
        Signature::Present(Version::V2) => v2::parse(input),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_byte_often_tells_a_header_from_a_game_protocol() {
        assert_eq!(signature(b""), Signature::Partial);
        assert_eq!(signature(b"PROX"), Signature::Partial);
        assert_eq!(signature(b"\r\n\r\n\0\r\nQUI"), Signature::Partial);
        assert_eq!(signature(b"PROXY "), Signature::Present(Version::V1));
        assert_eq!(signature(V2_SIGNATURE), Signature::Present(Version::V2));
        // A binary connect, a text request, a text request that starts like one.
        assert_eq!(signature(&[0x00, 0x04, 0x00, 0x00]), Signature::Absent);
        assert_eq!(signature(b"GAME TYPE reversi\n"), Signature::Absent);
        assert_eq!(signature(b"PROXIMITY"), Signature::Absent);
        assert_eq!(signature(b"\r\n\r\nGAME"), Signature::Absent);
        assert_eq!(parse(b"GAME TYPE reversi\n"), Err(Error::NotProxy));
        assert_eq!(parse(b"\r\n"), Ok(Status::Incomplete));
    }
}
