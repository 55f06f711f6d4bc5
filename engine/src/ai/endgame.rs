//! The solver's last few plies: a plain alpha-beta over the empty squares
//! with quadrant-parity ordering, no table and no move generation.
//!
//! Defined by a macro so the AVX2 copy carries `#[target_feature]` itself
//! and the move-generator calls inline into it (these few plies are most of
//! the solver's nodes).

use crate::rules::bitboard::neighbours;
use crate::rules::moves::{Kernel, Portable};
use crate::Board;

/// Quadrants of the board; an empty square in a quadrant with an odd number
/// of empties is tried first (parity: take the last move in each region).
const QUADRANTS: [u64; 4] = [
    0x0000_0000_0f0f_0f0f,
    0x0000_0000_f0f0_f0f0,
    0x0f0f_0f0f_0000_0000,
    0xf0f0_f0f0_0000_0000,
];

/// Empties in quadrants holding an odd number of empties.
#[inline]
pub(crate) fn odd_quadrants(empties: u64) -> u64 {
    QUADRANTS
        .iter()
        .filter(|&&q| (empties & q).count_ones() & 1 == 1)
        .fold(0, |acc, &q| acc | q)
        & empties
}

/// Final score for the side owning `p` when nobody can move.
#[inline]
pub(crate) fn final_score(p: u64, o: u64) -> i32 {
    Board::new(p, o).final_score()
}

/// Exact search of positions with few empties.
pub(crate) trait Endgame: Kernel {
    /// Exact fail-soft value for `p` within `alpha..beta` of a position
    /// whose `n` empty squares are `empties`; `passed` when the previous ply
    /// was a pass. Adds the positions visited to `nodes`.
    #[allow(clippy::too_many_arguments)]
    fn shallow(
        self,
        p: u64,
        o: u64,
        alpha: i32,
        beta: i32,
        empties: u64,
        n: u32,
        passed: bool,
        nodes: &mut u64,
    ) -> i32;
}

macro_rules! define_shallow {
    ($(#[$attr:meta])* fn $shallow:ident, $two:ident, $last:ident uses $flips:path) => {
        /// Exact score with one empty square, `sq`, left.
        $(#[$attr])*
        #[inline]
        fn $last(p: u64, o: u64, sq: u32, nodes: &mut u64) -> i32 {
            *nodes += 1;
            let f = $flips(p, o, sq);
            if f != 0 {
                return 2 * ((p | f).count_ones() as i32 + 1) - 64;
            }
            let f = $flips(o, p, sq);
            if f != 0 {
                return 64 - 2 * ((o | f).count_ones() as i32 + 1);
            }
            final_score(p, o)
        }

        /// Exact value for `p` with two empty squares, `a` and `b`.
        $(#[$attr])*
        #[inline]
        #[allow(clippy::too_many_arguments)]
        fn $two(p: u64, o: u64, alpha: i32, beta: i32, a: u32, b: u32, passed: bool, nodes: &mut u64) -> i32 {
            *nodes += 1;
            let mut best = -65;
            let f = $flips(p, o, a);
            if f != 0 {
                best = -$last(o ^ f, p | f | 1 << a, b, nodes);
                if best >= beta {
                    return best;
                }
            }
            let f = $flips(p, o, b);
            if f != 0 {
                best = best.max(-$last(o ^ f, p | f | 1 << b, a, nodes));
            }
            if best > -65 {
                return best;
            }
            if passed {
                return -final_score(o, p);
            }
            -$two(o, p, -beta, -alpha, a, b, true, nodes)
        }

        /// See [`Endgame::shallow`].
        $(#[$attr])*
        #[allow(clippy::too_many_arguments)]
        fn $shallow(p: u64, o: u64, alpha: i32, beta: i32, empties: u64, n: u32, passed: bool, nodes: &mut u64) -> i32 {
            *nodes += 1;
            if n == 1 {
                return $last(p, o, empties.trailing_zeros(), nodes);
            }
            if n == 2 {
                *nodes -= 1;
                let a = empties.trailing_zeros();
                let b = (empties & (empties - 1)).trailing_zeros();
                return $two(p, o, alpha, beta, a, b, passed, nodes);
            }
            if n == 0 {
                return final_score(p, o);
            }
            let (mut alpha, mut best) = (alpha, -65);
            // Only squares next to an opponent disc can flip anything.
            let near = empties & neighbours(o);
            let odd = odd_quadrants(empties);
            for set in [odd & near, near & !odd] {
                let mut rest = set;
                while rest != 0 {
                    let sq = rest.trailing_zeros();
                    rest &= rest - 1;
                    let f = $flips(p, o, sq);
                    if f == 0 {
                        continue;
                    }
                    let (cp, co) = (o ^ f, p | f | 1 << sq);
                    let v = -$shallow(cp, co, -beta, -alpha, empties & !(1 << sq), n - 1, false, nodes);
                    if v > best {
                        best = v;
                        if v > alpha {
                            alpha = v;
                            if v >= beta {
                                return v;
                            }
                        }
                    }
                }
            }
            if best == -65 {
                // No move: pass, or the game is over if the opponent cannot
                // move either.
                if passed {
                    return -final_score(o, p);
                }
                return -$shallow(o, p, -beta, -alpha, empties, n, true, nodes);
            }
            best
        }
    };
}

define_shallow!(fn shallow_portable, two_portable, last_portable uses crate::rules::moves::portable::flips);

#[cfg(target_arch = "x86_64")]
define_shallow!(
    #[target_feature(enable = "avx2,popcnt,bmi1")]
    fn shallow_avx2, two_avx2, last_avx2 uses crate::rules::moves::avx2::flips
);

impl Endgame for Portable {
    #[inline]
    fn shallow(
        self,
        p: u64,
        o: u64,
        alpha: i32,
        beta: i32,
        empties: u64,
        n: u32,
        passed: bool,
        nodes: &mut u64,
    ) -> i32 {
        shallow_portable(p, o, alpha, beta, empties, n, passed, nodes)
    }
}

#[cfg(target_arch = "x86_64")]
impl Endgame for crate::rules::moves::Avx2 {
    #[inline]
    fn shallow(
        self,
        p: u64,
        o: u64,
        alpha: i32,
        beta: i32,
        empties: u64,
        n: u32,
        passed: bool,
        nodes: &mut u64,
    ) -> i32 {
        // SAFETY: an `Avx2` value exists only once AVX2, POPCNT and BMI1
        // were detected.
        unsafe { shallow_avx2(p, o, alpha, beta, empties, n, passed, nodes) }
    }
}
