//! The two values the protocol's `player` field carries: a disc colour, and a result.

use core::fmt;

/// A player's colour, as carried by connect_ok and update_board.
///
/// The wire values are the seed's Player enum: WHITE = 1, BLACK = 2
/// (EMPTY = 0 never names a player; it only appears in winner as a draw).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Colour {
    /// Wire value 1.
    White,
    /// Wire value 2. Black moves first.
    Black,
}

impl Colour {
    /// The colour's value in a `player` field.
    pub const fn to_wire(self) -> i16 {
        match self {
            Colour::White => 1,
            Colour::Black => 2,
        }
    }

    /// The colour a `player` field names, or `None` for any other value.
    pub const fn from_wire(value: i16) -> Option<Colour> {
        match value {
            1 => Some(Colour::White),
            2 => Some(Colour::Black),
            _ => None,
        }
    }

    /// The other colour.
    pub const fn opponent(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
        }
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Colour::White => "white",
            Colour::Black => "black",
        })
    }
}

/// The result a winner PDU announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Winner {
    /// Wire value 0: both colours hold as many discs.
    Draw,
    /// Wire value 1.
    White,
    /// Wire value 2.
    Black,
}

impl Winner {
    /// The result's value in winner's `player` field.
    pub const fn to_wire(self) -> i16 {
        match self {
            Winner::Draw => 0,
            Winner::White => 1,
            Winner::Black => 2,
        }
    }

    /// The result a `player` field names, or `None` for any other value.
    pub const fn from_wire(value: i16) -> Option<Winner> {
        match value {
            0 => Some(Winner::Draw),
            1 => Some(Winner::White),
            2 => Some(Winner::Black),
            _ => None,
        }
    }

    /// The winning colour, or `None` for a draw.
    pub const fn colour(self) -> Option<Colour> {
        match self {
            Winner::Draw => None,
            Winner::White => Some(Colour::White),
            Winner::Black => Some(Colour::Black),
        }
    }
}

impl From<Colour> for Winner {
    fn from(colour: Colour) -> Winner {
        match colour {
            Colour::White => Winner::White,
            Colour::Black => Winner::Black,
        }
    }
}

impl fmt::Display for Winner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.colour() {
            Some(colour) => write!(f, "{colour} wins"),
            None => f.write_str("draw"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_values_are_the_seeds_player_enum() {
        assert_eq!(Colour::White.to_wire(), 1);
        assert_eq!(Colour::Black.to_wire(), 2);
        assert_eq!(Winner::Draw.to_wire(), 0);
        for v in [-1, 0, 3, i16::MIN, i16::MAX] {
            assert_eq!(Colour::from_wire(v), None, "{v}");
        }
        assert_eq!(Winner::from_wire(3), None);
        assert_eq!(Winner::from_wire(-1), None);
    }

    #[test]
    fn opponent_and_winner_conversions() {
        assert_eq!(Colour::White.opponent(), Colour::Black);
        assert_eq!(Winner::from(Colour::Black).colour(), Some(Colour::Black));
        assert_eq!(Winner::Draw.colour(), None);
    }
}
