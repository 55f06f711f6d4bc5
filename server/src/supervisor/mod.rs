//! The game-agnostic supervisor: accept, handshake, queue, pair, fork, reap.
//!
//! It knows nothing of any game beyond the [`Protocol`] trait: how to screen
//! the bytes a waiting connection sends, what to send when turning one away,
//! and how to run a session given the two sockets. A single-threaded mio loop;
//! signals arrive through a self-pipe ([`crate::signals`]).

mod listener;
mod pending;
mod reaper;
pub mod spawn;

use std::io::{self, Read};
use std::net::{Shutdown, SocketAddr};
use std::os::fd::{FromRawFd, IntoRawFd};
use std::time::{Duration, Instant};

use log::{debug, error, info, warn};
use mio::{Events, Interest, Poll, Token};
use nix::sys::signal::Signal;

use crate::config::SupervisorConfig;
use crate::signals::{self, SelfPipe};
use pending::{Pending, State, LINGER};
use reaper::Children;

/// Where a connection is, for [`Protocol::screen`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Nothing accepted yet: looking for a complete handshake.
    Handshake,
    /// Handshake done, waiting for an opponent: looking for a goodbye or a violation.
    Queued,
}

/// The verdict on the bytes a waiting connection has sent so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Screen {
    /// Incomplete: read more.
    Wait,
    /// (Handshake only) a complete handshake in the first `used` bytes: queue the connection.
    Joined { used: usize },
    /// The client leaves: close it, send nothing.
    Left,
    /// Turn it away: send [`Protocol::refusal`] and close. The string says why, for the log.
    Refused(String),
}

/// One side of a pair, handed to the session.
pub struct Seat {
    /// Non-blocking.
    pub stream: std::net::TcpStream,
    pub peer: SocketAddr,
    /// Bytes received after the handshake that the session must read first.
    pub early: Vec<u8>,
}

/// Two clients, in the order they queued.
pub struct Pair {
    pub seats: [Seat; 2],
}

/// What a game plugs into the supervisor.
pub trait Protocol {
    /// The session processes' name (`ps`, `top`); at most 15 bytes are kept.
    const SESSION_NAME: &'static str;
    /// Sent to a connection the supervisor turns away (limit reached, bad handshake,
    /// shutdown, no session could be started) just before closing it.
    fn refusal(&self) -> &[u8];
    /// What [`Protocol::refusal`] is called in the logs (e.g. the PDU's name).
    const REFUSAL_NAME: &'static str;
    /// Judges the bytes `peer` has sent so far in `stage`.
    fn screen(&self, peer: SocketAddr, stage: Stage, input: &[u8]) -> Screen;
    /// Plays one session, in the forked child, with the signal handlers reset and every
    /// descriptor but the pair's closed. `abort` wakes (register its receiver) when the
    /// supervisor asks the session to abort (fast shutdown: SIGTERM); the session should
    /// then send its farewell to both clients and end. Returns the child's exit code.
    fn run_session(&self, pair: Pair, abort: SelfPipe) -> i32;
}

const SIGNAL: Token = Token(0);
const LISTENER_BASE: usize = 1;
const CONN_BASE: usize = 1 << 16;
/// How long the listeners rest after accept fails for lack of descriptors or memory.
const BACKOFF: Duration = Duration::from_millis(100);
/// After a fast shutdown, how long sessions get before SIGKILL.
const KILL_GRACE: Duration = Duration::from_secs(10);
/// A handshake that is still incomplete after this many bytes is refused.
const MAX_INPUT: usize = 4096;
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
}

pub struct Supervisor<P: Protocol> {
    protocol: P,
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
}

/// Binds every listener of `config`; errors name the address.
pub fn bind_all(config: &SupervisorConfig) -> io::Result<Vec<(mio::net::TcpListener, SocketAddr)>> {
    config
        .listen
        .iter()
        .map(|&addr| {
            let socket = listener::bind(addr)?;
            let local = socket.local_addr()?;
            Ok((socket, local))
        })
        .collect()
}

impl<P: Protocol> Supervisor<P> {
    /// Takes bound listeners (see [`bind_all`]) and installs the signal handlers.
    pub fn new(
        protocol: P,
        config: SupervisorConfig,
        listeners: Vec<(mio::net::TcpListener, SocketAddr)>,
    ) -> io::Result<Supervisor<P>> {
        let poll = Poll::new()?;
        let mut signals = SelfPipe::install(signals::SUPERVISOR)?;
        poll.registry()
            .register(signals.receiver(), SIGNAL, Interest::READABLE)?;
        let mut sup = Supervisor {
            protocol,
            config,
            poll,
            signals,
            listeners: listeners
                .into_iter()
                .map(|(socket, addr)| Listener { socket, addr })
                .collect(),
            backoff_until: None,
            pending: Pending::default(),
            children: Children::default(),
            phase: Phase::Running,
            handled_stops: 0,
            hangup: Box::new(|| info!("SIGHUP ignored (no log file to reopen)")),
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
                    Token(t) => self.service(t - CONN_BASE),
                }
            }
            self.on_timers(Instant::now());
            self.try_pair();
            if self.phase != Phase::Running && self.children.is_empty() && self.pending.is_empty() {
                info!("shutdown complete: no session left");
                return Ok(());
            }
        }
    }

    fn next_deadline(&mut self) -> Option<Instant> {
        let phase = match self.phase {
            Phase::Running => None,
            Phase::Draining { fast_at } => Some(fast_at),
            Phase::Aborting { kill_at } => Some(kill_at),
        };
        [self.pending.next_deadline(), self.backoff_until, phase]
            .into_iter()
            .flatten()
            .min()
    }

    fn on_signals(&mut self) {
        let got = self.signals.take();
        if got.hangup {
            (self.hangup)();
        }
        // Reap on every wake-up, not only on SIGCHLD: signals can coalesce.
        if self.children.reap() > 0 {
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
        for index in self.pending.expired_handshakes(now) {
            if let Some(conn) = self.pending.get(index) {
                info!("{}: no handshake within the timeout; closing", conn.peer);
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
            self.admit(stream, peer);
        }
    }

    fn admit(&mut self, mut stream: mio::net::TcpStream, peer: SocketAddr) {
        let _ = stream.set_nodelay(true);
        let now = Instant::now();
        let over_limit = self.pending.waiting() >= self.config.max_pending;
        if over_limit && self.pending.closing() >= self.config.max_pending {
            // Flooded: no room even to linger. Best effort, then close.
            warn!("{peer}: pending limit reached; refused");
            let _ = io::Write::write(&mut stream, self.protocol.refusal());
            return;
        }
        let index = self
            .pending
            .insert(stream, peer, now + self.config.handshake_timeout);
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
        } else {
            self.service(index);
        }
    }

    /// Sends the refusal and moves the connection to Closing.
    fn refuse(&mut self, index: usize, why: &str, now: Instant) {
        if let Some(conn) = self.pending.get(index) {
            debug!("-> {} {} ({why})", conn.peer, P::REFUSAL_NAME);
        }
        self.pending
            .start_closing(index, self.protocol.refusal(), now + LINGER);
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

    fn screen(&mut self, index: usize) {
        loop {
            let Some(conn) = self.pending.get_mut(index) else {
                return;
            };
            let stage = match conn.state {
                State::Handshake => Stage::Handshake,
                State::Queued if !conn.input.is_empty() => Stage::Queued,
                _ => return,
            };
            let verdict = self.protocol.screen(conn.peer, stage, &conn.input);
            let peer = conn.peer;
            match verdict {
                Screen::Wait if conn.input.len() > MAX_INPUT => {
                    return self.refuse(index, "too much input", Instant::now())
                }
                Screen::Wait => return,
                Screen::Joined { used } if stage == Stage::Handshake => {
                    conn.input.drain(..used.min(conn.input.len()));
                    self.pending.enqueue(index);
                    info!("{peer}: queued ({} waiting)", self.pending.queued());
                }
                Screen::Joined { .. } => {
                    warn!("{peer}: second handshake while queued; refused");
                    return self.refuse(index, "second handshake", Instant::now());
                }
                Screen::Left => {
                    info!("{peer}: left before being paired");
                    return self.close(index);
                }
                Screen::Refused(why) => {
                    info!("{peer}: refused: {why}");
                    return self.refuse(index, &why, Instant::now());
                }
            }
        }
    }

    fn try_pair(&mut self) {
        while self.phase == Phase::Running && self.children.len() < self.config.max_sessions {
            let Some(front) = self.pending.front_pair() else {
                return;
            };
            // Last look before handing them over: a client whose quit or EOF is already in
            // (but whose event is not handled yet) leaves instead of being paired.
            let queued = self.pending.queued();
            for index in front {
                self.service(index);
            }
            if self.pending.queued() != queued {
                continue;
            }
            let Some(conns) = self.pending.pop_pair() else {
                return;
            };
            let mut seats = conns.map(|mut conn| {
                let _ = self.poll.registry().deregister(&mut conn.stream);
                // SAFETY: the descriptor moves from the mio stream to a std one.
                let stream = unsafe { std::net::TcpStream::from_raw_fd(conn.stream.into_raw_fd()) };
                Seat {
                    stream,
                    peer: conn.peer,
                    early: conn.input,
                }
            });
            for seat in &mut seats {
                seat.early.shrink_to_fit();
            }
            let peers = [seats[0].peer, seats[1].peer];
            let (forked, pair) = spawn::fork_session(&self.protocol, Pair { seats });
            match forked {
                Ok(pid) => {
                    drop(pair);
                    self.children.insert(pid, peers);
                    info!(
                        "session {pid} started: {} vs {} ({} running)",
                        peers[0],
                        peers[1],
                        self.children.len()
                    );
                }
                Err(e) => {
                    error!(
                        "cannot start a session for {} and {}: {e}",
                        peers[0], peers[1]
                    );
                    for mut seat in pair.seats {
                        let _ = io::Write::write(&mut seat.stream, self.protocol.refusal());
                        let _ = seat.stream.shutdown(Shutdown::Write);
                    }
                }
            }
        }
    }
}

fn is_resource_shortage(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}
