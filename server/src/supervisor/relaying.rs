//! Players whose game is on another host of the cluster (docs/design/play-together.md
//! §11.3): a returning player whose token names another host, and a joiner whose code is
//! another host's challenge, are relayed there; this host's challenges are published for
//! the others, whose public ones join this host's lobby; and a queue's lone waiters
//! move to the host where the others of their game wait (§11.4).

use std::net::SocketAddr;
use std::time::Instant;

use log::warn;

use crate::cluster::meeting::Alone;
use crate::cluster::mirror::Found;
use crate::cluster::relay::{Relay, LOST, UNREACHABLE};
use crate::cluster::Cluster;
use crate::protocols::{Offered, Told, WireKind};
use crate::session::handoff;
use crate::terms::ResumeToken;

use super::addresses::Host;
use super::challenges::{Code, Ended, Refused, LISTED_AT_MOST};
use super::identity::{self, Identity};
use super::origin::Origin;
use super::Supervisor;

impl Supervisor {
    /// `GAME RESUME written` with a token of another host: relayed to it when the cluster
    /// knows its address, and the connection is gone from here (`Some(false)`); `None`:
    /// not relayed, looked up here as any token.
    pub(super) fn relay_resume(
        &mut self,
        index: usize,
        token: &ResumeToken,
        written: &str,
    ) -> Option<bool> {
        let host = super::tokens::host_of(token);
        self.relay_request(index, host, format!("GAME RESUME {written}\n"))
    }

    /// `GAME JOIN written` with a code this host does not hold: relayed to the host that
    /// holds it (`Some(false)`), or refused as its host would refuse it, ended (`Some(true)`);
    /// `None`: no other host has it either, answered here.
    pub(super) fn join_elsewhere(
        &mut self,
        index: usize,
        code: Code,
        written: &str,
    ) -> Option<bool> {
        if self.challenges.holds(code) {
            return None;
        }
        match self.cluster.as_ref()?.find(code)? {
            Found::Live(host) => self.relay_request(index, host, format!("GAME JOIN {written}\n")),
            Found::Ended(why) => {
                let peer = self.pending.get(index)?.peer;
                self.challenges.charge(Host::of(peer), Instant::now());
                self.tell(index, &Told::Error(Refused::Ended(code, why).to_string()));
                Some(true)
            }
        }
    }

    /// A text or WebSocket connection relayed to host `host` with the request this host
    /// read replayed before the bytes it has not read: `line` for text, the frame as it
    /// came for a WebSocket; `None` when the host is this one or unknown, or the
    /// connection speaks another protocol.
    fn relay_request(&mut self, index: usize, host: u8, line: String) -> Option<bool> {
        let request = match self.pending.get(index)?.wire? {
            WireKind::Text => line.into_bytes(),
            WireKind::WebSocket => std::mem::take(&mut self.request),
            _ => return None,
        };
        self.relay(index, host, request)
    }

    /// Connection `index` relayed to host `host` with `request` (what this host read of
    /// it) replayed before the bytes it has not read: gone from here (`Some(false)`);
    /// `None` when the host is this one or unknown.
    fn relay(&mut self, index: usize, host: u8, request: Vec<u8>) -> Option<bool> {
        let cluster = self.cluster.as_ref()?;
        if host == self.config.host_id {
            return None;
        }
        let target = cluster.address_of(host)?.to_owned();
        let from = cluster.advertised().parse::<SocketAddr>().ok();
        let relays = cluster.relays();
        let wire = self.pending.get(index)?.wire?;
        let mut conn = self.pending.remove(index)?;
        let _ = self.poll.registry().deregister(&mut conn.stream);
        self.metrics.connection(wire.name());
        let client = blocking(conn.stream)?;
        let mut replay = request;
        replay.extend_from_slice(&conn.input);
        let relay = Relay {
            client,
            peer: conn.peer,
            target,
            from,
            kind: handoff::kind_byte(wire),
            identity: identity::to_words(&conn.identity),
            replay,
            refusal: match wire {
                WireKind::Text => UNREACHABLE.as_bytes().to_vec(),
                other => WireKind::refusal(Some(other), UNREACHABLE.trim_end()),
            },
            // Lines only: the text protocol's ERROR (seed 000's too) may come between
            // any two of the host's lines; a PDU or a frame could be cut.
            lost: matches!(wire, WireKind::Text | WireKind::Seed000)
                .then(|| WireKind::refusal(Some(wire), LOST)),
        };
        if let Err(mut client) = relays.start(relay) {
            let why = "too many relayed connections here; try again";
            let busy = match wire {
                WireKind::Text => format!("ERROR {why}\n").into_bytes(),
                other => WireKind::refusal(Some(other), why),
            };
            let _ = std::io::Write::write_all(&mut client, &busy);
        }
        Some(false)
    }

    /// Connection `index`'s identity as the host that relayed it here says (TLV 0xE1):
    /// taken only from a host of the cluster (the PROXY header came from the IP of a
    /// known host's advertised address), and only if this host reads the same accounts
    /// ([`Supervisor::shares_accounts`]); otherwise ignored, and logged.
    pub(super) fn vouched_for(&mut self, index: usize, origin: Origin, vouched: Option<Identity>) {
        let (Origin::Relayed { via }, Some(identity)) = (origin, vouched) else {
            return;
        };
        let by_a_host = self
            .cluster
            .as_ref()
            .is_some_and(|c| c.is_host_ip(via.ip()));
        let why_not = if !by_a_host {
            "from a proxy that is no host of the cluster"
        } else if !self.shares_accounts(&identity) {
            "for accounts this host does not share (its store is not the cluster's PostgreSQL)"
        } else {
            if let Some(conn) = self.pending.get_mut(index) {
                conn.identity = identity;
            }
            return;
        };
        warn!("{via}: an identity (TLV 0xE1) {why_not}; ignored");
    }

    /// Whether an identity another host vouches for means the same here: an account only
    /// when the hosts share one PostgreSQL store (`--database`), a guest's name also when
    /// this host keeps no accounts at all (`--no-store`: names are taken unchecked).
    fn shares_accounts(&self, identity: &Identity) -> bool {
        use reversi_store::Database;
        match self.store.as_ref().map(|s| &s.database) {
            Some(Database::Postgres(_)) => true,
            None => matches!(identity, Identity::Guest(_)),
            Some(Database::Sqlite(_)) => false,
        }
    }

    /// Every [`crate::cluster`] tick while joined: each public queue's lone waiters are
    /// published, or moved to the host where the others of their game wait.
    pub(super) fn meet_lone_waiters(&mut self, now: Instant) {
        if !self.cluster.as_mut().is_some_and(|c| c.meeting_due(now)) {
            return;
        }
        for game in self.games.modules.clone() {
            let name = game.info.name;
            let queue = self.pending.queue_of(name);
            let need = self.group_size(game);
            let movable: Vec<usize> = queue
                .iter()
                .copied()
                .filter(|&i| self.may_move(i))
                .collect();
            let alone = (!queue.is_empty() && queue.len() < need).then_some(Alone {
                waiting: queue.len() as u32,
                fixed: movable.is_empty(),
            });
            let Some(cluster) = self.cluster.as_mut() else {
                return;
            };
            let Some(target) = cluster.meet(name, alone, now) else {
                continue;
            };
            let request = |wire| joining_request(wire, name);
            for index in movable {
                let Some(conn) = self.pending.get(index) else {
                    continue;
                };
                let (peer, bytes) = (conn.peer, conn.wire.map(request));
                if let Some(bytes) = bytes {
                    self.note(
                        peer,
                        format_args!("{peer}: alone for {name}; sent to host {}", target as char),
                    );
                    self.relay(index, target, bytes);
                }
            }
        }
    }

    /// Whether queued connection `index` may move to another host: it speaks a protocol
    /// whose joining request this host can write again (every protocol a queued player
    /// speaks: [`joining_request`]), and was not moved here already (one hop).
    fn may_move(&self, index: usize) -> bool {
        let Some(conn) = self.pending.get(index) else {
            return false;
        };
        let moved_here = match conn.origin {
            Origin::Relayed { via } => self
                .cluster
                .as_ref()
                .is_some_and(|c| c.is_host_ip(via.ip())),
            _ => false,
        };
        let movable = matches!(
            conn.wire,
            Some(
                WireKind::Text
                    | WireKind::Binary
                    | WireKind::WebSocket
                    | WireKind::Seed000
                    | WireKind::Seed002
            )
        );
        movable && !moved_here
    }

    /// A challenge made here, published for the other hosts.
    pub(super) fn challenge_made(&self, code: Code, public: bool, game: &str, options: &str) {
        if let Some(cluster) = &self.cluster {
            let life = self.challenges.life();
            cluster.publish(code, public, game, options, life);
        }
    }

    /// A challenge of this host ended: the other hosts are told why.
    pub(super) fn challenge_ended(&self, code: Code, why: Ended) {
        if let Some(cluster) = &self.cluster {
            cluster.end(code, why);
        }
    }

    /// The other hosts' public challenges, after this host's `listed`, up to the limit.
    pub(super) fn other_hosts_challenges(&self, listed: &mut Vec<Offered>) {
        let Some(cluster) = &self.cluster else {
            return;
        };
        for other in cluster.lobby() {
            if listed.len() >= LISTED_AT_MOST {
                break;
            }
            let module = self
                .games
                .modules
                .iter()
                .find(|m| m.info.name == other.game);
            if let Some(module) = module {
                listed.push(Offered {
                    code: other.code.to_string(),
                    seconds: other.seconds,
                    game: module.info.name,
                    options: other.options.to_owned(),
                });
            }
        }
    }
}

/// The request a waiter of protocol `wire` joined `game`'s queue with, written again for
/// the host it moves to: the text `GAME TYPE game` line, the binary `connect`, for a
/// WebSocket that line in a masked message; seed 002's `PBJ` (its `PCJ` means the same);
/// nothing for seed 000, whose client says nothing before the server does (TLV 0xE0's
/// kind 2 queues it on arrival). Nothing was said to a seed client while it waited, so
/// nothing is said twice.
fn joining_request(wire: WireKind, game: &str) -> Vec<u8> {
    match wire {
        WireKind::Binary => connect_pdu(),
        WireKind::WebSocket => crate::protocols::request_frame(&format!("GAME TYPE {game}")),
        WireKind::Seed000 => Vec::new(),
        WireKind::Seed002 => b"PBJ\n".to_vec(),
        WireKind::Text | WireKind::Tls => format!("GAME TYPE {game}\n").into_bytes(),
    }
}

/// The binary Reversi protocol's `connect`: the request a binary waiter joined with.
fn connect_pdu() -> Vec<u8> {
    let pdu = reversi_pdu::Pdu::Connect;
    let mut bytes = vec![0; pdu.encoded_len()];
    let n = pdu.encode(&mut bytes).unwrap_or(0);
    bytes.truncate(n);
    bytes
}

/// Whether a fresh code is free on the other hosts too.
pub(super) fn free_everywhere(cluster: Option<&Cluster>, code: Code) -> bool {
    cluster.is_none_or(|c| !c.knows(code))
}

/// The descriptor of a mio stream as a blocking std one, for a relay's threads.
fn blocking(stream: mio::net::TcpStream) -> Option<std::net::TcpStream> {
    use std::os::fd::{FromRawFd, IntoRawFd};
    // SAFETY: the descriptor moves from the mio stream to the std one.
    let stream = unsafe { std::net::TcpStream::from_raw_fd(stream.into_raw_fd()) };
    stream.set_nonblocking(false).ok()?;
    Some(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moved_waiters_joining_request_is_written_in_its_own_protocol() {
        assert_eq!(
            joining_request(WireKind::Text, "duell"),
            b"GAME TYPE duell\n"
        );
        assert_eq!(joining_request(WireKind::Binary, "reversi"), connect_pdu());
        assert_eq!(joining_request(WireKind::Seed002, "foxes"), b"PBJ\n");
        // Seed 000's client speaks second: kind 2 in the header queues it on arrival.
        assert!(joining_request(WireKind::Seed000, "duell").is_empty());
        let frame = joining_request(WireKind::WebSocket, "foxes");
        assert_eq!(frame[0], 0x81, "one masked text frame");
    }
}
