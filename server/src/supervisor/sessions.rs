//! The supervisor's sessions: start one per group of queued players, and learn
//! how each ended (strikes for abandoned games, journals of sessions that died).

use std::io;
use std::net::{Shutdown, SocketAddr};
use std::os::fd::{FromRawFd, IntoRawFd};
use std::time::Instant;

use log::{error, info, warn};
use reversi_games::registry::Module;

use super::addresses::{Host, FAST_LOSS};
use super::pending::Conn;
use super::reaper::Child;
use super::Supervisor;
use crate::metrics::Ended;
use crate::session::{self, Group};
use crate::terms::{ResumeToken, SeatPlayer, Terms};

impl Supervisor {
    /// A session ended: its players' hosts have one game fewer, and one that abandoned
    /// it gets a strike (and perhaps a penalty).
    pub(super) fn ended(&mut self, child: &Child, status: nix::sys::wait::WaitStatus) {
        use nix::sys::wait::WaitStatus;
        for peer in &child.peers {
            self.hosts.game_ended(Host::of(*peer));
        }
        self.tokens.forget_game(child.id);
        let why = match status {
            WaitStatus::Exited(_, code) if code == 0 || session::lost_by(code).is_some() => None,
            WaitStatus::Exited(_, code) => Some(format!("failed (status {code})")),
            WaitStatus::Signaled(_, signal, _) => Some(format!("killed by {signal}")),
            _ => Some("gone".to_owned()),
        };
        let end = match (&why, status) {
            (Some(_), _) => Ended::Failed,
            (None, WaitStatus::Exited(_, code)) if session::abandoned_by(code).is_some() => {
                Ended::Abandoned
            }
            (None, _) => Ended::Completed,
        };
        let lasted = child.started.elapsed();
        self.metrics
            .game_finished(child.module.info.name, end, lasted);
        if let Some(why) = why {
            self.recover_journal(child, &why);
        }
        self.tournament_game_ended(child);
        if let Some(archive) = &mut self.archive {
            archive.take(std::process::id(), child.id);
        }
        self.ratings_may_have_moved(child);
        let WaitStatus::Exited(_, code) = status else {
            return;
        };
        self.charge_fast_loss(child, code);
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

    /// A game lost within [`FAST_LOSS`] of its start costs its loser's host more starts.
    fn charge_fast_loss(&mut self, child: &Child, code: i32) {
        let loser = session::lost_by(code).and_then(|s| child.peers.get(s));
        if let Some(peer) = loser.filter(|_| child.started.elapsed() < FAST_LOSS) {
            self.hosts.lost_fast(Host::of(*peer), Instant::now());
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
            self.archive.is_some(),
        );
        let (moves, transcript) = match &orphan {
            Some(o) if !o.moves.is_empty() => (o.moves.len(), o.moves.join(", ")),
            _ => (0, "-".to_owned()),
        };
        let players: Vec<String> = (child.peers.iter().enumerate())
            .map(|(s, peer)| match child.players.get(s) {
                Some(player) => session::players::listed(player, &peer.to_string()),
                None => peer.to_string(),
            })
            .collect();
        warn!(
            "game over: {name} game {} players {} end {why} result aborted moves {moves} transcript {transcript}",
            child.id,
            players.join(" ")
        );
    }

    /// How many players a game of `game` needs.
    pub(super) fn group_size(&self, game: &Module) -> usize {
        game.info.team_count() * self.games.team_size
    }

    pub(super) fn try_pair(&mut self) {
        let games = self.pending.waiting_games();
        for name in games {
            let Some(&game) = self.games.modules.iter().find(|m| m.info.name == name) else {
                continue;
            };
            self.try_start(game);
        }
        self.tell_queues();
    }

    /// While the server is full, each queued client whose protocol can say so is told
    /// why it waits and its place in its queue, again whenever that place changes.
    fn tell_queues(&mut self) {
        let moves = self.pending.queue_moves();
        if moves == self.told_moves || self.children.len() < self.config.max_sessions {
            return;
        }
        self.told_moves = moves;
        let running = self.children.len();
        for name in self.pending.waiting_games() {
            for (place, index) in self.pending.queue_of(name).into_iter().enumerate() {
                let place = place + 1;
                let Some(conn) = self.pending.get_mut(index) else {
                    continue;
                };
                if conn.told_position.replace(place) == Some(place) {
                    continue;
                }
                let text = format!(
                    "server full: {running} games running; you are number {place} in the queue for {name}"
                );
                if let Some(news) = conn.wire.and_then(|w| w.protocol().news(&text)) {
                    self.reply(index, &news);
                }
            }
        }
    }

    /// Starts games of `game` while enough players wait and the session cap allows.
    fn try_start(&mut self, game: &'static Module) {
        let name = game.info.name;
        let needed = self.group_size(game);
        while self.takes_games() && self.children.len() < self.config.max_sessions {
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
            let seats: Vec<session::Seat> = conns.into_iter().map(|c| self.seat(c, game)).collect();
            self.start_session(game, seats, Terms::default());
        }
    }

    /// Three quarters of the sessions the server may run are running: a new game's first
    /// moves get the handshake timeout, so that idle pairs cannot hold the last places for
    /// the whole first-move clock (TEXT-PROTOCOL.md §8.11).
    fn nearly_full(&self) -> bool {
        self.children.len() * 4 >= self.config.max_sessions * 3
    }

    /// Whether the seats of a game of `game` may be taken back after a drop: a grace, and
    /// one player a team (the play-together design §5.1; each seat's protocol counts too).
    fn resumable(&self, game: &Module) -> bool {
        let config = self.games.sessions.get(game.info.name);
        config.is_some_and(|c| c.grace.is_some()) && self.games.team_size == 1
    }

    /// A fresh resume token of this host, or none (and a seat a drop loses) if the kernel
    /// gives no random bits.
    fn draw_token(&self) -> Option<ResumeToken> {
        ResumeToken::draw(self.config.host_id)
            .map_err(|e| warn!("cannot draw a resume token: {e}"))
            .ok()
    }

    /// A waiting connection, taken from the loop, as a seat of a session about to start
    /// (its resume token is drawn in `start_session`, which knows the game).
    pub(super) fn seat(&mut self, mut conn: Conn, game: &Module) -> session::Seat {
        let _ = self.poll.registry().deregister(&mut conn.stream);
        // SAFETY: the descriptor moves from the mio stream to a std one.
        let stream = unsafe { std::net::TcpStream::from_raw_fd(conn.stream.into_raw_fd()) };
        let mut early = conn.input;
        early.shrink_to_fit();
        session::Seat {
            stream,
            peer: conn.peer,
            early,
            wire: conn.wire.unwrap_or_default(),
            token: None,
            player: conn.identity.seat_player(game.info.name),
        }
    }

    /// Starts a session of `game` for `seats` on `terms` (whose `hurry` is set here, from
    /// the load).
    pub(super) fn start_session(
        &mut self,
        game: &'static Module,
        mut seats: Vec<session::Seat>,
        mut terms: Terms,
    ) {
        terms.hurry = self.nearly_full();
        if self.resumable(game) {
            for seat in seats.iter_mut().filter(|s| session::resumable_wire(s.wire)) {
                seat.token = self.draw_token();
            }
        }
        let setting_up = Instant::now();
        self.next_id += 1;
        let id = self.next_id;
        let tokens: Vec<(u8, ResumeToken)> = seats
            .iter()
            .enumerate()
            .filter_map(|(s, seat)| Some((s as u8, seat.token?)))
            .collect();
        let peers: Vec<SocketAddr> = seats.iter().map(|s| s.peer).collect();
        let players: Vec<SeatPlayer> = seats.iter().map(|s| s.player.clone()).collect();
        let wires: Vec<&'static str> = seats.iter().map(|s| s.wire.name()).collect();
        let who: Vec<String> = peers.iter().map(ToString::to_string).collect();
        let config = self.games.sessions.get(game.info.name).cloned();
        let spare = self
            .archive
            .as_ref()
            .and_then(|a| a.take_spare(self.children.len()));
        let group = Group {
            id,
            module: game,
            terms,
            seats,
            spare_journal: spare
                .as_ref()
                .and_then(|path| Some(path.file_name()?.to_string_lossy().into_owned())),
        };
        let forked = self.fork_session(config, group);
        match forked {
            Ok((pid, group)) => {
                drop(group);
                for (seat, token) in tokens {
                    self.tokens.insert(token, id, seat);
                }
                for peer in &peers {
                    self.hosts.game_started(Host::of(*peer), setting_up);
                }
                for wire in wires {
                    self.metrics.connection(wire);
                }
                self.metrics
                    .game_started(game.info.name, setting_up.elapsed());
                self.children.insert(Child {
                    pid,
                    id,
                    module: game,
                    peers,
                    players,
                    started: Instant::now(),
                });
                info!(
                    "session {pid} started: game {id} {} {} ({} running)",
                    game.info.name,
                    who.join(" vs "),
                    self.children.len()
                );
            }
            Err((e, group)) => {
                if let (Some(archive), Some(spare)) = (&self.archive, spare) {
                    archive.give_back_spare(spare);
                }
                self.cannot_start(game, group.seats, &e)
            }
        }
    }

    pub(super) fn cannot_start(
        &mut self,
        game: &'static Module,
        seats: Vec<session::Seat>,
        e: &io::Error,
    ) {
        let who: Vec<String> = seats.iter().map(|s| s.peer.to_string()).collect();
        error!(
            "cannot start a session of {} for {}: {e}",
            game.info.name,
            who.join(" and ")
        );
        for mut seat in seats {
            self.metrics.connection(seat.wire.name());
            let farewell = seat
                .wire
                .protocol()
                .refusal("no game could be started; try again");
            let _ = io::Write::write(&mut seat.stream, &farewell);
            let _ = seat.stream.shutdown(Shutdown::Write);
        }
    }
}
