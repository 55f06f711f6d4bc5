//! Board squares: the validated [`Square`] and the raw coordinates a place PDU carries.

use core::fmt;
use core::str::FromStr;

/// A square on the 8x8 board: column `x` 0..7 (`a`..`h`), row `y` 0..7 (`1`..`8`).
///
/// `a1` is (0, 0) and `d3` is (3, 2). A `Square` is always on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    x: u8,
    y: u8,
}

impl Square {
    /// The square at column `x`, row `y`, or `None` when either is outside 0..7.
    pub const fn new(x: u8, y: u8) -> Option<Square> {
        if x < 8 && y < 8 {
            Some(Square { x, y })
        } else {
            None
        }
    }

    /// The square with wire coordinates (`x`, `y`), or `None` when off the board.
    pub const fn from_wire(x: i16, y: i16) -> Option<Square> {
        if 0 <= x && x < 8 && 0 <= y && y < 8 {
            Some(Square {
                x: x as u8,
                y: y as u8,
            })
        } else {
            None
        }
    }

    /// The square named by the low bytes of a pair the decoder has checked
    /// (both in 0..7); masking keeps the invariant without a branch.
    pub(crate) const fn from_checked_wire(x: u8, y: u8) -> Square {
        Square { x: x & 7, y: y & 7 }
    }

    /// The square with index `y * 8 + x` (`a1` = 0, `h1` = 7, `a8` = 56).
    pub const fn from_index(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square {
                x: index % 8,
                y: index / 8,
            })
        } else {
            None
        }
    }

    /// The column, 0..7.
    pub const fn x(self) -> u8 {
        self.x
    }

    /// The row, 0..7.
    pub const fn y(self) -> u8 {
        self.y
    }

    /// `y * 8 + x`, 0..63.
    pub const fn index(self) -> u8 {
        self.y * 8 + self.x
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.x) as char, self.y + 1)
    }
}

/// Why a square name did not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseSquareError;

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a square is a column a-h then a row 1-8, such as d3")
    }
}

impl core::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Parses `d3` or `D3`.
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        match s.as_bytes() {
            &[col, row] => {
                let x = col.to_ascii_lowercase().wrapping_sub(b'a');
                let y = row.wrapping_sub(b'1');
                Square::new(x, y).ok_or(ParseSquareError)
            }
            _ => Err(ParseSquareError),
        }
    }
}

/// The coordinates a place PDU carries: any `i16` pair.
///
/// Whether they name a square, and whether the move is legal, is the game's
/// business (it answers place_error), not the codec's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Place {
    /// Column; on the board when 0..7.
    pub x: i16,
    /// Row; on the board when 0..7.
    pub y: i16,
}

impl Place {
    /// The square these coordinates name, or `None` when off the board.
    pub const fn square(self) -> Option<Square> {
        Square::from_wire(self.x, self.y)
    }
}

impl From<Square> for Place {
    fn from(square: Square) -> Place {
        Place {
            x: square.x as i16,
            y: square.y as i16,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_coordinates_agree() {
        let d3: Square = "d3".parse().unwrap();
        assert_eq!((d3.x(), d3.y()), (3, 2));
        assert_eq!("D3".parse::<Square>(), Ok(d3));
        assert_eq!(Square::new(0, 0).unwrap().index(), 0);
        assert_eq!(Square::from_index(56), Square::new(0, 7));
        for i in 0..64 {
            let sq = Square::from_index(i).unwrap();
            let mut text = [0u8; 2];
            text[0] = b'a' + sq.x();
            text[1] = b'1' + sq.y();
            assert_eq!(core::str::from_utf8(&text).unwrap().parse(), Ok(sq));
        }
    }

    #[test]
    fn bad_names_are_refused() {
        for bad in ["", "d", "d9", "i1", "d0", "3d", "d33", "é1", " d3"] {
            assert_eq!(bad.parse::<Square>(), Err(ParseSquareError), "{bad:?}");
        }
    }

    #[test]
    fn off_board_coordinates_have_no_square() {
        assert_eq!(Square::new(8, 0), None);
        assert_eq!(Square::from_index(64), None);
        assert_eq!(Place { x: -1, y: 0 }.square(), None);
        assert_eq!(Place { x: 7, y: 8 }.square(), None);
        assert_eq!(Place { x: 7, y: 7 }.square(), Square::new(7, 7));
    }
}
