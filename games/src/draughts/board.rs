//! Squares, colours and positions on a padded 64-bit layout.
//!
//! The 32 playable squares are numbered 1 to 32 as in standard notation:
//! square 1 is in Black's back row (the top of a diagram), numbers run left
//! to right as White sees the board, four to a row, so White's back row is
//! 29-32. Each square gets a bit: square index `i` (number - 1) in row
//! `r = i / 4` has bit `i + r / 2`. The unused bits 8, 17 and 26 ("ghost"
//! squares) make every diagonal step a shift by the same amount on every
//! row: +4 and +5 towards White's side, -4 and -5 towards Black's, and a
//! step off the board lands on a ghost or outside bits 0-34, never on a
//! playable square.

use std::fmt;

/// The number of playable squares.
pub const SQUARES: usize = 32;

/// The bit of square index `i` (0-based) in the padded layout.
pub(crate) const fn bit_of(i: usize) -> u8 {
    (i + i / 8) as u8
}

/// Every playable square's bit.
pub const VALID: u64 = {
    let mut mask = 0;
    let mut i = 0;
    while i < SQUARES {
        mask |= 1 << bit_of(i);
        i += 1;
    }
    mask
};

/// The square index of each bit, or `NONE` for ghosts and unused bits.
const INDEX_OF_BIT: [u8; 64] = {
    let mut table = [NONE; 64];
    let mut i = 0;
    while i < SQUARES {
        table[bit_of(i) as usize] = i as u8;
        i += 1;
    }
    table
};
const NONE: u8 = u8::MAX;

/// The squares of one row, 0 (squares 1-4) to 7 (29-32).
pub const fn row_mask(row: usize) -> u64 {
    let mut mask = 0;
    let mut c = 0;
    while c < 4 {
        mask |= 1 << bit_of(row * 4 + c);
        c += 1;
    }
    mask
}

/// One of the 32 playable squares.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

impl Square {
    /// The square numbered `number` (1 to 32).
    pub fn new(number: u32) -> Option<Square> {
        (1..=SQUARES as u32)
            .contains(&number)
            .then(|| Square((number - 1) as u8))
    }

    /// Every square, 1 to 32.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..SQUARES as u8).map(Square)
    }

    /// The standard number, 1 to 32.
    pub fn number(self) -> u8 {
        self.0 + 1
    }

    /// The index 0 to 31, for tables.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The bit position in the padded layout.
    pub fn bit_index(self) -> u8 {
        bit_of(self.index())
    }

    pub fn bit(self) -> u64 {
        1 << self.bit_index()
    }

    /// The square at a bit position, if it is a playable one.
    pub fn from_bit_index(bit: u32) -> Option<Square> {
        let index = *INDEX_OF_BIT.get(bit as usize)?;
        (index != NONE).then_some(Square(index))
    }

    /// The row counted from Black's back row (0, squares 1-4) to White's (7, squares 29-32).
    pub fn row(self) -> u8 {
        self.0 / 4
    }

    /// The column 0 to 7 from the left as White sees the board (`a` to `h`).
    pub fn column(self) -> u8 {
        // Even rows (1-4, 9-12, ...) use columns b, d, f, h; odd rows a, c, e, g.
        let even_row = self.row().is_multiple_of(2);
        2 * (self.0 % 4) + u8::from(even_row)
    }

    /// Diagonal steps a king needs from `self` to `other` on an empty board.
    pub fn distance(self, other: Square) -> u8 {
        self.row()
            .abs_diff(other.row())
            .max(self.column().abs_diff(other.column()))
    }

    /// The square at a row and column, if that is a dark square.
    pub fn at(row: u8, column: u8) -> Option<Square> {
        let dark = row < 8 && column < 8 && (row + column) % 2 == 1;
        dark.then(|| Square(row * 4 + column / 2))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// The squares of a bitboard, lowest first.
pub fn squares(mut bits: u64) -> impl Iterator<Item = Square> {
    std::iter::from_fn(move || {
        let bit = bits.trailing_zeros();
        (bits != 0).then(|| {
            bits &= bits - 1;
            Square(INDEX_OF_BIT[bit as usize])
        })
    })
}

/// A side. Black (the seed's red) starts on 1-12 and moves first.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    Black,
    White,
}

impl Color {
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// The shifts that move a man of this colour forward.
    pub fn forward(self) -> [i8; 2] {
        match self {
            Color::Black => [4, 5],
            Color::White => [-4, -5],
        }
    }

    /// How far `row` is from this colour's back row, 0 to 7.
    pub fn advance(self, row: usize) -> usize {
        match self {
            Color::Black => row,
            Color::White => 7 - row,
        }
    }

    /// The row where this colour's men are crowned.
    pub fn crown_row(self) -> u64 {
        match self {
            Color::Black => row_mask(7),
            Color::White => row_mask(0),
        }
    }

    /// The row this colour starts from (its king row's opposite).
    pub fn back_row(self) -> u64 {
        self.opponent().crown_row()
    }

    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

/// A man or a king.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Kind {
    Man,
    King,
}

/// A piece on a square.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Stone {
    pub color: Color,
    pub kind: Kind,
}

/// All four diagonal shifts.
pub const ALL_DIRECTIONS: [i8; 4] = [4, 5, -4, -5];

/// `bits` moved one diagonal step by `shift`; what leaves the board is dropped.
pub fn step(bits: u64, shift: i8) -> u64 {
    let moved = if shift > 0 {
        bits << shift
    } else {
        bits >> -shift
    };
    moved & VALID
}

/// The pieces on the board and the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    /// Each colour's pieces, men and kings, by [`Color::index`].
    pub(crate) pieces: [u64; 2],
    /// The kings of both colours.
    pub(crate) kings: u64,
    pub(crate) to_move: Color,
}

impl Default for Position {
    fn default() -> Position {
        Position::start()
    }
}

impl Position {
    /// Black on 1-12, White on 21-32, Black to move.
    pub fn start() -> Position {
        let range = |from: usize, to: usize| (from..=to).fold(0, |m, i| m | 1 << bit_of(i - 1));
        Position {
            pieces: [range(1, 12), range(21, 32)],
            kings: 0,
            to_move: Color::Black,
        }
    }

    /// An empty board with `to_move` to move, to place pieces on.
    pub fn empty(to_move: Color) -> Position {
        Position {
            pieces: [0, 0],
            kings: 0,
            to_move,
        }
    }

    /// Puts `stone` on `square` (replacing what was there).
    pub fn put(&mut self, square: Square, stone: Option<Stone>) {
        let bit = square.bit();
        self.pieces = self.pieces.map(|p| p & !bit);
        self.kings &= !bit;
        if let Some(stone) = stone {
            self.pieces[stone.color.index()] |= bit;
            if stone.kind == Kind::King {
                self.kings |= bit;
            }
        }
    }

    pub fn to_move(&self) -> Color {
        self.to_move
    }

    pub fn set_to_move(&mut self, color: Color) {
        self.to_move = color;
    }

    pub fn at(&self, square: Square) -> Option<Stone> {
        let bit = square.bit();
        let color = if self.pieces[0] & bit != 0 {
            Color::Black
        } else if self.pieces[1] & bit != 0 {
            Color::White
        } else {
            return None;
        };
        let kind = if self.kings & bit != 0 {
            Kind::King
        } else {
            Kind::Man
        };
        Some(Stone { color, kind })
    }

    /// `color`'s pieces, men and kings.
    pub fn pieces(&self, color: Color) -> u64 {
        self.pieces[color.index()]
    }

    pub fn men(&self, color: Color) -> u64 {
        self.pieces(color) & !self.kings
    }

    pub fn kings(&self, color: Color) -> u64 {
        self.pieces(color) & self.kings
    }

    pub fn empty_squares(&self) -> u64 {
        VALID & !(self.pieces[0] | self.pieces[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_has_32_squares_and_three_ghosts() {
        assert_eq!(VALID.count_ones(), 32);
        assert_eq!(64 - VALID.leading_zeros(), 35);
        for ghost in [8, 17, 26] {
            assert_eq!(VALID & 1 << ghost, 0);
        }
        for s in Square::all() {
            assert_eq!(Square::from_bit_index(s.bit_index().into()), Some(s));
            assert_eq!(Square::at(s.row(), s.column()), Some(s));
            assert_eq!(squares(s.bit()).collect::<Vec<_>>(), [s]);
        }
        assert_eq!(Square::new(0), None);
        assert_eq!(Square::new(33), None);
    }

    #[test]
    fn steps_follow_the_diagonals_and_stop_at_the_edges() {
        let sq = |n| Square::new(n).unwrap();
        // 11 (f6) steps towards White to 15 (e5) and 16 (g5); 12 (h6) only to 16.
        assert_eq!(step(sq(11).bit(), 4), sq(15).bit());
        assert_eq!(step(sq(11).bit(), 5), sq(16).bit());
        assert_eq!(step(sq(12).bit(), 5), 0);
        assert_eq!(step(sq(13).bit(), 4), 0);
        assert_eq!(step(sq(13).bit(), -4), sq(9).bit());
        assert_eq!(step(sq(1).bit(), -4) | step(sq(1).bit(), -5), 0);
        assert_eq!(step(sq(32).bit(), 4) | step(sq(32).bit(), 5), 0);
        // Every step changes the row by one and the column by one.
        for s in Square::all() {
            for d in ALL_DIRECTIONS {
                for t in squares(step(s.bit(), d)) {
                    assert_eq!(t.row().abs_diff(s.row()), 1, "{s} {d}");
                    assert_eq!(t.column().abs_diff(s.column()), 1, "{s} {d}");
                }
            }
        }
    }

    #[test]
    fn the_start_position_and_placing_stones() {
        let p = Position::start();
        assert_eq!(p.pieces(Color::Black).count_ones(), 12);
        assert_eq!(p.pieces(Color::White).count_ones(), 12);
        assert_eq!(p.empty_squares().count_ones(), 8);
        let s13 = Square::new(13).unwrap();
        assert_eq!(p.at(s13), None);
        let mut q = p;
        let king = Stone {
            color: Color::White,
            kind: Kind::King,
        };
        q.put(s13, Some(king));
        assert_eq!(q.at(s13), Some(king));
        q.put(s13, None);
        assert_eq!(q, p);
    }
}
