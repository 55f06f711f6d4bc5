//! A returning player whose token names another host of the cluster: its connection is
//! relayed there (docs/design/play-together.md §11.3), where its session resumes it.

use std::net::SocketAddr;

use crate::cluster::relay::{Relay, UNREACHABLE};
use crate::protocols::WireKind;
use crate::session::handoff;
use crate::terms::ResumeToken;

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
        let cluster = self.cluster.as_ref()?;
        if host == self.config.host_id {
            return None;
        }
        let target = cluster.address_of(host)?.to_owned();
        let from = cluster.advertised().parse::<SocketAddr>().ok();
        let relays = cluster.relays();
        // Only the text protocol's request is written again as it came; a WebSocket's
        // frame is not kept yet.
        let conn = self.pending.get(index)?;
        if conn.wire != Some(WireKind::Text) {
            return None;
        }
        let mut conn = self.pending.remove(index)?;
        let _ = self.poll.registry().deregister(&mut conn.stream);
        self.metrics.connection(WireKind::Text.name());
        let client = blocking(conn.stream)?;
        let mut replay = format!("GAME RESUME {written}\n").into_bytes();
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
}

/// The descriptor of a mio stream as a blocking std one, for a relay's threads.
fn blocking(stream: mio::net::TcpStream) -> Option<std::net::TcpStream> {
    use std::os::fd::{FromRawFd, IntoRawFd};
    // SAFETY: the descriptor moves from the mio stream to the std one.
    let stream = unsafe { std::net::TcpStream::from_raw_fd(stream.into_raw_fd()) };
    stream.set_nonblocking(false).ok()?;
    Some(stream)
}
