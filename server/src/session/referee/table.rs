//! Who is at the table: the seats, in the order they joined, with their teams
//! and whether they are still there; and the viewers, who only watch.

use reversi_games::{Team, Viewer};

use super::Delivery;
use crate::protocols::Event;

/// Who is at the table. As the address of a [`Delivery`], `Viewer` is every viewer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Who {
    /// A player, numbered in the order the players joined.
    Seat(usize),
    Viewer,
}

pub(super) struct Seat {
    pub peer: String,
    pub team: Team,
    /// It has made a move in this game (until then its clock is the first-move one).
    pub moved: bool,
    /// Closed or left: never told anything again.
    pub gone: bool,
}

pub(super) struct Table {
    pub seats: Vec<Seat>,
    teams: usize,
}

impl Table {
    /// `first_team_seat` gets the first team; the others follow in the order they joined.
    pub fn new(peers: Vec<String>, first_team_seat: usize, teams: usize) -> Table {
        let seats = peers
            .into_iter()
            .enumerate()
            .map(|(i, peer)| Seat {
                peer,
                team: Team(((i + teams - first_team_seat % teams) % teams) as u8),
                moved: false,
                gone: false,
            })
            .collect();
        Table { seats, teams }
    }

    pub fn teams(&self) -> usize {
        self.teams
    }

    /// The seats of `team` still at the table.
    pub fn members(&self, team: Team) -> impl Iterator<Item = usize> + '_ {
        (0..self.seats.len()).filter(move |&s| self.seats[s].team == team && !self.seats[s].gone)
    }

    /// A rematch: every seat plays the next team, and has not moved yet.
    pub fn turn_round(&mut self) {
        for seat in &mut self.seats {
            seat.team = Team(((usize::from(seat.team.0) + 1) % self.teams) as u8);
            seat.moved = false;
        }
    }

    /// The players of each team, `a+b` for team mates, for the record.
    pub fn players(&self) -> Vec<String> {
        (0..self.teams as u8)
            .map(|t| {
                let peers: Vec<&str> = self
                    .seats
                    .iter()
                    .filter(|s| s.team == Team(t))
                    .map(|s| s.peer.as_str())
                    .collect();
                peers.join("+")
            })
            .collect()
    }

    /// Tells every seat still here, then the viewers, what `make` says for the way each
    /// sees the board (`None`: nothing for that one).
    pub fn tell_everyone(&self, out: &mut Vec<Delivery>, make: impl Fn(Viewer) -> Option<Event>) {
        for (s, seat) in self.seats.iter().enumerate() {
            if seat.gone {
                continue;
            }
            if let Some(event) = make(Viewer::Team(seat.team)) {
                out.push(Delivery {
                    to: Who::Seat(s),
                    event,
                });
            }
        }
        if let Some(event) = make(Viewer::Spectator) {
            out.push(Delivery {
                to: Who::Viewer,
                event,
            });
        }
    }
}
