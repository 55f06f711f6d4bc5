//! The side-to-move-relative board: two bitboards.

use crate::moves;
use crate::{Square, Squares};

/// A position as two bitboards relative to the side to move: `player` holds
/// the discs of the side to move, `opponent` the other side's. Which colour is
/// which is not recorded here (see [`crate::Game`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Board {
    /// Discs of the side to move.
    pub player: u64,
    /// Discs of the other side.
    pub opponent: u64,
}

/// Corners a1, h1, a8, h8.
pub const CORNERS: u64 = 0x8100_0000_0000_0081;

/// Every square but column a: where a disc shifted one column right
/// (towards h) may land without wrapping to the next row.
pub(crate) const NOT_A: u64 = 0xfefe_fefe_fefe_fefe;
/// Every square but column h.
pub(crate) const NOT_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// Squares adjacent (in any of the eight directions) to a disc of `b`,
/// excluding `b` itself.
#[inline]
pub(crate) fn neighbours(b: u64) -> u64 {
    let h = b | ((b << 1) & NOT_A) | ((b >> 1) & NOT_H);
    (h | (h << 8) | (h >> 8)) & !b
}

impl Board {
    /// A board from the two bitboards (they should not overlap).
    pub const fn new(player: u64, opponent: u64) -> Board {
        Board { player, opponent }
    }

    /// The initial position with black to move: black on e4 and d5, white on
    /// d4 and e5.
    pub const fn start() -> Board {
        let black = (1 << 28) | (1 << 35); // e4, d5
        let white = (1 << 27) | (1 << 36); // d4, e5
        Board::new(black, white)
    }

    /// Empty squares.
    pub const fn empties(&self) -> u64 {
        !(self.player | self.opponent)
    }

    /// Number of empty squares.
    pub const fn empty_count(&self) -> u32 {
        self.empties().count_ones()
    }

    /// Legal moves of the side to move, as a bitboard.
    #[inline]
    pub fn moves(&self) -> u64 {
        moves::moves(self.player, self.opponent)
    }

    /// Legal moves of the side to move, as squares in index order.
    pub fn legal_squares(&self) -> Squares {
        Squares(self.moves())
    }

    /// Discs flipped if the side to move plays `sq`; 0 when `sq` is occupied
    /// or flips nothing (that is, exactly when the move is illegal).
    #[inline]
    pub fn flips(&self, sq: Square) -> u64 {
        moves::flips(self.player, self.opponent, sq.index() as u32)
    }

    /// Whether the side to move may play `sq`.
    pub fn is_legal(&self, sq: Square) -> bool {
        self.flips(sq) != 0
    }

    /// The board after the side to move plays `sq`, seen from the other side.
    /// `sq` should be legal. If it is not, nothing panics but the result is
    /// not a position of the game: on an empty square that flips nothing the
    /// disc is placed anyway, and on an occupied square the discs stay as
    /// they are (only the side to move changes, like [`Board::pass`]). Use
    /// [`Board::try_play`] to have illegal moves refused.
    #[inline]
    pub fn play(&self, sq: Square) -> Board {
        if self.empties() & sq.bit() == 0 {
            return self.pass();
        }
        self.play_flips(sq.bit(), self.flips(sq))
    }

    /// The board after `sq`, or `None` if `sq` is not a legal move.
    pub fn try_play(&self, sq: Square) -> Option<Board> {
        let f = self.flips(sq);
        (f != 0).then(|| self.play_flips(sq.bit(), f))
    }

    /// Applies a move given its square bit and flipped discs, swapping sides.
    #[inline(always)]
    pub const fn play_flips(&self, sq_bit: u64, flipped: u64) -> Board {
        Board {
            player: self.opponent ^ flipped,
            opponent: self.player | flipped | sq_bit,
        }
    }

    /// The same position with the other side to move.
    #[inline(always)]
    pub const fn pass(&self) -> Board {
        Board {
            player: self.opponent,
            opponent: self.player,
        }
    }

    /// True when neither side has a legal move.
    pub fn is_game_over(&self) -> bool {
        self.moves() == 0 && self.pass().moves() == 0
    }

    /// Final score for the side to move by the FFO convention: disc
    /// difference, with the empty squares given to the winner.
    pub const fn final_score(&self) -> i32 {
        let p = self.player.count_ones() as i32;
        let o = self.opponent.count_ones() as i32;
        let e = 64 - p - o;
        if p > o {
            p - o + e
        } else if p < o {
            p - o - e
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_moves() {
        let names: Vec<String> = Board::start()
            .legal_squares()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(names, ["d3", "c4", "f5", "e6"]);
    }

    #[test]
    fn play_flips_and_swaps() {
        let b = Board::start();
        let d3: Square = "d3".parse().unwrap();
        let after = b.play(d3);
        assert_eq!(after.opponent.count_ones(), 4);
        assert_eq!(after.player.count_ones(), 1);
        assert_eq!(b.try_play("a1".parse().unwrap()), None);
        assert_eq!(b.try_play("d4".parse().unwrap()), None);
        assert_eq!(b.play("d4".parse().unwrap()), b.pass());
    }

    #[test]
    fn final_score_gives_empties_to_winner() {
        assert_eq!(Board::new(0b111, 0b1).final_score(), 62);
        assert_eq!(Board::new(0b1, 0b111).final_score(), -62);
        assert_eq!(Board::new(0b1, 0b10).final_score(), 0);
    }
}
