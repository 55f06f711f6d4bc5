//! The supervisor: accept, queue per game, fork one session per group of
//! players, hand viewers over, reap. It knows no game's rules and no protocol
//! by name: a waiting connection's protocol ([`crate::protocols`]) judges what
//! it sends, and the session runtime ([`crate::session`]) plays the game in
//! the child.
//!
//! A single-threaded mio loop ([`Supervisor::run`]): signals arrive through a
//! self-pipe ([`crate::signals`]), waiting connections are served in
//! [`waiting`], sessions started and ended in [`sessions`] (forked by the fork
//! server, or by the supervisor itself with `--fork-directly`: [`forking`]),
//! their exits seen by [`reaper`].

mod accounts;
pub(crate) mod addresses;
mod budget;
pub(crate) mod challenges;
mod cidr;
mod control;
mod forking;
mod identity;
mod inviting;
mod listener;
mod options;
mod origin;
mod pending;
mod ratings;
mod reads;
mod reaper;
mod relaying;
mod sessions;
pub mod tokens;
mod tournaments;
mod turns;
mod upgrading;
mod waiting;

use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use log::{debug, error, info, warn};
use mio::{Events, Interest, Poll, Token};
use nix::sys::signal::Signal;

use crate::games::Games;
use crate::metrics::Metrics;
use crate::signals::{Drain, SelfPipe};
use addresses::{Host, Hosts};
pub use options::{Options, SupervisorConfig};
use origin::Seed;
use pending::{Pending, State};
use reaper::Children;
use turns::{ReadyList, Turn};
pub use upgrading::inherited_listeners;

const SIGNAL: Token = Token(0);
/// A thread has news: the store's writer has written games (`crate::store::archive`), the
/// account workers have answered players' requests (accounts.rs), or the cluster's bus has
/// heard something (`crate::cluster`). One token: mio allows one waker per poll, so they
/// share it, and each is asked on every wake.
const ARCHIVE: Token = Token(LISTENER_BASE + (1 << 15));
/// The sessions' metrics reports ([`crate::metrics::Inbox`]).
const METRICS: Token = Token(LISTENER_BASE + (1 << 15) + 1);
/// The output of an upgrade's trial run (upgrading.rs).
const TRIAL: Token = Token(LISTENER_BASE + (1 << 15) + 2);
/// The control socket's listener; its connections take the next
/// [`crate::control::MAX_CONNECTIONS`] tokens (control.rs).
const CONTROL: Token = Token(LISTENER_BASE + (1 << 15) + 3);
const LISTENER_BASE: usize = 1;
const CONN_BASE: usize = 1 << 16;

/// How long the listeners rest after accept fails for lack of descriptors or memory.
const BACKOFF: Duration = Duration::from_millis(100);
/// After a fast shutdown, how long sessions get before SIGKILL.
const KILL_GRACE: Duration = Duration::from_secs(10);
/// Descriptors kept free for starting sessions (a viewer listener, what the
/// fork server is sent): past the limit less these, the oldest idle connection is shed.
const FD_RESERVE: u64 = 16;
/// What a player is told when the host is drained.
const DRAINING: &str = "server draining: no new games here; connect again";
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
    seed: Seed,
}

/// A bound listening socket, its address, and the seed protocol it is for, if any.
pub type Bound = (mio::net::TcpListener, SocketAddr, Seed);

pub struct Supervisor {
    games: Games,
    next_id: u64,
    hosts: Hosts,
    config: SupervisorConfig,
    poll: Poll,
    signals: SelfPipe,
    listeners: Vec<Listener>,
    /// A connection accepted on a descriptor this high or higher sheds an idle one
    /// (the open files limit less [`FD_RESERVE`]).
    fd_ceiling: Option<u64>,
    /// Listeners deregistered until then (EMFILE and friends).
    backoff_until: Option<Instant>,
    pending: Pending,
    /// [`Pending::queue_moves`] when queued clients were last told their places.
    told_moves: u64,
    /// Connections and listeners whose turn ended with work left ([`turns`]).
    ready: ReadyList,
    children: Children,
    phase: Phase,
    handled_stops: usize,
    hangup: Box<dyn FnMut()>,
    /// Where sessions come from; `None`: forked from the supervisor itself.
    fork_server: Option<forking::Forks>,
    metrics: Metrics,
    /// Told to take no new games (`reversid ctl drain`): running games finish, players
    /// are turned away and `/health` fails, so a balancer sends them to other hosts.
    drained: bool,
    /// Open challenges, ended codes, tries per address (challenges.rs).
    challenges: inviting::Registry,
    /// Resume tokens of the running sessions.
    tokens: tokens::Tokens,
    /// When every child is next asked whether it has exited (the backstop after a
    /// SIGCHLD; see [`reaper::next_sweep`]).
    sweep_at: Option<Instant>,
    /// The store, when one is on: its archive is started by `run` (after any daemon fork,
    /// as it runs a thread).
    store: Option<crate::store::Setting>,
    archive: Option<crate::store::archive::Archive>,
    /// Held while the supervisor runs: the data directory is its alone.
    data_dir_lock: Option<std::fs::File>,
    /// The threads that make the store's pages.
    pages: Option<crate::store::workers::Workers>,
    /// Players' requests: the account workers and the sign-in limits (accounts.rs).
    players: accounts::Players,
    /// The store's reads per address (reads.rs).
    reads: reads::Reads,
    /// Upgrading in place: the binary, the trial under way (upgrading.rs).
    upgrades: upgrading::Upgrades,
    /// The TLS terminator, once a TLS client came (listener.rs).
    tls: Option<crate::protocols::tls::Terminator>,
    /// Where sessions report their move latencies.
    inbox: Option<crate::metrics::Inbox>,
    /// The other hosts, with `--cluster` (started by `run`, as it runs a thread).
    cluster: Option<crate::cluster::Cluster>,
    /// The bytes of the `GAME RESUME` or `GAME JOIN` being acted on, as they came (a
    /// WebSocket's frame): a relay to another host replays them.
    request: Vec<u8>,
    /// How threads wake the loop ([`Supervisor::waker`]).
    waker: Option<std::sync::Arc<mio::Waker>>,
    /// The tournament director and its shell (tournaments.rs).
    tournaments: tournaments::Tournaments,
    /// The operator's control socket, when there is one (control.rs).
    control: Option<control::Control>,
    /// The current turn's CPU, by part, and its budget for deferrable work (budget.rs).
    turn: budget::Turn,
    /// Which kind of deferrable work goes first in the next turn (budget.rs).
    deferred: budget::Deferred,
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
        let challenges = challenges::Challenges::new(config.challenges);
        let grace = games.sessions.values().filter_map(|c| c.grace).max();
        let reads = reads::Reads::new(config.store_reads);
        let children = Children::with_room(config.max_sessions);
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
            fd_ceiling: crate::daemon::nofile_limit()
                .ok()
                .map(|limit| limit.saturating_sub(FD_RESERVE)),
            backoff_until: None,
            pending: Pending::default(),
            told_moves: 0,
            ready: ReadyList::default(),
            children,
            phase: Phase::Running,
            handled_stops: 0,
            hangup: Box::new(|| info!("SIGHUP ignored (no log file to reopen)")),
            fork_server: None,
            tls: None,
            inbox: None,
            metrics: Metrics::new(),
            drained: false,
            challenges,
            tokens: tokens::Tokens::default(),
            sweep_at: None,
            store: None,
            archive: None,
            data_dir_lock: None,
            pages: None,
            players: accounts::Players::default(),
            reads,
            upgrades: upgrading::Upgrades::default(),
            cluster: None,
            request: Vec::new(),
            waker: None,
            tournaments: tournaments::Tournaments::new(grace),
            control: None,
            turn: budget::Turn::default(),
            deferred: budget::Deferred::default(),
        };
        sup.register_listeners()?;
        Ok(sup)
    }

    /// Archives every finished game in this store (none: no archive).
    pub fn with_store(mut self, store: Option<crate::store::Setting>) -> Self {
        self.store = store;
        self
    }

    /// Starts the store's writer, which first takes the journals an earlier run left.
    fn start_archive(&mut self) -> io::Result<()> {
        let Some(setting) = self.store.clone() else {
            return Ok(());
        };
        let setting = &setting;
        // Held already after an upgrade in place, or a failed one: taking it again through
        // another descriptor would let it go when the first one closes (a POSIX lock).
        if self.data_dir_lock.is_none() {
            self.data_dir_lock = Some(crate::store::lock(setting)?);
        }
        self.restore_tournaments(setting);
        let store = crate::store::open(setting)?;
        let waker = self.waker()?;
        let players = std::sync::Arc::clone(&waker);
        let pages = std::sync::Arc::clone(&waker);
        let wake = Box::new(move || {
            let _ = waker.wake();
        });
        let dir = setting.journal_dir();
        self.players.start(
            setting,
            std::sync::Arc::new(move || {
                let _ = players.wake();
            }),
        );
        match crate::store::workers::Workers::start(
            setting,
            std::sync::Arc::new(move || {
                let _ = pages.wake();
            }),
        ) {
            Ok(workers) => self.pages = Some(workers),
            Err(e) => {
                error!("cannot start the store's page workers: {e}; its pages are not served")
            }
        }
        let records = self
            .games
            .sessions
            .values()
            .find_map(|s| s.record_dir.clone());
        let spares = crate::store::unlinker::SpareRoom::for_sessions(self.config.max_sessions);
        match crate::store::archive::Archive::start(store, &dir, records, spares, wake) {
            Ok(archive) => self.archive = Some(archive),
            // Games are still played, and their journals kept for a start that can archive them.
            Err(e) => error!(
                "cannot start the store's writer thread: {e}; finished games stay in {} \
                 until a later start archives them",
                dir.display()
            ),
        }
        Ok(())
    }

    /// With `--cluster`, starts the bus thread: the host serves from now on, joined or alone.
    fn start_cluster(&mut self) -> io::Result<()> {
        let Some(settings) = self.config.cluster.clone() else {
            return Ok(());
        };
        let Some(first) = self.listeners.first().map(|l| l.addr) else {
            return Ok(());
        };
        let waker = self.waker()?;
        let cluster = crate::cluster::Cluster::start(&settings, self.config.host_id, first, waker)?;
        self.cluster = Some(cluster);
        Ok(())
    }

    /// The loop's one waker (token [`ARCHIVE`]), made when first asked.
    fn waker(&mut self) -> io::Result<std::sync::Arc<mio::Waker>> {
        if let Some(waker) = &self.waker {
            return Ok(waker.clone());
        }
        let waker = std::sync::Arc::new(mio::Waker::new(self.poll.registry(), ARCHIVE)?);
        self.waker = Some(waker.clone());
        Ok(waker)
    }

    /// What `GET /health` says of the cluster, with `--cluster`.
    fn cluster_health(&self) -> Option<String> {
        self.cluster.as_ref().map(|c| c.health_line())
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
        // After an upgrade in place, what connected meanwhile is served first (upgrading.rs).
        let mut helpers_due = true;
        if !self.took_over() {
            self.start_helpers()?;
            helpers_due = false;
        }
        let mut events = Events::with_capacity(1024);
        loop {
            let timeout = match self.ready.is_empty() {
                true => self
                    .next_deadline()
                    .map(|d| d.saturating_duration_since(Instant::now())),
                false => Some(Duration::ZERO),
            };
            if let Err(e) = self.poll.poll(&mut events, timeout) {
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            let began = crate::metrics::TurnStart::now();
            self.turn = budget::Turn::begin(crate::metrics::thread_cpu());
            for event in events.iter() {
                match event.token() {
                    SIGNAL => {
                        self.mark(budget::Part::Io);
                        self.on_signals();
                        self.mark(budget::Part::Signals);
                    }
                    METRICS => {
                        if let Some(inbox) = &self.inbox {
                            inbox.drain(&self.metrics);
                        }
                    }
                    ARCHIVE => {
                        self.mark(budget::Part::Io);
                        if let Some(archive) = &mut self.archive {
                            archive.on_written();
                        }
                        self.on_player_answers();
                        self.on_pages_made();
                        self.on_control_answers();
                        if let Some(cluster) = &mut self.cluster {
                            cluster.on_wake();
                        }
                        self.mark(budget::Part::Wake);
                    }
                    TRIAL => self.on_trial_output(),
                    Token(t) if control::owns(t) => self.on_control(t),
                    Token(t) if (LISTENER_BASE..CONN_BASE).contains(&t) => {
                        self.accept(t - LISTENER_BASE)
                    }
                    Token(t) => self.service(t - CONN_BASE),
                }
            }
            self.mark(budget::Part::Io);
            self.serve_ready();
            self.mark(budget::Part::Ready);
            self.on_timers(Instant::now());
            self.mark(budget::Part::Timers);
            self.try_pair();
            if std::mem::take(&mut helpers_due) {
                self.start_helpers()?;
            }
            self.metrics.loop_turn(began);
            self.mark(budget::Part::Pair);
            if let Some(breakdown) = self.turn.long() {
                debug!(target: "reversid::supervisor::budget", "{breakdown}");
            }
            if self.phase != Phase::Running && self.children.is_empty() && self.pending.is_empty() {
                info!("shutdown complete: no session left");
                self.stop_tournaments("shutdown");
                self.finish_fork_server();
                if let Some(archive) = self.archive.take() {
                    archive.finish();
                }
                return Ok(());
            }
        }
    }

    /// Gives every connection and listener left with work at the end of its last turn
    /// one more turn.
    fn serve_ready(&mut self) {
        for turn in self.ready.take_round() {
            match turn {
                Turn::Conn(index) => self.service(index),
                Turn::Listener(which) => self.accept(which),
            }
        }
    }

    /// The metrics' text, the supervisor's states read now.
    fn render_metrics(&self) -> String {
        // One walk of the children, not one a game: a scrape with 10,000 sessions walked
        // them once for each of the games, 3 ms of the loop's CPU.
        let mut running = std::collections::HashMap::<&str, usize>::new();
        for child in self.children.iter() {
            *running.entry(child.module.info.name).or_default() += 1;
        }
        let sessions = (self.games.modules.iter())
            .map(|m| (m.info.name, running.get(m.info.name).copied().unwrap_or(0)))
            .collect();
        self.metrics.render(&crate::metrics::Snapshot {
            pending: self.pending.waiting(),
            sessions,
            draining: self.drained,
            store_queue: self.archive.as_ref().map_or(0, |a| a.queued()),
            games_stored: self.archive.as_ref().map_or(0, |a| a.stored()),
            journal_spares: self.archive.as_ref().map_or(0, |a| a.spares_ready()),
            journal_spares_made: self.archive.as_ref().map_or(0, |a| a.spares_made()),
        })
    }

    /// Opens the inbox where sessions report their move latencies; without it (an
    /// error), the metric stays empty and everything else goes on.
    fn start_inbox(&mut self) {
        let bound = crate::metrics::Inbox::bind().and_then(|mut inbox| {
            let source = inbox.source();
            self.poll
                .registry()
                .register(source, METRICS, Interest::READABLE)?;
            Ok(inbox)
        });
        match bound {
            Ok(inbox) => self.inbox = Some(inbox),
            Err(e) => warn!("no move latency metrics: cannot open their inbox: {e}"),
        }
    }

    /// Whether new games are taken: what `/health` says.
    fn takes_games(&self) -> bool {
        self.phase == Phase::Running && !self.drained
    }

    /// The operator asked to drain the host, or to take games again.
    fn on_drain(&mut self, drain: Drain) {
        match drain {
            Drain::Start if !self.drained => {
                self.drained = true;
                let queued = self.pending.indices().into_iter().filter(|&i| {
                    self.pending
                        .get(i)
                        .is_some_and(|c| c.state == State::Queued)
                });
                let queued: Vec<usize> = queued.collect();
                info!(
                    "draining: no new games; {} sessions running finish; {} queued players turned away",
                    self.children.len(),
                    queued.len()
                );
                let now = Instant::now();
                for index in queued {
                    self.metrics.refused(crate::metrics::Refused::Draining);
                    self.refuse(index, DRAINING, now);
                }
            }
            Drain::Stop if self.drained => {
                self.drained = false;
                info!("taking new games again");
            }
            _ => debug!("{drain:?} asked again: nothing to do"),
        }
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

    /// At the end of a log period: what [`Supervisor::note`] counted instead of logging.
    fn log_summary(&mut self, now: Instant) {
        let summary = self.hosts.summary(now);
        let period = addresses::LOG_PERIOD.as_secs();
        for (host, n) in &summary.hosts {
            info!(
                "{host}: {n} more connection events in the last {period} s, not logged one by one \
                 (RUST_LOG=debug shows each)"
            );
        }
        if summary.other_hosts > 0 {
            info!(
                "{} more connection events from {} other addresses in the last {period} s, \
                 not logged one by one",
                summary.other_events, summary.other_hosts
            );
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
            self.sweep_at,
            self.children.has_due().then(Instant::now),
            self.signals.more().then(Instant::now),
            self.pending.next_deadline(),
            self.backoff_until,
            phase,
            summary,
            self.challenges.next_deadline(),
            self.archive.as_ref().and_then(|a| a.deadline()),
            self.upgrades.deadline(),
            self.cluster.as_ref().and_then(|c| c.deadline()),
            self.tournaments.deadline(),
            self.control.as_ref().and_then(|c| c.deadline()),
            self.ratings_deadline(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn on_signals(&mut self) {
        let got = self.signals.take_some(crate::signals::TAKE_SOME);
        if got.hangup {
            (self.hangup)();
            self.reload_tls();
            if let Some(Err(e)) = self.fork_server.as_ref().map(|f| f.server.reopen_log()) {
                error!("cannot hand the reopened log to the fork server: {e}");
            }
        }
        self.on_exits(&got, Instant::now());
        if let Some(drain) = got.drain {
            self.on_drain(drain);
        }
        if got.upgrade {
            self.on_upgrade_asked();
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
                self.metrics.refused(crate::metrics::Refused::ShuttingDown);
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
        self.log_summary(now);
        self.expire_challenges(now);
        self.trial_timer(now);
        self.tick_tournaments(now);
        self.control_timers(now);
        self.refresh_ratings(now);
        self.mark(budget::Part::Timers);
        self.deferred_work(now);
        if let Some(cluster) = &mut self.cluster {
            cluster.on_timer(now);
        }
        self.meet_lone_waiters(now);
        for index in self.pending.expired_handshakes(now) {
            if let Some((peer, missing)) = self
                .pending
                .get(index)
                .map(|c| (c.peer, c.origin.missing()))
            {
                self.note(
                    peer,
                    format_args!("{peer}: {missing} within the timeout; closing"),
                );
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
                // Never wait on a session that has already ended: ask every child first.
                self.sweep_all();
                if self.children.is_empty() {
                    return;
                }
                warn!("sessions still running after SIGTERM: SIGKILL");
                self.children.signal_all(Signal::SIGKILL);
                self.phase = Phase::Aborting {
                    kill_at: now + KILL_GRACE,
                };
            }
            _ => {}
        }
    }
}

fn is_resource_shortage(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}
