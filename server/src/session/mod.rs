//! The session runtime: the forked child's event loop for one game of any
//! kind, over N seats and any number of viewers. It never knows which game
//! it runs ([`referee`] asks the module) nor which protocol a connection
//! speaks (each has a [`crate::protocols::Wire`]).
//!
//! The referee decides, and this loop only carries: each input, end of file
//! or deadline goes to the [`referee::Referee`] with the time read here, and
//! each [`referee::Delivery`] it returns goes to the connections it names
//! (one seat, or every viewer), already made for them.
//!
//! Rules of the loop, one turn at a time: each connection is read at most
//! [`conn::READ_BUDGET`] a turn, so a flooder cannot hold up the others or
//! the clock; input that has arrived (within that budget) is read before any
//! deadline is judged, and deadlines are judged every turn; the seats are
//! served before the viewers; a seat whose output backs up is not read until
//! it drains, and is closed past [`MAX_OUTPUT`]; a viewer whose output backs
//! up is dropped, so it never slows the players; a closed viewer is forgotten
//! at once (its descriptor with it); a connection told its last messages is
//! closed once it closes, or a linger after; once the game is over every
//! connection gets its last messages, then our side is shut and input is
//! discarded until the client closes or the linger ends.
//!
//! A seat that can be taken back after a drop (TEXT-PROTOCOL.md §5.5) keeps its
//! place `i` when its connection ends; a returning player's connection, handed
//! over as the viewers are, becomes connection `i` again ([`Session::take_back_seat`]).
//! The session then lives on while such a seat may still come back.

mod conn;
pub mod handoff;
pub mod journal;
pub mod players;
pub mod referee;

use std::io;
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use log::{debug, error, info, warn};
use mio::{Events, Interest, Poll, Token};
use reversi_games::registry::Module;
use reversi_games::Settings;

use crate::protocols::{Event, Input, WireKind};
use crate::signals::SelfPipe;
use crate::terms::{ResumeToken, SeatPlayer, Terms};
use conn::{Conn, ReadOutcome};
use referee::{Delivery, Now, Referee, Rules, Seating, Who};

const SIGNAL: Token = Token(usize::MAX - 1);
const CONTROL: Token = Token(usize::MAX - 2);
/// Readiness events taken from one poll (32 of 12 bytes: under a tenth of a page).
const EVENTS_A_POLL: usize = 32;
/// After the last message, how long a client gets to close before we do (spec §12).
const LINGER: Duration = Duration::from_secs(2);
/// Stop reading from a player while this much output waits for it.
const MAX_BACKLOG: usize = 16 * 1024;
/// A viewer with this much output waiting is dropped.
const MAX_VIEWER_BACKLOG: usize = 64 * 1024;
/// A seat with this much output waiting is closed: it does not read its replies.
const MAX_OUTPUT: usize = 256 * 1024;
/// The most viewers given their share of the game's events in one turn, besides those an
/// event woke; a player's input arriving ends the turn's slice sooner.
const VIEWER_SLICE: usize = 64;

/// The exit code of a session whose game was abandoned by seat `n`: `ABANDONED + n`.
pub const ABANDONED: i32 = 16;
/// Seats an exit code can name.
pub const MAX_SEATS: usize = 64;

/// The exit code of a session whose game seat `n` lost by its own doing without abandoning
/// it (an illegal move, a protocol violation, a quit): `FORFEITED + n`.
pub const FORFEITED: i32 = ABANDONED + MAX_SEATS as i32;

/// The seat an exit code says lost its game by its own doing (abandoned or forfeited), for
/// the supervisor's game-start budget.
pub fn lost_by(code: i32) -> Option<usize> {
    let forfeited = || usize::try_from(code.checked_sub(FORFEITED)?).ok();
    abandoned_by(code).or_else(|| forfeited().filter(|&seat| seat < MAX_SEATS))
}

/// The session's exit code: abandonment first ([`Referee::exit_code`]), else who forfeited.
fn exit_code(referee: &Referee) -> i32 {
    match (referee.exit_code(), referee.lost_by()) {
        (0, Some(seat)) if seat < MAX_SEATS => FORFEITED + seat as i32,
        (code, _) => code,
    }
}

/// The seat an exit code says abandoned its game.
pub fn abandoned_by(code: i32) -> Option<usize> {
    let seat = usize::try_from(code.checked_sub(ABANDONED)?).ok()?;
    (seat < MAX_SEATS).then_some(seat)
}

/// A client handed to a session.
pub struct Seat {
    /// Non-blocking.
    pub stream: TcpStream,
    pub peer: SocketAddr,
    /// Bytes received after the handshake, which the session reads first.
    pub early: Vec<u8>,
    pub wire: WireKind,
    /// The token that takes this seat back after a drop; `None`: a drop forfeits.
    pub token: Option<ResumeToken>,
    /// Who plays in it.
    pub player: SeatPlayer,
}

/// The clients of one game, in the order they queued.
pub struct Group {
    pub id: u64,
    pub module: &'static Module,
    pub terms: Terms,
    pub seats: Vec<Seat>,
    /// The file name of a spare in the journal directory to take as the game's journal
    /// ([`journal`]): given when a store archives journals and the pool has one.
    pub spare_journal: Option<String>,
}

/// What every session of a game type is given.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    pub rules: Rules,
    pub record_dir: Option<PathBuf>,
    /// What each game is given; its seed is drawn afresh for every game.
    pub settings: Settings,
    /// Where journals are kept while games run (the record directory, or a temporary one).
    pub journal_dir: PathBuf,
    /// A store is on: the journal, with every game ended, stays for the supervisor to
    /// archive (it removes it then).
    pub keep_journals: bool,
    pub viewers: ViewerLimits,
    /// The first-move clock of a game whose every seat joined on arrival, without a word
    /// (seed 000's listener), or that started while the server was nearly full: the
    /// handshake timeout, when shorter (TEXT-PROTOCOL.md §14, §8).
    pub silent_first_move_timeout: Option<Duration>,
    /// How long a seat that can be taken back is held after a drop (`None`: a drop loses).
    pub grace: Option<Duration>,
}

/// How many viewers a game takes (TEXT-PROTOCOL.md §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewerLimits {
    /// In all.
    pub per_game: usize,
    /// From one address (an IPv6 /64).
    pub per_address: usize,
}

/// A session child's whole life: plays `group` and returns the exit code, logging what
/// went wrong. `viewers` is the listener on which the supervisor hands viewers over.
pub fn play(config: &SessionConfig, group: Group, abort: SelfPipe, viewers: OwnedFd) -> i32 {
    match run(config, group, abort, Some(viewers)) {
        Ok(code) => code,
        Err(e) => {
            error!("session failed: {e}");
            1
        }
    }
}

/// Plays the session of `group` to its end and returns the child's exit code
/// (0, or who abandoned the game: [`abandoned_by`]). Runs in the child.
/// `viewers` is the listener on which the supervisor hands viewers over.
pub fn run(
    config: &SessionConfig,
    group: Group,
    abort: SelfPipe,
    viewers: Option<OwnedFd>,
) -> io::Result<i32> {
    let (mut session, early) = Session::open(config, group, abort, viewers)?;
    session.begin(early);
    session.serve()?;
    session
        .move_times
        .report(nix::unistd::getppid().as_raw() as u32);
    session.write_records();
    if let Some(journal) = session.journal.take() {
        journal.finish(config.keep_journals);
    }
    Ok(exit_code(&session.referee))
}

/// The journal of game `id` of `name` (opened with its first line: a game that never
/// starts costs no file).
fn session_journal(
    config: &SessionConfig,
    (id, name): (u64, &str),
    terms: Terms,
    peers: &[String],
    players: &[SeatPlayer],
) -> journal::Journal {
    let header = format!("game {name} id {id} players {}", peers.join(" "));
    journal::Journal::new(
        journal_path(config, id),
        &header,
        terms.control.map(|c| c.to_string()).as_deref(),
    )
    .with_players(terms.rated, players)
}

fn journal_path(config: &SessionConfig, id: u64) -> PathBuf {
    let supervisor = nix::unistd::getppid().as_raw() as u32;
    journal::path(&config.journal_dir, supervisor, id)
}

/// The spare journal the supervisor gave a session (with a store), until its journal takes
/// it: dropped before, as when the session fails to start, it goes back through the archive
/// as an empty journal (see [`journal`]).
struct SpareGiven<'a> {
    config: &'a SessionConfig,
    id: u64,
    name: Option<String>,
}

impl<'a> SpareGiven<'a> {
    fn new(config: &'a SessionConfig, group: &mut Group) -> SpareGiven<'a> {
        let name = group.spare_journal.take().filter(|_| config.keep_journals);
        SpareGiven {
            config,
            id: group.id,
            name,
        }
    }

    fn take(mut self) -> Option<PathBuf> {
        Some(self.config.journal_dir.join(self.name.take()?))
    }
}

impl Drop for SpareGiven<'_> {
    fn drop(&mut self) {
        if let Some(name) = self.name.take() {
            let spare = self.config.journal_dir.join(name);
            let path = journal_path(self.config, self.id);
            drop(journal::Journal::new(path, "", None).with_spare(Some(spare)));
        }
    }
}

/// Whether `input` is a move, whose latency the metrics keep.
fn is_move(input: &Input) -> bool {
    matches!(input, Input::Act(_) | Input::Notation(_))
}

/// The time now, as the referee is given it.
fn now() -> Now {
    Now {
        at: Instant::now(),
        wall: SystemTime::now(),
    }
}

struct Session<'a> {
    referee: Referee,
    /// The seats first (connection `i` is seat `i`, never removed), then the viewers.
    conns: Vec<Conn>,
    seats: usize,
    /// A connection's budget ran out this turn with input left: the next wait does not sleep.
    starved: bool,
    /// The events for viewers, which each viewer is given in its own turn.
    broadcast: Broadcast,
    /// Viewers an event woke since the last turn.
    woken: Vec<usize>,
    /// The next viewer to be given its share in a turn's slice.
    viewer_cursor: usize,
    id: u64,
    config: &'a SessionConfig,
    started: Instant,
    /// Its moves' latencies, reported to the supervisor at its end (crate::metrics).
    move_times: crate::metrics::MoveTimes,
    journal: Option<journal::Journal>,
    poll: Poll,
    abort: SelfPipe,
    /// The listener on which the supervisor hands viewers over, while it works.
    viewers: Option<OwnedFd>,
    /// Once the game is over: when we close whatever the clients have not.
    linger_until: Option<Instant>,
}

impl<'a> Session<'a> {
    /// Sets the table: the referee, a connection a seat, the journal. Returns the session
    /// and, a seat, the bytes it sent before the session began.
    fn open(
        config: &'a SessionConfig,
        mut group: Group,
        mut abort: SelfPipe,
        viewers: Option<OwnedFd>,
    ) -> io::Result<(Session<'a>, Vec<Vec<u8>>)> {
        let peers: Vec<String> = group.seats.iter().map(|s| s.peer.to_string()).collect();
        let silent = group.seats.iter().all(|s| s.wire.joins_on_arrival());
        let mut rules = rules_for(config, silent || group.terms.hurry);
        referee::adapt_rules(&mut rules, group.terms.control, &group.seats);
        rules.fixed_teams |= group.terms.teams_by_seat;
        rules.rematch &= !group.terms.single;
        let (mut referee, seed) = new_referee(config, rules, group.module, group.id, peers.clone());
        let returns = group.seats.iter().map(seat_return).collect();
        referee.hold_seats(config.grace, returns);
        let players: Vec<SeatPlayer> = group.seats.iter().map(|s| s.player.clone()).collect();
        referee.name_seats(players.clone());
        // Before anything here can fail, so that a spare given goes back (its drop).
        let spare = SpareGiven::new(config, &mut group);
        let poll = Poll::new()?;
        poll.registry()
            .register(abort.receiver(), SIGNAL, Interest::READABLE)?;
        if let Some(listener) = &viewers {
            let mut source = mio::unix::SourceFd(&listener.as_raw_fd());
            poll.registry()
                .register(&mut source, CONTROL, Interest::READABLE)?;
        }
        let (conns, early) = seat_conns(&poll, group.seats)?;
        let info = group.module.info;
        let line: Vec<String> = (0..conns.len())
            .map(|s| {
                let who = players::listed(&players[s], &peers[s]);
                format!("{who} plays {}", info.team_name(referee.team_of(s)))
            })
            .collect();
        let (id, name) = (group.id, info.name);
        info!(
            "session: {} ({name} game {id}, seed {seed})",
            line.join(", ")
        );
        // Made last: what it allocates comes after the connections' buffers in the
        // session's heap (made first, it cost every session a heap page).
        let journal = session_journal(config, (id, name), group.terms, &peers, &players)
            .with_spare(spare.take());
        let session = Session {
            referee,
            seats: conns.len(),
            starved: false,
            broadcast: Broadcast::default(),
            woken: Vec::new(),
            viewer_cursor: 0,
            conns,
            id,
            config,
            started: Instant::now(),
            move_times: Default::default(),
            journal: Some(journal),
            poll,
            abort,
            viewers,
            linger_until: None,
        };
        Ok((session, early))
    }

    /// The game starts; then what each seat sent before it is read.
    fn begin(&mut self, early: Vec<Vec<u8>>) {
        let deliveries = self.referee.start(now());
        self.deliver(deliveries);
        for (seat, bytes) in early.into_iter().enumerate() {
            let mut inputs = Vec::new();
            self.conns[seat].receive(&bytes, &mut inputs);
            self.take_inputs(seat, inputs);
        }
    }

    /// The loop: read and write, judge deadlines, keep finished games, wait for more.
    fn serve(&mut self) -> io::Result<()> {
        // A session polls a few descriptors (its players, its viewers' listener and
        // viewers, its signal pipe); events past these wait for the next poll. Small, as
        // its heap pages are each a page of private memory (README, a session's memory).
        let mut events = Events::with_capacity(EVENTS_A_POLL);
        loop {
            self.new_turn();
            self.pump_all();
            self.judge_deadlines();
            self.write_records();
            self.forget_closed_viewers();
            if self.done() {
                return Ok(());
            }
            self.wait(&mut events)?;
            for event in events.iter() {
                self.dispatch(event);
            }
        }
    }

    /// Every connection may be read its budget again.
    fn new_turn(&mut self) {
        self.starved = false;
        for conn in &mut self.conns {
            conn.budget = conn::READ_BUDGET;
        }
    }

    /// Judges deadlines only after reading what has arrived (a move that came in time
    /// is not late because this process was slow to look).
    fn judge_deadlines(&mut self) {
        let due = self.referee.deadline().is_some_and(|d| d <= Instant::now());
        if !due {
            return;
        }
        for conn in self.conns.iter_mut().filter(|c| !c.closed) {
            conn.readable = true;
        }
        self.pump_all();
        let deliveries = self.referee.tick(now());
        self.deliver(deliveries);
        self.pump_all();
    }

    /// Once the game is over: whether every connection has closed or the linger is over.
    fn done(&mut self) -> bool {
        if !self.referee.is_over() || self.referee.keeps_session() {
            return false;
        }
        let deadline = *self
            .linger_until
            .get_or_insert_with(|| Instant::now() + LINGER);
        if self.conns.iter().all(|c| c.closed) {
            return true;
        }
        if Instant::now() >= deadline {
            debug!("linger over; closing");
            return true;
        }
        false
    }

    /// Waits for an event, or the referee's next deadline, or the linger's end, or a
    /// finishing connection's; not at all when input is left over from this turn.
    fn wait(&mut self, events: &mut Events) -> io::Result<()> {
        let finishing = self
            .conns
            .iter()
            .filter(|c| !c.closed)
            .filter_map(|c| c.finishing_since)
            .min();
        let wake = [
            self.referee.deadline(),
            self.linger_until,
            finishing.map(|t| t + LINGER),
        ]
        .into_iter()
        .flatten()
        .min();
        let timeout = if self.starved {
            Some(Duration::ZERO)
        } else {
            wake.map(|t| t.saturating_duration_since(Instant::now()))
        };
        match self.poll.poll(events, timeout) {
            Err(e) if e.kind() != io::ErrorKind::Interrupted => Err(e),
            _ => Ok(()),
        }
    }

    fn dispatch(&mut self, event: &mio::event::Event) {
        match event.token() {
            SIGNAL => {
                if self.abort.take().stops > 0 {
                    warn!("SIGTERM: aborting the game");
                    let deliveries = self.referee.abort(now());
                    self.deliver(deliveries);
                }
            }
            CONTROL => self.take_viewers(),
            Token(i) => {
                if i >= self.seats && i < self.conns.len() {
                    self.woken.push(i);
                }
                if let Some(conn) = self.conns.get_mut(i) {
                    if event.is_readable() || event.is_read_closed() || event.is_error() {
                        conn.readable = true;
                    }
                    if event.is_writable() {
                        conn.blocked = false;
                    }
                }
            }
        }
    }

    /// Flushes, reads and winds down the seats until they are quiet, then serves a slice of
    /// the viewers (whose input gives only themselves work): the viewers an event woke, and
    /// [`VIEWER_SLICE`] more in turn. Viewers left with work make the next wait not sleep,
    /// so a player's move waits for one slice at most, never for every viewer.
    fn pump_all(&mut self) {
        while self.pump_range(0, self.seats) {}
        let woken = std::mem::take(&mut self.woken);
        for i in woken {
            self.pump_viewer(i);
        }
        let viewers = self.conns.len() - self.seats;
        let mut served = 0;
        while served < viewers.min(VIEWER_SLICE) && !self.player_waiting() {
            self.pump_viewer(self.seats + (self.viewer_cursor + served) % viewers);
            served += 1;
        }
        self.viewer_cursor = (self.viewer_cursor + served) % viewers.max(1);
        let end = self.broadcast.end();
        let behind = |c: &Conn| !c.closed && (c.seen < end || (!c.out.is_empty() && !c.blocked));
        if self.conns[self.seats..].iter().any(behind) {
            self.starved = true;
        }
        let oldest = self.conns[self.seats..].iter().map(|c| c.seen).min();
        self.broadcast.forget_before(oldest.unwrap_or(end));
    }

    /// Whether a seat that may still be read this turn has input waiting (asked of the
    /// kernel directly: its event may not have been collected yet).
    fn player_waiting(&self) -> bool {
        let mut fds: Vec<libc::pollfd> = self.conns[..self.seats]
            .iter()
            .filter(|c| !c.closed && !c.finishing && c.budget > 0)
            .filter(|c| c.out.pending() <= MAX_BACKLOG)
            .map(|c| libc::pollfd {
                fd: c.stream.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // SAFETY: `fds` is a valid array of `fds.len()` pollfd; timeout 0 never blocks.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 0) };
        n > 0
    }

    /// Gives viewer `i` the events it has not been given, and its turn.
    fn pump_viewer(&mut self, i: usize) {
        let Some(conn) = self.conns.get_mut(i) else {
            return;
        };
        if !conn.closed {
            for event in self.broadcast.since(conn.seen) {
                conn.wire.send(event, &mut conn.out);
            }
            conn.seen = self.broadcast.end();
        }
        while self.pump(i) {}
        self.watch_writable(i);
    }

    /// Registers viewer `i` for writable events only while its output is blocked.
    fn watch_writable(&mut self, i: usize) {
        let conn = &mut self.conns[i];
        if conn.closed || conn.watch_writable == conn.blocked {
            return;
        }
        let interest = if conn.blocked {
            Interest::READABLE | Interest::WRITABLE
        } else {
            Interest::READABLE
        };
        conn.watch_writable = conn.blocked;
        if let Err(e) = self
            .poll
            .registry()
            .reregister(&mut conn.stream, Token(i), interest)
        {
            warn!("cannot watch for viewer {}: {e}", conn.peer);
            conn.close();
        }
    }

    /// One round for connections `from..to`: whether any did something.
    fn pump_range(&mut self, from: usize, to: usize) -> bool {
        let mut busy = false;
        for i in from..to.min(self.conns.len()) {
            busy |= self.pump(i);
        }
        busy
    }

    /// One round for one connection. Returns whether it did something that may give
    /// another connection work.
    fn pump(&mut self, i: usize) -> bool {
        let conn = &mut self.conns[i];
        if conn.closed {
            return false;
        }
        if !conn.out.is_empty() && !conn.blocked {
            if let Err(e) = conn.flush() {
                debug!("write to {}: {e}", conn.peer);
                self.lost(i);
                return true;
            }
        }
        let conn = &mut self.conns[i];
        if conn.who == Who::Viewer && conn.out.pending() > MAX_VIEWER_BACKLOG {
            debug!("viewer {} does not keep up; dropped", conn.peer);
            conn.close();
            return false;
        }
        if conn.out.pending() > MAX_OUTPUT {
            info!("{} does not read its replies; closed", conn.peer);
            self.lost(i);
            return true;
        }
        if conn.finishing || conn.write_shut || self.referee.is_over() {
            let lingered = conn.finishing_since.is_some_and(|t| t.elapsed() >= LINGER);
            if conn.wind_down() || lingered {
                conn.close();
            }
            return false;
        }
        if !conn.readable || conn.out.pending() > MAX_BACKLOG {
            return false;
        }
        let mut inputs = Vec::new();
        match conn.read_inputs(&mut inputs) {
            ReadOutcome::Drained => false,
            ReadOutcome::Spent => {
                self.starved = true;
                false
            }
            ReadOutcome::Got => {
                self.take_inputs(i, inputs);
                true
            }
            ReadOutcome::Eof => {
                self.take_inputs(i, inputs);
                self.lost(i);
                true
            }
        }
    }

    /// The connection failed or reached EOF.
    fn lost(&mut self, i: usize) {
        self.conns[i].close();
        if let Who::Seat(seat) = self.conns[i].who {
            let deliveries = self.referee.eof(seat, now());
            self.deliver(deliveries);
        }
    }

    fn take_inputs(&mut self, i: usize, inputs: Vec<Input>) {
        for input in inputs {
            let quit = matches!(input, Input::Quit | Input::Hangup | Input::Violation(_));
            match self.conns[i].who {
                Who::Seat(seat) => {
                    let (arrived, is_move) = (Instant::now(), is_move(&input));
                    let deliveries = self.referee.input(seat, input, now());
                    self.deliver(deliveries);
                    if is_move {
                        self.move_times.observe(arrived.elapsed());
                    }
                }
                Who::Viewer => self.viewer_input(i, input),
            }
            if quit {
                self.conns[i].finish(Instant::now());
            }
        }
    }

    fn viewer_input(&mut self, i: usize, input: Input) {
        let conn = &mut self.conns[i];
        match input {
            Input::Quit | Input::Hangup | Input::Violation(_) => {
                debug!("viewer {} left", conn.peer);
                conn.finish(Instant::now());
            }
            _ => {
                let why = "viewers cannot play (GAME QUIT to stop watching)".to_owned();
                let event = Event::Confused { why, again: false };
                conn.wire.send(&event, &mut conn.out);
            }
        }
    }

    /// Hands each delivery to the connections it is for, and journals the moves.
    fn deliver(&mut self, deliveries: Vec<Delivery>) {
        if let Some(journal) = &mut self.journal {
            for line in self.referee.take_journal() {
                journal.append(&line);
            }
        }
        let mut kernel_rtts = Vec::new();
        for Delivery { to, event } in deliveries {
            if to == Who::Viewer {
                self.broadcast.push(event);
                continue;
            }
            let seats = &mut self.conns[..self.seats];
            for conn in seats.iter_mut().filter(|c| !c.closed && c.who == to) {
                conn.wire.send(&event, &mut conn.out);
                if let (Event::Ping(_), false) = (&event, conn.wire.answers_pings()) {
                    kernel_rtts.extend(conn.kernel_rtt().map(|rtt| (to, rtt)));
                }
            }
        }
        // A client that has no pings: its round trip is the kernel's (TEXT-PROTOCOL.md §8).
        for (who, rtt) in kernel_rtts {
            if let Who::Seat(seat) = who {
                self.referee.input(seat, Input::Rtt(rtt), now());
            }
        }
    }

    /// Takes the viewers and the returning players the supervisor sent; if its listener
    /// fails, no more come and the game goes on.
    fn take_viewers(&mut self) {
        let Some(listener) = self.viewers.take() else {
            return;
        };
        loop {
            match handoff::accept(&listener) {
                Ok(Some(handed)) => self.add_viewer(handed),
                Ok(None) => break,
                Err(e) if e.kind() == io::ErrorKind::InvalidData => warn!("{e}"),
                Err(e) => {
                    warn!("hand-off listener: {e}");
                    let mut source = mio::unix::SourceFd(&listener.as_raw_fd());
                    let _ = self.poll.registry().deregister(&mut source);
                    return;
                }
            }
        }
        self.viewers = Some(listener);
    }

    /// A viewer joins, unless the game or its address has all the viewers it may: it is
    /// shown the game as it stands, then what it sent is read.
    fn add_viewer(&mut self, handed: handoff::Handed) {
        if let handoff::Role::Seat(seat) = handed.role {
            return self.take_back_seat(handed, usize::from(seat));
        }
        if let Some(why) = self.viewer_refusal(&handed.peer) {
            debug!("session {}: viewer {} refused: {why}", self.id, handed.peer);
            refuse(handed, &why);
            return;
        }
        let i = self.conns.len();
        let mut stream = mio::net::TcpStream::from_std(handed.stream);
        let interest = Interest::READABLE | Interest::WRITABLE;
        if let Err(e) = self
            .poll
            .registry()
            .register(&mut stream, Token(i), interest)
        {
            warn!("cannot watch for viewer {}: {e}", handed.peer);
            return;
        }
        debug!("session {}: {} watches", self.id, handed.peer);
        let mut conn = Conn::new(stream, handed.peer, Who::Viewer, handed.wire.adapter());
        for event in self.referee.welcome(Instant::now()) {
            conn.wire.send(&event, &mut conn.out);
        }
        // The welcome shows the game as it stands: the events before it are not its.
        conn.seen = self.broadcast.end();
        self.conns.push(conn);
        let mut inputs = Vec::new();
        self.conns[i].receive(&handed.early, &mut inputs);
        self.take_inputs(i, inputs);
    }

    /// A player comes back to seat `seat` on a new connection (the supervisor checked its
    /// token): the seat's old connection, if still open, is told it was taken over and
    /// closed; the new one is told the game as it stands (the resume sequence), then what it
    /// sent after its `GAME RESUME` line is read as the seat's input.
    fn take_back_seat(&mut self, handed: handoff::Handed, seat: usize) {
        let deliveries = (seat < self.seats)
            .then(|| self.referee.resume(seat, now()))
            .flatten();
        let Some(deliveries) = deliveries else {
            debug!("session {}: seat {seat} cannot be taken back", self.id);
            return refuse(handed, NO_SUCH_GAME);
        };
        let mut stream = mio::net::TcpStream::from_std(handed.stream);
        let interest = Interest::READABLE | Interest::WRITABLE;
        self.let_go(seat);
        if let Err(e) = self
            .poll
            .registry()
            .register(&mut stream, Token(seat), interest)
        {
            warn!("cannot watch for returning player {}: {e}", handed.peer);
            return;
        }
        info!(
            "session {}: {} takes back seat {seat} ({})",
            self.id,
            handed.peer,
            self.referee.info().team_name(self.referee.team_of(seat))
        );
        let wire = handed.wire.adapter();
        self.conns[seat] = Conn::new(stream, handed.peer, Who::Seat(seat), wire);
        self.deliver(deliveries);
        let mut inputs = Vec::new();
        self.conns[seat].receive(&handed.early, &mut inputs);
        self.take_inputs(seat, inputs);
    }

    /// The seat's old connection, if still open, is told it was taken over (a WebSocket gets
    /// a policy close), given what can be written now, and closed.
    fn let_go(&mut self, seat: usize) {
        let conn = &mut self.conns[seat];
        let _ = self.poll.registry().deregister(&mut conn.stream);
        if conn.closed {
            return;
        }
        debug!("session {}: {} is taken over", self.id, conn.peer);
        conn.wire.send(&Event::Replaced, &mut conn.out);
        conn.wire.farewell(&mut conn.out);
        let _ = conn.flush();
        conn.close();
    }

    /// Why a viewer from `peer` may not join (TEXT-PROTOCOL.md §7), if it may not.
    fn viewer_refusal(&self, peer: &str) -> Option<String> {
        let limits = self.config.viewers;
        // Closed ones are not forgotten yet while events are dispatched (their tokens
        // must not move then), but no longer count.
        let viewers: Vec<&Conn> = self.conns[self.seats..]
            .iter()
            .filter(|c| !c.closed)
            .collect();
        if viewers.len() >= limits.per_game {
            return Some(format!(
                "game {} has {} viewers, as many as it takes",
                self.id, limits.per_game
            ));
        }
        let host = host_of(peer)?;
        let same = viewers
            .iter()
            .filter(|c| host_of(&c.peer) == Some(host))
            .count();
        (same >= limits.per_address).then(|| {
            format!(
                "your address watches game {} {same} times, as many as it may",
                self.id
            )
        })
    }

    /// Forgets the viewers that are closed: their descriptors are released, and the last
    /// viewer takes the place (and the token) of each one removed. Not while a batch of
    /// events is dispatched: an event for a token that moved would reach the wrong viewer.
    fn forget_closed_viewers(&mut self) {
        let mut i = self.conns.len();
        while i > self.seats {
            i -= 1;
            if !self.conns[i].closed {
                continue;
            }
            let mut gone = self.conns.swap_remove(i);
            let _ = self.poll.registry().deregister(&mut gone.stream);
            if let Some(moved) = self.conns.get_mut(i) {
                let interest = if moved.watch_writable {
                    Interest::READABLE | Interest::WRITABLE
                } else {
                    Interest::READABLE
                };
                if let Err(e) =
                    self.poll
                        .registry()
                        .reregister(&mut moved.stream, Token(i), interest)
                {
                    warn!("cannot watch for viewer {}: {e}", moved.peer);
                    moved.close();
                }
            }
        }
    }

    /// Logs and records the games that ended since the last call.
    fn write_records(&mut self) {
        for finished in self.referee.take_finished() {
            info!(
                "game over: {} duration {:.3}s",
                finished.summary,
                self.started.elapsed().as_secs_f64()
            );
            if let Some(dir) = &self.config.record_dir {
                match write_record(dir, &finished.record, finished.ext, finished.round) {
                    Ok(path) => debug!("recorded as {}", path.display()),
                    // Kept in the journal: the supervisor writes it when it can, and says
                    // so once, not once a game.
                    Err(e)
                        if self.journal.as_mut().is_some_and(|j| {
                            j.keep_record(finished.round, finished.ext, &finished.record)
                        }) =>
                    {
                        debug!(
                            "cannot write the game record into {}: {e}; kept in the journal",
                            dir.display()
                        )
                    }
                    Err(e) => warn!("cannot write the game record into {}: {e}", dir.display()),
                }
            }
        }
    }
}

/// The rules of a game; `silent`: every seat joined on arrival and has said nothing (or
/// the server is nearly full), so
/// its first move is its handshake and has the handshake's time (TEXT-PROTOCOL.md §14).
fn rules_for(config: &SessionConfig, silent: bool) -> Rules {
    let mut rules = config.rules.clone();
    if let (true, Some(handshake)) = (silent, config.silent_first_move_timeout) {
        let first = rules.first_move_timeout.or(rules.move_limit());
        rules.first_move_timeout = Some(first.map_or(handshake, |f| f.min(handshake)));
    }
    rules
}

/// The referee of a new session, and the seed its first game was given: the teams
/// drawn unless the rules or the game fix them.
fn new_referee(
    config: &SessionConfig,
    rules: Rules,
    module: &'static Module,
    id: u64,
    peers: Vec<String>,
) -> (Referee, u64) {
    let first_team_seat = if rules.fixed_teams || !module.info.random_teams {
        0
    } else {
        random_below(module.info.team_count())
    };
    let settings = Settings {
        seed: random_u64(),
        ..config.settings.clone()
    };
    let seed = settings.seed;
    let seating = Seating {
        id,
        peers,
        first_team_seat,
    };
    let referee = Referee::new(module, rules, settings, seating, Instant::now());
    (referee, seed)
}

/// The events for viewers not yet given to every viewer, numbered from the game's start.
#[derive(Default)]
struct Broadcast {
    /// The number of `events[0]`.
    base: usize,
    events: Vec<Event>,
}

impl Broadcast {
    fn push(&mut self, event: Event) {
        self.events.push(event);
    }

    /// The number the next event will have.
    fn end(&self) -> usize {
        self.base + self.events.len()
    }

    /// The events from number `from` on (all that are kept, if `from` is older).
    fn since(&self, from: usize) -> &[Event] {
        &self.events[from.saturating_sub(self.base).min(self.events.len())..]
    }

    /// Forgets the events before number `seen`: every viewer has been given them.
    fn forget_before(&mut self, seen: usize) {
        let n = seen.saturating_sub(self.base).min(self.events.len());
        self.events.drain(..n);
        self.base += n;
    }
}

/// The unit viewers are counted by: an IPv4 address or an IPv6 /64.
fn host_of(peer: &str) -> Option<crate::supervisor::addresses::Host> {
    peer.parse()
        .ok()
        .map(crate::supervisor::addresses::Host::of)
}

/// What a returning player is told when its seat cannot be taken back.
pub const NO_SUCH_GAME: &str = "no running game has this token (the game may have ended)";

/// What the referee is told of a seat for coming back: its token, and whether its
/// protocol can claim a game from an opponent who did not come back.
fn seat_return(seat: &Seat) -> referee::Return {
    referee::Return {
        token: seat.token,
        can_claim: resumable_wire(seat.wire),
    }
}

/// Whether a seat on this protocol can be taken back after a drop (and can claim a game):
/// the text protocol and its WebSocket form (the play-together design §5.1).
pub fn resumable_wire(wire: WireKind) -> bool {
    matches!(wire, WireKind::Text | WireKind::WebSocket)
}

/// Tells a viewer it may not join, in its protocol, and closes it. One short write to a
/// socket that has sent nothing yet: it fits, and nothing more is owed.
fn refuse(handed: handoff::Handed, why: &str) {
    use std::io::Write;
    let mut stream = handed.stream;
    let _ = stream.write(&crate::protocols::WireKind::refusal(Some(handed.wire), why));
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

/// A connection a seat, registered with `poll` under the seat's number, and the bytes
/// each seat sent before the session began.
fn seat_conns(poll: &Poll, seats: Vec<Seat>) -> io::Result<(Vec<Conn>, Vec<Vec<u8>>)> {
    let mut conns = Vec::with_capacity(seats.len());
    let mut early = Vec::with_capacity(seats.len());
    for (i, seat) in seats.into_iter().enumerate() {
        let mut stream = mio::net::TcpStream::from_std(seat.stream);
        let interest = Interest::READABLE | Interest::WRITABLE;
        poll.registry().register(&mut stream, Token(i), interest)?;
        let wire = seat.wire.adapter();
        conns.push(Conn::new(stream, seat.peer.to_string(), Who::Seat(i), wire));
        early.push(seat.early);
    }
    Ok((conns, early))
}

/// Writes a record as `DIR/<unix-millis>-<pid>-<round>.<ext>`, via a temporary name
/// and a rename, so a reader never sees half a record.
fn write_record(dir: &Path, text: &str, ext: &str, round: u32) -> io::Result<PathBuf> {
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let name = format!("{millis}-{}-{round}.{ext}", std::process::id());
    write_record_as(dir, &name, text)
}

/// Writes a record as `DIR/<name>` (a temporary name, synced, then renamed). Also the
/// supervisor's, for records a session kept in its journal.
pub(crate) fn write_record_as(dir: &Path, name: &str, text: &str) -> io::Result<PathBuf> {
    use std::io::Write;
    let tmp = dir.join(format!(".{name}.tmp"));
    let path = dir.join(name);
    let written = std::fs::File::create(&tmp).and_then(|mut file| {
        writeln!(file, "{}", text.trim_end())?;
        file.sync_data()
    });
    if let Err(e) = written {
        // A full disk: what was written of it must not take the room another record needs.
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

/// Random bits from the kernel (the time and pid if getrandom fails).
fn random_u64() -> u64 {
    let mut bytes = [0u8; 8];
    // SAFETY: getrandom writes at most 8 bytes into `bytes`.
    let n = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), 8, libc::GRND_NONBLOCK) };
    if n == 8 {
        return u64::from_ne_bytes(bytes);
    }
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ u64::from(std::process::id()).rotate_left(32)
}

fn random_below(n: usize) -> usize {
    (random_u64() % n.max(1) as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_name_the_seat_that_lost_by_its_own_doing() {
        assert_eq!((abandoned_by(0), lost_by(0)), (None, None));
        assert_eq!(abandoned_by(ABANDONED + 1), Some(1));
        assert_eq!(lost_by(ABANDONED + 1), Some(1), "abandoning is losing");
        assert_eq!(
            abandoned_by(FORFEITED + 2),
            None,
            "forfeiting is not abandoning"
        );
        assert_eq!(lost_by(FORFEITED + 2), Some(2));
        assert_eq!(lost_by(FORFEITED + MAX_SEATS as i32), None);
        assert!(
            FORFEITED + (MAX_SEATS as i32) < 256,
            "an exit status is a byte"
        );
    }

    fn config(first: Option<u64>, moves: Option<u64>, handshake: Option<u64>) -> SessionConfig {
        let secs = |s: Option<u64>| s.map(Duration::from_secs);
        SessionConfig {
            rules: Rules {
                control: moves.map_or(crate::terms::TimeControl::None, |m| {
                    crate::terms::TimeControl::PerMove {
                        limit: Duration::from_secs(m),
                        first: Duration::ZERO,
                    }
                }),
                first_move_timeout: secs(first),
                fixed_teams: false,
                rematch: false,
                lag_allowance: Duration::ZERO,
                rematch_window: None,
            },
            record_dir: None,
            settings: Settings::default(),
            journal_dir: PathBuf::new(),
            keep_journals: false,
            viewers: ViewerLimits {
                per_game: 1,
                per_address: 1,
            },
            silent_first_move_timeout: secs(handshake),
            grace: None,
        }
    }

    fn first_move(config: &SessionConfig, silent: bool) -> Option<u64> {
        rules_for(config, silent)
            .first_move_timeout
            .map(|d| d.as_secs())
    }

    #[test]
    fn a_game_of_silent_seats_has_the_handshakes_time_for_its_first_move() {
        let usual = config(Some(30), Some(600), Some(10));
        assert_eq!(first_move(&usual, true), Some(10));
        assert_eq!(first_move(&usual, false), Some(30), "a seat that spoke");
        let short = config(Some(5), Some(600), Some(10));
        assert_eq!(first_move(&short, true), Some(5), "never longer");
        let move_clock = config(None, Some(600), Some(10));
        assert_eq!(first_move(&move_clock, true), Some(10));
        let no_clock = config(None, None, Some(10));
        assert_eq!(first_move(&no_clock, true), Some(10));
        assert_eq!(first_move(&no_clock, false), None);
        let no_handshake = config(Some(30), None, None);
        assert_eq!(first_move(&no_handshake, true), Some(30));
    }
}
