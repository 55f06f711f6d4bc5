//! The supervisor's metrics, for Prometheus (`GET /metrics`, spec/DEPLOY.md).
//!
//! Counters and histograms are bumped where the supervisor already acts (accept,
//! refusal, session start and end); what is a state, not an event (connections
//! waiting, sessions running, draining) is read from the supervisor when a scrape
//! asks, so it cannot drift from the truth. Everything is in memory and rendered on
//! the loop in microseconds: nothing here blocks.
//!
//! Move latency is timed inside each session's process ([`MoveTimes`]: from a move's
//! bytes read to its announcement queued for every seat) and sent to the supervisor
//! once, at the session's end, as one datagram to its [`Inbox`]: an abstract Unix
//! socket named after the supervisor's pid, which costs the supervisor one descriptor
//! in all, none per session.
//!
//! The loop's turns are timed too ([`Metrics::loop_turn`]): from the poll's return to
//! the next poll. A long turn is a stall every connection feels, so benchmarks read
//! the histogram's buckets before and after what they measure, and the longest turn
//! of the last 10 to 20 seconds from a gauge. Each turn's CPU time is kept beside its
//! wall time: on a machine with more runnable processes than cores (10,000 sessions
//! ending at once on 2), a turn's wall time is mostly the wait for a core, which is
//! the machine's, while its CPU time is the supervisor's own work.

use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

/// The media type of what [`Metrics::render`] writes (OpenMetrics text).
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Why a connection was turned away: a short, fixed set, so that each is one series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The pool of waiting connections is full (`--max-pending`).
    PendingLimit,
    /// Its address or network has too many connections waiting.
    AddressWaiting,
    /// Its address holds too many seats in running games.
    AddressPlaying,
    /// Its address abandoned too many games lately.
    Barred,
    /// Out of descriptors or room: the server is busy.
    Busy,
    /// A PROXY header missing, malformed, or from an address not trusted.
    Proxy,
    /// A viewer for a game that cannot take one.
    Viewer,
    /// The server is shutting down.
    ShuttingDown,
    /// The server is drained: it takes no new games.
    Draining,
}

impl Refused {
    /// Its label value.
    pub fn label(self) -> &'static str {
        match self {
            Refused::PendingLimit => "pending_limit",
            Refused::AddressWaiting => "address_waiting",
            Refused::AddressPlaying => "address_playing",
            Refused::Barred => "barred",
            Refused::Busy => "busy",
            Refused::Proxy => "proxy",
            Refused::Viewer => "viewer",
            Refused::ShuttingDown => "shutting_down",
            Refused::Draining => "draining",
        }
    }
}

/// How a session ended, as the supervisor saw its exit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// It exited 0: the game was played out (or ended by agreement or a player's quit).
    Completed,
    /// A player abandoned it (left without quitting, timed out).
    Abandoned,
    /// It failed or was killed; its journal was recovered.
    Failed,
}

impl Ended {
    fn label(self) -> &'static str {
        match self {
            Ended::Completed => "completed",
            Ended::Abandoned => "abandoned",
            Ended::Failed => "failed",
        }
    }
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ProtocolLabel {
    protocol: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct GameLabel {
    game: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EndLabel {
    game: &'static str,
    end: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabel {
    reason: &'static str,
}

/// What a scrape reads from the supervisor at that moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Connections waiting for a game (in handshake or queued), closing ones not counted.
    pub pending: usize,
    /// Sessions running, per game served (every game listed, 0 included).
    pub sessions: Vec<(&'static str, usize)>,
    /// Whether the server takes no new games.
    pub draining: bool,
    /// Games with the store's writer, not yet written.
    pub store_queue: usize,
    /// Finished games the store's writer has stored since the start (a count the
    /// archive keeps; 0 without a store).
    pub games_stored: u64,
    /// Empty journal files ready for new games (spec/STORE.md §10, spares).
    pub journal_spares: usize,
    /// Spare journals made in advance since the start (a count the archive keeps).
    pub journal_spares_made: u64,
}

/// Every metric the supervisor keeps, and the registry that names them.
pub struct Metrics {
    registry: Registry,
    connections: Family<ProtocolLabel, Counter>,
    refusals: Family<ReasonLabel, Counter>,
    games_started: Family<GameLabel, Counter>,
    games_finished: Family<EndLabel, Counter>,
    setup_seconds: Histogram,
    game_seconds: Family<GameLabel, Histogram>,
    pending: Gauge,
    sessions: Family<GameLabel, Gauge>,
    draining: Gauge,
    move_seconds: Histogram,
    store_queue: Gauge,
    games_stored: Counter,
    journal_spares: Gauge,
    journal_spares_made: Counter,
    turn_seconds: Histogram,
    turn_longest: Gauge<f64, AtomicU64>,
    turn_cpu_seconds: Histogram,
    turn_cpu_longest: Gauge<f64, AtomicU64>,
    /// The longest turn's CPU time, in windows as [`Metrics::turns`].
    turns_cpu: std::cell::Cell<TurnWindows>,
    /// Kept on the loop only: a cell, so that every method takes `&self`.
    turns: std::cell::Cell<TurnWindows>,
}

/// The longest loop turn in the current window and in the one before it, so that
/// the gauge covers the last 10 to 20 seconds whenever it is read.
#[derive(Debug, Clone, Copy)]
struct TurnWindows {
    started: Instant,
    current: Duration,
    previous: Duration,
}

/// When a turn of the loop began, by the wall clock and the loop thread's CPU clock.
#[derive(Debug, Clone, Copy)]
pub struct TurnStart {
    wall: Instant,
    cpu: Duration,
}

impl TurnStart {
    pub fn now() -> TurnStart {
        TurnStart {
            wall: Instant::now(),
            cpu: thread_cpu(),
        }
    }
}

/// The calling thread's CPU time so far.
pub fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// `took` counted in the windows of `cell` at `now`.
fn longest_in(cell: &std::cell::Cell<TurnWindows>, now: Instant, took: Duration) {
    let mut turns = cell.get();
    turns.roll(now);
    turns.current = turns.current.max(took);
    cell.set(turns);
}

/// How long a window of [`TurnWindows`] lasts.
const TURN_WINDOW: Duration = Duration::from_secs(10);

impl TurnWindows {
    fn new(now: Instant) -> TurnWindows {
        TurnWindows {
            started: now,
            current: Duration::ZERO,
            previous: Duration::ZERO,
        }
    }

    /// Moves the windows on to `now` (a window with no turn in it counts as empty).
    fn roll(&mut self, now: Instant) {
        let age = now.saturating_duration_since(self.started);
        if age >= TURN_WINDOW * 2 {
            *self = TurnWindows::new(now);
        } else if age >= TURN_WINDOW {
            self.previous = self.current;
            self.current = Duration::ZERO;
            self.started += TURN_WINDOW;
        }
    }

    fn longest(&self) -> Duration {
        self.current.max(self.previous)
    }
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("reversid");
        let connections = Family::default();
        registry.register(
            "connections",
            "Connections the supervisor is done with (seated, handed to a game as viewers, or closed), by the protocol they spoke last",
            connections.clone(),
        );
        let refusals = Family::default();
        registry.register(
            "refusals",
            "Connections turned away, by reason",
            refusals.clone(),
        );
        let games_started = Family::default();
        registry.register(
            "games_started",
            "Sessions started, by game",
            games_started.clone(),
        );
        let games_finished = Family::default();
        registry.register(
            "games_finished",
            "Sessions ended, by game and how they ended (completed, abandoned, failed)",
            games_finished.clone(),
        );
        // 100 µs to about 3 s: a fork through the fork server takes about a millisecond.
        let setup_seconds = Histogram::new(exponential_buckets(0.0001, 2.0, 16));
        registry.register(
            "session_setup_seconds",
            "Time from a complete group of players to its session's process running",
            setup_seconds.clone(),
        );
        let game_seconds = Family::new_with_constructor(game_buckets as fn() -> Histogram);
        registry.register(
            "game_duration_seconds",
            "Time from a session's start to its end being seen, by game",
            game_seconds.clone(),
        );
        let pending = Gauge::default();
        registry.register(
            "pending_connections",
            "Connections waiting for a game (in handshake or queued)",
            pending.clone(),
        );
        let sessions = Family::default();
        registry.register("sessions", "Sessions running, by game", sessions.clone());
        let draining = Gauge::default();
        registry.register(
            "draining",
            "1 while the server takes no new games (reversid ctl drain), else 0",
            draining.clone(),
        );
        // 10 µs to about 0.3 s: a move is judged and announced in microseconds.
        let move_seconds = Histogram::new(exponential_buckets(0.00001, 2.0, 16));
        registry.register(
            "move_latency_seconds",
            "Time from a move's bytes read by its session to its announcement queued for every seat (reported by each session at its end)",
            move_seconds.clone(),
        );
        let store_queue = Gauge::default();
        registry.register(
            "store_queue_depth",
            "Finished games handed to the store's writer and not yet written (0 without a store)",
            store_queue.clone(),
        );
        let games_stored = Counter::default();
        registry.register(
            "games_stored",
            "Finished games the store's writer has stored since the start (one a round; a game stored already not counted again)",
            games_stored.clone(),
        );
        let journal_spares = Gauge::default();
        registry.register(
            "journal_spares",
            "Empty journal files ready for new games: a game's start takes one rather than create a file (0 without a store)",
            journal_spares.clone(),
        );
        let journal_spares_made = Counter::default();
        registry.register(
            "journal_spares_made",
            "Spare journals made in advance, off the set-up path, since the start (games started faster than others ended)",
            journal_spares_made.clone(),
        );
        // 50 µs to about 0.3 s, each bucket √2 times the one before: fine enough to
        // tell a 3 ms stall from a 5 ms one.
        let turn_seconds =
            Histogram::new(exponential_buckets(0.00005, std::f64::consts::SQRT_2, 26));
        registry.register(
            "loop_turn_seconds",
            "Time the supervisor's loop spends on one turn, from the poll's return to the next poll (a stall every connection waits through)",
            turn_seconds.clone(),
        );
        let turn_longest = Gauge::<f64, AtomicU64>::default();
        registry.register(
            "loop_turn_longest_seconds",
            "The longest turn of the supervisor's loop in the last 10 to 20 seconds",
            turn_longest.clone(),
        );
        let turn_cpu_seconds =
            Histogram::new(exponential_buckets(0.00005, std::f64::consts::SQRT_2, 26));
        registry.register(
            "loop_turn_cpu_seconds",
            "CPU time the supervisor's loop thread spends on one turn (its own work, without the waits for a core that a busy machine adds to the turn's wall time)",
            turn_cpu_seconds.clone(),
        );
        let turn_cpu_longest = Gauge::<f64, AtomicU64>::default();
        registry.register(
            "loop_turn_cpu_longest_seconds",
            "The most CPU time one turn of the supervisor's loop took in the last 10 to 20 seconds",
            turn_cpu_longest.clone(),
        );
        Metrics {
            turn_cpu_seconds,
            turn_cpu_longest,
            turns_cpu: std::cell::Cell::new(TurnWindows::new(Instant::now())),
            turn_seconds,
            turn_longest,
            turns: std::cell::Cell::new(TurnWindows::new(Instant::now())),
            move_seconds,
            store_queue,
            games_stored,
            journal_spares,
            journal_spares_made,
            registry,
            connections,
            refusals,
            games_started,
            games_finished,
            setup_seconds,
            game_seconds,
            pending,
            sessions,
            draining,
        }
    }

    /// The supervisor is done with a connection that spoke `protocol` last (its name in
    /// lower case; `none` if it sent nothing recognisable): counted once, when it leaves.
    pub fn connection(&self, protocol: &'static str) {
        self.connections
            .get_or_create(&ProtocolLabel { protocol })
            .inc();
    }

    pub fn refused(&self, why: Refused) {
        let reason = why.label();
        self.refusals.get_or_create(&ReasonLabel { reason }).inc();
    }

    /// A session of `game` started, `setup` after its players were taken from the queue.
    pub fn game_started(&self, game: &'static str, setup: Duration) {
        self.games_started.get_or_create(&GameLabel { game }).inc();
        self.setup_seconds.observe(setup.as_secs_f64());
    }

    /// A session of `game` ended so, `lasted` after it started.
    pub fn game_finished(&self, game: &'static str, end: Ended, lasted: Duration) {
        let end = end.label();
        self.games_finished
            .get_or_create(&EndLabel { game, end })
            .inc();
        self.game_seconds
            .get_or_create(&GameLabel { game })
            .observe(lasted.as_secs_f64());
    }

    /// A turn of the supervisor's loop, begun at `began`, ends now.
    pub fn loop_turn(&self, began: TurnStart) {
        let (ended, cpu) = (Instant::now(), thread_cpu());
        let took = ended.saturating_duration_since(began.wall);
        self.turn_seconds.observe(took.as_secs_f64());
        longest_in(&self.turns, ended, took);
        let used = cpu.saturating_sub(began.cpu);
        self.turn_cpu_seconds.observe(used.as_secs_f64());
        longest_in(&self.turns_cpu, ended, used);
    }

    /// The text a scrape gets: every metric, the states read from `now`.
    pub fn render(&self, now: &Snapshot) -> String {
        let at = Instant::now();
        for (cell, gauge) in [
            (&self.turns, &self.turn_longest),
            (&self.turns_cpu, &self.turn_cpu_longest),
        ] {
            let mut turns = cell.get();
            turns.roll(at);
            cell.set(turns);
            gauge.set(turns.longest().as_secs_f64());
        }
        self.pending.set(gauge_value(now.pending));
        for &(game, running) in &now.sessions {
            self.sessions
                .get_or_create(&GameLabel { game })
                .set(gauge_value(running));
        }
        self.draining.set(i64::from(now.draining));
        self.store_queue.set(gauge_value(now.store_queue));
        catch_up(&self.games_stored, now.games_stored);
        self.journal_spares.set(gauge_value(now.journal_spares));
        catch_up(&self.journal_spares_made, now.journal_spares_made);
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

/// Brings `counter` up to `total`, a count kept elsewhere (the archive's): a counter only
/// goes up, so it catches up at each scrape.
fn catch_up(counter: &Counter, total: u64) {
    counter.inc_by(total.saturating_sub(counter.get()));
}

/// The move latencies of one session, kept as it runs and sent at its end.
#[derive(Debug, Default)]
pub struct MoveTimes {
    micros: Vec<u32>,
}

/// The most moves one report carries (64 KiB): a longer game's first ones.
const MOST_MOVES: usize = 16 * 1024;

impl MoveTimes {
    /// A move took `took` from its arrival to its announcement.
    pub fn observe(&mut self, took: Duration) {
        if self.micros.len() < MOST_MOVES {
            let micros = u32::try_from(took.as_micros()).unwrap_or(u32::MAX);
            self.micros.push(micros);
        }
    }

    /// The datagram that reports them: each as 4 bytes, big-endian microseconds.
    fn encode(&self) -> Vec<u8> {
        self.micros.iter().flat_map(|m| m.to_be_bytes()).collect()
    }

    fn decode(bytes: &[u8]) -> impl Iterator<Item = Duration> + '_ {
        bytes
            .chunks_exact(4)
            .map(|c| Duration::from_micros(u64::from(u32::from_be_bytes([c[0], c[1], c[2], c[3]]))))
    }

    /// Sends them to the inbox of supervisor `supervisor` (best effort, never waiting:
    /// a report lost costs a metric, never the game).
    pub fn report(&self, supervisor: u32) {
        if self.micros.is_empty() {
            return;
        }
        let sent = std::os::unix::net::UnixDatagram::unbound().and_then(|socket| {
            socket.set_nonblocking(true)?;
            socket.send_to_addr(&self.encode(), &inbox_address(supervisor)?)
        });
        if let Err(e) = sent {
            log::debug!("move latencies not reported: {e}");
        }
    }
}

/// The abstract socket address of supervisor `pid`'s inbox.
fn inbox_address(pid: u32) -> std::io::Result<std::os::unix::net::SocketAddr> {
    use std::os::linux::net::SocketAddrExt;
    std::os::unix::net::SocketAddr::from_abstract_name(format!("reversid-metrics-{pid}"))
}

/// The supervisor's end of the sessions' reports: a datagram socket, read when the
/// loop sees it readable. Only reports from processes of the supervisor's own user are
/// believed (the kernel vouches for the sender's uid: SO_PASSCRED).
pub struct Inbox {
    socket: mio::net::UnixDatagram,
}

impl Inbox {
    /// Binds this process's inbox.
    pub fn bind() -> std::io::Result<Inbox> {
        let socket =
            std::os::unix::net::UnixDatagram::bind_addr(&inbox_address(std::process::id())?)?;
        socket.set_nonblocking(true)?;
        nix::sys::socket::setsockopt(&socket, nix::sys::socket::sockopt::PassCred, &true)?;
        Ok(Inbox {
            socket: mio::net::UnixDatagram::from_std(socket),
        })
    }

    /// The socket, to register with the loop.
    pub fn source(&mut self) -> &mut mio::net::UnixDatagram {
        &mut self.socket
    }

    /// Reads every report waiting into `metrics`.
    pub fn drain(&self, metrics: &Metrics) {
        let mut buf = vec![0u8; MOST_MOVES * 4];
        while let Some(len) = self.receive(&mut buf) {
            for took in MoveTimes::decode(&buf[..len]) {
                metrics.move_seconds.observe(took.as_secs_f64());
            }
        }
    }

    /// One report from a process of our user: its length. `None`: none left.
    fn receive(&self, buf: &mut [u8]) -> Option<usize> {
        use nix::sys::socket::{recvmsg, ControlMessageOwned, MsgFlags, UnixCredentials};
        use std::os::fd::AsRawFd;
        loop {
            let mut space = nix::cmsg_space!(UnixCredentials);
            let mut iov = [std::io::IoSliceMut::new(buf)];
            let flags = MsgFlags::MSG_DONTWAIT | MsgFlags::MSG_TRUNC;
            let msg =
                recvmsg::<()>(self.socket.as_raw_fd(), &mut iov, Some(&mut space), flags).ok()?;
            let ours = msg.cmsgs().ok()?.any(|c| {
                matches!(c, ControlMessageOwned::ScmCredentials(cred) if cred.uid() == nix::unistd::getuid().as_raw())
            });
            if ours && msg.bytes <= MOST_MOVES * 4 {
                return Some(msg.bytes);
            }
            log::debug!("a metrics report not from our user, or too long: ignored");
        }
    }
}

/// 1 s to about 9 hours: a game lasts from seconds to a long correspondence-like sitting.
fn game_buckets() -> Histogram {
    Histogram::new(exponential_buckets(1.0, 2.0, 16))
}

fn gauge_value(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line_of<'a>(text: &'a str, start: &str) -> Option<&'a str> {
        text.lines().find(|l| l.starts_with(start))
    }

    #[test]
    fn events_count_and_states_are_read_at_the_scrape() {
        let m = Metrics::new();
        m.connection("text");
        m.connection("text");
        m.refused(Refused::PendingLimit);
        m.game_started("reversi", Duration::from_millis(2));
        m.game_finished("reversi", Ended::Abandoned, Duration::from_secs(3));
        let now = Snapshot {
            pending: 3,
            sessions: vec![("reversi", 0), ("tictactoe", 2)],
            draining: true,
            store_queue: 2,
            games_stored: 5,
            journal_spares: 7,
            journal_spares_made: 4,
        };
        let text = m.render(&now);
        for expected in [
            "reversid_connections_total{protocol=\"text\"} 2",
            "reversid_refusals_total{reason=\"pending_limit\"} 1",
            "reversid_games_started_total{game=\"reversi\"} 1",
            "reversid_games_finished_total{game=\"reversi\",end=\"abandoned\"} 1",
            "reversid_session_setup_seconds_count 1",
            "reversid_game_duration_seconds_count{game=\"reversi\"} 1",
            "reversid_pending_connections 3",
            "reversid_sessions{game=\"tictactoe\"} 2",
            "reversid_sessions{game=\"reversi\"} 0",
            "reversid_draining 1",
            "reversid_store_queue_depth 2",
            "reversid_games_stored_total 5",
            "reversid_journal_spares 7",
            "reversid_journal_spares_made_total 4",
        ] {
            assert!(text.contains(expected), "{expected} missing from:\n{text}");
        }
        assert!(text.ends_with("# EOF\n"));
        let later = m.render(&Snapshot::default());
        assert_eq!(
            line_of(&later, "reversid_pending_connections "),
            Some("reversid_pending_connections 0")
        );
    }

    #[test]
    fn move_latencies_travel_as_whole_microseconds_and_land_in_their_buckets() {
        let mut times = MoveTimes::default();
        times.observe(Duration::from_micros(15));
        times.observe(Duration::from_secs(1 << 40));
        let decoded: Vec<Duration> = MoveTimes::decode(&times.encode()).collect();
        let longest = Duration::from_micros(u64::from(u32::MAX));
        assert_eq!(decoded, [Duration::from_micros(15), longest]);
        let m = Metrics::new();
        m.move_seconds.observe(decoded[0].as_secs_f64());
        let text = m.render(&Snapshot::default());
        // 15 µs is above the first bucket (10 µs) and within the second (20 µs).
        assert!(
            text.contains("reversid_move_latency_seconds_bucket{le=\"0.00001\"} 0"),
            "{text}"
        );
        assert!(
            text.contains("reversid_move_latency_seconds_bucket{le=\"0.00002\"} 1"),
            "{text}"
        );
    }

    #[test]
    fn a_setup_lands_in_its_bucket() {
        let m = Metrics::new();
        m.game_started("reversi", Duration::from_micros(150));
        let text = m.render(&Snapshot::default());
        // 150 µs is above the first bucket (100 µs) and within the second (200 µs).
        assert!(text.contains("reversid_session_setup_seconds_bucket{le=\"0.0001\"} 0"));
        assert!(text.contains("reversid_session_setup_seconds_bucket{le=\"0.0002\"} 1"));
    }

    #[test]
    fn the_longest_turn_is_kept_for_two_windows_then_forgotten() {
        let t0 = Instant::now();
        let mut w = TurnWindows::new(t0);
        w.current = Duration::from_millis(7);
        w.roll(t0 + Duration::from_secs(9));
        assert_eq!(w.longest(), Duration::from_millis(7), "same window");
        w.roll(t0 + Duration::from_secs(11));
        assert_eq!(w.longest(), Duration::from_millis(7), "the window before");
        w.current = Duration::from_millis(2);
        w.roll(t0 + Duration::from_secs(21));
        assert_eq!(
            w.longest(),
            Duration::from_millis(2),
            "7 ms is 2 windows old"
        );
        w.roll(t0 + Duration::from_secs(60));
        assert_eq!(w.longest(), Duration::ZERO, "a long quiet forgets all");
    }

    #[test]
    fn a_loop_turn_lands_in_its_bucket_and_the_gauge() {
        let m = Metrics::new();
        let began = TurnStart::now();
        // Busy for 3 ms of CPU, then asleep: the wall time counts both, the CPU time one.
        while thread_cpu() < began.cpu + Duration::from_millis(3) {}
        std::thread::sleep(Duration::from_millis(5));
        m.loop_turn(began);
        let text = m.render(&Snapshot::default());
        assert!(
            text.contains("reversid_loop_turn_seconds_count 1"),
            "{text}"
        );
        assert!(
            text.contains("reversid_loop_turn_cpu_seconds_count 1"),
            "{text}"
        );
        let seconds = |name: &str| -> f64 {
            let line = line_of(&text, name).unwrap_or_else(|| panic!("{name} in {text}"));
            line[name.len()..].parse().unwrap()
        };
        let (wall, cpu) = (
            seconds("reversid_loop_turn_longest_seconds "),
            seconds("reversid_loop_turn_cpu_longest_seconds "),
        );
        assert!(wall >= 0.008, "{text}");
        assert!(cpu >= 0.003 && cpu < wall, "{text}");
    }
}
