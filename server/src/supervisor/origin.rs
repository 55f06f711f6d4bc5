//! Where a connection comes from: straight from its client, or relayed by a
//! trusted load balancer that says who the client is in a PROXY protocol
//! header (spec/DEPLOY.md). Judged on a connection's first bytes, before its
//! game protocol.
//!
//! A connection from a `--proxy-from` address must start with a PROXY header
//! (v1 or v2, parsed by [`reversi_proxy`]); the client address it carries then
//! replaces the proxy's for everything after (limits, penalties, logs, the
//! session's peer). Anyone else who sends one is refused: it would be a
//! spoofed address. The proxy's own connections (v2 LOCAL: health checks) and
//! connections from it that close without a byte count against no address.

use std::net::SocketAddr;

use reversi_games::registry::Module;
use reversi_proxy::{parse, signature, Header, Signature, Status, Version};

use super::cidr::Cidr;
use super::identity::{self, Identity};
use crate::protocols::WireKind;

/// The seed protocol of the listener a connection came in on, if any.
pub type Seed = Option<(&'static Module, WireKind)>;

/// Where a waiting connection's address comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The TCP peer is the client. `screened` once its first bytes showed that it
    /// does not claim to be a proxy.
    Direct { screened: bool },
    /// A trusted proxy's connection before its header: its address is the proxy's,
    /// which no per-address limit counts. `seed` waits for the header too.
    Awaiting { seed: Seed },
    /// The trusted proxy's own connection (a v2 LOCAL header): a health check, served
    /// as coming from the proxy but counted against no address.
    Check,
    /// A client relayed by the trusted proxy at `via`; its address is the header's
    /// (or the proxy's, when the header could not give one: v1 UNKNOWN and the like).
    Relayed { via: SocketAddr },
}

impl Origin {
    /// The origin of a new connection from `peer` on a listener of `seed`.
    pub fn of(peer: SocketAddr, seed: Seed, trusted: &[Cidr]) -> Origin {
        if trusted.iter().any(|c| c.contains(peer.ip())) {
            Origin::Awaiting { seed }
        } else {
            Origin::Direct { screened: false }
        }
    }

    /// Whether the per-address limits count the connection against its address.
    pub fn counts(self) -> bool {
        matches!(self, Origin::Direct { .. } | Origin::Relayed { .. })
    }

    /// What a connection still in handshake at its deadline was waiting for.
    pub fn missing(self) -> &'static str {
        match self {
            Origin::Awaiting { .. } => "no PROXY header",
            _ => "no handshake",
        }
    }
}

/// The verdict on a connection's first bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Screened {
    /// On to its game protocol.
    Pass,
    /// Too few bytes to tell.
    Wait,
    /// A trusted proxy's header of `used` bytes: the connection is `peer`'s now, of `origin`.
    Header {
        peer: SocketAddr,
        origin: Origin,
        used: usize,
        /// The protocol a relaying host of the cluster says the client speaks (TLV
        /// 0xE0): the connection speaks it at once (a WebSocket arrives upgraded).
        protocol: Option<WireKind>,
        /// Who a relaying host says the client is (TLV 0xE1: signed in or named there);
        /// believed only if `origin`'s proxy is a host of the cluster (relaying.rs).
        vouched: Option<Identity>,
    },
    /// Turn it away, for this reason.
    Refuse(String),
    /// A PROXY header of this version from an address that is not a trusted proxy.
    Spoof(Version),
}

/// Why a [`Screened::Spoof`] is turned away.
pub(super) const SPOOF: &str =
    "a PROXY header from an address that is not a trusted proxy (--proxy-from)";

/// Judges the first bytes `input` of a connection from `peer` of `origin`.
pub(super) fn screen(origin: Origin, peer: SocketAddr, input: &[u8]) -> Screened {
    match origin {
        Origin::Direct { screened: false } => match signature(input) {
            Signature::Absent => Screened::Pass,
            Signature::Partial => Screened::Wait,
            Signature::Present(version) => Screened::Spoof(version),
        },
        Origin::Awaiting { .. } => {
            let (header, used) = match parse(input) {
                Ok(Status::Incomplete) => return Screened::Wait,
                Ok(Status::Complete(header, used)) => (header, used),
                Err(reversi_proxy::Error::NotProxy) => {
                    return Screened::Refuse(
                        "a trusted proxy (--proxy-from) sent no PROXY header".to_owned(),
                    )
                }
                Err(e) => return Screened::Refuse(format!("bad header from a trusted proxy: {e}")),
            };
            let (client, origin, protocol, vouched) = match header {
                Header::Proxied {
                    source, protocol, ..
                } => (
                    source,
                    Origin::Relayed { via: peer },
                    protocol,
                    vouched(&input[..used]),
                ),
                Header::Unknown { .. } => (peer, Origin::Relayed { via: peer }, None, None),
                Header::Local => (peer, Origin::Check, None, None),
            };
            Screened::Header {
                peer: client,
                origin,
                used,
                protocol: protocol.and_then(crate::session::handoff::wire_of),
                vouched,
            }
        }
        Origin::Direct { screened: true } | Origin::Check | Origin::Relayed { .. } => {
            Screened::Pass
        }
    }
}

/// The identity a header's TLV 0xE1 names, if it has one that reads as one.
fn vouched(header: &[u8]) -> Option<Identity> {
    let words = reversi_proxy::tlv(header, reversi_proxy::TLV_IDENTITY)?;
    identity::from_words(std::str::from_utf8(words).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROXY: &str = "10.0.0.5:40000";

    fn proxy() -> SocketAddr {
        PROXY.parse().unwrap()
    }

    fn awaiting() -> Origin {
        Origin::Awaiting { seed: None }
    }

    #[test]
    fn only_trusted_addresses_await_a_header() {
        let trusted: Vec<Cidr> = vec!["10.0.0.0/24".parse().unwrap()];
        assert_eq!(Origin::of(proxy(), None, &trusted), awaiting());
        let mapped = "[::ffff:10.0.0.5]:1".parse().unwrap();
        assert_eq!(Origin::of(mapped, None, &trusted), awaiting());
        let other = "10.0.1.5:1".parse().unwrap();
        assert_eq!(
            Origin::of(other, None, &trusted),
            Origin::Direct { screened: false }
        );
        assert!(!awaiting().counts() && !Origin::Check.counts());
        assert!(Origin::Relayed { via: proxy() }.counts());
    }

    #[test]
    fn a_trusted_proxy_names_the_client() {
        let v1 = b"PROXY TCP4 203.0.113.7 10.0.0.1 51000 8765\r\nGAME";
        assert_eq!(
            screen(awaiting(), proxy(), v1),
            Screened::Header {
                peer: "203.0.113.7:51000".parse().unwrap(),
                origin: Origin::Relayed { via: proxy() },
                used: 44,
                protocol: None,
                vouched: None
            }
        );
        let local = b"\r\n\r\n\0\r\nQUIT\n\x20\x00\x00\x00";
        assert_eq!(
            screen(awaiting(), proxy(), local),
            Screened::Header {
                peer: proxy(),
                origin: Origin::Check,
                used: 16,
                protocol: None,
                vouched: None
            }
        );
        assert_eq!(
            screen(awaiting(), proxy(), b"PROXY UNKNOWN\r\n"),
            Screened::Header {
                peer: proxy(),
                origin: Origin::Relayed { via: proxy() },
                used: 15,
                protocol: None,
                vouched: None
            }
        );
        assert_eq!(screen(awaiting(), proxy(), b"PROXY TCP4 2"), Screened::Wait);
    }

    #[test]
    fn a_relaying_hosts_header_says_the_clients_protocol() {
        let client: SocketAddr = "203.0.113.7:51000".parse().unwrap();
        let mut input = reversi_proxy::write_v2(
            client,
            "10.0.0.1:8765".parse().unwrap(),
            &[(reversi_proxy::TLV_PROTOCOL, &[4])],
        );
        let used = input.len();
        input.extend_from_slice(&[0x81, 0x85]);
        assert_eq!(
            screen(awaiting(), proxy(), &input),
            Screened::Header {
                peer: client,
                origin: Origin::Relayed { via: proxy() },
                used,
                protocol: Some(WireKind::WebSocket),
                vouched: None
            }
        );
    }

    #[test]
    fn a_relaying_hosts_header_may_say_who_the_client_is() {
        let client: SocketAddr = "203.0.113.7:51000".parse().unwrap();
        let header = |words: &[u8]| {
            let tlvs: [(u8, &[u8]); 2] = [(reversi_proxy::TLV_PROTOCOL, &[1]), (0xE1, words)];
            reversi_proxy::write_v2(client, "10.0.0.1:8765".parse().unwrap(), &tlvs)
        };
        let vouched = |words: &[u8]| match screen(awaiting(), proxy(), &header(words)) {
            Screened::Header { vouched, .. } => vouched,
            other => panic!("{other:?}"),
        };
        let alice = vouched(b"account 7 alice tictactoe=1500?").unwrap();
        assert_eq!(
            alice.account().map(|s| (s.id.0, s.name.as_str())),
            Some((7, "alice"))
        );
        assert_eq!(
            identity::to_words(&vouched(b"guest bob").unwrap()).as_deref(),
            Some("guest bob")
        );
        assert_eq!(vouched(b"account x alice"), None, "not an identity");
        assert_eq!(vouched(b"\xff"), None);
    }

    #[test]
    fn a_trusted_proxy_without_a_header_is_refused() {
        for input in [
            &b"GAME TYPE reversi\n"[..],
            &[0, 4, 0, 0],
            b"PROXY TCP4 x\r\n",
        ] {
            assert!(
                matches!(screen(awaiting(), proxy(), input), Screened::Refuse(_)),
                "{input:?}"
            );
        }
    }

    #[test]
    fn anyone_else_with_a_header_is_refused_as_a_spoof() {
        let direct = Origin::Direct { screened: false };
        let client = "198.51.100.1:5".parse().unwrap();
        let spoof = b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n";
        assert_eq!(screen(direct, client, spoof), Screened::Spoof(Version::V1));
        assert!(SPOOF.contains("not a trusted proxy"));
        assert_eq!(screen(direct, client, b"\r\n\r\n\0\r\nQ"), Screened::Wait);
        assert_eq!(
            screen(direct, client, b"\r\n\r\n\0\r\nQUIT\n"),
            Screened::Spoof(Version::V2)
        );
        assert_eq!(
            screen(direct, client, b"GAME TYPE reversi\n"),
            Screened::Pass
        );
        // A person's Enter (telnet's CR LF) waits for the next line, then passes as text.
        assert_eq!(screen(direct, client, b"\r\n"), Screened::Wait);
        assert_eq!(screen(direct, client, b"\r\nGAME LIST\r\n"), Screened::Pass);
        assert_eq!(screen(direct, client, &[0, 4, 0, 0]), Screened::Pass);
        // Once a request has passed, later bytes are the game's.
        let screened = Origin::Direct { screened: true };
        assert_eq!(screen(screened, client, spoof), Screened::Pass);
    }
}
