//! The referee's side of the game clock: announcing each move with every clock
//! (`GAME TURN`, `GAME CLOCK`s, the first-move `GAME TIMER abort`, `READY`),
//! charging the mover, and the lag allowance's pings (TEXT-PROTOCOL.md §8).

use std::borrow::Cow;
use std::time::{Duration, Instant};

use reversi_games::Millis;

use super::table::Who;
use super::{tell, Delivery, Referee};
use crate::protocols::Event;
use crate::terms::TimeControl;

/// The name of the first-move countdown under Fischer.
const ABORT_TIMER: &str = "abort";

impl Referee {
    /// The control as `GAME TIME` tells it: a per-move limit with the first move's.
    pub(super) fn told_control(&self) -> TimeControl {
        match self.clock.control() {
            TimeControl::PerMove { limit, .. } => TimeControl::PerMove {
                limit,
                first: self
                    .rules
                    .first_move_timeout
                    .map_or(limit, |f| f.min(limit)),
            },
            control => control,
        }
    }

    /// What the clocks show at `now`, and the first-move countdown if it runs.
    pub(super) fn clock_events(&self, now: Instant) -> Vec<Event> {
        let mut told: Vec<Event> = (self.clock.shown(now).into_iter())
            .map(|(team, ms)| Event::Clock { team, ms })
            .collect();
        let first = self.pace.mover(&self.table, &*self.game);
        let first = first.filter(|&seat| !self.table.seats[seat].moved);
        if let (true, Some(seat), Some(run)) = (self.abort_told, first, self.clock.run()) {
            let left = run.flag_at().saturating_duration_since(now);
            told.push(self.abort_timer(seat, left));
        }
        told
    }

    /// A turn-based game's next move: whose turn and every clock to everyone (the
    /// mover's started with its lag credit), the first-move countdown, READY to the
    /// mover; then a ping to each seat now idle.
    pub(super) fn announce_move(&mut self, now: Instant, out: &mut Vec<Delivery>) {
        let Some(team) = self.game.turn() else {
            return;
        };
        let mover = self.pace.mover(&self.table, &*self.game);
        let first = mover.is_some_and(|seat| !self.table.seats[seat].moved);
        let credit = mover.map_or(Duration::ZERO, |seat| self.lag.credit(seat));
        self.clock.start(team, first, credit, now);
        self.table.tell_everyone(out, |_| Some(Event::Turn(team)));
        for (team, ms) in self.clock.shown(now) {
            self.table
                .tell_everyone(out, |_| Some(Event::Clock { team, ms }));
        }
        self.tell_abort_timer(mover, first, out);
        let Some(mover) = mover else {
            return;
        };
        tell(out, mover, Event::Ready);
        for seat in (0..self.table.seats.len()).filter(|&s| s != mover) {
            self.ping(seat, now, out);
        }
    }

    /// Under Fischer with a first-move limit: the countdown with the turn of a seat's
    /// first move, and its end once every seat has moved.
    fn tell_abort_timer(&mut self, mover: Option<usize>, first: bool, out: &mut Vec<Delivery>) {
        if !self.clock.is_fischer() || self.clock.first_move().is_none() {
            return;
        }
        match (mover, self.clock.run()) {
            (Some(seat), Some(run)) if first => {
                self.abort_told = true;
                let timer = self.abort_timer(seat, run.limit);
                self.table.tell_everyone(out, |_| Some(timer.clone()));
            }
            _ if self.abort_told && self.table.seats.iter().all(|s| s.moved || s.gone) => {
                self.abort_told = false;
                let timer = Event::Timer {
                    name: ABORT_TIMER,
                    ms: 0,
                    text: Cow::Borrowed("every side has moved"),
                };
                self.table.tell_everyone(out, |_| Some(timer.clone()));
            }
            _ => {}
        }
    }

    fn abort_timer(&self, seat: usize, left: Duration) -> Event {
        let name = self.info().team_name(self.team_of(seat));
        Event::Timer {
            name: ABORT_TIMER,
            ms: left.as_millis() as Millis,
            text: Cow::Owned(format!("the game is aborted unless {name} moves")),
        }
    }

    /// The mover acted: its clock is charged (the increment only for a move), and its
    /// lag quota pays the credit it used.
    pub(super) fn charge(&mut self, seat: usize, is_move: bool, now: Instant) {
        let credit = self.clock.run().map(|run| run.credit);
        if let (Some(credit), Some(took)) = (credit, self.clock.moved(is_move, now)) {
            self.lag.spent(seat, credit, took);
        }
    }

    /// A ping to `seat` if a clock runs and the lag allowance owes it one.
    pub(super) fn ping(&mut self, seat: usize, now: Instant, out: &mut Vec<Delivery>) {
        if self.clock.run().is_none() || self.table.seats[seat].gone {
            return;
        }
        if let Some(n) = self.lag.ping(seat, now) {
            out.push(Delivery {
                to: Who::Seat(seat),
                event: Event::Ping(n),
            });
        }
    }

    /// `lag <team>:<ms>` per team: the mean credit its moves used, for the log.
    pub(super) fn lag_summary(&self) -> String {
        let seats = 0..self.table.seats.len();
        let each: Vec<String> = seats
            .map(|seat| {
                let name = self.info().team_name(self.team_of(seat));
                format!("{name}:{}", self.lag.mean_credit(seat).as_millis())
            })
            .collect();
        each.join(" ")
    }
}
