//! Swiss pairings after the FIDE Dutch system (Handbook C.04.3), the parts this module follows
//! exactly and the parts it simplifies being listed in the crate's documentation.
//!
//! The pairing is a depth-first search: the highest ranked unpaired player is paired first, with
//! its opponents tried in the Dutch order (the S2 player facing it in its score bracket first,
//! opponents giving both their preferred sides before those that do not, then the rest of the
//! bracket, then lower brackets in ranking order). Only the absolute criteria are ever refused, and
//! the search backtracks until every player is paired, so a pairing is found whenever one exists.

use std::fmt;

use crate::colour::{allocate, Candidate, Preference};
use crate::record::{History, Points, Seat, Side};

/// A round's pairing: games as (first, second) in board order, and the player given the bye.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub games: Vec<(Seat, Seat)>,
    pub bye: Option<Seat>,
}

/// Why no pairing could be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PairingError {
    /// Every way of pairing the players would repeat a game, give a second bye, or give two
    /// players who must both have the same side that side.
    NoLegalPairing { players: usize },
    /// The search tried `SEARCH_BUDGET` partial pairings without finishing: it gives up rather
    /// than stall the server (only fields with very few legal pairings left get here).
    GaveUp { players: usize },
}

/// How many opponents the search may try for one round before giving up.
pub const SEARCH_BUDGET: u32 = 200_000;

impl fmt::Display for PairingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PairingError::NoLegalPairing { players } => write!(
                f,
                "no pairing of the {players} remaining players avoids a rematch, a second bye and a side forced on both players"
            ),
            PairingError::GaveUp { players } => write!(
                f,
                "no pairing of the {players} remaining players was found within {SEARCH_BUDGET} tries"
            ),
        }
    }
}

impl std::error::Error for PairingError {}

/// What the pairing needs to know of one player.
struct Entrant {
    seat: Seat,
    points: Points,
    preference: Preference,
    sides: Vec<Side>,
    /// Everyone it has been paired against.
    met: Vec<Seat>,
}

/// Pairs the `active` players (seats, pairing number order) for the next round. `initial` is
/// the side drawn by lot for pairing number 1 in round 1 (C.04.3 E.5).
pub fn pair(active: &[Seat], history: &History, initial: Side) -> Result<Pairing, PairingError> {
    pair_within(active, history, initial, SEARCH_BUDGET)
}

fn pair_within(
    active: &[Seat],
    history: &History,
    initial: Side,
    mut budget: u32,
) -> Result<Pairing, PairingError> {
    let ranked = ranking(active, history);
    if ranked.len().is_multiple_of(2) {
        let everyone: Vec<&Entrant> = ranked.iter().collect();
        let pairs = pair_refs(&everyone, &mut budget)?;
        return Ok(finish(pairs, None, &ranked, initial));
    }
    // The bye goes to the lowest ranked player who has not had one, if the rest can be paired.
    for (index, entrant) in ranked.iter().enumerate().rev() {
        if history.had_bye_or_forfeit_win(entrant.seat) {
            continue;
        }
        let rest: Vec<&Entrant> = ranked
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != index)
            .map(|(_, e)| e)
            .collect();
        match pair_refs(&rest, &mut budget) {
            Ok(pairs) => return Ok(finish(pairs, Some(entrant.seat), &ranked, initial)),
            Err(PairingError::NoLegalPairing { .. }) => continue,
            Err(gave_up) => return Err(gave_up),
        }
    }
    Err(PairingError::NoLegalPairing {
        players: ranked.len(),
    })
}

/// The players in pairing order: score, then pairing number (C.04.3 A.2).
fn ranking(active: &[Seat], history: &History) -> Vec<Entrant> {
    let mut ranked: Vec<Entrant> = active
        .iter()
        .map(|&seat| {
            let sides = history.sides_played(seat);
            Entrant {
                seat,
                points: history.points_of(seat),
                preference: Preference::from_history(&sides),
                sides,
                met: history
                    .games_of(seat)
                    .filter_map(|g| g.opponent_of(seat))
                    .collect(),
            }
        })
        .collect();
    ranked.sort_by(|a, b| b.points.cmp(&a.points).then(a.seat.cmp(&b.seat)));
    ranked
}

/// Pairs every player of `players` (in ranking order); pairs are returned as seats.
fn pair_refs(players: &[&Entrant], budget: &mut u32) -> Result<Vec<(Seat, Seat)>, PairingError> {
    let mut paired = vec![false; players.len()];
    let mut pairs = Vec::with_capacity(players.len() / 2);
    let count = players.len();
    match search(players, &mut paired, &mut pairs, budget) {
        Some(true) => Ok(pairs
            .into_iter()
            .map(|(a, b)| (players[a].seat, players[b].seat))
            .collect()),
        Some(false) => Err(PairingError::NoLegalPairing { players: count }),
        None => Err(PairingError::GaveUp { players: count }),
    }
}

/// Depth-first: pairs the highest ranked unpaired player with each allowed opponent in turn.
/// `Some(found)`, or `None` once the budget is spent.
fn search(
    players: &[&Entrant],
    paired: &mut [bool],
    pairs: &mut Vec<(usize, usize)>,
    budget: &mut u32,
) -> Option<bool> {
    let Some(top) = paired.iter().position(|p| !p) else {
        return Some(true);
    };
    paired[top] = true;
    for opponent in opponent_order(players, paired, top) {
        let (a, b) = (players[top], players[opponent]);
        if a.met.contains(&b.seat) || !a.preference.compatible(&b.preference) {
            continue;
        }
        *budget = budget.checked_sub(1)?;
        paired[opponent] = true;
        pairs.push((top, opponent));
        if search(players, paired, pairs, budget)? {
            return Some(true);
        }
        pairs.pop();
        paired[opponent] = false;
    }
    paired[top] = false;
    Some(false)
}

/// The order in which `top` tries its opponents (indices into `players`): within its score
/// bracket, S2 before S1 (C.04.3's S1[i] against S2[i], then transpositions and exchanges), and
/// those giving both players their preferred side first (the colour criteria outrank the order
/// of transpositions); then the lower brackets, highest score first.
fn opponent_order(players: &[&Entrant], paired: &[bool], top: usize) -> Vec<usize> {
    let score = players[top].points;
    let unpaired: Vec<usize> = (0..players.len()).filter(|&i| !paired[i]).collect();
    // The rest of `top`'s bracket, split as C.04.3 splits the whole: S1 is the upper half
    // (the smaller one when the bracket is odd), and `top` is its first player.
    let others: Vec<usize> = unpaired
        .iter()
        .copied()
        .filter(|&i| players[i].points == score)
        .collect();
    let bracket_len = others.len() + 1;
    let (s1_rest, s2) = others.split_at((bracket_len / 2).saturating_sub(1));
    let mut order: Vec<usize> = s2.iter().chain(s1_rest.iter().rev()).copied().collect();
    let lower = unpaired
        .iter()
        .copied()
        .filter(|&i| players[i].points < score);
    order.extend(lower);
    let pref = players[top].preference;
    // A stable sort keeps the Dutch order within each (score, colour) class.
    order.sort_by_key(|&i| {
        (
            std::cmp::Reverse(players[i].points),
            pref.clashes(&players[i].preference),
        )
    });
    order
}

/// Gives each pair its sides and orders the boards: higher score first, then the sum of the
/// scores, then the higher ranked player's rank (C.04.2's board order).
fn finish(
    pairs: Vec<(Seat, Seat)>,
    bye: Option<Seat>,
    ranked: &[Entrant],
    initial: Side,
) -> Pairing {
    let rank_of = |seat: Seat| {
        ranked
            .iter()
            .position(|e| e.seat == seat)
            .expect("every paired seat was ranked")
    };
    let candidate = |seat: Seat| {
        let rank = rank_of(seat);
        Candidate {
            sides: &ranked[rank].sides,
            rank,
            pairing_number: seat + 1,
        }
    };
    let mut games: Vec<(Seat, Seat)> = pairs
        .into_iter()
        .map(
            |(a, b)| match allocate(&candidate(a), &candidate(b), initial) {
                Side::First => (a, b),
                Side::Second => (b, a),
            },
        )
        .collect();
    games.sort_by_key(|&(a, b)| {
        let (pa, pb) = (ranked[rank_of(a)].points, ranked[rank_of(b)].points);
        (
            std::cmp::Reverse(pa.max(pb)),
            std::cmp::Reverse(pa + pb),
            rank_of(a).min(rank_of(b)),
        )
    });
    Pairing { games, bye }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{GameRecord, Outcome};

    /// Six players in two triangles: every pair across the triangles has met, so each player
    /// still has two possible opponents but no pairing of all six exists.
    fn two_triangles() -> History {
        let mut history = History::default();
        for round in 1..=3u32 {
            for i in 0..3usize {
                let j = 3 + (i + round as usize) % 3;
                let (first, second) = if round % 2 == 1 { (i, j) } else { (j, i) };
                let outcome = Some(Outcome::Draw);
                history.games.push(GameRecord {
                    round,
                    board: i as u32 + 1,
                    first,
                    second,
                    outcome,
                });
            }
        }
        history
    }

    #[test]
    fn an_unpairable_field_is_found_unpairable_within_the_budget() {
        let result = pair_within(&[0, 1, 2, 3, 4, 5], &two_triangles(), Side::First, 1000);
        assert_eq!(result, Err(PairingError::NoLegalPairing { players: 6 }));
    }

    #[test]
    fn the_search_gives_up_when_its_budget_is_spent() {
        let result = pair_within(&[0, 1, 2, 3, 4, 5], &two_triangles(), Side::First, 1);
        assert_eq!(result, Err(PairingError::GaveUp { players: 6 }));
    }
}
