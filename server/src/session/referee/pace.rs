//! How a game is paced, chosen once from the game's facts: the one place where
//! turn-based and real-time games differ.
//!
//! Turn-based: one seat moves at a time (team mates in rotation), everyone is
//! told whose turn it is, and a move clock runs. Real time: whoever the game
//! allows may act; each is told READY once each time it becomes allowed.

use std::time::Instant;

use reversi_games::{Game, Millis, Team};

use super::table::{Table, Who};
use super::{Delivery, Rules};
use crate::protocols::Event;

pub(super) enum Pace {
    Turns(Turns),
    RealTime(RealTime),
}

pub(super) struct Turns {
    /// Per team: which of its seats moves next.
    next_member: Vec<usize>,
    /// The move clock's deadline.
    clock: Option<Instant>,
}

pub(super) struct RealTime {
    /// Per seat: told READY and not acted since (READY is edge-triggered).
    told: Vec<bool>,
}

impl Pace {
    pub fn new(realtime: bool, table: &Table) -> Pace {
        if realtime {
            Pace::RealTime(RealTime {
                told: vec![false; table.seats.len()],
            })
        } else {
            Pace::Turns(Turns {
                next_member: vec![0; table.teams()],
                clock: None,
            })
        }
    }

    /// A new game of a rematch: the first member of each team moves first, no one is told.
    pub fn reset(&mut self, table: &Table) {
        *self = Pace::new(matches!(self, Pace::RealTime(_)), table);
    }

    /// The seat whose move it is (turn-based games only).
    pub fn mover(&self, table: &Table, game: &dyn Game) -> Option<usize> {
        let Pace::Turns(turns) = self else {
            return None;
        };
        let team = game.turn()?;
        let members = table.members(team).count().max(1);
        table
            .members(team)
            .nth(turns.next_member[usize::from(team.0)] % members)
    }

    /// The move clock's deadline, if one runs.
    pub fn clock(&self) -> Option<Instant> {
        match self {
            Pace::Turns(turns) => turns.clock,
            Pace::RealTime(_) => None,
        }
    }

    pub fn stop_clock(&mut self) {
        if let Pace::Turns(turns) = self {
            turns.clock = None;
        }
    }

    /// After a change: who may act now. `now` is the instant, `t` the game's time.
    pub fn announce(
        &mut self,
        table: &Table,
        game: &dyn Game,
        rules: &Rules,
        (now, t): (Instant, Millis),
        out: &mut Vec<Delivery>,
    ) {
        let mover = self.mover(table, game);
        match self {
            Pace::Turns(turns) => turns.announce(table, game, rules, mover, now, out),
            Pace::RealTime(realtime) => realtime.announce(table, game, t, out),
        }
    }

    /// The seat tries an action: in real time, READY is owed again once it may act.
    pub fn acting(&mut self, seat: usize) {
        if let Pace::RealTime(realtime) = self {
            realtime.told[seat] = false;
        }
    }

    /// `seat`, of `team`, made a move it was the mover for: its team mate moves next.
    pub fn moved(&mut self, table: &Table, team: Team) {
        if let Pace::Turns(turns) = self {
            let members = table.members(team).count().max(1);
            let next = &mut turns.next_member[usize::from(team.0)];
            *next = (*next + 1) % members;
        }
    }

    /// After a refusal, or time passing with nothing else to do. Turn-based: nothing
    /// (a refused mover is told it is still its move). Real time: the attempt may have
    /// started a cooldown, or one may have ended: READY to whoever may act now.
    pub fn recheck(
        &mut self,
        table: &Table,
        game: &dyn Game,
        rules: &Rules,
        now: (Instant, Millis),
        out: &mut Vec<Delivery>,
    ) {
        if let Pace::RealTime(_) = self {
            self.announce(table, game, rules, now, out);
        }
    }
}

impl Turns {
    /// Whose turn and the time it has to everyone, READY to the mover, and the move
    /// clock (the shorter first move clock for a seat that has not moved yet).
    fn announce(
        &mut self,
        table: &Table,
        game: &dyn Game,
        rules: &Rules,
        mover: Option<usize>,
        now: Instant,
        out: &mut Vec<Delivery>,
    ) {
        let Some(team) = game.turn() else {
            return;
        };
        let mut limit = rules.move_timeout;
        if mover.is_some_and(|seat| !table.seats[seat].moved) {
            limit = [limit, rules.first_move_timeout]
                .into_iter()
                .flatten()
                .min();
        }
        self.clock = limit.map(|limit| now + limit);
        table.tell_everyone(out, |_| Some(Event::Turn(team)));
        if let Some(limit) = limit {
            let ms = limit.as_millis() as Millis;
            table.tell_everyone(out, |_| Some(Event::Clock { team, ms }));
        }
        if let Some(seat) = mover {
            out.push(Delivery {
                to: Who::Seat(seat),
                event: Event::Ready,
            });
        }
    }
}

impl RealTime {
    /// READY to each seat that may act now and has not been told since it last acted.
    fn announce(&mut self, table: &Table, game: &dyn Game, t: Millis, out: &mut Vec<Delivery>) {
        for (s, seat) in table.seats.iter().enumerate() {
            if !seat.gone && !self.told[s] && game.may_move(seat.team, t) {
                self.told[s] = true;
                out.push(Delivery {
                    to: Who::Seat(s),
                    event: Event::Ready,
                });
            }
        }
    }
}
