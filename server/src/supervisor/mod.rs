//! The game-agnostic supervisor: accept, tell the protocols apart, queue per
//! game, fork one session per group of players, hand viewers over, reap.
//!
//! It never parses a move: [`front`] screens what a connection sends before
//! its game, and the session runtime ([`crate::session`]) does the rest in the
//! child. A single-threaded mio loop; signals arrive through a self-pipe
//! ([`crate::signals`]); a session's end through its exit signal or its pidfd
//! ([`reaper`], [`forking`]). Sessions are forked by the fork server
//! ([`crate::fork_server`]), not by the supervisor.

mod addresses;
mod cidr;
mod forking;
mod listener;
mod options;
mod origin;
mod pending;
mod reaper;

use std::io::{self, Read};
use std::net::{Shutdown, SocketAddr};
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd};
use std::time::{Duration, Instant};

use log::{debug, error, info, warn};
use mio::{Events, Interest, Poll, Token};
use nix::sys::signal::Signal;
use reversi_games::registry::Module;

use crate::games::Games;
use crate::protocols::{Lobby, Running, Stage, Verdict, WireKind, MAX_INPUT};
use crate::session::{self, handoff, Group};
use crate::signals::SelfPipe;
use addresses::{Host, Hosts};
pub use options::{Options, SupervisorConfig};
use origin::{Origin, Seed};
use pending::{Pending, State, LINGER};
use reaper::{Child, Children};

const SIGNAL: Token = Token(0);
const LISTENER_BASE: usize = 1;
const CONN_BASE: usize = 1 << 16;

/// How long the listeners rest after accept fails for lack of descriptors or memory.
const BACKOFF: Duration = Duration::from_millis(100);
/// After a fast shutdown, how long sessions get before SIGKILL.
const KILL_GRACE: Duration = Duration::from_secs(10);
/// A refused connection that sends more than this while we linger is closed at once:
/// discarding a fast sender's stream would otherwise hold the loop for the whole linger.
const MAX_DISCARD: usize = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Running,
    /// Smart shutdown: no listeners, sessions finish; fast at `fast_at`.
    Draining {
        fast_at: Instant,
    },
    /// Fast shutdown: sessions were told to abort; SIGKILL at `kill_at`.
    Aborting {
        kill_at: Instant,
    },
}

struct Listener {
    socket: mio::net::TcpListener,
    addr: SocketAddr,
    /// A seed protocol's listener: every client here plays this game in that protocol.
    seed: Option<(&'static Module, WireKind)>,
}

/// A bound listening socket, its address, and the seed protocol it is for, if any.
pub type Bound = (
    mio::net::TcpListener,
    SocketAddr,
    Option<(&'static Module, WireKind)>,
);

pub struct Supervisor {
    games: Games,
    next_id: u64,
    hosts: Hosts,
    config: SupervisorConfig,
    poll: Poll,
    signals: SelfPipe,
    listeners: Vec<Listener>,
    /// Listeners deregistered until then (EMFILE and friends).
    backoff_until: Option<Instant>,
    pending: Pending,
    children: Children,
    phase: Phase,
    handled_stops: usize,
    hangup: Box<dyn FnMut()>,
    /// Where sessions come from; `None`: forked from the supervisor itself.
    fork_server: Option<forking::Forks>,
}

/// Binds every listener of `config`; errors name the address.
pub fn bind_all(config: &SupervisorConfig) -> io::Result<Vec<Bound>> {
    let plain = config.listen.iter().map(|&addr| (addr, None));
    let seeds = config
        .listen_seed
        .iter()
        .map(|s| (s.addr, Some((s.game, s.wire))));
    plain
        .chain(seeds)
        .map(|(addr, seed)| {
            let socket = listener::bind(addr)?;
            let local = socket.local_addr()?;
            Ok((socket, local, seed))
        })
        .collect()
}

impl Supervisor {
    /// Takes bound listeners (see [`bind_all`]) and installs the signal handlers.
    pub fn new(
        games: Games,
        config: SupervisorConfig,
        listeners: Vec<Bound>,
    ) -> io::Result<Supervisor> {
        let poll = Poll::new()?;
        let mut signals = SelfPipe::install_supervisor()?;
        poll.registry()
            .register(signals.receiver(), SIGNAL, Interest::READABLE)?;
        let hosts = Hosts::new(config.limits.clone(), Instant::now());
        let mut sup = Supervisor {
            games,
            next_id: 0,
            hosts,
            config,
            poll,
            signals,
            listeners: listeners
                .into_iter()
                .map(|(socket, addr, seed)| Listener { socket, addr, seed })
                .collect(),
            backoff_until: None,
            pending: Pending::default(),
            children: Children::default(),
            phase: Phase::Running,
            handled_stops: 0,
            hangup: Box::new(|| info!("SIGHUP ignored (no log file to reopen)")),
            fork_server: None,
        };
        sup.register_listeners()?;
        Ok(sup)
    }

    /// What to do on SIGHUP (default: log it).
    pub fn on_hangup(mut self, f: impl FnMut() + 'static) -> Self {
        self.hangup = Box::new(f);
        self
    }

    fn register_listeners(&mut self) -> io::Result<()> {
        for (i, l) in self.listeners.iter_mut().enumerate() {
            self.poll.registry().register(
                &mut l.socket,
                Token(LISTENER_BASE + i),
                Interest::READABLE,
            )?;
        }
        Ok(())
    }

    fn deregister_listeners(&mut self) {
        for l in &mut self.listeners {
            let _ = self.poll.registry().deregister(&mut l.socket);
        }
    }

    /// Runs until a shutdown completes.
    pub fn run(mut self) -> io::Result<()> {
        self.start_fork_server();
        let mut events = Events::with_capacity(1024);
        loop {
            let timeout = self
                .next_deadline()
                .map(|d| d.saturating_duration_since(Instant::now()));
            if let Err(e) = self.poll.poll(&mut events, timeout) {
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            for event in events.iter() {
                match event.token() {
                    SIGNAL => self.on_signals(),
                    Token(t) if (LISTENER_BASE..CONN_BASE).contains(&t) => {
                        self.accept(t - LISTENER_BASE)
                    }
                    Token(t) if t >= forking::EXIT_BASE => {
                        let pid = (t - forking::EXIT_BASE) as i32;
                        self.on_exit_event(nix::unistd::Pid::from_raw(pid))
                    }
                    Token(t) => self.service(t - CONN_BASE),
                }
            }
            self.on_timers(Instant::now());
            self.try_pair();
            if self.phase != Phase::Running && self.children.is_empty() && self.pending.is_empty() {
                info!("shutdown complete: no session left");
                self.finish_fork_server();
                return Ok(());
            }
        }
    }

    /// A session ended: its players' hosts have one game fewer, and one that abandoned
    /// it gets a strike (and perhaps a penalty).
    fn ended(&mut self, child: &Child, status: nix::sys::wait::WaitStatus) {
        use nix::sys::wait::WaitStatus;
        if let Some(pidfd) = &child.pidfd {
            self.unwatch(pidfd);
        }
        for peer in &child.peers {
            self.hosts.game_ended(Host::of(*peer));
        }
        let why = match status {
            WaitStatus::Exited(_, code) if code == 0 || session::abandoned_by(code).is_some() => {
                None
            }
            WaitStatus::Exited(_, code) => Some(format!("failed (status {code})")),
            WaitStatus::Signaled(_, signal, _) => Some(format!("killed by {signal}")),
            _ => Some("gone".to_owned()),
        };
        if let Some(why) = why {
            self.recover_journal(child, &why);
        }
        let WaitStatus::Exited(_, code) = status else {
            return;
        };
        let Some(peer) = session::abandoned_by(code).and_then(|s| child.peers.get(s)) else {
            return;
        };
        let host = Host::of(*peer);
        if let Some(wait) = self.hosts.abandoned(host, Instant::now()) {
            warn!(
                "{host}: abandons games again and again; may not queue for {} s",
                wait.as_secs()
            );
        }
    }

    /// A session died before it could record its game: the game's journal becomes an
    /// aborted game's record, and the log gets its result line.
    fn recover_journal(&self, child: &Child, why: &str) {
        let name = child.module.info.name;
        let Some(config) = self.games.sessions.get(name) else {
            return;
        };
        let orphan = session::journal::recover(
            &config.journal_dir,
            std::process::id(),
            child.id,
            why,
            config.record_dir.as_deref(),
        );
        let (moves, transcript) = match &orphan {
            Some(o) if !o.moves.is_empty() => (o.moves.len(), o.moves.join(", ")),
            _ => (0, "-".to_owned()),
        };
        let players: Vec<String> = child.peers.iter().map(ToString::to_string).collect();
        warn!(
            "game over: {name} game {} players {} end {why} result aborted moves {moves} transcript {transcript}",
            child.id,
            players.join(" ")
        );
    }

    /// Logs a routine event of `peer` at info, or only counts it when its host has had
    /// many this period (RUST_LOG=debug still shows each).
    fn note(&mut self, peer: SocketAddr, message: std::fmt::Arguments<'_>) {
        if self.hosts.log_it(Host::of(peer)) {
            info!("{message}");
        } else {
            debug!("{message}");
        }
    }

    fn next_deadline(&mut self) -> Option<Instant> {
        let phase = match self.phase {
            Phase::Running => None,
            Phase::Draining { fast_at } => Some(fast_at),
            Phase::Aborting { kill_at } => Some(kill_at),
        };
        let summary = Some(self.hosts.next_summary());
        [
            self.pending.next_deadline(),
            self.backoff_until,
            phase,
            summary,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn on_signals(&mut self) {
        let got = self.signals.take();
        if got.hangup {
            (self.hangup)();
            if let Some(Err(e)) = self.fork_server.as_ref().map(|f| f.server.reopen_log()) {
                error!("cannot hand the reopened log to the fork server: {e}");
            }
        }
        let mut reaped: Vec<_> = got
            .exited
            .iter()
            .filter_map(|&pid| self.children.reap(nix::unistd::Pid::from_raw(pid)))
            .collect();
        if got.lost_exits {
            reaped.extend(self.children.sweep());
        }
        for (child, status) in &reaped {
            self.ended(child, *status);
        }
        if !reaped.is_empty() {
            debug!("{} sessions running", self.children.len());
        }
        while self.handled_stops < got.stops {
            self.handled_stops += 1;
            if self.handled_stops == 1 {
                info!(
                    "shutdown requested: smart (sessions may finish; signal again to abort them)"
                );
                self.begin_drain();
            } else {
                warn!("second shutdown signal: fast shutdown");
                self.abort_sessions();
            }
        }
    }

    fn begin_drain(&mut self) {
        if self.phase != Phase::Running {
            return;
        }
        self.deregister_listeners();
        self.listeners.clear();
        self.backoff_until = None;
        let now = Instant::now();
        for index in self.pending.indices() {
            if self
                .pending
                .get(index)
                .is_some_and(|c| c.state != State::Closing)
            {
                self.refuse(index, "server shutting down", now);
            }
        }
        self.phase = Phase::Draining {
            fast_at: now + self.config.shutdown_timeout,
        };
        info!(
            "draining: {} sessions running, {} connections closing",
            self.children.len(),
            self.pending.closing()
        );
    }

    fn abort_sessions(&mut self) {
        self.begin_drain();
        if let Phase::Draining { .. } = self.phase {
            info!("aborting {} sessions (SIGTERM)", self.children.len());
            self.children.signal_all(Signal::SIGTERM);
            self.phase = Phase::Aborting {
                kill_at: Instant::now() + KILL_GRACE,
            };
        }
    }

    fn on_timers(&mut self, now: Instant) {
        for (host, n) in self.hosts.summary(now) {
            info!(
                "{host}: {n} more connection events in the last {} s, not logged one by one \
                 (RUST_LOG=debug shows each)",
                addresses::LOG_PERIOD.as_secs()
            );
        }
        for index in self.pending.expired_handshakes(now) {
            if let Some(conn) = self.pending.get(index) {
                let missing = conn.origin.missing();
                info!("{}: {missing} within the timeout; closing", conn.peer);
            }
            self.close(index);
        }
        for index in self.pending.expired_closings(now) {
            self.close(index);
        }
        if self.backoff_until.is_some_and(|t| t <= now) {
            self.backoff_until = None;
            if self.phase == Phase::Running {
                info!("resuming accept");
                if let Err(e) = self.register_listeners() {
                    error!("cannot re-register listeners: {e}");
                }
                for i in 0..self.listeners.len() {
                    self.accept(i);
                }
            }
        }
        match self.phase {
            Phase::Draining { fast_at } if fast_at <= now => {
                warn!("shutdown timeout reached: fast shutdown");
                self.abort_sessions();
            }
            Phase::Aborting { kill_at } if kill_at <= now => {
                warn!("sessions still running after SIGTERM: SIGKILL");
                self.children.signal_all(Signal::SIGKILL);
                self.phase = Phase::Aborting {
                    kill_at: now + KILL_GRACE,
                };
            }
            _ => {}
        }
    }

    fn accept(&mut self, which: usize) {
        loop {
            if self.backoff_until.is_some() {
                return;
            }
            let Some(listener) = self.listeners.get(which) else {
                return;
            };
            let (stream, peer) = match listener.socket.accept() {
                Ok(pair) => pair,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if is_resource_shortage(&e) => {
                    warn!(
                        "accept on {}: {e}; not accepting for {} ms",
                        listener.addr,
                        BACKOFF.as_millis()
                    );
                    self.deregister_listeners();
                    self.backoff_until = Some(Instant::now() + BACKOFF);
                    return;
                }
                Err(e) => {
                    // ECONNABORTED and the like concern one connection only.
                    debug!("accept on {}: {e}", listener.addr);
                    continue;
                }
            };
            let seed = listener.seed;
            self.admit(stream, peer, seed);
        }
    }

    fn admit(&mut self, mut stream: mio::net::TcpStream, peer: SocketAddr, seed: Seed) {
        let _ = stream.set_nodelay(true);
        let now = Instant::now();
        let over_limit = self.pending.waiting() >= self.config.max_pending;
        if over_limit && self.pending.closing() >= self.config.max_pending {
            // Flooded: no room even to linger. Best effort, then close.
            warn!("{peer}: pending limit reached; refused");
            let _ = io::Write::write(
                &mut stream,
                &WireKind::refusal(None, "pending limit reached"),
            );
            return;
        }
        let origin = Origin::of(peer, seed, &self.config.proxy_from);
        let host_full = match origin.counts() {
            true => self.hosts.may_wait(self.pending.waiting_of(Host::of(peer))),
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
            warn!("{peer}: cannot register: {e}");
            self.pending.remove(index);
            return;
        }
        debug!("{peer}: accepted");
        if over_limit {
            warn!(
                "{peer}: pending limit ({}) reached; refused",
                self.config.max_pending
            );
            self.refuse(index, "pending limit reached", now);
            return;
        }
        if let Err(refusal) = host_full {
            self.note(peer, format_args!("{peer}: refused: {refusal}"));
            self.refuse(index, &refusal.to_string(), now);
            return;
        }
        // A proxy's connection arrives once its header is read (origin.rs).
        if origin.counts() {
            self.arrived(index, seed);
        }
        self.service(index);
    }

    /// A client's connection is there (its proxy's header, if any, read): on a seed
    /// listener, the seed's protocol starts.
    fn arrived(&mut self, index: usize, seed: Seed) {
        if let Some((game, wire)) = seed {
            if let Some(conn) = self.pending.get_mut(index) {
                conn.wire = Some(wire);
            }
            // A seed 000 client sends nothing first: it joins its listener's game at once.
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
        if let Err(refusal) = self.hosts.may_play(Host::of(peer), Instant::now()) {
            self.note(peer, format_args!("{peer}: refused: {refusal}"));
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
    fn refuse(&mut self, index: usize, why: &str, now: Instant) {
        let Some(conn) = self.pending.get(index) else {
            return;
        };
        debug!("-> {} refusal ({why})", conn.peer);
        let farewell = WireKind::refusal(conn.wire, why);
        self.linger_at(index, &farewell, now);
    }

    /// Sends `farewell` and closes: the connection lingers ([`LINGER`]) so that the
    /// client reads it before the close.
    fn linger(&mut self, index: usize, farewell: &[u8]) {
        self.linger_at(index, farewell, Instant::now());
    }

    fn linger_at(&mut self, index: usize, farewell: &[u8], now: Instant) {
        self.pending.start_closing(index, farewell, now + LINGER);
        self.service(index);
    }

    fn close(&mut self, index: usize) {
        if let Some(mut conn) = self.pending.remove(index) {
            let _ = self.poll.registry().deregister(&mut conn.stream);
            debug!("{}: closed", conn.peer);
        }
    }

    /// Handles readiness (or a state change) of a pending connection: flush, read, screen.
    fn service(&mut self, index: usize) {
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
        let eof = self.read_input(index);
        let Some(conn) = self.pending.get(index) else {
            return;
        };
        if eof {
            match conn.state {
                State::Handshake => debug!("{}: closed before its handshake", conn.peer),
                State::Queued => info!("{}: left the queue (connection closed)", conn.peer),
                State::Closing => {}
            }
            self.close(index);
        }
    }

    /// Reads until WouldBlock, screening after every read: the verdict comes after the first
    /// bytes, so a client streaming at full speed neither grows the input buffer nor holds
    /// the loop. Returns true at EOF (or a read error), and for a refused connection that
    /// keeps sending past [`MAX_DISCARD`].
    fn read_input(&mut self, index: usize) -> bool {
        let mut buf = [0u8; 1024];
        loop {
            let Some(conn) = self.pending.get_mut(index) else {
                return false;
            };
            match conn.stream.read(&mut buf) {
                Ok(0) => return true,
                Ok(n) if conn.state == State::Closing => {
                    conn.discarded += n;
                    if conn.discarded > MAX_DISCARD {
                        debug!("{}: kept sending after its refusal; closing", conn.peer);
                        return true;
                    }
                }
                Ok(n) => {
                    conn.input.extend_from_slice(&buf[..n]);
                    self.screen(index);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return false,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return true,
            }
        }
    }

    /// Screens what a waiting connection has sent, request by request, until it must
    /// wait for more bytes or is no longer screened (handed on, closing, gone).
    fn screen(&mut self, index: usize) {
        if !self.screen_origin(index) {
            return;
        }
        while let Some(verdict) = self.next_verdict(index) {
            if let Some(conn) = self.pending.get_mut(index) {
                let used = verdict.used().min(conn.input.len());
                conn.input.drain(..used);
            }
            if !self.act(index, verdict) {
                return;
            }
        }
    }

    /// Its protocol's verdict on connection `index`'s input, if there is one to judge.
    fn next_verdict(&self, index: usize) -> Option<Verdict> {
        let conn = self.pending.get(index)?;
        let (Some(wire), false) = (conn.wire, conn.input.is_empty()) else {
            return None;
        };
        let stage = match conn.state {
            State::Handshake => Stage::Handshake,
            // Bytes that came with the join that completes a group go to the session.
            State::Queued if conn.pairing => return self.too_much_input(index),
            State::Queued => Stage::Queued,
            State::Closing => return None,
        };
        let running = || self.running();
        let lobby = Lobby {
            games: &self.games.modules,
            running: &running,
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
            Verdict::Leave => {
                self.note(peer, format_args!("{peer}: left before being paired"));
                self.close(index);
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

    /// Queues `bytes` for a waiting connection and tries to send them.
    fn reply(&mut self, index: usize, bytes: &[u8]) {
        if let Some(conn) = self.pending.get_mut(index) {
            conn.out.push(bytes);
            if conn.out.flush(&mut conn.stream).is_err() {
                self.close(index);
            }
        }
    }

    /// How many players a game of `game` needs.
    fn group_size(&self, game: &Module) -> usize {
        game.info.team_count() * self.games.team_size
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
            })
            .collect();
        running.sort_by_key(|r| r.id);
        running
    }

    /// Hands a connection that asked to watch game `id` to that game's process.
    fn hand_to_viewer(&mut self, index: usize, id: u64) {
        let Some(child) = self.children.by_id(id) else {
            let why = format!("game {id} cannot take a viewer now");
            return self.refuse(index, &why, Instant::now());
        };
        let Some(conn) = self.pending.get(index) else {
            return;
        };
        let wire = conn.wire.unwrap_or_default();
        let sent = handoff::send(
            child.id,
            conn.stream.as_raw_fd(),
            &conn.peer.to_string(),
            wire,
            &conn.input,
        );
        match sent {
            Ok(()) => {
                info!("{}: watches game {id}", conn.peer);
                // The session has its own copy of the descriptor now.
                if let Some(mut conn) = self.pending.remove(index) {
                    let _ = self.poll.registry().deregister(&mut conn.stream);
                }
            }
            Err(e) => {
                warn!("{}: cannot hand over to game {id}: {e}", conn.peer);
                self.refuse(
                    index,
                    &format!("game {id} cannot take a viewer now"),
                    Instant::now(),
                );
            }
        }
    }

    fn try_pair(&mut self) {
        let games = self.pending.waiting_games();
        for name in games {
            let Some(&game) = self.games.modules.iter().find(|m| m.info.name == name) else {
                continue;
            };
            self.try_start(game);
        }
    }

    /// Starts games of `game` while enough players wait and the session cap allows.
    fn try_start(&mut self, game: &'static Module) {
        let name = game.info.name;
        let needed = self.group_size(game);
        while self.phase == Phase::Running && self.children.len() < self.config.max_sessions {
            let Some(front) = self.pending.front_group(name, needed) else {
                return;
            };
            // Last look before handing them over: a client whose quit or EOF is already in
            // (but whose event is not handled yet) leaves instead of being paired.
            let queued = self.pending.queued_for(name);
            for index in front {
                self.service(index);
            }
            if self.pending.queued_for(name) != queued {
                continue;
            }
            let Some(conns) = self.pending.pop_group(name, needed) else {
                return;
            };
            let seats: Vec<session::Seat> = conns
                .into_iter()
                .map(|mut conn| {
                    let _ = self.poll.registry().deregister(&mut conn.stream);
                    // SAFETY: the descriptor moves from the mio stream to a std one.
                    let stream =
                        unsafe { std::net::TcpStream::from_raw_fd(conn.stream.into_raw_fd()) };
                    let mut early = conn.input;
                    early.shrink_to_fit();
                    session::Seat {
                        stream,
                        peer: conn.peer,
                        early,
                        wire: conn.wire.unwrap_or_default(),
                    }
                })
                .collect();
            self.start_session(game, seats);
        }
    }

    fn start_session(&mut self, game: &'static Module, seats: Vec<session::Seat>) {
        self.next_id += 1;
        let id = self.next_id;
        let peers: Vec<SocketAddr> = seats.iter().map(|s| s.peer).collect();
        let who: Vec<String> = peers.iter().map(ToString::to_string).collect();
        let config = self.games.sessions.get(game.info.name).cloned();
        let viewers = match handoff::listener(id) {
            Ok(listener) => listener,
            Err(e) => return self.cannot_start(game, seats, &e),
        };
        let mut keep: Vec<i32> = seats.iter().map(|s| s.stream.as_raw_fd()).collect();
        keep.push(viewers.as_raw_fd());
        let group = Group {
            id,
            module: game,
            seats,
        };
        let forked = self.fork_session(&keep, config, group, viewers);
        match forked {
            Ok((pid, group, pidfd)) => {
                drop(group);
                for peer in &peers {
                    self.hosts.game_started(Host::of(*peer));
                }
                self.children.insert(Child {
                    pid,
                    id,
                    module: game,
                    peers,
                    started: Instant::now(),
                    pidfd,
                });
                info!(
                    "session {pid} started: game {id} {} {} ({} running)",
                    game.info.name,
                    who.join(" vs "),
                    self.children.len()
                );
            }
            Err((e, group)) => self.cannot_start(game, group.seats, &e),
        }
    }

    fn cannot_start(&mut self, game: &'static Module, seats: Vec<session::Seat>, e: &io::Error) {
        let who: Vec<String> = seats.iter().map(|s| s.peer.to_string()).collect();
        error!(
            "cannot start a session of {} for {}: {e}",
            game.info.name,
            who.join(" and ")
        );
        for mut seat in seats {
            let farewell = seat
                .wire
                .protocol()
                .refusal("no game could be started; try again");
            let _ = io::Write::write(&mut seat.stream, &farewell);
            let _ = seat.stream.shutdown(Shutdown::Write);
        }
    }
}

fn is_resource_shortage(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}
