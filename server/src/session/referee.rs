//! The session's rules of play, for any game and without any I/O: seats and
//! their teams, team mates taking turns, the move clock, forfeits, rematches.
//! Inputs in; deliveries (who is told what) out. The game module alone judges
//! moves.

use std::fmt::Write as _;
use std::time::{Duration, Instant, SystemTime};

use reversi_games::record::{How, RecordMeta};
use reversi_games::registry::Module;
use reversi_games::{
    Action, Game, GameInfo, IllegalPolicy, Millis, Outcome, Settings, Team, Update,
};

use crate::protocols::Input;

/// How long after a game ends the next one of a rematch starts (seed 001).
pub const REMATCH_DELAY: Duration = Duration::from_secs(3);

/// Session settings of one game type.
#[derive(Clone, Debug)]
pub struct Rules {
    /// `None`: no move clock.
    pub move_timeout: Option<Duration>,
    /// The clock of each seat's first move of a game (shorter: a player who never moves
    /// must not hold the opponent for a whole move clock). When it runs out the game never
    /// started: it is aborted, not scored.
    pub first_move_timeout: Option<Duration>,
    /// The first to join gets the first team even where teams are drawn at random.
    pub fixed_teams: bool,
    /// A new game follows each game with the teams turned round, until a player leaves.
    pub rematch: bool,
}

/// Who is told.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum To {
    Seat(usize),
    /// Every seat still connected, and every viewer.
    Everyone,
}

/// What they are told (the session turns it into a wire [`crate::protocols::Event`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Msg {
    /// A game starts: each receiver gets the board as it may see it.
    Start,
    Update(Update),
    Turn(Team),
    Ready,
    /// Refused; `again`: it is still the receiver's move.
    Illegal {
        why: String,
        again: bool,
    },
    Confused {
        why: String,
        again: bool,
    },
    Violation(String),
    /// The game is over: each receiver gets its own standing.
    Over,
    Aborted(String),
}

#[derive(Clone, Debug)]
pub struct Delivery {
    pub to: To,
    pub msg: Msg,
}

/// Why a game ended. Seats are numbered in the order they joined.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum End {
    /// By the rules (or agreement): the game's own outcome.
    Board,
    /// The seat sent a quit.
    Quit(usize),
    /// The seat's connection closed or failed.
    Drop(usize),
    /// The seat, being the mover, ran out of time.
    Timeout(usize),
    /// The seat broke the protocol.
    Violation(usize, String),
    /// The seat played an illegal move in a game where that loses.
    Illegal(usize, String),
    /// The seat did not make its first move in time: the game never started.
    NeverMoved(usize),
    /// Fast shutdown.
    Aborted,
}

impl End {
    pub fn culprit(&self) -> Option<usize> {
        match *self {
            End::Quit(s) | End::Drop(s) | End::Timeout(s) | End::NeverMoved(s) => Some(s),
            End::Violation(s, _) | End::Illegal(s, _) => Some(s),
            End::Board | End::Aborted => None,
        }
    }

    /// The seat that abandoned the game (left without a word, ran out of time, or never
    /// moved), for the supervisor's penalties; a resignation is not abandonment.
    pub fn abandoned_by(&self) -> Option<usize> {
        match *self {
            End::Drop(s) | End::Timeout(s) | End::NeverMoved(s) => Some(s),
            _ => None,
        }
    }

    /// One word for the log.
    pub fn kind(&self) -> &'static str {
        match self {
            End::Board => "normal",
            End::Quit(_) => "quit",
            End::Drop(_) => "drop",
            End::Timeout(_) => "timeout",
            End::Violation(..) => "malformed",
            End::Illegal(..) => "illegal",
            End::NeverMoved(_) => "never-started",
            End::Aborted => "aborted",
        }
    }

    fn how(&self) -> How {
        match self {
            End::Board => How::OnTheBoard,
            End::Timeout(_) => How::OnTime,
            End::Aborted | End::NeverMoved(_) => How::Aborted,
            _ => How::Forfeit,
        }
    }
}

/// A finished game, for the log and the record.
pub struct Finished {
    /// One line: the game, the players, how it ended, the moves.
    pub summary: String,
    pub record: String,
    pub ext: &'static str,
    pub round: u32,
}

struct Seat {
    peer: String,
    team: Team,
    /// It has made a move in this game (until then its clock is the first-move one).
    moved: bool,
    /// Closed or left: never told anything again.
    gone: bool,
    /// Told READY and not yet acted since (real time: edge-triggered READY).
    ready: bool,
}

pub struct Referee {
    module: &'static Module,
    rules: Rules,
    settings: Settings,
    game: Box<dyn Game>,
    seats: Vec<Seat>,
    /// Per team: which of its seats moves next (team mates take turns).
    next_member: Vec<usize>,
    /// When the current game started (game time is measured from here).
    started: Instant,
    /// The move clock's deadline.
    clock: Option<Instant>,
    end: Option<End>,
    /// The final outcome, forfeits included.
    outcome: Option<Outcome>,
    round: u32,
    rematch_at: Option<Instant>,
    finished: Vec<Finished>,
}

impl Referee {
    /// `peers` in the order they joined; `first_team_seat` is the seat that gets the
    /// first team (the session draws it unless the rules fix it).
    pub fn new(
        module: &'static Module,
        rules: Rules,
        settings: Settings,
        peers: Vec<String>,
        first_team_seat: usize,
        now: Instant,
    ) -> Referee {
        let teams = module.info.team_count();
        let seats = peers
            .into_iter()
            .enumerate()
            .map(|(i, peer)| Seat {
                peer,
                // `first_team_seat` gets team 0; the others follow in the order they joined.
                team: Team(((i + teams - first_team_seat % teams) % teams) as u8),
                moved: false,
                gone: false,
                ready: false,
            })
            .collect();
        Referee {
            module,
            rules,
            game: (module.new_game)(&settings),
            settings,
            seats,
            next_member: vec![0; teams],
            started: now,
            clock: None,
            end: None,
            outcome: None,
            round: 1,
            rematch_at: None,
            finished: Vec::new(),
        }
    }

    pub fn info(&self) -> &'static GameInfo {
        self.module.info
    }

    pub fn game(&self) -> &dyn Game {
        &*self.game
    }

    pub fn team_of(&self, seat: usize) -> Team {
        self.seats[seat].team
    }

    pub fn is_gone(&self, seat: usize) -> bool {
        self.seats[seat].gone
    }

    /// The current game ended and no rematch follows.
    pub fn is_over(&self) -> bool {
        self.end.is_some() && self.rematch_at.is_none()
    }

    pub fn end(&self) -> Option<&End> {
        self.end.as_ref()
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Games finished since the last call, to log and record.
    pub fn take_finished(&mut self) -> Vec<Finished> {
        std::mem::take(&mut self.finished)
    }

    fn now_ms(&self, now: Instant) -> Millis {
        now.saturating_duration_since(self.started).as_millis() as Millis
    }

    /// The next moment [`Referee::tick`] has work.
    pub fn deadline(&self) -> Option<Instant> {
        if self.end.is_some() {
            return self.rematch_at;
        }
        let wake = self
            .game
            .wake_at()
            .map(|ms| self.started + Duration::from_millis(ms));
        [self.clock, wake].into_iter().flatten().min()
    }

    /// Starts the first game: the board to everyone, then the first turn.
    pub fn start(&mut self, now: Instant) -> Vec<Delivery> {
        let mut out = vec![Delivery {
            to: To::Everyone,
            msg: Msg::Start,
        }];
        self.announce_turn(now, &mut out);
        out
    }

    /// The seat whose move it is in a turn-based game.
    fn mover(&self) -> Option<usize> {
        let team = self.game.turn()?;
        let members = self.members(team).count().max(1);
        self.members(team)
            .nth(self.next_member[usize::from(team.0)] % members)
    }

    fn members(&self, team: Team) -> impl Iterator<Item = usize> + '_ {
        (0..self.seats.len()).filter(move |&s| self.seats[s].team == team && !self.seats[s].gone)
    }

    /// After a change: whose turn, READY to whoever may act now, the move clock.
    fn announce_turn(&mut self, now: Instant, out: &mut Vec<Delivery>) {
        if self.end.is_some() {
            return;
        }
        if self.info().realtime {
            let t = self.now_ms(now);
            for s in 0..self.seats.len() {
                let may = !self.seats[s].gone && self.game.may_move(self.seats[s].team, t);
                if may && !self.seats[s].ready {
                    self.seats[s].ready = true;
                    out.push(Delivery {
                        to: To::Seat(s),
                        msg: Msg::Ready,
                    });
                }
            }
            return;
        }
        let Some(team) = self.game.turn() else {
            return;
        };
        out.push(Delivery {
            to: To::Everyone,
            msg: Msg::Turn(team),
        });
        let mut limit = self.rules.move_timeout;
        if let Some(seat) = self.mover() {
            self.seats[seat].ready = true;
            out.push(Delivery {
                to: To::Seat(seat),
                msg: Msg::Ready,
            });
            if !self.seats[seat].moved {
                limit = [limit, self.rules.first_move_timeout]
                    .into_iter()
                    .flatten()
                    .min();
            }
        }
        self.clock = limit.map(|limit| now + limit);
    }

    /// What the seat sent.
    pub fn input(&mut self, seat: usize, input: Input, now: Instant) -> Vec<Delivery> {
        let mut out = Vec::new();
        if self.seats[seat].gone {
            return out;
        }
        match input {
            Input::Quit => self.forfeit(End::Quit(seat), now, &mut out),
            Input::Violation(why) => {
                out.push(Delivery {
                    to: To::Seat(seat),
                    msg: Msg::Violation(why.clone()),
                });
                self.forfeit(End::Violation(seat, why), now, &mut out);
            }
            _ if self.end.is_some() => {}
            Input::Confused(why) => out.push(Delivery {
                to: To::Seat(seat),
                msg: Msg::Confused {
                    why,
                    again: self.is_mover(seat),
                },
            }),
            Input::Notation(text) => match self.game.parse_action(&text) {
                Ok(action) => self.act(seat, action, now, &mut out),
                Err(why) => out.push(Delivery {
                    to: To::Seat(seat),
                    msg: Msg::Confused {
                        why: why.0,
                        again: self.is_mover(seat),
                    },
                }),
            },
            Input::Act(action) => self.act(seat, action, now, &mut out),
            // The board as it stands, to the seat alone; the game is not asked anything.
            Input::Refresh => out.push(Delivery {
                to: To::Seat(seat),
                msg: Msg::Start,
            }),
        }
        out
    }

    /// Whether the seat is the one whose move it is (turn-based games).
    fn is_mover(&self, seat: usize) -> bool {
        !self.info().realtime && self.mover() == Some(seat)
    }

    fn act(&mut self, seat: usize, action: Action, now: Instant, out: &mut Vec<Delivery>) {
        let team = self.seats[seat].team;
        let realtime = self.info().realtime;
        if !realtime && self.game.turn() == Some(team) && self.mover() != Some(seat) {
            out.push(Delivery {
                to: To::Seat(seat),
                msg: Msg::Illegal {
                    why: "it is your team mate's turn".to_owned(),
                    again: false,
                },
            });
            return;
        }
        let t = self.now_ms(now);
        let was_mover = self.is_mover(seat);
        let is_move = matches!(action, Action::Move(_));
        self.seats[seat].ready = false;
        match self.game.play(team, &action, t) {
            Ok(update) => {
                self.seats[seat].moved = true;
                if !realtime && was_mover {
                    let members = self.members(team).count().max(1);
                    let next = &mut self.next_member[usize::from(team.0)];
                    *next = (*next + 1) % members;
                }
                out.push(Delivery {
                    to: To::Everyone,
                    msg: Msg::Update(update),
                });
                self.after_change(now, out);
            }
            Err(illegal) => {
                let loses = is_move && was_mover && self.info().illegal == IllegalPolicy::Lose;
                out.push(Delivery {
                    to: To::Seat(seat),
                    msg: Msg::Illegal {
                        why: illegal.0.clone(),
                        again: was_mover && !loses,
                    },
                });
                if loses {
                    self.forfeit(End::Illegal(seat, illegal.0), now, out);
                } else if realtime {
                    // The attempt started a cooldown; READY comes when it has passed.
                    self.announce_turn(now, out);
                } else if was_mover {
                    self.seats[seat].ready = true;
                }
            }
        }
    }

    /// After the board changed: the end, or the next turn.
    fn after_change(&mut self, now: Instant, out: &mut Vec<Delivery>) {
        if let Some(outcome) = self.game.outcome().cloned() {
            self.finish(End::Board, Some(outcome), now, out);
        } else {
            self.announce_turn(now, out);
        }
    }

    /// The seat's connection is gone.
    pub fn eof(&mut self, seat: usize, now: Instant) -> Vec<Delivery> {
        let mut out = Vec::new();
        if !self.seats[seat].gone {
            if self.end.is_none() {
                self.forfeit(End::Drop(seat), now, &mut out);
            } else {
                self.rematch_at = None;
            }
            self.seats[seat].gone = true;
        }
        out
    }

    /// A seat leaves the game or loses it: its team loses, unless a team mate is left
    /// to play on (seed 000: only the last member's leaving resigns the team).
    fn forfeit(&mut self, end: End, now: Instant, out: &mut Vec<Delivery>) {
        let Some(seat) = end.culprit() else {
            return;
        };
        let leaving = matches!(end, End::Quit(_) | End::Drop(_));
        if matches!(end, End::Drop(_)) || self.end.is_some() {
            self.seats[seat].gone = true;
        }
        if self.end.is_some() {
            // Between two games of a rematch: leaving ends the series.
            self.rematch_at = None;
            return;
        }
        let team = self.seats[seat].team;
        if leaving && self.members(team).any(|s| s != seat) {
            let was_mover = self.mover() == Some(seat);
            self.seats[seat].gone = true;
            if was_mover {
                self.announce_turn(now, out);
            }
            return;
        }
        let name = self.info().team_name(team);
        let why = match &end {
            End::Quit(_) => format!("{name} left the game"),
            End::Drop(_) => format!("{name} was disconnected"),
            End::Timeout(_) => format!("{name} ran out of time"),
            End::Violation(_, why) => format!("{name} broke the protocol: {why}"),
            End::Illegal(_, why) => format!("{name} played an illegal move: {why}"),
            End::NeverMoved(_) => format!("{name} never moved"),
            End::Board | End::Aborted => String::new(),
        };
        let winner = (0..self.info().team_count() as u8)
            .map(Team)
            .find(|&t| t != team)
            .unwrap_or(team);
        self.finish(end, Some(Outcome::Win { team: winner, why }), now, out);
    }

    fn finish(
        &mut self,
        end: End,
        outcome: Option<Outcome>,
        now: Instant,
        out: &mut Vec<Delivery>,
    ) {
        self.clock = None;
        let how = end.how();
        self.outcome = outcome;
        self.end = Some(end);
        if self.outcome.is_some() {
            out.push(Delivery {
                to: To::Everyone,
                msg: Msg::Over,
            });
        }
        self.record(how);
        let everyone_here = self.seats.iter().all(|s| !s.gone);
        let series_goes_on = matches!(
            self.end,
            Some(End::Board | End::Timeout(_) | End::Illegal(..))
        );
        if self.rules.rematch && everyone_here && series_goes_on {
            self.rematch_at = Some(now + REMATCH_DELAY);
        }
    }

    fn record(&mut self, how: How) {
        let info = self.info();
        let players = (0..info.team_count() as u8)
            .map(|t| {
                self.seats
                    .iter()
                    .filter(|s| s.team == Team(t))
                    .map(|s| s.peer.as_str())
                    .collect::<Vec<_>>()
                    .join("+")
            })
            .collect();
        let meta = RecordMeta {
            players,
            finished: SystemTime::now(),
            outcome: self.outcome.clone(),
            how,
        };
        let record = self.game.record(&meta);
        let summary = self.summary(&meta);
        self.finished.push(Finished {
            summary,
            record,
            ext: info.record_ext,
            round: self.round,
        });
    }

    /// The one-line account of a finished game, for the log.
    fn summary(&self, meta: &RecordMeta) -> String {
        let info = self.info();
        let mut s = info.name.to_owned();
        if self.rules.rematch {
            let _ = write!(s, " round {}", self.round);
        }
        for (t, players) in meta.players.iter().enumerate() {
            let _ = write!(s, " {} {players}", info.team_name(Team(t as u8)));
        }
        let end = self.end.as_ref().expect("finished");
        let _ = write!(s, " end {}", end.kind());
        if let Some(seat) = end.culprit() {
            let _ = write!(s, " by {}", info.team_name(self.seats[seat].team));
        }
        if let End::Violation(_, why) | End::Illegal(_, why) = end {
            let _ = write!(s, " ({why})");
        }
        let _ = write!(
            s,
            " result {}",
            reversi_games::record::result_text(info, meta)
        );
        let history = self.game.history();
        let moves: Vec<&str> = history.iter().map(|m| m.notation.as_str()).collect();
        let _ = write!(
            s,
            " moves {} transcript {}",
            moves.len(),
            if moves.is_empty() {
                "-".to_owned()
            } else {
                moves.join(" ")
            }
        );
        s
    }

    /// Time passed: the move clock, the game's own events, a rematch's start.
    pub fn tick(&mut self, now: Instant) -> Vec<Delivery> {
        let mut out = Vec::new();
        if self.end.is_some() {
            if self.rematch_at.is_some_and(|t| t <= now) {
                self.next_round(now, &mut out);
            }
            return out;
        }
        if self.clock.is_some_and(|t| t <= now) {
            if let Some(seat) = self.mover() {
                if self.seats[seat].moved || self.rules.first_move_timeout.is_none() {
                    self.forfeit(End::Timeout(seat), now, &mut out);
                } else {
                    self.never_started(seat, &mut out);
                }
                return out;
            }
        }
        if self
            .game
            .wake_at()
            .is_some_and(|ms| self.started + Duration::from_millis(ms) <= now)
        {
            let t = self.now_ms(now);
            for update in self.game.wake(t) {
                out.push(Delivery {
                    to: To::Everyone,
                    msg: Msg::Update(update),
                });
            }
            self.after_change(now, &mut out);
        } else if self.info().realtime {
            self.announce_turn(now, &mut out);
        }
        out
    }

    /// A rematch: a new game, the teams turned round.
    fn next_round(&mut self, now: Instant, out: &mut Vec<Delivery>) {
        let teams = self.info().team_count();
        for seat in &mut self.seats {
            seat.team = Team(((usize::from(seat.team.0) + 1) % teams) as u8);
            seat.ready = false;
            seat.moved = false;
        }
        self.settings.seed = self.settings.seed.wrapping_add(1);
        self.game = (self.module.new_game)(&self.settings);
        self.next_member = vec![0; teams];
        self.started = now;
        self.end = None;
        self.outcome = None;
        self.rematch_at = None;
        self.round += 1;
        out.push(Delivery {
            to: To::Everyone,
            msg: Msg::Start,
        });
        self.announce_turn(now, out);
    }

    /// `seat` let its first-move clock run out: the game is aborted, not scored.
    fn never_started(&mut self, seat: usize, out: &mut Vec<Delivery>) {
        let name = self.info().team_name(self.seats[seat].team);
        out.push(Delivery {
            to: To::Everyone,
            msg: Msg::Aborted(format!("{name} did not make its first move in time")),
        });
        self.clock = None;
        self.outcome = None;
        self.end = Some(End::NeverMoved(seat));
        self.rematch_at = None;
        self.record(How::Aborted);
    }

    /// The process's exit code for the supervisor: 0, or [`super::ABANDONED`] plus the seat
    /// that abandoned the (last) game.
    pub fn exit_code(&self) -> i32 {
        match self.end.as_ref().and_then(End::abandoned_by) {
            Some(seat) if seat < super::MAX_SEATS => super::ABANDONED + seat as i32,
            _ => 0,
        }
    }

    /// Fast shutdown.
    pub fn abort(&mut self) -> Vec<Delivery> {
        let mut out = Vec::new();
        self.rematch_at = None;
        if self.end.is_none() {
            out.push(Delivery {
                to: To::Everyone,
                msg: Msg::Aborted("the server is shutting down".to_owned()),
            });
            self.clock = None;
            self.outcome = None;
            self.end = Some(End::Aborted);
            self.record(How::Aborted);
        }
        out
    }
}
