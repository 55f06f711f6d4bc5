//! Upgrading in place, the supervisor's side (spec/DEPLOY.md "Upgrading in place";
//! the state and the exec are `crate::upgrade`): on the operator's signal a trial of the
//! new binary runs; when it passes, the threads are drained, the fork server retired,
//! the state written and the new binary executed in this process. The new image then
//! adopts what the state names ([`Supervisor::adopt`]).

use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::path::PathBuf;
use std::time::Instant;

use log::{error, info, warn};
use mio::{Interest, Token};

use super::origin::Origin;
use super::pending::State as Standing;
use super::reaper::Child;
use super::turns::Turn;
use super::{Bound, Phase, Supervisor, CONN_BASE};
use crate::protocols::WireKind;
use crate::terms::ResumeToken;
use crate::terms::SeatPlayer;
use crate::upgrade::{self, state, trial::Trial, State};
use reversi_games::registry::Module;

/// What a client waiting in a challenge is told: challenges are not carried over.
const UPGRADING: &str = "server upgrading: challenge closed; connect again";

/// What the supervisor keeps for upgrades.
#[derive(Default)]
pub(super) struct Upgrades {
    /// The binary an upgrade executes: the path this one was started from.
    exe: Option<PathBuf>,
    /// Where the command line is read again (the directory reversid was started in).
    dir: PathBuf,
    /// The locked pid file's descriptor, kept open across exec.
    pid_file: Option<RawFd>,
    /// The trial under way.
    trial: Option<Trial>,
    /// This image took over from another: journals it left are looked for at start.
    adopted: bool,
}

impl Upgrades {
    /// When the trial under way times out.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.trial.as_ref().map(|t| t.deadline)
    }
}

impl Supervisor {
    /// Upgrades execute `exe`, read the command line in `dir`, and keep `pid_file` open.
    pub fn upgrades_from(mut self, exe: PathBuf, dir: PathBuf, pid_file: Option<RawFd>) -> Self {
        self.upgrades.exe = Some(exe);
        self.upgrades.dir = dir;
        self.upgrades.pid_file = pid_file;
        self
    }

    /// The operator asked for an upgrade: the trial starts.
    pub(super) fn on_upgrade_asked(&mut self) {
        if self.phase != Phase::Running || self.upgrades.trial.is_some() {
            warn!("upgrade asked while shutting down or while one is under way: ignored");
            return;
        }
        let Some(exe) = self.upgrades.exe.clone() else {
            return warn!("upgrade asked, but the binary's path is unknown: ignored");
        };
        info!("upgrade asked: trying {}", exe.display());
        let started = Trial::start(&exe, &self.upgrades.dir).and_then(|trial| {
            let fd = trial.fd();
            let source = &mut mio::unix::SourceFd(&fd);
            self.poll
                .registry()
                .register(source, super::TRIAL, Interest::READABLE)?;
            Ok(trial)
        });
        match started {
            Ok(trial) => self.upgrades.trial = Some(trial),
            Err(e) => error!(
                "upgrade refused: cannot run {}: {e}; this reversid carries on",
                exe.display()
            ),
        }
    }

    /// The trial wrote or ended: when it passed, the upgrade.
    pub(super) fn on_trial_output(&mut self) {
        let Some(verdict) = self.upgrades.trial.as_mut().and_then(Trial::read) else {
            return;
        };
        self.end_trial();
        match verdict {
            Ok(()) => self.upgrade_now(),
            Err(why) => error!(
                "upgrade refused: the new binary failed its trial: {why}; this reversid carries on"
            ),
        }
    }

    /// A trial past its deadline is abandoned.
    pub(super) fn trial_timer(&mut self, now: Instant) {
        if self.upgrades.deadline().is_some_and(|d| d <= now) {
            if let Some(trial) = self.end_trial() {
                trial.abandon();
            }
            error!(
                "upgrade refused: the new binary's trial took too long; this reversid carries on"
            );
        }
    }

    fn end_trial(&mut self) -> Option<Trial> {
        let trial = self.upgrades.trial.take()?;
        let fd = trial.fd();
        let _ = self
            .poll
            .registry()
            .deregister(&mut mio::unix::SourceFd(&fd));
        Some(trial)
    }

    /// Drains the threads, retires the fork server, writes the state and executes the new
    /// binary; if exec fails, puts the threads and the fork server back and carries on.
    fn upgrade_now(&mut self) {
        let Some(exe) = self.upgrades.exe.clone() else {
            return;
        };
        if self.phase != Phase::Running {
            return warn!("upgrade dropped: a shutdown began during its trial");
        }
        let started = Instant::now();
        self.close_challenges();
        if let Some(archive) = self.archive.take() {
            archive.finish();
        }
        drop(self.pages.take());
        // Threads end at exec: the players' requests under way are answered first, and the
        // tournaments' latest states stored (the new image reads them back).
        self.finish_players();
        self.finish_tournaments();
        let retired = self.fork_server.take().map(|f| f.server.pid().as_raw());
        // Ends already named are collected here: their signals are spent, and the new
        // image would hear of them only at a sweep.
        while self.children.has_due() {
            self.collect_due();
        }
        let state = self.upgrade_state(retired);
        info!(
            "upgrading to {}: {} sessions, {} waiting connections carried over ({} ms to here)",
            exe.display(),
            state.sessions.len(),
            state.conns.len(),
            started.elapsed().as_millis()
        );
        let e = upgrade::exec::exec(&exe, &self.upgrades.dir, &state);
        error!(
            "upgrade failed: cannot execute {}: {e}; this reversid carries on",
            exe.display()
        );
        self.start_fork_server();
        // Journals the writer kept bear this pid: looked for as after a takeover.
        self.upgrades.adopted = true;
        match self.start_archive() {
            Ok(()) => self.archive_left_journals(),
            Err(e) => error!("cannot restart the store after the failed upgrade: {e}"),
        }
    }

    /// Clients waiting in a challenge are told to come back (spec/DEPLOY.md).
    fn close_challenges(&mut self) {
        let now = Instant::now();
        for index in self.pending.indices() {
            let held = self
                .pending
                .get(index)
                .is_some_and(|c| c.state == Standing::Queued && c.game.is_none());
            if held {
                self.refuse(index, UPGRADING, now);
            }
        }
    }

    /// What the new image needs, descriptors by number.
    fn upgrade_state(&self, retired: Option<i32>) -> State {
        let now = Instant::now();
        State {
            next_id: self.next_id,
            drained: self.drained,
            own_journal_dir: crate::journal_dir::own_path(),
            pid_file: self.upgrades.pid_file,
            data_lock: self.data_dir_lock.as_ref().map(AsRawFd::as_raw_fd),
            retired: retired.into_iter().collect(),
            listeners: self
                .listeners
                .iter()
                .map(|l| state::Listener {
                    fd: l.socket.as_raw_fd(),
                    addr: l.addr,
                    seed: l
                        .seed
                        .map(|(g, w)| (g.info.name.to_owned(), w.name().to_owned())),
                })
                .collect(),
            sessions: self
                .children
                .iter()
                .map(|c| state::Session {
                    pid: c.pid.as_raw(),
                    id: c.id,
                    game: c.module.info.name.to_owned(),
                    age: now.saturating_duration_since(c.started),
                    peers: c.peers.clone(),
                    players: c.players.iter().map(player_words).collect(),
                })
                .collect(),
            tokens: self
                .tokens
                .iter()
                .map(|(token, id, seat)| state::Token {
                    token: token.to_string(),
                    id,
                    seat,
                })
                .collect(),
            conns: self.conn_states(),
        }
    }

    /// The waiting connections, the queued first in their queues' order (the new image
    /// queues them again in the order it reads them).
    fn conn_states(&self) -> Vec<state::Conn> {
        let mut order: Vec<usize> = Vec::new();
        for game in self.pending.waiting_games() {
            order.extend(self.pending.queue_of(game));
        }
        let rest: Vec<usize> = self.pending.indices();
        let rest = rest
            .into_iter()
            .filter(|i| !order.contains(i))
            .collect::<Vec<_>>();
        order.extend(rest);
        order
            .into_iter()
            .filter_map(|i| self.pending.get(i))
            .map(|c| state::Conn {
                fd: c.stream.as_raw_fd(),
                standing: match c.state {
                    Standing::Handshake => state::Standing::Handshake,
                    Standing::Queued => state::Standing::Queued,
                    Standing::Closing => state::Standing::Closing,
                },
                peer: c.peer,
                origin: origin_word(c.origin),
                wire: c.wire.map(|w| w.name().to_owned()),
                game: c.game.map(|g| g.info.name.to_owned()),
                pairing: c.pairing,
                input: c.input.clone(),
                out: c.out.unsent().to_vec(),
                identity: super::identity::to_words(&c.identity),
            })
            .collect()
    }

    /// The new image: takes over what the old one left (its sessions, their tokens,
    /// its waiting connections, the data directory's lock). The listeners came in
    /// through [`inherited_listeners`]. Signals, blocked across exec, are let in once
    /// the handlers are installed (they are, by [`Supervisor::new`]).
    pub fn adopt(mut self, state: State) -> Self {
        let now = Instant::now();
        self.next_id = state.next_id;
        self.drained = state.drained;
        // SAFETY: the old image left this descriptor open for us; we own it now.
        self.data_dir_lock = state
            .data_lock
            .map(|fd| unsafe { std::fs::File::from_raw_fd(fd) });
        for s in &state.sessions {
            self.adopt_session(s, now);
        }
        for t in &state.tokens {
            match ResumeToken::parse(&t.token) {
                Ok(token) => self.tokens.insert(token, t.id, t.seat),
                Err(_) => warn!(
                    "upgrade: an unreadable resume token of game {}: dropped",
                    t.id
                ),
            }
        }
        let carried = state.conns.len();
        for c in state.conns {
            self.adopt_conn(c, now);
        }
        // Exits that came while signals were blocked are in the pipe now; a sweep soon
        // collects any whose signal folded into another (and the retired fork server).
        self.sweep_at = Some(now);
        self.upgrades.adopted = true;
        crate::signals::unblock_all();
        info!(
            "upgraded in place: {} sessions and {carried} waiting connections adopted; \
             metrics start again from zero",
            self.children.len()
        );
        self
    }

    /// Whether this image took over from another (its helpers start after a first turn of
    /// the loop: the connections that waited during the exec are served first).
    pub(super) fn took_over(&self) -> bool {
        self.upgrades.adopted
    }

    /// The fork server, the store's writer and page workers, and the journals an earlier
    /// image left.
    pub(super) fn start_helpers(&mut self) -> io::Result<()> {
        self.start_fork_server();
        self.start_inbox();
        self.start_archive()?;
        self.start_cluster()?;
        self.archive_left_journals();
        Ok(())
    }

    /// After taking over: the journals of sessions that ended before the upgrade and
    /// whose games the old image's writer did not store go to this one's (the writer's
    /// start takes only other servers' journals: these bear this same pid).
    pub(super) fn archive_left_journals(&mut self) {
        let (Some(archive), Some(setting)) = (&mut self.archive, &self.store) else {
            return;
        };
        if !std::mem::take(&mut self.upgrades.adopted) {
            return;
        }
        let own = std::process::id();
        let Ok(entries) = std::fs::read_dir(setting.journal_dir()) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(id) = own_journal(&name.to_string_lossy(), own) else {
                continue;
            };
            if self.children.by_id(id).is_none() {
                archive.take(own, id);
            }
        }
    }

    fn adopt_session(&mut self, s: &state::Session, now: Instant) {
        let Some(&module) = self.games.modules.iter().find(|m| m.info.name == s.game) else {
            return error!(
                "upgrade: session {} plays {}, which this binary does not serve: not watched",
                s.pid, s.game
            );
        };
        for peer in &s.peers {
            self.hosts.game_adopted(super::addresses::Host::of(*peer));
        }
        self.children.insert(Child {
            pid: nix::unistd::Pid::from_raw(s.pid),
            id: s.id,
            module,
            peers: s.peers.clone(),
            players: s.players.iter().map(|w| player_of_words(w)).collect(),
            started: now.checked_sub(s.age).unwrap_or(now),
        });
    }

    fn adopt_conn(&mut self, c: state::Conn, now: Instant) {
        // SAFETY: the old image left this socket open for us; we own it now.
        let stream = unsafe { std::net::TcpStream::from_raw_fd(c.fd) };
        let _ = stream.set_nonblocking(true);
        let stream = mio::net::TcpStream::from_std(stream);
        let Some(origin) = origin_of(&c.origin, |name| self.module(name)) else {
            return warn!(
                "upgrade: {}: an unreadable origin {:?}: closed",
                c.peer, c.origin
            );
        };
        let game = c.game.as_deref().and_then(|name| self.module(name));
        let index =
            self.pending
                .insert(stream, c.peer, origin, now + self.config.handshake_timeout);
        let Some(conn) = self.pending.get_mut(index) else {
            return;
        };
        conn.wire = c.wire.as_deref().and_then(wire_of);
        conn.input = c.input;
        conn.identity = c
            .identity
            .as_deref()
            .and_then(super::identity::from_words)
            .unwrap_or_default();
        if c.standing != state::Standing::Closing {
            conn.out.push(&c.out);
        }
        let registered = self.poll.registry().register(
            &mut conn.stream,
            Token(CONN_BASE + index),
            Interest::READABLE | Interest::WRITABLE,
        );
        if let Err(e) = registered {
            warn!("upgrade: {}: cannot register: {e}", c.peer);
            self.pending.remove(index);
            return;
        }
        match (c.standing, game) {
            (state::Standing::Queued, Some(game)) => {
                self.pending.enqueue(index, game);
                if let Some(conn) = self.pending.get_mut(index) {
                    conn.pairing = c.pairing;
                }
            }
            (state::Standing::Closing, _) => {
                self.pending
                    .start_closing(index, &c.out, now + super::pending::LINGER)
            }
            _ => {}
        }
        self.ready.push(Turn::Conn(index));
    }

    fn module(&self, name: &str) -> Option<&'static Module> {
        self.games
            .modules
            .iter()
            .copied()
            .find(|m| m.info.name == name)
    }
}

type Lookup<'a> = dyn Fn(&str) -> Option<&'static Module> + 'a;

/// The origin [`origin_word`] wrote; `module` finds a game by name.
fn origin_of(word: &str, module: impl Fn(&str) -> Option<&'static Module>) -> Option<Origin> {
    Some(match word {
        "direct" => Origin::Direct { screened: false },
        "screened" => Origin::Direct { screened: true },
        "check" => Origin::Check,
        "awaiting" => Origin::Awaiting { seed: None },
        _ => match word.split_once('=')? {
            ("relayed", via) => Origin::Relayed {
                via: via.parse().ok()?,
            },
            ("awaiting", seed) => Origin::Awaiting {
                seed: seed_of(seed, &module)?,
            },
            _ => return None,
        },
    })
}

/// `GAME/WIRE`, a seed listener's.
fn seed_of(word: &str, module: &Lookup<'_>) -> Option<super::origin::Seed> {
    let (game, wire) = word.split_once('/')?;
    Some(Some((module(game)?, wire_of(wire)?)))
}

/// The game id of a journal named `.journal-<own>-<id>` (`crate::session::journal::path`).
fn own_journal(name: &str, own: u32) -> Option<u64> {
    let (pid, id) = name.strip_prefix(".journal-")?.split_once('-')?;
    (pid.parse::<u32>().ok()? == own).then_some(())?;
    id.parse().ok()
}

fn wire_of(name: &str) -> Option<WireKind> {
    WireKind::ALL.into_iter().find(|w| w.name() == name)
}

fn origin_word(origin: Origin) -> String {
    match origin {
        Origin::Direct { screened: false } => "direct".to_owned(),
        Origin::Direct { screened: true } => "screened".to_owned(),
        Origin::Check => "check".to_owned(),
        Origin::Relayed { via } => format!("relayed={via}"),
        Origin::Awaiting { seed: None } => "awaiting".to_owned(),
        Origin::Awaiting {
            seed: Some((game, wire)),
        } => format!("awaiting={}/{}", game.info.name, wire.name()),
    }
}

/// The new image's listeners: the old one's sockets, never closed.
pub fn inherited_listeners(state: &State, games: &crate::games::Games) -> io::Result<Vec<Bound>> {
    state
        .listeners
        .iter()
        .map(|l| {
            // SAFETY: the old image left this listening socket open for us; we own it now.
            let socket = unsafe { std::net::TcpListener::from_raw_fd(l.fd) };
            socket.set_nonblocking(true)?;
            let find = |name: &str| games.modules.iter().copied().find(|m| m.info.name == name);
            let seed = match &l.seed {
                None => None,
                Some((game, wire)) => {
                    seed_of(&format!("{game}/{wire}"), &find).ok_or_else(|| {
                        io::Error::other(format!(
                            "upgrade: the listener {} is for {game}/{wire}, unknown here",
                            l.addr
                        ))
                    })?
                }
            };
            let local: SocketAddr = socket.local_addr()?;
            Ok((mio::net::TcpListener::from_std(socket), local, seed))
        })
        .collect()
}

/// A seat's player in words, for the upgrade state.
fn player_words(player: &SeatPlayer) -> String {
    match player {
        SeatPlayer::Anonymous => "anonymous".to_owned(),
        SeatPlayer::Guest(name) => format!("guest {}", name.as_str()),
        SeatPlayer::Account { id, name, rating } => {
            let rating = rating.map_or("-".to_owned(), |r| r.to_string());
            format!("account {} {} {rating}", id.0, name.as_str())
        }
    }
}

/// Reads what [`player_words`] wrote; anything else is an anonymous seat.
fn player_of_words(words: &str) -> SeatPlayer {
    let fields: Vec<&str> = words.split(' ').collect();
    let name = |n: &str| reversi_store::Name::new(n).ok();
    match fields[..] {
        ["guest", n] => name(n).map_or(SeatPlayer::Anonymous, SeatPlayer::Guest),
        ["account", id, n, rating] => match (id.parse(), name(n)) {
            (Ok(id), Some(name)) => SeatPlayer::Account {
                id: reversi_store::AccountId(id),
                name,
                rating: rating.parse().ok(),
            },
            _ => SeatPlayer::Anonymous,
        },
        _ => SeatPlayer::Anonymous,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_origin_reads_back_as_written() {
        let all = reversi_games::registry::all();
        let game: &'static Module = &all[0];
        let find = |name: &str| all.iter().find(|m| m.info.name == name);
        let origins = [
            Origin::Direct { screened: false },
            Origin::Direct { screened: true },
            Origin::Check,
            Origin::Relayed {
                via: "10.0.0.1:443".parse().unwrap(),
            },
            Origin::Awaiting { seed: None },
            Origin::Awaiting {
                seed: Some((game, WireKind::Seed000)),
            },
        ];
        for origin in origins {
            assert_eq!(origin_of(&origin_word(origin), find), Some(origin));
        }
        assert_eq!(origin_of("relayed=nowhere", find), None);
        assert_eq!(origin_of("awaiting=nogame/text", find), None);
    }

    #[test]
    fn only_this_servers_journals_are_taken() {
        assert_eq!(own_journal(".journal-77-12", 77), Some(12));
        assert_eq!(own_journal(".journal-78-12", 77), None);
        assert_eq!(own_journal(".journal-77-x", 77), None);
        assert_eq!(own_journal("journal-77-12", 77), None);
    }

    #[test]
    fn seat_players_cross_an_upgrade_in_words() {
        let name = |n: &str| reversi_store::Name::new(n).unwrap();
        let players = [
            SeatPlayer::Anonymous,
            SeatPlayer::Guest(name("zoë")),
            SeatPlayer::Account {
                id: reversi_store::AccountId(3),
                name: name("Alice"),
                rating: Some(crate::terms::ShownRating {
                    points: 1500,
                    provisional: true,
                }),
            },
            SeatPlayer::Account {
                id: reversi_store::AccountId(4),
                name: name("Bob"),
                rating: None,
            },
        ];
        for player in players {
            assert_eq!(player_of_words(&player_words(&player)), player);
        }
        assert_eq!(player_of_words("account x Bob -"), SeatPlayer::Anonymous);
    }
}
