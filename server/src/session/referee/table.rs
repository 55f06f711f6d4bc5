//! Who is at the table: the seats, in the order they joined, with their teams
//! and whether they are still there; and the viewers, who only watch.

use reversi_games::{Team, Viewer};

use super::Delivery;
use crate::protocols::{Event, TeamPlayer};
use crate::session::players;
use crate::terms::SeatPlayer;

/// Who is at the table. As the address of a [`Delivery`], `Viewer` is every viewer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Who {
    /// A player, numbered in the order the players joined.
    Seat(usize),
    Viewer,
}

pub(super) struct Seat {
    pub peer: String,
    /// Who plays in it (anonymous until the session says).
    pub player: SeatPlayer,
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
                player: SeatPlayer::Anonymous,
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

    /// The players of each team, `a+b` for team mates, for the record: names where
    /// they have them, else addresses ([`players::recorded`]).
    pub fn players(&self) -> Vec<String> {
        self.each_team(players::recorded)
    }

    /// The players of each team as the log names them ([`players::listed`]).
    pub fn logged(&self) -> Vec<String> {
        self.each_team(players::listed)
    }

    /// Each team's seats, written by `name` and joined by `+`.
    fn each_team(&self, name: fn(&SeatPlayer, &str) -> String) -> Vec<String> {
        (0..self.teams as u8)
            .map(|t| {
                let seats: Vec<String> = self
                    .seats
                    .iter()
                    .filter(|s| s.team == Team(t))
                    .map(|s| name(&s.player, &s.peer))
                    .collect();
                seats.join("+")
            })
            .collect()
    }

    /// Who plays, for `GAME PLAYER`: team by team, team mates in seat order.
    pub fn shown(&self) -> Vec<TeamPlayer> {
        (0..self.teams as u8)
            .flat_map(|t| {
                let seats = self.seats.iter().filter(move |s| s.team == Team(t));
                seats.map(move |s| TeamPlayer {
                    team: Team(t),
                    player: s.player.clone(),
                })
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
