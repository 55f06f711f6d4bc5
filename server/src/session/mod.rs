//! The session runtime: the forked child's event loop for one game of any
//! kind, over N seats and any number of viewers. It never knows which game
//! it runs ([`referee`] asks the module) nor which protocol a connection
//! speaks (each has a [`crate::protocols::Wire`]).
//!
//! Rules of the loop: input that has arrived is read before any deadline is
//! judged; a seat whose output backs up is not read until it drains; a viewer
//! whose output backs up is dropped, so it never slows the players; once the
//! game is over every connection gets its last messages, then our side is
//! shut and input is discarded until the client closes or the linger ends.

mod conn;
pub mod handoff;
pub mod journal;
pub mod referee;

use std::io;
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use log::{debug, error, info, warn};
use mio::{Events, Interest, Poll, Token};
use reversi_games::registry::Module;
use reversi_games::{Settings, Viewer};

use crate::protocols::{Event, Input, Role, WireKind};
use crate::signals::SelfPipe;
use conn::{Conn, ReadOutcome, Who};
use referee::{Delivery, Msg, Referee, Rules, To};

const SIGNAL: Token = Token(usize::MAX - 1);
const CONTROL: Token = Token(usize::MAX - 2);
/// After the last message, how long a client gets to close before we do (spec §12).
const LINGER: Duration = Duration::from_secs(2);
/// Stop reading from a player while this much output waits for it.
const MAX_BACKLOG: usize = 16 * 1024;
/// A viewer with this much output waiting is dropped.
const MAX_VIEWER_BACKLOG: usize = 64 * 1024;

/// The exit code of a session whose game was abandoned by seat `n`: `ABANDONED + n`.
pub const ABANDONED: i32 = 16;
/// Seats an exit code can name.
pub const MAX_SEATS: usize = 64;

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
}

/// The clients of one game, in the order they queued.
pub struct Group {
    pub id: u64,
    pub module: &'static Module,
    pub seats: Vec<Seat>,
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
    mut abort: SelfPipe,
    mut viewers: Option<OwnedFd>,
) -> io::Result<i32> {
    let now = Instant::now();
    let started = now;
    let teams = group.module.info.team_count();
    let first = if config.rules.fixed_teams || !group.module.info.random_teams {
        0
    } else {
        random_below(teams)
    };
    let settings = Settings {
        seed: random_u64(),
        ..config.settings.clone()
    };
    let peers: Vec<String> = group.seats.iter().map(|s| s.peer.to_string()).collect();
    let referee = Referee::new(
        group.module,
        config.rules.clone(),
        settings.clone(),
        peers.clone(),
        first,
        now,
    );

    let mut poll = Poll::new()?;
    poll.registry()
        .register(abort.receiver(), SIGNAL, Interest::READABLE)?;
    if let Some(listener) = &viewers {
        poll.registry().register(
            &mut mio::unix::SourceFd(&listener.as_raw_fd()),
            CONTROL,
            Interest::READABLE,
        )?;
    }
    let mut conns = Vec::with_capacity(group.seats.len());
    let mut early = Vec::with_capacity(group.seats.len());
    for (i, seat) in group.seats.into_iter().enumerate() {
        let mut stream = mio::net::TcpStream::from_std(seat.stream);
        poll.registry().register(
            &mut stream,
            Token(i),
            Interest::READABLE | Interest::WRITABLE,
        )?;
        conns.push(Conn::new(
            stream,
            seat.peer.to_string(),
            Who::Seat(i),
            seat.wire.adapter(),
        ));
        early.push(seat.early);
    }
    let info = group.module.info;
    let line: Vec<String> = (0..conns.len())
        .map(|s| format!("{} plays {}", peers[s], info.team_name(referee.team_of(s))))
        .collect();
    info!(
        "session: {} ({} game {}, seed {})",
        line.join(", "),
        info.name,
        group.id,
        settings.seed
    );

    let journal_path = journal::path(
        &config.journal_dir,
        nix::unistd::getppid().as_raw() as u32,
        group.id,
    );
    let header = format!(
        "game {} id {} players {}",
        info.name,
        group.id,
        peers.join(" ")
    );
    // Opened with the first move: a game that never starts costs no file.
    let journal = Some(journal::Journal::new(journal_path, &header));
    let mut session = Session {
        referee,
        conns,
        id: group.id,
        config,
        started,
        journal,
        starts: 0,
    };
    let deliveries = session.referee.start(now);
    session.deliver(deliveries);
    for (seat, bytes) in early.into_iter().enumerate() {
        let mut inputs = Vec::new();
        session.conns[seat].receive(&bytes, &mut inputs);
        session.take_inputs(seat, inputs);
    }

    let mut events = Events::with_capacity(16);
    let mut linger_until = None;
    loop {
        session.pump_all();
        // Judge deadlines only after reading what has arrived (a move that came in time
        // is not late because this process was slow to look).
        let now = Instant::now();
        if session.referee.deadline().is_some_and(|d| d <= now) {
            for conn in session.conns.iter_mut().filter(|c| !c.closed) {
                conn.readable = true;
            }
            session.pump_all();
            let deliveries = session.referee.tick(Instant::now());
            session.deliver(deliveries);
            session.pump_all();
        }
        session.write_records();
        if session.referee.is_over() {
            let deadline = *linger_until.get_or_insert_with(|| Instant::now() + LINGER);
            if session.conns.iter().all(|c| c.closed) {
                break;
            }
            if Instant::now() >= deadline {
                debug!("linger over; closing");
                break;
            }
        }
        let wake = [session.referee.deadline(), linger_until]
            .into_iter()
            .flatten()
            .min();
        let timeout = wake.map(|t| t.saturating_duration_since(Instant::now()));
        if let Err(e) = poll.poll(&mut events, timeout) {
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        for event in events.iter() {
            match event.token() {
                SIGNAL => {
                    if abort.take().stops > 0 {
                        warn!("SIGTERM: aborting the game");
                        let deliveries = session.referee.abort();
                        session.deliver(deliveries);
                    }
                }
                CONTROL => {
                    let open = viewers
                        .as_ref()
                        .is_some_and(|listener| session.accept_viewers(listener, &poll));
                    if !open {
                        // The listener failed: no more viewers, the game goes on.
                        if let Some(listener) = viewers.take() {
                            let _ = poll
                                .registry()
                                .deregister(&mut mio::unix::SourceFd(&listener.as_raw_fd()));
                        }
                    }
                }
                Token(i) => {
                    if let Some(conn) = session.conns.get_mut(i) {
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
    }
    session.write_records();
    if let Some(journal) = session.journal.take() {
        journal.finish();
    }
    Ok(session.referee.exit_code())
}

struct Session<'a> {
    referee: Referee,
    conns: Vec<Conn>,
    id: u64,
    config: &'a SessionConfig,
    started: Instant,
    journal: Option<journal::Journal>,
    /// Games started so far (more than one with rematches).
    starts: u32,
}

impl Session<'_> {
    /// Flushes, reads and winds down every connection until none has work left.
    fn pump_all(&mut self) {
        loop {
            let mut busy = false;
            for i in 0..self.conns.len() {
                busy |= self.pump(i);
            }
            if !busy {
                return;
            }
        }
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
            info!("viewer {} does not keep up; dropped", conn.peer);
            conn.close();
            return false;
        }
        if conn.finishing || conn.write_shut || self.referee.is_over() {
            if conn.wind_down() {
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
            let deliveries = self.referee.eof(seat, Instant::now());
            self.deliver(deliveries);
        }
    }

    fn take_inputs(&mut self, i: usize, inputs: Vec<Input>) {
        for input in inputs {
            let quit = matches!(input, Input::Quit | Input::Violation(_));
            match self.conns[i].who {
                Who::Seat(seat) => {
                    let deliveries = self.referee.input(seat, input, Instant::now());
                    self.deliver(deliveries);
                }
                Who::Viewer => self.viewer_input(i, input),
            }
            if quit {
                self.conns[i].finishing = true;
            }
        }
    }

    fn viewer_input(&mut self, i: usize, input: Input) {
        let conn = &mut self.conns[i];
        match input {
            Input::Quit | Input::Violation(_) => {
                debug!("viewer {} left", conn.peer);
                conn.finishing = true;
            }
            _ => conn.wire.send(
                &Event::Confused {
                    why: "viewers cannot play (GAME QUIT to stop watching)",
                    again: false,
                },
                &mut conn.out,
            ),
        }
    }

    /// Hands each delivery to the connections it is for, and journals the moves.
    fn deliver(&mut self, deliveries: Vec<Delivery>) {
        for delivery in deliveries {
            self.journal(&delivery.msg);
            for i in 0..self.conns.len() {
                let conn = &self.conns[i];
                if conn.closed {
                    continue;
                }
                let wanted = match (delivery.to, conn.who) {
                    (To::Everyone, Who::Seat(s)) => !self.referee.is_gone(s),
                    (To::Everyone, Who::Viewer) => true,
                    (To::Seat(s), Who::Seat(t)) => s == t,
                    (To::Seat(_), Who::Viewer) => false,
                };
                if wanted {
                    self.send(i, &delivery.msg);
                }
            }
        }
    }

    fn journal(&mut self, msg: &Msg) {
        let Some(journal) = &mut self.journal else {
            return;
        };
        match msg {
            Msg::Update(update) => {
                if let Some(moved) = &update.moved {
                    let team = self.referee.info().team_name(moved.team);
                    journal.append(&format!("{team} {}", moved.notation));
                }
            }
            Msg::Start => {
                self.starts += 1;
                if self.starts > 1 {
                    journal.append(&format!("round {}", self.starts));
                }
            }
            _ => {}
        }
    }

    fn role(&self, i: usize) -> Role {
        match self.conns[i].who {
            Who::Seat(s) => Role::Player(self.referee.team_of(s)),
            Who::Viewer => Role::Viewer,
        }
    }

    /// Turns one message into the wire event for connection `i`.
    fn send(&mut self, i: usize, msg: &Msg) {
        let role = self.role(i);
        let viewer = match role {
            Role::Player(team) => Viewer::Team(team),
            Role::Viewer => Viewer::Spectator,
        };
        let info = self.referee.info();
        let conn = &mut self.conns[i];
        let out = &mut conn.out;
        let wire = &mut conn.wire;
        match msg {
            Msg::Start => {
                let cells = self.referee.game().view(viewer);
                wire.send(
                    &Event::Start {
                        info,
                        role,
                        cells: &cells,
                        id: self.id,
                    },
                    out,
                );
            }
            Msg::Update(update) => {
                if let Some(seen) = self.referee.game().relay(update, viewer) {
                    wire.send(&Event::Update(&seen), out);
                }
            }
            Msg::Turn(team) => wire.send(&Event::Turn(*team), out),
            Msg::Ready => wire.send(&Event::Ready, out),
            Msg::Illegal { why, again } => wire.send(&Event::Illegal { why, again: *again }, out),
            Msg::Confused { why, again } => wire.send(&Event::Confused { why, again: *again }, out),
            Msg::Violation(why) => wire.send(&Event::Violation(why), out),
            Msg::Over => {
                if let Some(outcome) = self.referee.outcome() {
                    let standing = match role {
                        Role::Player(team) => Some(outcome.standing(team)),
                        Role::Viewer => None,
                    };
                    wire.send(&Event::Over { outcome, standing }, out);
                }
            }
            Msg::Aborted(why) => wire.send(&Event::Aborted(why), out),
        }
    }

    /// Takes the viewers the supervisor sent, shows each the board. Returns false if the
    /// listener failed.
    fn accept_viewers(&mut self, listener: &OwnedFd, poll: &Poll) -> bool {
        loop {
            match handoff::accept(listener) {
                Ok(Some(handed)) => {
                    let i = self.conns.len();
                    let mut stream = mio::net::TcpStream::from_std(handed.stream);
                    if let Err(e) = poll.registry().register(
                        &mut stream,
                        Token(i),
                        Interest::READABLE | Interest::WRITABLE,
                    ) {
                        warn!("cannot watch for viewer {}: {e}", handed.peer);
                        continue;
                    }
                    info!("session {}: {} watches", self.id, handed.peer);
                    let wire = handed.wire.adapter();
                    self.conns
                        .push(Conn::new(stream, handed.peer, Who::Viewer, wire));
                    self.send(i, &Msg::Start);
                    if let Some(team) = self.referee.game().turn() {
                        self.send(i, &Msg::Turn(team));
                    }
                    if self.referee.end().is_some() {
                        self.send(i, &Msg::Over);
                    }
                    let mut inputs = Vec::new();
                    self.conns[i].receive(&handed.early, &mut inputs);
                    self.take_inputs(i, inputs);
                }
                Ok(None) => return true,
                Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                    warn!("{e}");
                }
                Err(e) => {
                    warn!("hand-off listener: {e}");
                    return false;
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
                    Err(e) => warn!("cannot write the game record into {}: {e}", dir.display()),
                }
            }
        }
    }
}

/// Writes a record as `DIR/<unix-millis>-<pid>-<round>.<ext>`, via a temporary name
/// and a rename, so a reader never sees half a record.
fn write_record(dir: &Path, text: &str, ext: &str, round: u32) -> io::Result<PathBuf> {
    use std::io::Write;
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let name = format!("{millis}-{}-{round}.{ext}", std::process::id());
    let tmp = dir.join(format!(".{name}.tmp"));
    let path = dir.join(name);
    let mut file = std::fs::File::create(&tmp)?;
    writeln!(file, "{}", text.trim_end())?;
    file.sync_data()?;
    drop(file);
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
