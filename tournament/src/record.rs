//! What a tournament remembers of its rounds: every game (who sat first, who second, how it ended)
//! and every bye. Pairing, standings and crosstables are all computed from this history.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A player's index in the tournament's list of entrants: its pairing number minus one.
pub type Seat = usize;

/// The side a player takes in a game. Games name their sides differently (black/white at Reversi,
/// white/black at draughts and chess): "first" is the side that moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Side {
    First,
    Second,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }
}

/// A score in half points, so that sums stay exact (1 for a draw, 2 for a win).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Points(pub u32);

impl Points {
    pub const LOSS: Points = Points(0);
    pub const DRAW: Points = Points(1);
    pub const WIN: Points = Points(2);

    /// The score as a number of points (a draw is 0.5).
    pub fn as_f64(self) -> f64 {
        f64::from(self.0) / 2.0
    }
}

impl std::ops::Add for Points {
    type Output = Points;
    fn add(self, other: Points) -> Points {
        Points(self.0 + other.0)
    }
}

impl std::iter::Sum for Points {
    fn sum<I: Iterator<Item = Points>>(iter: I) -> Points {
        iter.fold(Points::LOSS, |a, b| a + b)
    }
}

impl fmt::Display for Points {
    /// `3`, `3.5`: the way crosstables print scores.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_multiple_of(2) {
            write!(f, "{}", self.0 / 2)
        } else {
            write!(f, "{}.5", self.0 / 2)
        }
    }
}

/// How a game ended. A forfeit is a game that was not played (a player absent, or withdrawn).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    FirstWins,
    SecondWins,
    Draw,
    /// The first player lost without playing; the second scores a win.
    FirstForfeits,
    /// The second player lost without playing; the first scores a win.
    SecondForfeits,
    /// Neither played: both score nothing.
    BothForfeit,
}

impl Outcome {
    /// What the player on `side` scored.
    pub fn points_of(self, side: Side) -> Points {
        let (first, second) = match self {
            Outcome::FirstWins | Outcome::SecondForfeits => (Points::WIN, Points::LOSS),
            Outcome::SecondWins | Outcome::FirstForfeits => (Points::LOSS, Points::WIN),
            Outcome::Draw => (Points::DRAW, Points::DRAW),
            Outcome::BothForfeit => (Points::LOSS, Points::LOSS),
        };
        match side {
            Side::First => first,
            Side::Second => second,
        }
    }

    /// Whether the game was played over the board (forfeits were not).
    pub fn played(self) -> bool {
        matches!(
            self,
            Outcome::FirstWins | Outcome::SecondWins | Outcome::Draw
        )
    }

    /// The forfeit that makes the player on `side` lose without playing.
    pub fn forfeit_by(side: Side) -> Outcome {
        match side {
            Side::First => Outcome::FirstForfeits,
            Side::Second => Outcome::SecondForfeits,
        }
    }
}

/// One game of the tournament; `outcome` is `None` while it is being played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub round: u32,
    pub board: u32,
    pub first: Seat,
    pub second: Seat,
    pub outcome: Option<Outcome>,
}

impl GameRecord {
    /// The side `seat` played in this game, if it played in it.
    pub fn side_of(&self, seat: Seat) -> Option<Side> {
        if self.first == seat {
            Some(Side::First)
        } else if self.second == seat {
            Some(Side::Second)
        } else {
            None
        }
    }

    pub fn opponent_of(&self, seat: Seat) -> Option<Seat> {
        self.side_of(seat).map(|side| match side {
            Side::First => self.second,
            Side::Second => self.first,
        })
    }
}

/// A round a player sat out, with the points it was given for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ByeRecord {
    pub round: u32,
    pub seat: Seat,
    pub points: Points,
}

/// What a bye is worth (FIDE C.04.1: a win, unless the tournament's regulations say otherwise).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ByeScore {
    #[default]
    Win,
    Draw,
    Loss,
}

impl ByeScore {
    pub fn points(self) -> Points {
        match self {
            ByeScore::Win => Points::WIN,
            ByeScore::Draw => Points::DRAW,
            ByeScore::Loss => Points::LOSS,
        }
    }
}

/// Every game and bye so far, in the order they were paired.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    pub games: Vec<GameRecord>,
    pub byes: Vec<ByeRecord>,
}

impl History {
    /// The games `seat` took part in, in round order.
    pub fn games_of(&self, seat: Seat) -> impl Iterator<Item = &GameRecord> {
        self.games.iter().filter(move |g| g.side_of(seat).is_some())
    }

    /// The points `seat` has scored in finished games and byes.
    pub fn points_of(&self, seat: Seat) -> Points {
        let games: Points = self
            .games_of(seat)
            .filter_map(|g| Some(g.outcome?.points_of(g.side_of(seat)?)))
            .sum();
        let byes: Points = self
            .byes
            .iter()
            .filter(|b| b.seat == seat)
            .map(|b| b.points)
            .sum();
        games + byes
    }

    /// Whether the two have already been paired against each other (played or forfeited).
    pub fn have_met(&self, a: Seat, b: Seat) -> bool {
        self.games
            .iter()
            .any(|g| g.side_of(a).is_some() && g.side_of(b).is_some())
    }

    /// The sides `seat` played in games actually played, oldest first: the colour history of
    /// FIDE C.04.3 A.6, which ignores byes and forfeits.
    pub fn sides_played(&self, seat: Seat) -> Vec<Side> {
        self.games_of(seat)
            .filter(|g| g.outcome.is_some_and(Outcome::played))
            .filter_map(|g| g.side_of(seat))
            .collect()
    }

    /// Whether `seat` has had a bye or a forfeit win. Such a player may not get the
    /// pairing-allocated bye again (FIDE C.04.1).
    pub fn had_bye_or_forfeit_win(&self, seat: Seat) -> bool {
        let bye = self.byes.iter().any(|b| b.seat == seat);
        let forfeit_win = self.games_of(seat).any(|g| {
            let won_unplayed = |side| {
                g.outcome
                    .is_some_and(|o: Outcome| !o.played() && o.points_of(side) == Points::WIN)
            };
            g.side_of(seat).is_some_and(won_unplayed)
        });
        bye || forfeit_win
    }

    /// Whether every game of `round` has a result.
    pub fn round_complete(&self, round: u32) -> bool {
        self.games
            .iter()
            .filter(|g| g.round == round)
            .all(|g| g.outcome.is_some())
    }
}
