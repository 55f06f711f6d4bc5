//! The solver's last few plies: a plain alpha-beta over the empty squares,
//! no table and no move generation. Squares in regions (quadrants) holding
//! an odd number of empties are tried first (parity: whoever moves last in
//! a region tends to keep it), X-squares last; the last one, two and three
//! empties have code of their own. From four empties a node first tries
//! the stability cutoff, as the solver's nodes above do.
//!
//! Defined by a macro so the AVX2 copy carries `#[target_feature]` itself
//! and the move-generator calls inline into it (these few plies are most of
//! the solver's nodes).

use crate::ai::ordering::Best;
use crate::ai::stability::stability_cutoff;
use crate::rules::bitboard::neighbours;
use crate::rules::moves::{Kernel, Portable};
use crate::Board;

/// The lowest alpha at which a node of four to six empties tries the
/// stability cutoff: in positions won by a few discs it cuts up to a third
/// of the solver's nodes (FFO #45, #49, #50), but near a draw it rarely
/// succeeds and its cost shows (FFO #53, -2: 2% fewer nodes, 11% more
/// time when tried from alpha 0; no change from 4).
const STABILITY_ALPHA: i32 = 4;

/// Quadrants of the board, each 4x4.
const QUADRANTS: [u64; 4] = [
    0x0000_0000_0f0f_0f0f,
    0x0000_0000_f0f0_f0f0,
    0x0f0f_0f0f_0000_0000,
    0xf0f0_f0f0_0000_0000,
];

/// X-squares (b2, g2, b7, g7): next to a corner diagonally, they are
/// rarely good moves, so tried last.
const X_SQUARES: u64 = 0x0042_0000_0000_4200;

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

/// The empties in the order the search tries them: odd quadrants first,
/// X-squares last within each half.
#[inline(always)]
fn ordered(empties: u64) -> [u64; 4] {
    let odd = odd_quadrants(empties);
    let even = empties & !odd;
    [
        odd & !X_SQUARES,
        odd & X_SQUARES,
        even & !X_SQUARES,
        even & X_SQUARES,
    ]
}

/// Exact search of positions with few empties.
pub(crate) trait Endgame: Kernel {
    /// Exact fail-soft value for `p` within `alpha..beta` of a position
    /// whose empty squares are `empties` (at least one); `passed` when the
    /// previous ply was a pass. Adds the positions visited to `nodes`.
    #[allow(clippy::too_many_arguments)]
    fn shallow(
        self,
        p: u64,
        o: u64,
        alpha: i32,
        beta: i32,
        empties: u64,
        passed: bool,
        nodes: &mut u64,
    ) -> i32;
}

macro_rules! define_shallow {
    ($(#[$attr:meta])* mod $name:ident uses $flips:path) => {
        mod $name {
            use super::*;

            /// Exact score with one empty square, `sq`, left.
            $(#[$attr])*
            #[inline]
            fn last(p: u64, o: u64, sq: u32, nodes: &mut u64) -> i32 {
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
            fn two(p: u64, o: u64, alpha: i32, beta: i32, a: u32, b: u32, passed: bool, nodes: &mut u64) -> i32 {
                *nodes += 1;
                let mut best = -65;
                let f = $flips(p, o, a);
                if f != 0 {
                    best = -last(o ^ f, p | f | 1 << a, b, nodes);
                    if best >= beta {
                        return best;
                    }
                }
                let f = $flips(p, o, b);
                if f != 0 {
                    best = best.max(-last(o ^ f, p | f | 1 << b, a, nodes));
                }
                if best > -65 {
                    return best;
                }
                if passed {
                    return -final_score(o, p);
                }
                -two(o, p, -beta, -alpha, a, b, true, nodes)
            }

            /// Exact value for `p` with three empty squares, tried in the
            /// order given.
            $(#[$attr])*
            #[inline]
            #[allow(clippy::too_many_arguments)]
            fn three(p: u64, o: u64, alpha: i32, beta: i32, sq: [u32; 3], passed: bool, nodes: &mut u64) -> i32 {
                *nodes += 1;
                let mut best = Best::new(-65, 0, alpha, beta);
                for (i, (a, b)) in [(sq[1], sq[2]), (sq[0], sq[2]), (sq[0], sq[1])].into_iter().enumerate() {
                    let s = sq[i];
                    let f = $flips(p, o, s);
                    if f == 0 {
                        continue;
                    }
                    let v = -two(o ^ f, p | f | 1 << s, -beta, -best.alpha, a, b, false, nodes);
                    if best.offer(v, 0) {
                        return v;
                    }
                }
                if best.value > -65 {
                    return best.value;
                }
                if passed {
                    return -final_score(o, p);
                }
                -three(o, p, -beta, -alpha, sq, true, nodes)
            }

            /// See [`Endgame::shallow`].
            $(#[$attr])*
            #[allow(clippy::too_many_arguments)]
            pub(super) fn shallow(p: u64, o: u64, alpha: i32, beta: i32, empties: u64, passed: bool, nodes: &mut u64) -> i32 {
                match empties.count_ones() {
                    0 => return final_score(p, o),
                    1 => return last(p, o, empties.trailing_zeros(), nodes),
                    2 => {
                        let a = empties.trailing_zeros();
                        let b = (empties & (empties - 1)).trailing_zeros();
                        return two(p, o, alpha, beta, a, b, passed, nodes);
                    }
                    3 => {
                        let mut sq = [0; 3];
                        let mut i = 0;
                        for mut set in ordered(empties) {
                            while set != 0 {
                                sq[i] = set.trailing_zeros();
                                set &= set - 1;
                                i += 1;
                            }
                        }
                        return three(p, o, alpha, beta, sq, passed, nodes);
                    }
                    _ => {}
                }
                *nodes += 1;
                if alpha >= STABILITY_ALPHA {
                    if let Some(cap) = stability_cutoff(p, o, alpha) {
                        return cap;
                    }
                }
                let mut best = Best::new(-65, 0, alpha, beta);
                // Only squares next to an opponent disc can flip anything.
                let near = empties & neighbours(o);
                for set in ordered(empties) {
                    let mut rest = set & near;
                    while rest != 0 {
                        let sq = rest.trailing_zeros();
                        rest &= rest - 1;
                        let f = $flips(p, o, sq);
                        if f == 0 {
                            continue;
                        }
                        let (cp, co) = (o ^ f, p | f | 1 << sq);
                        let v = -shallow(cp, co, -beta, -best.alpha, empties & !(1 << sq), false, nodes);
                        if best.offer(v, 0) {
                            return v;
                        }
                    }
                }
                if best.value > -65 {
                    return best.value;
                }
                // No move: pass, or the game is over if the opponent cannot
                // move either.
                if passed {
                    return -final_score(o, p);
                }
                -shallow(o, p, -beta, -alpha, empties, true, nodes)
            }
        }
    };
}

define_shallow!(mod portable uses crate::rules::moves::portable::flips);

#[cfg(target_arch = "x86_64")]
define_shallow!(
    #[target_feature(enable = "avx2,popcnt,bmi1")]
    mod avx2 uses crate::rules::moves::avx2::flips
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
        passed: bool,
        nodes: &mut u64,
    ) -> i32 {
        portable::shallow(p, o, alpha, beta, empties, passed, nodes)
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
        passed: bool,
        nodes: &mut u64,
    ) -> i32 {
        // SAFETY: an `Avx2` value exists only once AVX2, POPCNT and BMI1
        // were detected.
        unsafe { avx2::shallow(p, o, alpha, beta, empties, passed, nodes) }
    }
}
