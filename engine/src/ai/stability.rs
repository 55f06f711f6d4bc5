//! Stable discs: discs that can never be flipped again. Used by the solver
//! to bound scores (a side's stable discs are its minimum final count).

use crate::rules::bitboard::{CORNERS, NOT_A, NOT_H};

/// The squares from which `2^k` steps of (`dx`, `dy`) leave the board,
/// for k = 0, 1, 2 (1, 2 and 4 steps).
const fn line_ends(dx: i32, dy: i32) -> [u64; 3] {
    let mut ends = [0u64; 3];
    let mut k = 0;
    while k < 3 {
        let steps = 1 << k;
        let mut sq = 0;
        while sq < 64 {
            let (x, y) = (sq % 8 + dx * steps, sq / 8 + dy * steps);
            if x < 0 || x > 7 || y < 0 || y > 7 {
                ends[k] |= 1 << sq;
            }
            sq += 1;
        }
        k += 1;
    }
    ends
}

/// The squares of `occupied` whose whole line along one axis is occupied:
/// the line is full from the square to the board's edge both ways, each
/// way found by doubling (1, 2, then 4 steps). `shift` is one step along
/// the axis in bit indices, `ahead` and `behind` the `line_ends` of the
/// step forwards and backwards.
#[inline(always)]
fn full_along(occupied: u64, shift: u32, ahead: &[u64; 3], behind: &[u64; 3]) -> u64 {
    let (mut forward, mut backward) = (occupied, occupied);
    for k in 0..3 {
        let s = shift << k;
        forward &= (forward >> s) | ahead[k];
        backward &= (backward << s) | behind[k];
    }
    forward & backward
}

/// Squares on fully occupied lines, per axis: horizontal, vertical, and
/// the two diagonals (a1-h8 direction, then h1-a8).
#[inline]
fn full_lines(occupied: u64) -> [u64; 4] {
    const H: ([u64; 3], [u64; 3]) = (line_ends(1, 0), line_ends(-1, 0));
    const V: ([u64; 3], [u64; 3]) = (line_ends(0, 1), line_ends(0, -1));
    const D1: ([u64; 3], [u64; 3]) = (line_ends(1, 1), line_ends(-1, -1));
    const D2: ([u64; 3], [u64; 3]) = (line_ends(-1, 1), line_ends(1, -1));
    [
        full_along(occupied, 1, &H.0, &H.1),
        full_along(occupied, 8, &V.0, &V.1),
        full_along(occupied, 9, &D1.0, &D1.1),
        full_along(occupied, 7, &D2.0, &D2.1),
    ]
}

/// A subset of `me`'s stable discs (never overestimates): grown from the
/// board's edges and full lines — a disc is stable when, along each of the
/// four axes, its line is full or one neighbour is the edge or a stable disc
/// of the same colour.
pub(crate) fn stable(me: u64, them: u64) -> u64 {
    const EDGE_H: u64 = !(NOT_A & NOT_H);
    const EDGE_V: u64 = 0xff00_0000_0000_00ff;
    const BORDER: u64 = EDGE_H | EDGE_V;
    let [fh, fv, fd1, fd2] = full_lines(me | them);
    // Start from squares stable by full lines or corners.
    let mut s = me
        & ((fh | EDGE_H) & (fv | EDGE_V) & (fd1 | BORDER) & (fd2 | BORDER))
        & (fh & fv & fd1 & fd2 | CORNERS);
    loop {
        let h = fh | EDGE_H | ((s << 1) & NOT_A) | ((s >> 1) & NOT_H);
        let v = fv | EDGE_V | (s << 8) | (s >> 8);
        // a1-h8 direction (shift 9) and h1-a8 direction (shift 7).
        let d1 = fd1 | BORDER | ((s << 9) & NOT_A) | ((s >> 9) & NOT_H);
        let d2 = fd2 | BORDER | ((s << 7) & NOT_H) | ((s >> 7) & NOT_A);
        let next = s | (me & h & v & d1 & d2);
        if next == s {
            return s;
        }
        s = next;
    }
}

/// The stability cutoff of a null-window search: the opponent (owning
/// `o`) keeps its stable discs, which caps the final score of the side
/// owning `p`. `Some(cap)` when that cap is at most `alpha`, so the node
/// fails low without a search. Stability is costly to compute: it is
/// computed only for a winning `alpha` and when the opponent has enough
/// discs for the cap to reach it.
#[inline]
pub(crate) fn stability_cutoff(p: u64, o: u64, alpha: i32) -> Option<i32> {
    if alpha < 0 || alpha < 64 - 2 * o.count_ones() as i32 {
        return None;
    }
    let cap = 64 - 2 * stable(o, p).count_ones() as i32;
    (cap <= alpha).then_some(cap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    // Over random games: no move ever flips a disc reported stable, and
    // once stable a disc stays reported stable.
    proptest! {
        #[test]
        fn stable_discs_never_flip(seed in any::<u64>()) {
            let mut g = crate::Game::new();
            let mut x = seed | 1;
            let mut stable_black = 0u64;
            let mut stable_white = 0u64;
            while g.side_to_move().is_some() {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                let moves: Vec<_> = g.legal_moves().collect();
                let m = g.play(moves[(x % moves.len() as u64) as usize]).unwrap();
                prop_assert_eq!(m.flipped & (stable_black | stable_white), 0);
                let (b, w) = (g.discs(crate::Side::Black), g.discs(crate::Side::White));
                let (sb, sw) = (stable(b, w), stable(w, b));
                prop_assert_eq!(sb & !b, 0);
                prop_assert_eq!(sw & !w, 0);
                // Once stable, always stable.
                prop_assert_eq!(stable_black & !sb, 0);
                prop_assert_eq!(stable_white & !sw, 0);
                stable_black = sb;
                stable_white = sw;
            }
        }
    }

    /// Full lines by walking each line square by square.
    fn full_lines_slowly(occupied: u64) -> [u64; 4] {
        let mut out = [0u64; 4];
        for (axis, (dx, dy)) in [(1, 0), (0, 1), (1, 1), (-1, 1)].into_iter().enumerate() {
            for sq in 0..64i32 {
                let mut line = 1u64 << sq;
                for dir in [1, -1] {
                    let (mut x, mut y) = (sq % 8, sq / 8);
                    loop {
                        (x, y) = (x + dir * dx, y + dir * dy);
                        if !(0..8).contains(&x) || !(0..8).contains(&y) {
                            break;
                        }
                        line |= 1 << (y * 8 + x);
                    }
                }
                if occupied & line == line {
                    out[axis] |= 1 << sq;
                }
            }
        }
        out
    }

    proptest! {
        #[test]
        fn full_lines_match_a_square_by_square_walk(a in any::<u64>(), b in any::<u64>()) {
            // Dense boards, so that some lines are full.
            let occupied = a | b;
            prop_assert_eq!(full_lines(occupied), full_lines_slowly(occupied));
            prop_assert_eq!(full_lines(u64::MAX), [u64::MAX; 4]);
        }
    }

    #[test]
    fn corner_and_full_board() {
        assert_eq!(stable(1, 2), 1);
        assert_eq!(stable(u64::MAX, 0), u64::MAX);
        assert_eq!(stable(0x0000_0008_1000_0000, 0x0000_0010_0800_0000), 0);
    }
}
