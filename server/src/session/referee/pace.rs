//! How a game is paced, chosen once from the game's facts: the one place where
//! turn-based and real-time games differ.
//!
//! Turn-based: one seat moves at a time (team mates in rotation); the referee
//! tells whose turn it is and runs the game clock (clock.rs). Real time: whoever the game
//! allows may act; each is told READY once each time it becomes allowed.

use reversi_games::{Game, Millis, Team};

use super::table::{Table, Who};
use super::Delivery;
use crate::protocols::Event;

pub(super) enum Pace {
    Turns(Turns),
    RealTime(RealTime),
}

pub(super) struct Turns {
    /// Per team: which of its seats moves next.
    next_member: Vec<usize>,
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

    pub fn is_turn_based(&self) -> bool {
        matches!(self, Pace::Turns(_))
    }

    /// After a change, in real time: READY to whoever may act now (`t`: the game's
    /// time). Turn-based games are announced by the referee, with their clocks.
    pub fn announce(&mut self, table: &Table, game: &dyn Game, t: Millis, out: &mut Vec<Delivery>) {
        if let Pace::RealTime(realtime) = self {
            realtime.announce(table, game, t, out);
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
    pub fn recheck(&mut self, table: &Table, game: &dyn Game, t: Millis, out: &mut Vec<Delivery>) {
        self.announce(table, game, t, out);
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
