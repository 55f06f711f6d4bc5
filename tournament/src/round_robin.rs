//! Round-robin schedules from the Berger tables (FIDE Handbook C.05, Annex 1).
//!
//! With an even number n of players, round 1 is `1-n, 2-(n-1), …`. Each next round adds n/2 to
//! every pairing number but n (counting 1..n-1 round and round), and player n changes side on
//! board 1 every round. With an odd number of players a dummy n+1 is added: whoever meets it rests.
//! A double round-robin plays the schedule again with the sides swapped; as C.05 Annex 1
//! recommends, the last two rounds of the first cycle are swapped, so that no one plays the same
//! side three times running across the cycles' seam.

use crate::record::{Seat, Side};

/// One round's games as (first, second) seats, board 1 first, and the seat that rests, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    pub games: Vec<(Seat, Seat)>,
    pub rests: Option<Seat>,
}

/// The Berger table for `players` players, as 1-based pairing numbers (first, second), board 1
/// first; with an odd number of players the dummy `players + 1` is left in, as the published
/// tables print it.
pub fn berger_table(players: usize) -> Vec<Vec<(usize, usize)>> {
    let n = players + players % 2;
    if n < 2 {
        return Vec::new();
    }
    let half = n / 2;
    let mut rounds = Vec::with_capacity(n - 1);
    // The pairs of round 1 before the sides of board 1 are decided: (i, n + 1 - i).
    let mut pairs: Vec<(usize, usize)> = (1..=half).map(|i| (i, n + 1 - i)).collect();
    for round in 0..n - 1 {
        let mut table = pairs.clone();
        if round % 2 == 1 {
            // Player n is second on board 1 in odd rounds (1, 3, …), first in even ones.
            let (a, b) = table[0];
            table[0] = (b, a);
        }
        rounds.push(table);
        pairs = pairs
            .iter()
            .map(|&(a, b)| (shift(a, half, n), shift(b, half, n)))
            .collect();
    }
    rounds
}

/// Adds `by` to a pairing number other than `n`, counting 1..n-1 round and round.
fn shift(number: usize, by: usize, n: usize) -> usize {
    if number == n {
        n
    } else {
        (number - 1 + by) % (n - 1) + 1
    }
}

/// The whole schedule for `players` players over `cycles` cycles (1 or 2), as seats.
pub fn schedule(players: usize, cycles: u8) -> Vec<Round> {
    let mut first_cycle: Vec<Round> = berger_table(players)
        .into_iter()
        .map(|table| to_round(&table, players, Side::First))
        .collect();
    if cycles < 2 {
        return first_cycle;
    }
    let second_cycle: Vec<Round> = berger_table(players)
        .into_iter()
        .map(|table| to_round(&table, players, Side::Second))
        .collect();
    let len = first_cycle.len();
    if len >= 2 {
        first_cycle.swap(len - 2, len - 1);
    }
    first_cycle.extend(second_cycle);
    first_cycle
}

/// The number of rounds a round-robin of `players` over `cycles` cycles takes.
pub fn rounds(players: usize, cycles: u8) -> u32 {
    let n = players + players % 2;
    (n.saturating_sub(1) * usize::from(cycles.max(1))) as u32
}

/// One table row as seats; `table_side` says who sits first: the table's first-named player
/// (`Side::First`) or, in the second cycle, its second-named.
fn to_round(table: &[(usize, usize)], players: usize, table_side: Side) -> Round {
    let mut games = Vec::new();
    let mut rests = None;
    for &(a, b) in table {
        if a > players {
            rests = Some(b - 1);
        } else if b > players {
            rests = Some(a - 1);
        } else {
            match table_side {
                Side::First => games.push((a - 1, b - 1)),
                Side::Second => games.push((b - 1, a - 1)),
            }
        }
    }
    Round { games, rests }
}
