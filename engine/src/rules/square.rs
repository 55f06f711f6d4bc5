//! Squares and sides: the two small value types every other module uses.

use std::fmt;
use std::str::FromStr;

/// One of the 64 squares. Index `y * 8 + x`, where `x` is the column
/// (`a`..`h` = 0..7) and `y` the row (`1`..`8` = 0..7); so a1 is 0, h1 is 7
/// and a8 is 56. The bit of a square in a bitboard is `1 << index`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Square(pub(crate) u8);

impl Square {
    /// The square in column `x` and row `y`, or `None` if either is 8 or more.
    pub const fn new(x: u8, y: u8) -> Option<Square> {
        if x < 8 && y < 8 {
            Some(Square(y * 8 + x))
        } else {
            None
        }
    }

    /// The square with bit index `i`, or `None` if `i >= 64`.
    pub const fn from_index(i: u8) -> Option<Square> {
        if i < 64 {
            Some(Square(i))
        } else {
            None
        }
    }

    /// The lowest set bit of a non-empty bitboard as a square, `None` for 0.
    pub const fn from_lowest_bit(bits: u64) -> Option<Square> {
        if bits == 0 {
            None
        } else {
            Some(Square(bits.trailing_zeros() as u8))
        }
    }

    /// Column, 0 (`a`) to 7 (`h`).
    pub const fn x(self) -> u8 {
        self.0 & 7
    }

    /// Row, 0 (`1`) to 7 (`8`).
    pub const fn y(self) -> u8 {
        self.0 >> 3
    }

    /// Bit index, 0..64.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The single-bit bitboard of this square.
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }

    /// All 64 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let col = (b'a' + self.x()) as char;
        let row = (b'1' + self.y()) as char;
        write!(f, "{col}{row}")
    }
}

/// Why a square name did not parse.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParseSquareError {
    text: String,
}

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a square name (expected a column a-h then a row 1-8, e.g. \"d3\")",
            self.text
        )
    }
}

impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Parses `a1`..`h8`, either case.
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let err = || ParseSquareError { text: s.to_owned() };
        match s.as_bytes() {
            [c, r] => {
                let x = c.to_ascii_lowercase().wrapping_sub(b'a');
                let y = r.wrapping_sub(b'1');
                Square::new(x, y).ok_or_else(err)
            }
            _ => Err(err()),
        }
    }
}

/// Iterator over the squares of a bitboard, lowest index first. `Copy`, so it
/// can be handed out freely without borrowing anything.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Squares(pub u64);

impl Iterator for Squares {
    type Item = Square;

    fn next(&mut self) -> Option<Square> {
        let sq = Square::from_lowest_bit(self.0)?;
        self.0 &= self.0 - 1;
        Some(sq)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

/// A player: black moves first.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Side {
    /// The first player (`X` in board strings).
    Black,
    /// The second player (`O` in board strings).
    White,
}

impl Side {
    /// The other side.
    pub const fn opponent(self) -> Side {
        match self {
            Side::Black => Side::White,
            Side::White => Side::Black,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Black => "black",
            Side::White => "white",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for sq in Square::all() {
            let name = sq.to_string();
            assert_eq!(name.parse::<Square>().unwrap(), sq);
            assert_eq!(name.to_uppercase().parse::<Square>().unwrap(), sq);
        }
        assert_eq!(Square::new(0, 0).unwrap().to_string(), "a1");
        assert_eq!(Square::new(7, 0).unwrap().index(), 7);
        assert_eq!("a8".parse::<Square>().unwrap().index(), 56);
        assert_eq!("D3".parse::<Square>().unwrap(), Square::new(3, 2).unwrap());
    }

    #[test]
    fn bad_names_are_errors() {
        for bad in ["", "a", "a9", "i1", "a0", "d33", "3d", "é1", "\u{0}\u{0}"] {
            let e = bad.parse::<Square>().unwrap_err();
            assert!(e.to_string().contains("not a square"));
        }
        assert_eq!(Square::new(8, 0), None);
        assert_eq!(Square::from_index(64), None);
    }

    #[test]
    fn squares_iterates_bits() {
        let v: Vec<u8> = Squares(0x8000_0000_0000_0101).map(Square::index).collect();
        assert_eq!(v, [0, 8, 63]);
        assert_eq!(Side::Black.opponent(), Side::White);
        assert_eq!(Side::White.to_string(), "white");
    }
}
