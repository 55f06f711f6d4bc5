//! Colour (side) preferences and the allocation of sides, as the FIDE Dutch system defines them
//! (C.04.3, article A.6 for preferences and the colour allocation rules E.1–E.5), with "white"
//! read as the side that moves first.

use crate::record::Side;

/// How much a player wants a side: FIDE's absolute, strong and mild preferences.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Strength {
    None,
    Mild,
    Strong,
    Absolute,
}

/// The side a player would like next, and how much.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preference {
    pub side: Option<Side>,
    pub strength: Strength,
    /// Games as first minus games as second.
    pub difference: i32,
}

impl Preference {
    /// The preference after the sides played so far, oldest first (C.04.3 A.6).
    pub fn from_history(sides: &[Side]) -> Preference {
        let difference: i32 = sides
            .iter()
            .map(|s| if *s == Side::First { 1 } else { -1 })
            .sum();
        let last = sides.last().copied();
        let last_two_same = sides.len() >= 2 && sides[sides.len() - 1] == sides[sides.len() - 2];
        let (side, strength) = match last {
            None => (None, Strength::None),
            Some(_) if difference > 1 => (Some(Side::Second), Strength::Absolute),
            Some(_) if difference < -1 => (Some(Side::First), Strength::Absolute),
            Some(last) if last_two_same => (Some(last.other()), Strength::Absolute),
            Some(_) if difference == 1 => (Some(Side::Second), Strength::Strong),
            Some(_) if difference == -1 => (Some(Side::First), Strength::Strong),
            Some(last) => (Some(last.other()), Strength::Mild),
        };
        Preference {
            side,
            strength,
            difference,
        }
    }

    /// Whether two players may meet at all: not if both must have the same side (C.04.3 C.3),
    /// which is what keeps every colour difference within ±2 and no side three times running.
    pub fn compatible(&self, other: &Preference) -> bool {
        !(self.strength == Strength::Absolute
            && other.strength == Strength::Absolute
            && self.side == other.side)
    }

    /// Whether pairing the two leaves one of them without the side it prefers.
    pub fn clashes(&self, other: &Preference) -> bool {
        self.side.is_some() && self.side == other.side
    }
}

/// One player of a pair, as colour allocation needs it.
pub struct Candidate<'a> {
    pub sides: &'a [Side],
    /// Its rank in the pairing order (0 is the highest ranked).
    pub rank: usize,
    /// Its pairing number, 1-based.
    pub pairing_number: usize,
}

/// The side `a` gets against `b` (b gets the other), by C.04.3's colour allocation rules:
/// E.1 both preferences, E.2 the stronger preference, E.3 alternate from the most recent round
/// in which they had different sides, E.4 the higher ranked player's preference, E.5 the higher
/// ranked player gets `initial` if its pairing number is odd, the other side if it is even.
pub fn allocate(a: &Candidate, b: &Candidate, initial: Side) -> Side {
    let pa = Preference::from_history(a.sides);
    let pb = Preference::from_history(b.sides);
    if let (Some(sa), Some(sb)) = (pa.side, pb.side) {
        if sa != sb {
            return sa; // E.1
        }
    }
    if pa.strength != pb.strength {
        // E.2: the stronger preference wins (a missing one is the weakest).
        return if pa.strength > pb.strength {
            pa.side.unwrap_or(Side::First)
        } else {
            pb.side.map(Side::other).unwrap_or(Side::First)
        };
    }
    if pa.strength == Strength::Absolute && pa.difference.abs() != pb.difference.abs() {
        // E.2 between two absolute preferences: the wider colour difference wins.
        let side = pa.side.unwrap_or(Side::First);
        return if pa.difference.abs() > pb.difference.abs() {
            side
        } else {
            side.other()
        };
    }
    if let Some(side) = alternate_from_last_difference(a.sides, b.sides) {
        return side; // E.3
    }
    let (higher, higher_pref, a_is_higher) = if a.rank < b.rank {
        (a, pa, true)
    } else {
        (b, pb, false)
    };
    let higher_side = higher_pref
        .side
        .unwrap_or(if higher.pairing_number % 2 == 1 {
            initial // E.5
        } else {
            initial.other()
        }); // E.4 when it has a preference
    if a_is_higher {
        higher_side
    } else {
        higher_side.other()
    }
}

/// E.3: going back through both histories together, the first round in which the two had
/// different sides; `a` gets the side `b` had then.
fn alternate_from_last_difference(a: &[Side], b: &[Side]) -> Option<Side> {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .find(|(x, y)| x != y)
        .map(|(_, y)| *y)
}
