//! The supervisor's waiting connections: accept, admit, screen what they send
//! through their protocol, queue them, hand viewers over, refuse and close.

use std::io::{self, Read};
use std::net::{Shutdown, SocketAddr};
use std::os::fd::AsRawFd;
use std::time::Instant;

use log::{debug, warn};
use mio::{Interest, Token};
use reversi_games::registry::Module;
use reversi_proxy::Version;

use super::addresses::{Host, Refusal};
use super::origin::{self, Origin, Screened, Seed, SPOOF};
use super::pending::{State, LINGER};
use super::turns::{Budget, Turn, ACCEPT_BUDGET, OUT_LIMIT, OUT_PAUSE};
use super::{is_resource_shortage, Supervisor, BACKOFF, CONN_BASE, DRAINING, MAX_DISCARD};
use crate::metrics::Refused;
use crate::protocols::{Lobby, Operator, Running, Stage, Verdict, WireKind, MAX_INPUT};
use crate::session::handoff;

/// How a connection's turn of reading ended.
enum Reading {
    /// WouldBlock: its next turn comes with its next event.
    Drained,
    /// Its replies wait unsent: its next turn comes when its socket takes them.
    Paused,
    /// The budget ran out first: it is served again in a later turn.
    More,
    /// EOF or a read error (or a refused client that keeps sending): close it.
    Eof,
}

impl Supervisor {
    /// Accepts what `which` has waiting, [`ACCEPT_BUDGET`] at most: the rest in a later turn.
    pub(super) fn accept(&mut self, which: usize) {
        for _ in 0..ACCEPT_BUDGET {
            if self.backoff_until.is_some() {
                return;
            }
            let Some(listener) = self.listeners.get(which) else {
                return;
            };
            let (accepted, addr, seed) = (listener.socket.accept(), listener.addr, listener.seed);
            let (stream, peer) = match accepted {
                Ok(pair) => pair,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if is_resource_shortage(&e) && self.shed("out of descriptors") => {
                    continue;
                }
                Err(e) if is_resource_shortage(&e) => {
                    warn!(
                        "accept on {addr}: {e}; not accepting for {} ms",
                        BACKOFF.as_millis()
                    );
                    self.deregister_listeners();
                    self.backoff_until = Some(Instant::now() + BACKOFF);
                    return;
                }
                Err(e) => {
                    // ECONNABORTED and the like concern one connection only.
                    debug!("accept on {addr}: {e}");
                    continue;
                }
            };
            self.admit(stream, peer, seed);
        }
        self.ready.push(Turn::Listener(which));
    }

    fn admit(&mut self, mut stream: mio::net::TcpStream, peer: SocketAddr, seed: Seed) {
        let _ = stream.set_nodelay(true);
        let now = Instant::now();
        let high = self
            .fd_ceiling
            .is_some_and(|c| u64::try_from(stream.as_raw_fd()).is_ok_and(|fd| fd >= c));
        if high {
            if !self.shed("descriptors running low") {
                // Nothing idle to shed: the reserve is for starting games.
                self.note(
                    peer,
                    format_args!("{peer}: descriptors running low; refused"),
                );
                self.metrics.refused(Refused::Busy);
                let _ = io::Write::write(&mut stream, &WireKind::refusal(None, "server busy"));
                return;
            }
            stream = lowest_descriptor(stream);
        }
        if self.pending.waiting() >= self.config.max_pending {
            self.shed("pending pool full");
        }
        let over_limit = self.pending.waiting() >= self.config.max_pending;
        if over_limit && self.pending.closing() >= self.config.max_pending {
            // Flooded: no room even to linger. Best effort, then close.
            self.note(peer, format_args!("{peer}: pending limit reached; refused"));
            self.metrics.refused(Refused::PendingLimit);
            let _ = io::Write::write(
                &mut stream,
                &WireKind::refusal(None, "pending limit reached"),
            );
            return;
        }
        let origin = Origin::of(peer, seed, &self.config.proxy_from);
        let host_full = match origin.counts() {
            true => self.may_wait(peer),
            false => Ok(()),
        };
        let index = self
            .pending
            .insert(stream, peer, origin, now + self.config.handshake_timeout);
        let conn = self.pending.get_mut(index).expect("just inserted");
        if let Err(e) = self.poll.registry().register(
            &mut conn.stream,
            Token(CONN_BASE + index),
            Interest::READABLE | Interest::WRITABLE,
        ) {
            self.note(peer, format_args!("{peer}: cannot register: {e}"));
            self.pending.remove(index);
            return;
        }
        debug!("{peer}: accepted");
        if over_limit {
            let limit = self.config.max_pending;
            self.note(
                peer,
                format_args!("{peer}: pending limit ({limit}) reached; refused"),
            );
            self.metrics.refused(Refused::PendingLimit);
            self.refuse(index, "pending limit reached", now);
            return;
        }
        if let Err(refusal) = host_full {
            self.note(peer, format_args!("{peer}: refused: {refusal}"));
            self.metrics.refused(refused(&refusal));
            self.refuse(index, &refusal.to_string(), now);
            return;
        }
        // A proxy's connection arrives once its header is read (origin.rs).
        if origin.counts() {
            self.arrived(index, seed);
        }
        self.service(index);
    }

    /// Room is short (`why`): the connection that has been in handshake longest is
    /// closed (its refusal sent if the socket takes it). False when none is.
    fn shed(&mut self, why: &str) -> bool {
        let Some(oldest) = self.pending.oldest_in_handshake() else {
            return false;
        };
        if let Some(conn) = self.pending.get_mut(oldest) {
            let peer = conn.peer;
            let farewell = WireKind::refusal(conn.wire, "server busy; try again");
            self.metrics.refused(Refused::Busy);
            let _ = io::Write::write(&mut conn.stream, &farewell);
            self.note(peer, format_args!("{peer}: {why}; closed to make room"));
        }
        self.close(oldest);
        true
    }

    /// Whether `peer` may have one more connection waiting (per address and per network).
    fn may_wait(&self, peer: SocketAddr) -> Result<(), Refusal> {
        self.hosts.may_wait(
            self.pending.waiting_of(Host::of(peer)),
            self.pending.waiting_in(peer),
        )
    }

    /// A client's connection is there (its proxy's header, if any, read): on a seed
    /// listener, the seed's protocol starts.
    pub(super) fn arrived(&mut self, index: usize, seed: Seed) {
        if let Some((game, wire)) = seed {
            if let Some(conn) = self.pending.get_mut(index) {
                conn.wire = Some(wire);
            }
            // Some seed clients send nothing first: they join the listener's game at once.
            if wire.joins_on_arrival() {
                self.join(index, game);
            }
        }
    }

    /// Queues a connection in Handshake for `game`, if its host may play.
    fn join(&mut self, index: usize, game: &'static Module) {
        let Some(conn) = self.pending.get(index) else {
            return;
        };
        let (peer, wire) = (conn.peer, conn.wire);
        if self.drained {
            self.note(peer, format_args!("{peer}: refused: draining"));
            self.metrics.refused(Refused::Draining);
            return self.refuse(index, DRAINING, Instant::now());
        }
        if let Err(refusal) = self.hosts.may_play(Host::of(peer), Instant::now()) {
            self.note(peer, format_args!("{peer}: refused: {refusal}"));
            self.metrics.refused(refused(&refusal));
            return self.refuse(index, &refusal.to_string(), Instant::now());
        }
        let needed = self.group_size(game);
        let completes = self.pending.queued_for(game.info.name) + 1 >= needed;
        if let Some(conn) = self.pending.get_mut(index) {
            conn.pairing = completes;
        }
        self.pending.enqueue(index, game);
        let waiting = self.pending.queued_for(game.info.name);
        self.note(
            peer,
            format_args!("{peer}: queued ({waiting} waiting) for {}", game.info.name),
        );
        let more = needed.saturating_sub(waiting) as u32;
        if let Some(told) = wire
            .and_then(|w| w.protocol().waiting(more))
            .filter(|_| more > 0)
        {
            self.reply(index, &told);
        }
    }

    /// Sends the refusal and moves the connection to Closing.
    pub(super) fn refuse(&mut self, index: usize, why: &str, now: Instant) {
        let Some(conn) = self.pending.get(index) else {
            return;
        };
        debug!("-> {} refusal ({why})", conn.peer);
        let farewell = WireKind::refusal(conn.wire, why);
        self.linger_at(index, &farewell, now);
    }

    /// Sends `farewell` and closes: the connection lingers ([`LINGER`]) so that the
    /// client reads it before the close.
    pub(super) fn linger(&mut self, index: usize, farewell: &[u8]) {
        self.linger_at(index, farewell, Instant::now());
    }

    fn linger_at(&mut self, index: usize, farewell: &[u8], now: Instant) {
        self.leave_challenge(index);
        self.pending.start_closing(index, farewell, now + LINGER);
        self.service(index);
    }

    pub(super) fn close(&mut self, index: usize) {
        self.leave_challenge(index);
        if let Some(mut conn) = self.pending.remove(index) {
            let _ = self.poll.registry().deregister(&mut conn.stream);
            self.metrics
                .connection(conn.wire.map_or("none", WireKind::name));
            debug!("{}: closed", conn.peer);
        }
    }

    /// Handles readiness (or a state change) of a pending connection: flush, read, screen,
    /// within one turn's [`Budget`]; a connection with work left is served again later.
    pub(super) fn service(&mut self, index: usize) {
        let Some(conn) = self.pending.get_mut(index) else {
            return;
        };
        if !conn.out.is_empty() {
            match conn.out.flush(&mut conn.stream) {
                Ok(_) => {}
                Err(_) => return self.close(index),
            }
        }
        if conn.state == State::Closing && conn.out.is_empty() && !conn.write_shut {
            let _ = conn.stream.shutdown(Shutdown::Write);
            conn.write_shut = true;
        }
        let read = self.read_input(index);
        let Some((peer, state)) = self.pending.get(index).map(|c| (c.peer, c.state)) else {
            return;
        };
        match read {
            Reading::Eof => {
                match state {
                    State::Handshake => debug!("{peer}: closed before its handshake"),
                    State::Queued => self.note(
                        peer,
                        format_args!("{peer}: left the queue (connection closed)"),
                    ),
                    State::Closing => {}
                }
                self.close(index);
            }
            Reading::More => self.ready.push(Turn::Conn(index)),
            Reading::Drained | Reading::Paused => {}
        }
    }

    /// Reads until WouldBlock or the turn's budget is spent, screening after every read:
    /// the verdict comes after the first bytes, so a client streaming at full speed
    /// neither grows the input buffer nor holds the loop. Requests left unjudged by the
    /// last turn come first. A connection whose replies wait unsent ([`OUT_PAUSE`]) is
    /// not read: its next turn comes when its socket takes them.
    fn read_input(&mut self, index: usize) -> Reading {
        let mut budget = Budget::turn();
        self.screen(index, &mut budget);
        let mut buf = [0u8; 1024];
        loop {
            if self.is_paused(index) {
                return Reading::Paused;
            }
            if budget.is_spent() {
                return Reading::More;
            }
            let Some(conn) = self.pending.get_mut(index) else {
                return Reading::Drained;
            };
            match conn.stream.read(&mut buf) {
                Ok(0) => return Reading::Eof,
                Ok(n) if conn.state == State::Closing => {
                    budget.read(n);
                    conn.discarded += n;
                    if conn.discarded > MAX_DISCARD {
                        debug!("{}: kept sending after its refusal; closing", conn.peer);
                        return Reading::Eof;
                    }
                }
                Ok(n) => {
                    budget.read(n);
                    conn.input.extend_from_slice(&buf[..n]);
                    self.screen(index, &mut budget);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Reading::Drained,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Reading::Eof,
            }
        }
    }

    /// Screens what a waiting connection has sent, request by request, until it must
    /// wait for more bytes, is no longer screened (handed on, closing, gone), has spent
    /// its turn's requests, or has replies waiting unsent.
    fn screen(&mut self, index: usize, budget: &mut Budget) {
        if !self.screen_origin(index) {
            return;
        }
        while !budget.is_spent() && !self.is_paused(index) {
            let Some(verdict) = self.next_verdict(index) else {
                return;
            };
            budget.judged();
            if let Some(conn) = self.pending.get_mut(index) {
                let used = verdict.used().min(conn.input.len());
                if matches!(verdict, Verdict::Resume { .. } | Verdict::JoinCode { .. }) {
                    // A relay to another host replays it as it came (relaying.rs).
                    self.request.clear();
                    self.request.extend_from_slice(&conn.input[..used]);
                }
                conn.input.drain(..used);
            }
            if !self.act(index, verdict) {
                return;
            }
        }
    }

    /// Whether connection `index` waits for its replies to go before it is read on.
    fn is_paused(&self, index: usize) -> bool {
        self.pending
            .get(index)
            .is_some_and(|c| c.state != State::Closing && c.out.pending() >= OUT_PAUSE)
    }

    /// Its protocol's verdict on connection `index`'s input, if there is one to judge.
    fn next_verdict(&self, index: usize) -> Option<Verdict> {
        let conn = self.pending.get(index)?;
        let (Some(wire), false) = (conn.wire, conn.input.is_empty()) else {
            return None;
        };
        if conn.in_flight.is_some() {
            // Its lines wait for the answer to its request (accounts.rs).
            return self.too_much_input(index);
        }
        let stage = match conn.state {
            State::Handshake => Stage::Handshake,
            // Bytes that came with the join that completes a group go to the session.
            State::Queued if conn.pairing => return self.too_much_input(index),
            State::Queued => Stage::Queued,
            State::Closing => return None,
        };
        let running = || self.running();
        let metrics = || self.render_metrics();
        let cluster = self.cluster_health();
        let lobby = Lobby {
            games: &self.games.modules,
            running: &running,
            operator: Operator {
                metrics: self
                    .config
                    .metrics
                    .then_some(&metrics as &dyn Fn() -> String),
                takes_games: self.takes_games(),
                cluster: cluster.as_deref(),
            },
        };
        match wire.protocol().screen(&lobby, stage, &conn.input) {
            Verdict::Wait => self.too_much_input(index),
            verdict => Some(verdict),
        }
    }

    /// A refusal once a connection holds more than [`MAX_INPUT`] unjudged bytes.
    fn too_much_input(&self, index: usize) -> Option<Verdict> {
        let conn = self.pending.get(index)?;
        (conn.input.len() > MAX_INPUT).then(|| Verdict::Close {
            farewell: WireKind::refusal(conn.wire, "too much input"),
            note: None,
        })
    }

    /// Does what a verdict says; true while the connection is still to be screened.
    fn act(&mut self, index: usize, verdict: Verdict) -> bool {
        let Some(peer) = self.pending.get(index).map(|c| c.peer) else {
            return false;
        };
        match verdict {
            Verdict::Wait => return false,
            Verdict::Reply { bytes, becomes, .. } => {
                if let (Some(kind), Some(conn)) = (becomes, self.pending.get_mut(index)) {
                    conn.wire = Some(kind);
                    debug!("{peer}: now speaks {kind:?}");
                }
                self.reply(index, &bytes);
            }
            Verdict::Join { game, .. } => self.join(index, game),
            Verdict::Watch { id, .. } => {
                self.hand_to_viewer(index, id);
                return false;
            }
            Verdict::Invite { invite, .. } => self.invite(index, invite),
            Verdict::JoinCode { code, .. } => return self.join_code(index, &code),
            Verdict::Challenges { .. } => self.list_challenges(index),
            Verdict::Resume { token, .. } => return self.resume(index, &token),
            Verdict::Page(page) => {
                self.serve_page(index, page);
                return false;
            }
            Verdict::Player { request, .. } => {
                self.player_request(index, request);
                return self
                    .pending
                    .get(index)
                    .is_some_and(|c| c.in_flight.is_none());
            }
            Verdict::Tournament { request, .. } => self.tournament_request(index, request),
            Verdict::Leave => {
                self.note(peer, format_args!("{peer}: left before being paired"));
                self.close(index);
                return false;
            }
            Verdict::Tls => {
                self.terminate_tls(index);
                return false;
            }
            Verdict::Close { farewell, note } => {
                if let Some(note) = note {
                    self.note(peer, format_args!("{peer}: {note}"));
                }
                self.linger(index, &farewell);
                return false;
            }
        }
        true
    }

    /// Queues `bytes` for a waiting connection and tries to send them; closes a client
    /// that leaves more than [`OUT_LIMIT`] bytes unread.
    pub(super) fn reply(&mut self, index: usize, bytes: &[u8]) {
        let Some(conn) = self.pending.get_mut(index) else {
            return;
        };
        conn.out.push(bytes);
        if conn.out.flush(&mut conn.stream).is_err() {
            return self.close(index);
        }
        let (peer, unread) = (conn.peer, conn.out.pending());
        if unread > OUT_LIMIT {
            self.note(
                peer,
                format_args!("{peer}: does not read its replies ({unread} bytes unsent); closed"),
            );
            self.close(index);
        }
    }

    /// The games being played, oldest first.
    fn running(&self) -> Vec<Running> {
        let mut running: Vec<Running> = self
            .children
            .iter()
            .map(|c| Running {
                id: c.id,
                game: c.module,
                seconds: c.started.elapsed().as_secs(),
                players: c.peers.clone(),
                names: c.players.clone(),
            })
            .collect();
        running.sort_by_key(|r| r.id);
        running
    }

    /// Hands connection `index` to game `id`'s process as `role`, with the bytes it sent
    /// after its request; the connection is the session's then, and gone from here.
    pub(super) fn hand_over(
        &mut self,
        index: usize,
        id: u64,
        role: handoff::Role,
    ) -> io::Result<()> {
        let conn = self.pending.get(index).ok_or(io::ErrorKind::NotFound)?;
        self.children.by_id(id).ok_or(io::ErrorKind::NotFound)?;
        let wire = conn.wire.unwrap_or_default();
        let peer = conn.peer.to_string();
        handoff::send(id, conn.stream.as_raw_fd(), &peer, wire, role, &conn.input)?;
        // The session has its own copy of the descriptor now.
        if let Some(mut conn) = self.pending.remove(index) {
            let _ = self.poll.registry().deregister(&mut conn.stream);
            self.metrics.connection(wire.name());
        }
        Ok(())
    }

    fn hand_to_viewer(&mut self, index: usize, id: u64) {
        if self.children.by_id(id).is_none() {
            let why = format!("game {id} cannot take a viewer now");
            self.metrics.refused(Refused::Viewer);
            return self.refuse(index, &why, Instant::now());
        }
        let Some(peer) = self.pending.get(index).map(|c| c.peer) else {
            return;
        };
        match self.hand_over(index, id, handoff::Role::Viewer) {
            Ok(()) => self.note(peer, format_args!("{peer}: watches game {id}")),
            Err(e) => {
                self.note(
                    peer,
                    format_args!("{peer}: cannot hand over to game {id}: {e}"),
                );
                self.metrics.refused(Refused::Viewer);
                self.refuse(
                    index,
                    &format!("game {id} cannot take a viewer now"),
                    Instant::now(),
                );
            }
        }
    }

    /// Screens where connection `index` comes from, reading a trusted proxy's header;
    /// true once its game protocol may be screened. Also tells the protocol from the
    /// first byte that is not a proxy's header.
    pub(super) fn screen_origin(&mut self, index: usize) -> bool {
        let Some(conn) = self.pending.get_mut(index) else {
            return false;
        };
        if conn.state == State::Closing {
            return false;
        }
        let (peer, origin) = (conn.peer, conn.origin);
        if !matches!(origin, Origin::Awaiting { .. }) && conn.wire.is_none() {
            conn.wire = conn.input.first().map(|&b| WireKind::recognise(b));
        }
        match origin::screen(origin, peer, &conn.input) {
            Screened::Pass => {
                conn.origin = match origin {
                    Origin::Direct { .. } => Origin::Direct { screened: true },
                    other => other,
                };
                true
            }
            Screened::Wait => false,
            Screened::Refuse(why) => {
                self.note(peer, format_args!("{peer}: refused: {why}"));
                self.metrics.refused(Refused::Proxy);
                self.refuse(index, &why, Instant::now());
                false
            }
            Screened::Spoof(version) => {
                // The v2 signature opens with blank lines (text, by its first byte), but
                // its NUL is in no line of text: it is refused as what is no protocol.
                if version == Version::V2 {
                    conn.wire = Some(WireKind::FALLBACK);
                }
                self.note(peer, format_args!("{peer}: refused: {SPOOF}"));
                self.metrics.refused(Refused::Proxy);
                self.refuse(index, SPOOF, Instant::now());
                false
            }
            Screened::Header {
                peer: client,
                origin: now_from,
                used,
                protocol,
                vouched,
            } => {
                conn.input.drain(..used);
                let Origin::Awaiting { seed } = origin else {
                    return false;
                };
                match now_from {
                    Origin::Check => debug!("{peer}: the proxy's own connection (health check)"),
                    _ => debug!("{client}: relayed by {peer}"),
                }
                self.vouched_for(index, now_from, vouched);
                self.relayed(index, client, now_from, seed, protocol)
            }
        }
    }

    /// Connection `index` is `client`'s, of `origin`, from now on: the per-address
    /// limit applies to that address, and its listener's seed protocol starts.
    /// A relaying host of the cluster names the client's `protocol`: it speaks it at once.
    fn relayed(
        &mut self,
        index: usize,
        client: SocketAddr,
        origin: Origin,
        seed: Seed,
        protocol: Option<WireKind>,
    ) -> bool {
        let host_full = if origin.counts() {
            self.may_wait(client)
        } else {
            Ok(())
        };
        self.pending.settle(index, client, origin);
        if let Some(conn) = self.pending.get_mut(index) {
            conn.wire = protocol.or(conn.input.first().map(|&b| WireKind::recognise(b)));
        }
        if let Err(refusal) = host_full {
            self.note(client, format_args!("{client}: refused: {refusal}"));
            self.metrics.refused(refused(&refusal));
            self.refuse(index, &refusal.to_string(), Instant::now());
            return false;
        }
        // A seed client moved here by another host (TLV 0xE0 kind 2 or 3) arrives on this
        // host's main port and starts as if on its seed listener.
        let seed = seed.or_else(|| protocol.and_then(|wire| self.seed_of(wire)));
        self.arrived(index, seed);
        true
    }

    /// The game and protocol of a seed listener for `wire`, if it is a seed protocol of a
    /// game this host plays.
    fn seed_of(&self, wire: WireKind) -> Seed {
        let name = wire.protocol().seed_game()?;
        let game = self.games.modules.iter().find(|m| m.info.name == name)?;
        Some((game, wire))
    }
}

fn refused(refusal: &Refusal) -> Refused {
    match refusal {
        Refusal::TooManyWaiting(_) | Refusal::NetworkTooManyWaiting(_) => Refused::AddressWaiting,
        Refusal::TooManyGames(_) => Refused::AddressPlaying,
        Refusal::Barred { .. } | Refusal::StartsSpent { .. } => Refused::Barred,
    }
}

/// `stream` moved to the lowest free descriptor, when that is lower: descriptors are
/// handed out lowest first, so keeping them packed keeps the highest in use a count.
fn lowest_descriptor(stream: mio::net::TcpStream) -> mio::net::TcpStream {
    use std::os::fd::FromRawFd;
    let high = stream.as_raw_fd();
    // SAFETY: F_DUPFD_CLOEXEC on a descriptor we own; the copy is ours alone.
    let low = unsafe { libc::fcntl(high, libc::F_DUPFD_CLOEXEC, 0) };
    if low < 0 {
        return stream;
    }
    if low > high {
        // SAFETY: `low` was just made and nothing else refers to it.
        unsafe { libc::close(low) };
        return stream;
    }
    drop(stream);
    // SAFETY: `low` is an open socket that nothing else owns: a copy of the accepted
    // one, sharing its non-blocking file description.
    unsafe { mio::net::TcpStream::from_raw_fd(low) }
}
