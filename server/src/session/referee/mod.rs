//! The session's rules of play, for any game and without any I/O: seats and
//! their teams, team mates taking turns, the move clock, forfeits, rematches.
//! Inputs in; deliveries (who is told what) out. The game module alone judges
//! moves.
//!
//! A pure state machine: it never reads a clock. Every call that can change
//! anything is given the time ([`Now`]): the instant for clocks and game time,
//! the wall-clock time for the records of games that end.

mod clock;
mod end;
mod lag;
mod pace;
mod rematch;
mod seats;
mod table;
#[cfg(test)]
mod tests;
mod timekeeping;

use std::borrow::Cow;
use std::time::{Duration, Instant, SystemTime};

use reversi_games::record::MoveTime;
use reversi_games::registry::Module;
use reversi_games::{
    Action, Game, GameInfo, Illegal, IllegalPolicy, Millis, Outcome, Settings, Team, Timer, Update,
    Viewer,
};

use crate::protocols::{Event, Input, WireKind};
use crate::terms::{SeatPlayer, TimeControl};
use clock::Clock;
pub use end::{End, Finished};
use lag::Lag;
use pace::Pace;
use rematch::Window;
pub use seats::Return;
use table::Table;
pub use table::Who;

/// How long after a game ends the next one of a rematch starts (seed 001).
pub const REMATCH_DELAY: Duration = Duration::from_secs(3);

/// Session settings of one game type.
#[derive(Clone, Debug)]
pub struct Rules {
    /// How a turn-based game's time is kept (real-time games: none). A per-move limit's
    /// first move is `first_move_timeout`'s, which rules here.
    pub control: TimeControl,
    /// The clock of each seat's first move of a game (shorter: a player who never moves
    /// must not hold the opponent for a whole move clock). When it runs out the game never
    /// started: it is aborted, not scored.
    pub first_move_timeout: Option<Duration>,
    /// The first to join gets the first team even where teams are drawn at random.
    pub fixed_teams: bool,
    /// A new game follows each game with the teams turned round, until a player leaves.
    pub rematch: bool,
    /// The most lag credited to a move (zero: none, and no pings).
    pub lag_allowance: Duration,
    /// After a game with no automatic rematch, how long its players may offer one
    /// (`None`: no offers).
    pub rematch_window: Option<Duration>,
}

/// The rules of one session's game: a challenge's control for the game's default
/// (`None`: the default), and no rematch offers unless every seat can answer one
/// (a text or WebSocket client: binary and seed clients are closed as before).
pub fn adapt_rules(rules: &mut Rules, control: Option<TimeControl>, seats: &[super::Seat]) {
    if let Some(control) = control {
        rules.control = control;
    }
    let can_answer = |s: &super::Seat| matches!(s.wire, WireKind::Text | WireKind::WebSocket);
    if !seats.iter().all(can_answer) {
        rules.rematch_window = None;
    }
}

impl Rules {
    /// The per-move limit, if the control is one.
    pub fn move_limit(&self) -> Option<Duration> {
        match self.control {
            TimeControl::PerMove { limit, .. } => Some(limit),
            TimeControl::None | TimeControl::Fischer { .. } => None,
        }
    }
}

/// The time of a call, as the caller read it.
#[derive(Clone, Copy, Debug)]
pub struct Now {
    /// For clocks and the game's time.
    pub at: Instant,
    /// For the records of games that end.
    pub wall: SystemTime,
}

/// One message for one receiver (or, addressed to [`Who::Viewer`], for every viewer).
#[derive(Clone, Debug)]
pub struct Delivery {
    pub to: Who,
    pub event: Event,
}

/// Who sits down: the game's id, the players' addresses in the order they joined, and
/// which of them gets the first team (the session draws it unless the rules fix it).
pub struct Seating {
    pub id: u64,
    pub peers: Vec<String>,
    pub first_team_seat: usize,
}

pub struct Referee {
    module: &'static Module,
    rules: Rules,
    settings: Settings,
    /// The game's id, which viewers are told.
    id: u64,
    game: Box<dyn Game>,
    table: Table,
    pace: Pace,
    clock: Clock,
    lag: Lag,
    /// A `GAME TIMER abort` is running: some seat has not made its first move.
    abort_told: bool,
    /// How late the last flag fell: the instant it was judged minus its due instant.
    flag_late: Option<Duration>,
    /// The rematch window after a game, while open.
    window: Option<Window>,
    /// When the current game started (game time is measured from here).
    started: Instant,
    /// The game's timers as everyone was last told them.
    timers: Vec<Timer>,
    end: Option<End>,
    /// The final outcome, forfeits included.
    outcome: Option<Outcome>,
    round: u32,
    rematch_at: Option<Instant>,
    finished: Vec<Finished>,
    /// Journal lines not yet taken: each move, and the start of each rematch round.
    journal: Vec<String>,
    /// The times of the current game's moves, for its record (one a move of its history).
    times: Vec<Option<MoveTime>>,
    /// Which seats may come back after a drop, and which are away.
    hold: seats::Holds,
}

impl Referee {
    pub fn new(
        module: &'static Module,
        rules: Rules,
        settings: Settings,
        seating: Seating,
        now: Instant,
    ) -> Referee {
        let info = module.info;
        let table = Table::new(seating.peers, seating.first_team_seat, info.team_count());
        let control = if info.realtime {
            TimeControl::None
        } else {
            rules.control
        };
        let clock = Clock::new(control, rules.first_move_timeout, info.team_count());
        let lag = Lag::new(rules.lag_allowance, table.seats.len());
        let hold = seats::Holds::none(table.seats.len());
        Referee {
            module,
            rules,
            game: (module.new_game)(&settings),
            settings,
            id: seating.id,
            pace: Pace::new(info.realtime, &table),
            clock,
            lag,
            abort_told: false,
            flag_late: None,
            window: None,
            table,
            started: now,
            timers: Vec::new(),
            end: None,
            outcome: None,
            round: 1,
            rematch_at: None,
            finished: Vec::new(),
            journal: Vec::new(),
            times: Vec::new(),
            hold,
        }
    }

    /// Who plays in each seat (in the order they joined): what `GAME PLAYER`, the records
    /// and the log say of them. Called before [`Referee::start`]; extra players are ignored.
    pub fn name_seats(&mut self, players: Vec<SeatPlayer>) {
        for (seat, player) in self.table.seats.iter_mut().zip(players) {
            seat.player = player;
        }
    }

    pub fn info(&self) -> &'static GameInfo {
        self.module.info
    }

    pub fn team_of(&self, seat: usize) -> Team {
        self.table.seats[seat].team
    }

    /// The current game ended, no rematch follows and none may be offered.
    pub fn is_over(&self) -> bool {
        self.end.is_some() && self.rematch_at.is_none() && self.window.is_none()
    }

    /// Games finished since the last call, to log and record.
    pub fn take_finished(&mut self) -> Vec<Finished> {
        std::mem::take(&mut self.finished)
    }

    /// Journal lines since the last call: `<team name> <notation>` a move, followed by
    /// ` <ms>` under a Fischer clock (the mover's time left after the move, with the
    /// increment); `round <n>`; `away <team name>` and `back <team name>` (a resumable
    /// seat dropped, came back).
    pub fn take_journal(&mut self) -> Vec<String> {
        std::mem::take(&mut self.journal)
    }

    /// The next moment [`Referee::tick`] has work.
    pub fn deadline(&self) -> Option<Instant> {
        if self.end.is_some() {
            let window = self.window.as_ref().map(|w| w.until);
            return [self.rematch_at, window, self.hold_deadline()]
                .into_iter()
                .flatten()
                .min();
        }
        let wake = self
            .game
            .wake_at()
            .map(|ms| self.started + Duration::from_millis(ms));
        [self.clock.deadline(), wake, self.hold_deadline()]
            .into_iter()
            .flatten()
            .min()
    }

    /// The process's exit code for the supervisor: 0, or [`super::ABANDONED`] plus the seat
    /// that abandoned the (last) game.
    pub fn exit_code(&self) -> i32 {
        match self.end.as_ref().and_then(End::abandoned_by) {
            Some(seat) if seat < super::MAX_SEATS => super::ABANDONED + seat as i32,
            _ => 0,
        }
    }

    /// The seat that lost the (last) game by its own doing, if one did.
    pub fn lost_by(&self) -> Option<usize> {
        self.end.as_ref().and_then(End::culprit)
    }

    /// Starts the first game: the board to everyone, the game's timers, then the first turn.
    pub fn start(&mut self, now: Now) -> Vec<Delivery> {
        let mut out = Vec::new();
        self.tell_start(&mut out);
        self.tell_timers(now.at, &mut out);
        self.announce_turn(now.at, &mut out);
        for seat in 0..self.table.seats.len() {
            self.ping(seat, now.at, &mut out);
        }
        out
    }

    /// What a viewer arriving at `now` is told: the board, whose turn and the time the
    /// mover has left, the game's running timers; or the end if it came.
    pub fn welcome(&self, now: Instant) -> Vec<Event> {
        let mut told = vec![self.start_event(Viewer::Spectator)];
        if self.end.is_some() {
            // A forfeit can end a game whose board still has a side to move: the end
            // is told, not that turn (spec §7).
            told.extend(self.over_event(Viewer::Spectator));
            told.extend(self.window_timer(now));
            return told;
        }
        let turn = self.game.turn();
        told.extend(turn.map(Event::Turn));
        if turn.is_some() {
            told.extend(self.clock_events(now));
        }
        let t = self.game_time(now);
        let timers = self.game.timers();
        let running = timers.iter().filter(|timer| timer.due.is_some());
        told.extend(running.map(|timer| timer_event(timer, t)));
        told.extend(self.away_events(None, now));
        told
    }

    /// What the seat sent.
    pub fn input(&mut self, seat: usize, input: Input, now: Now) -> Vec<Delivery> {
        let mut out = Vec::new();
        if self.table.seats[seat].gone {
            return out;
        }
        match input {
            Input::Hangup if self.may_hold(seat) => out = self.hold_seat(seat, now),
            Input::Pong(n) => self.lag.pong(seat, n, now.at),
            Input::Rtt(rtt) => self.lag.measured(seat, rtt),
            Input::Rematch(answer) => self.rematch(seat, answer, now, &mut out),
            Input::Quit | Input::Hangup => self.forfeit(End::Quit(seat), now, &mut out),
            Input::Violation(why) => {
                tell(&mut out, seat, Event::Violation(why.clone()));
                self.forfeit(End::Violation(seat, why), now, &mut out);
            }
            _ if self.end.is_some() => {}
            Input::Confused(why) => self.confused(seat, why, &mut out),
            Input::Notation(text) => match self.game.parse_action(&text) {
                Ok(action) => self.act(seat, action, now, &mut out),
                Err(why) => self.confused(seat, why.0, &mut out),
            },
            Input::Act(action) => self.act(seat, action, now, &mut out),
            Input::Claim(claim) => self.claim(seat, claim, now, &mut out),
            // The board as it stands, to the seat alone; the game is not asked anything.
            Input::Refresh => {
                let viewer = Viewer::Team(self.team_of(seat));
                tell(&mut out, seat, self.start_event(viewer));
            }
        }
        out
    }

    /// The seat's connection is gone.
    pub fn eof(&mut self, seat: usize, now: Now) -> Vec<Delivery> {
        if self.may_hold(seat) {
            return self.hold_seat(seat, now);
        }
        if self.is_away(seat) {
            // Its connection ended already (a WebSocket's close frame): held, not lost.
            return Vec::new();
        }
        let mut out = Vec::new();
        if !self.table.seats[seat].gone {
            if self.end.is_none() {
                self.forfeit(End::Drop(seat), now, &mut out);
            } else {
                self.rematch_at = None;
                self.table.seats[seat].gone = true;
                self.close_window(&mut out);
            }
            self.table.seats[seat].gone = true;
        }
        out
    }

    /// Time passed: the move clock, the game's own events, a rematch's start.
    pub fn tick(&mut self, now: Now) -> Vec<Delivery> {
        let mut out = Vec::new();
        self.tick_holds(now, &mut out);
        if self.end.is_some() {
            if self.rematch_at.is_some_and(|t| t <= now.at) {
                self.next_round(now, &mut out);
            }
            if self.window.as_ref().is_some_and(|w| w.until <= now.at) {
                self.close_window(&mut out);
            }
            return out;
        }
        if let Some(due) = self.clock.deadline().filter(|&t| t <= now.at) {
            if let Some(seat) = self.pace.mover(&self.table, &*self.game) {
                self.flag_late = Some(now.at.saturating_duration_since(due));
                self.out_of_time(seat, now, &mut out);
                return out;
            }
        }
        let t = self.game_time(now.at);
        if self.game.wake_at().is_some_and(|ms| ms <= t) {
            for update in self.game.wake(t) {
                self.tell_update(update, &mut out);
            }
            self.after_change(now, &mut out);
        } else {
            (self.pace).recheck(&self.table, &*self.game, t, &mut out);
        }
        out
    }

    /// Fast shutdown.
    pub fn abort(&mut self, now: Now) -> Vec<Delivery> {
        let mut out = Vec::new();
        self.rematch_at = None;
        self.window = None;
        if self.end.is_none() {
            let why = "the server is shutting down".to_owned();
            self.table
                .tell_everyone(&mut out, |_| Some(Event::Aborted(why.clone())));
            self.stop(End::Aborted, None, now.wall);
        }
        out
    }

    fn game_time(&self, now: Instant) -> Millis {
        now.saturating_duration_since(self.started).as_millis() as Millis
    }

    fn start_event(&self, viewer: Viewer) -> Event {
        Event::Start {
            info: self.info(),
            viewer,
            cells: self.game.view(viewer),
            id: self.id,
            time: self.pace.is_turn_based().then(|| self.told_control()),
            players: self.table.shown(),
        }
    }

    fn over_event(&self, viewer: Viewer) -> Option<Event> {
        let outcome = self.outcome.clone()?;
        let standing = match viewer {
            Viewer::Team(team) => Some(outcome.standing(team)),
            Viewer::Spectator => None,
        };
        Some(Event::Over { outcome, standing })
    }

    fn tell_start(&self, out: &mut Vec<Delivery>) {
        if self.hold.has_tokens() {
            return self.tell_start_with_tokens(out);
        }
        self.table
            .tell_everyone(out, |viewer| Some(self.start_event(viewer)));
    }

    /// The board changed: everyone sees what the game lets each see; a move is journaled.
    fn tell_update(&mut self, update: Update, out: &mut Vec<Delivery>) {
        if let Some(moved) = &update.moved {
            let team = self.info().team_name(moved.team);
            let mut line = format!("{team} {}", moved.notation);
            if let Some(ms) = self.clock.take_after_move() {
                line += &format!(" {ms}");
            }
            self.journal.push(line);
            self.times.push(self.clock.take_move_time());
        }
        let game = &*self.game;
        self.table
            .tell_everyone(out, |viewer| game.relay(&update, viewer).map(Event::Update));
    }

    fn confused(&self, seat: usize, why: String, out: &mut Vec<Delivery>) {
        let again = self.pace.mover(&self.table, &*self.game) == Some(seat);
        tell(out, seat, Event::Confused { why, again });
    }

    /// Every timer of the game that changed since everyone was last told, to everyone.
    fn tell_timers(&mut self, now: Instant, out: &mut Vec<Delivery>) {
        let t = self.game_time(now);
        let timers = self.game.timers();
        for timer in timers.iter().filter(|timer| !self.timers.contains(timer)) {
            self.table
                .tell_everyone(out, |_| Some(timer_event(timer, t)));
        }
        self.timers = timers;
    }

    /// After a change: READY to whoever may act now (turn-based: whose turn, the clocks).
    fn announce_turn(&mut self, now: Instant, out: &mut Vec<Delivery>) {
        if self.end.is_some() {
            return;
        }
        if self.pace.is_turn_based() {
            return self.announce_move(now, out);
        }
        let t = self.game_time(now);
        (self.pace).announce(&self.table, &*self.game, t, out);
    }

    fn act(&mut self, seat: usize, action: Action, now: Now, out: &mut Vec<Delivery>) {
        let team = self.team_of(seat);
        let mover = self.pace.mover(&self.table, &*self.game);
        if self.game.turn() == Some(team) && mover != Some(seat) {
            let why = "it is your team mate's turn".to_owned();
            return tell(out, seat, Event::Illegal { why, again: false });
        }
        let was_mover = mover == Some(seat);
        let is_move = matches!(action, Action::Move(_));
        self.pace.acting(seat);
        match self.game.play(team, &action, self.game_time(now.at)) {
            Ok(update) => {
                // A draw offer or answer is not a move: the first-move clock runs on (spec §8).
                self.table.seats[seat].moved |= is_move;
                if was_mover {
                    self.pace.moved(&self.table, team);
                    self.charge(seat, is_move, now.at);
                }
                self.note_action(team, &action);
                self.tell_update(update, out);
                self.after_change(now, out);
            }
            Err(illegal) => {
                let loses = is_move && was_mover && self.info().illegal == IllegalPolicy::Lose;
                self.refuse(seat, illegal, was_mover, loses, now, out);
            }
        }
    }

    /// The game refused the seat's action: it is told why, and loses if the game says so.
    fn refuse(
        &mut self,
        seat: usize,
        illegal: Illegal,
        was_mover: bool,
        loses: bool,
        now: Now,
        out: &mut Vec<Delivery>,
    ) {
        let again = was_mover && !loses;
        let why = illegal.0.clone();
        tell(out, seat, Event::Illegal { why, again });
        if loses {
            self.forfeit(End::Illegal(seat, illegal.0), now, out);
        } else {
            let t = self.game_time(now.at);
            (self.pace).recheck(&self.table, &*self.game, t, out);
        }
    }

    /// After the board changed: the end, or the next turn.
    fn after_change(&mut self, now: Now, out: &mut Vec<Delivery>) {
        if let Some(outcome) = self.game.outcome().cloned() {
            self.finish(End::Board, outcome, now, out);
        } else {
            self.tell_timers(now.at, out);
            self.announce_turn(now.at, out);
        }
    }

    /// The mover's clock ran out: it loses, or, if it never moved and a first-move clock
    /// ran, the game never started.
    fn out_of_time(&mut self, seat: usize, now: Now, out: &mut Vec<Delivery>) {
        if self.table.seats[seat].moved || self.rules.first_move_timeout.is_none() {
            return self.forfeit(End::Timeout(seat), now, out);
        }
        let name = self.info().team_name(self.team_of(seat));
        let why = format!("{name} did not make its first move in time");
        self.table
            .tell_everyone(out, |_| Some(Event::Aborted(why.clone())));
        self.rematch_at = None;
        self.stop(End::NeverMoved(seat), None, now.wall);
    }

    /// A seat leaves the game or loses it: its team loses, unless a team mate is left
    /// to play on (seed 000: only the last member's leaving resigns the team).
    fn forfeit(&mut self, end: End, now: Now, out: &mut Vec<Delivery>) {
        let Some(seat) = end.culprit() else {
            return;
        };
        if matches!(end, End::Drop(_)) || self.end.is_some() {
            self.table.seats[seat].gone = true;
        }
        if self.end.is_some() {
            // Between two games of a rematch: leaving ends the series.
            self.rematch_at = None;
            self.close_window(out);
            return;
        }
        let team = self.team_of(seat);
        let leaving = matches!(end, End::Quit(_) | End::Drop(_));
        if leaving && self.table.members(team).any(|s| s != seat) {
            let was_mover = self.pace.mover(&self.table, &*self.game) == Some(seat);
            self.table.seats[seat].gone = true;
            if was_mover {
                self.announce_turn(now.at, out);
            }
            return;
        }
        let why = end.why(&self.info().team_name(team));
        let winner = (0..self.info().team_count() as u8)
            .map(Team)
            .find(|&t| t != team)
            .unwrap_or(team);
        self.finish(end, Outcome::Win { team: winner, why }, now, out);
    }

    /// The game ended with `outcome`: everyone is told, the game is kept, and a rematch
    /// follows if the rules want one and nobody left.
    fn finish(&mut self, end: End, outcome: Outcome, now: Now, out: &mut Vec<Delivery>) {
        let series_goes_on = end.series_goes_on();
        self.stop(end, Some(outcome), now.wall);
        self.table
            .tell_everyone(out, |viewer| self.over_event(viewer));
        // A seat away is not here: no rematch follows (TEXT-PROTOCOL.md §5.5).
        let everyone_here = self.table.seats.iter().all(|s| !s.gone) && self.hold.all_present();
        if self.rules.rematch && everyone_here && series_goes_on {
            self.rematch_at = Some(now.at + REMATCH_DELAY);
        } else if everyone_here && series_goes_on {
            self.open_window(now.at, out);
        }
    }

    /// The game is over: no clock, the end and outcome set, the game kept.
    fn stop(&mut self, end: End, outcome: Option<Outcome>, wall: SystemTime) {
        self.clock.stop();
        self.outcome = outcome;
        self.end = Some(end);
        self.record(wall);
    }

    /// A rematch: a new game, the teams turned round.
    fn next_round(&mut self, now: Now, out: &mut Vec<Delivery>) {
        self.table.turn_round();
        self.pace.reset(&self.table);
        self.clock.reset();
        self.abort_told = false;
        self.flag_late = None;
        self.window = None;
        self.settings.seed = self.settings.seed.wrapping_add(1);
        self.game = (self.module.new_game)(&self.settings);
        self.started = now.at;
        self.timers = Vec::new();
        self.times = Vec::new();
        self.end = None;
        self.outcome = None;
        self.rematch_at = None;
        self.round += 1;
        self.journal.push(format!("round {}", self.round));
        self.tell_start(out);
        self.tell_timers(now.at, out);
        self.announce_turn(now.at, out);
    }
}

/// What a viewer of game time `t` is told of `timer`.
fn timer_event(timer: &Timer, t: Millis) -> Event {
    Event::Timer {
        name: timer.name,
        ms: timer.due.map_or(0, |due| due.saturating_sub(t)),
        text: Cow::Borrowed(timer.text),
    }
}

/// Tells `seat` alone.
fn tell(out: &mut Vec<Delivery>, seat: usize, event: Event) {
    out.push(Delivery {
        to: Who::Seat(seat),
        event,
    });
}
