//! Standings: points, then tie-breaks as the FIDE Tie-Break Regulations (Handbook C.07) define
//! them: Sonneborn-Berger (article 9.1) for round-robins; Buchholz (article 8.1) with the Cut-1
//! and Median-1 modifiers (article 14) for Swiss tournaments. Unplayed rounds (article 16) are
//! simplified, as the crate's documentation says.

use serde::{Deserialize, Serialize};

use crate::record::{History, Outcome, Points, Seat};

/// A tie-break a tournament ranks tied players by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TieBreak {
    SonnebornBerger,
    Buchholz,
    BuchholzCut1,
    BuchholzMedian1,
}

impl TieBreak {
    /// The abbreviation C.07 uses, for column headers.
    pub fn label(self) -> &'static str {
        match self {
            TieBreak::SonnebornBerger => "SB",
            TieBreak::Buchholz => "BH",
            TieBreak::BuchholzCut1 => "BH-C1",
            TieBreak::BuchholzMedian1 => "BH-M1",
        }
    }

    /// The tie-break's value for `seat`, in points (quarter points can occur in SB).
    pub fn value(self, seat: Seat, history: &History) -> f64 {
        match self {
            TieBreak::SonnebornBerger => sonneborn_berger(seat, history),
            TieBreak::Buchholz => buchholz_contributions(seat, history).iter().sum(),
            TieBreak::BuchholzCut1 => cut(buchholz_contributions(seat, history), 1, 0),
            TieBreak::BuchholzMedian1 => cut(buchholz_contributions(seat, history), 1, 1),
        }
    }
}

/// SB: the scores of the opponents a player beat, plus half the scores of those it drew with.
/// Forfeits and byes add nothing (the game was not played).
fn sonneborn_berger(seat: Seat, history: &History) -> f64 {
    history
        .games_of(seat)
        .filter_map(|g| {
            let outcome = g.outcome.filter(|o| o.played())?;
            let opponent = history.points_of(g.opponent_of(seat)?).as_f64();
            let scored = outcome.points_of(g.side_of(seat)?).as_f64();
            Some(opponent * scored)
        })
        .sum()
}

/// One value per finished round of `seat`: the opponent's score for a game played, the player's
/// own score for a round it did not play (a bye or a forfeit: the "dummy opponent" of C.07 16.4,
/// without its cap).
fn buchholz_contributions(seat: Seat, history: &History) -> Vec<f64> {
    let own = history.points_of(seat).as_f64();
    let games = history.games_of(seat).filter_map(|g| {
        let outcome: Outcome = g.outcome?;
        Some(if outcome.played() {
            history.points_of(g.opponent_of(seat)?).as_f64()
        } else {
            own
        })
    });
    let byes = history.byes.iter().filter(|b| b.seat == seat).map(|_| own);
    games.chain(byes).collect()
}

/// The sum without the `lowest` smallest and `highest` largest values.
fn cut(mut values: Vec<f64>, lowest: usize, highest: usize) -> f64 {
    values.sort_by(f64::total_cmp);
    let end = values.len().saturating_sub(highest);
    values
        .get(lowest.min(end)..end)
        .map_or(0.0, |kept| kept.iter().sum())
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    /// 1 for the leader; tied players that no tie-break separates share a rank.
    pub rank: usize,
    pub seat: Seat,
    pub points: Points,
    /// The values of the tournament's tie-breaks, in the order they apply.
    pub tie_breaks: Vec<f64>,
    pub played: u32,
}

/// The standings after the finished games of `history` among `players` seats: points, then each
/// tie-break in turn; players still equal share a rank and are listed by pairing number.
pub fn standings(players: usize, history: &History, tie_breaks: &[TieBreak]) -> Vec<Standing> {
    let mut lines: Vec<Standing> = (0..players)
        .map(|seat| Standing {
            rank: 0,
            seat,
            points: history.points_of(seat),
            tie_breaks: tie_breaks.iter().map(|t| t.value(seat, history)).collect(),
            played: history
                .games_of(seat)
                .filter(|g| g.outcome.is_some_and(Outcome::played))
                .count() as u32,
        })
        .collect();
    let order = |a: &Standing, b: &Standing| {
        b.points.cmp(&a.points).then_with(|| {
            let tb = a
                .tie_breaks
                .iter()
                .zip(&b.tie_breaks)
                .map(|(x, y)| y.total_cmp(x));
            tb.fold(std::cmp::Ordering::Equal, |acc, o| acc.then(o))
        })
    };
    lines.sort_by(|a, b| order(a, b).then(a.seat.cmp(&b.seat)));
    for i in 0..lines.len() {
        let shared = i > 0 && order(&lines[i - 1], &lines[i]).is_eq();
        lines[i].rank = if shared { lines[i - 1].rank } else { i + 1 };
    }
    lines
}
