//! What an organiser chooses when creating a tournament.

use serde::{Deserialize, Serialize};

use crate::record::{ByeScore, Side};
use crate::round_robin;
use crate::standings::TieBreak;

/// How players are paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Format {
    /// Everyone meets everyone once per cycle (1 or 2 cycles), by the Berger tables.
    RoundRobin { double: bool },
    /// A fixed number of rounds paired by the Dutch system.
    Swiss { rounds: u32 },
}

impl Format {
    /// The number of rounds for `players` entrants.
    pub fn rounds(self, players: usize) -> u32 {
        match self {
            Format::RoundRobin { double } => {
                round_robin::rounds(players, if double { 2 } else { 1 })
            }
            Format::Swiss { rounds } => rounds,
        }
    }

    /// The tie-breaks standings are ranked by, in order.
    pub fn tie_breaks(self) -> Vec<TieBreak> {
        match self {
            Format::RoundRobin { .. } => vec![TieBreak::SonnebornBerger],
            Format::Swiss { .. } => vec![
                TieBreak::BuchholzCut1,
                TieBreak::Buchholz,
                TieBreak::BuchholzMedian1,
            ],
        }
    }
}

/// When the tournament starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Start {
    /// When the organiser says so.
    ByHand,
    /// At this time (seconds since the Unix epoch), told by a `Tick`.
    At { unix_seconds: u64 },
}

/// A tournament's fixed settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    pub name: String,
    /// The game module's name, as the server knows it.
    pub game: String,
    pub format: Format,
    /// One time control for every game, in the form the server's terms parse.
    pub time_control: String,
    pub start: Start,
    pub rated: bool,
    /// What a Swiss bye is worth. A round-robin's rest round is worth nothing: every player has
    /// the same number of them.
    pub bye_score: ByeScore,
    /// The side pairing number 1 takes in a Swiss's first round (drawn by lot, C.04.3 E.5).
    pub initial_side: Side,
}

impl Settings {
    /// Settings with a bye worth a win and pairing number 1 moving first in round 1.
    pub fn new(
        name: &str,
        game: &str,
        format: Format,
        time_control: &str,
        start: Start,
        rated: bool,
    ) -> Settings {
        Settings {
            name: name.to_string(),
            game: game.to_string(),
            format,
            time_control: time_control.to_string(),
            start,
            rated,
            bye_score: ByeScore::Win,
            initial_side: Side::First,
        }
    }
}
