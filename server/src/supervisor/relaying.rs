//! Players whose game is on another host of the cluster (docs/design/play-together.md
//! §11.3): a returning player whose token names another host, and a joiner whose code is
//! another host's challenge, are relayed there; this host's challenges are published for
//! the others, whose public ones join this host's lobby.

use std::net::SocketAddr;
use std::time::Instant;

use crate::cluster::mirror::Found;
use crate::cluster::relay::{Relay, UNREACHABLE};
use crate::cluster::Cluster;
use crate::protocols::{Offered, Told, WireKind};
use crate::session::handoff;
use crate::terms::ResumeToken;

use super::addresses::Host;
use super::challenges::{Code, Ended, Refused, LISTED_AT_MOST};
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
        self.relay_text(index, host, format!("GAME RESUME {written}\n"))
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
            Found::Live(host) => self.relay_text(index, host, format!("GAME JOIN {written}\n")),
            Found::Ended(why) => {
                let peer = self.pending.get(index)?.peer;
                self.challenges.charge(Host::of(peer), Instant::now());
                self.tell(index, &Told::Error(Refused::Ended(code, why).to_string()));
                Some(true)
            }
        }
    }

    /// A text connection relayed to host `host` with `line` (the request this host read)
    /// replayed before the bytes it has not read; `None` when the host is this one or
    /// unknown, or the connection does not speak the text protocol (a WebSocket's frame
    /// is not kept yet).
    fn relay_text(&mut self, index: usize, host: u8, line: String) -> Option<bool> {
        let cluster = self.cluster.as_ref()?;
        if host == self.config.host_id {
            return None;
        }
        let target = cluster.address_of(host)?.to_owned();
        let from = cluster.advertised().parse::<SocketAddr>().ok();
        let relays = cluster.relays();
        let conn = self.pending.get(index)?;
        if conn.wire != Some(WireKind::Text) {
            return None;
        }
        let mut conn = self.pending.remove(index)?;
        let _ = self.poll.registry().deregister(&mut conn.stream);
        self.metrics.connection(WireKind::Text.name());
        let client = blocking(conn.stream)?;
        let mut replay = line.into_bytes();
        replay.extend_from_slice(&conn.input);
        let relay = Relay {
            client,
            peer: conn.peer,
            target,
            from,
            kind: handoff::kind_byte(WireKind::Text),
            replay,
            refusal: UNREACHABLE.as_bytes().to_vec(),
        };
        if let Err(mut client) = relays.start(relay) {
            let busy = b"ERROR too many relayed connections here; try again\n";
            let _ = std::io::Write::write_all(&mut client, busy);
        }
        Some(false)
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
