//! Stable discs: discs that can never be flipped again. Used by the solver
//! to bound scores (a side's stable discs are its minimum final count).

use std::sync::OnceLock;

use crate::rules::bitboard::{CORNERS, NOT_A, NOT_H};

/// All 30 diagonal lines of length >= 2... and the short ones too: every
/// line in the two diagonal directions, so "full diagonal" is a mask test.
fn diagonals() -> &'static [u64; 30] {
    static LINES: OnceLock<[u64; 30]> = OnceLock::new();
    LINES.get_or_init(|| {
        let mut lines = [0u64; 30];
        for sq in 0..64i32 {
            let (x, y) = (sq % 8, sq / 8);
            // x - y ranges -7..=7, x + y ranges 0..=14.
            lines[(x - y + 7) as usize] |= 1 << sq;
            lines[15 + (x + y) as usize] |= 1 << sq;
        }
        lines
    })
}

/// Squares on fully occupied lines, per axis: horizontal, vertical, and
/// the two diagonals.
#[inline]
fn full_lines(occupied: u64) -> [u64; 4] {
    let mut h = 0;
    for r in 0..8 {
        if (occupied >> (8 * r)) & 0xff == 0xff {
            h |= 0xff << (8 * r);
        }
    }
    let mut c = occupied;
    c &= c >> 32;
    c &= c >> 16;
    c &= c >> 8;
    let v = (c & 0xff).wrapping_mul(0x0101_0101_0101_0101);
    let (mut d1, mut d2) = (0, 0);
    let lines = diagonals();
    for &l in &lines[..15] {
        if occupied & l == l {
            d1 |= l;
        }
    }
    for &l in &lines[15..] {
        if occupied & l == l {
            d2 |= l;
        }
    }
    [h, v, d1, d2]
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

    #[test]
    fn corner_and_full_board() {
        assert_eq!(stable(1, 2), 1);
        assert_eq!(stable(u64::MAX, 0), u64::MAX);
        assert_eq!(stable(0x0000_0008_1000_0000, 0x0000_0010_0800_0000), 0);
    }
}
