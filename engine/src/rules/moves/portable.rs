//! The portable move generator: plain `u64` shifts, works everywhere.

use super::INNER_COLUMNS;

/// Squares reachable from `from` by a run of `o` discs in the direction of
/// a left shift by `s`, plus the square just past the run.
#[inline(always)]
fn run_left(from: u64, o: u64, s: u32) -> u64 {
    let mut f = (from << s) & o;
    f |= (f << s) & o;
    let pairs = o & (o << s);
    f |= (f << (2 * s)) & pairs;
    f |= (f << (2 * s)) & pairs;
    f
}

/// Mirror image of [`run_left`].
#[inline(always)]
fn run_right(from: u64, o: u64, s: u32) -> u64 {
    let mut f = (from >> s) & o;
    f |= (f >> s) & o;
    let pairs = o & (o >> s);
    f |= (f >> (2 * s)) & pairs;
    f |= (f >> (2 * s)) & pairs;
    f
}

/// Legal moves for the side owning `p` against `o`, as a bitboard.
#[inline]
pub fn moves(p: u64, o: u64) -> u64 {
    let oi = o & INNER_COLUMNS;
    let mut m = run_left(p, oi, 1) << 1;
    m |= run_right(p, oi, 1) >> 1;
    m |= run_left(p, o, 8) << 8;
    m |= run_right(p, o, 8) >> 8;
    m |= run_left(p, oi, 7) << 7;
    m |= run_right(p, oi, 7) >> 7;
    m |= run_left(p, oi, 9) << 9;
    m |= run_right(p, oi, 9) >> 9;
    m & !(p | o)
}

/// Rays from every square (see [`super::rays`]), as plain tables.
static UP: [[u64; 4]; 64] = super::rays(1);
static DOWN: [[u64; 4]; 64] = super::rays(-1);

/// Discs flipped when the side owning `p` plays on square `sq` (0..64)
/// against `o`. Zero if the move is illegal; the square must be empty.
///
/// Along each ray the first square that is not the opponent's decides:
/// upwards it is the lowest set bit of the ray's non-opponent squares,
/// downwards the highest; if it holds `p`, the squares before it flip.
#[inline]
pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
    let (up, down) = (&UP[(sq & 63) as usize], &DOWN[(sq & 63) as usize]);
    let mut f = 0;
    for d in 0..4 {
        let b = !o & up[d];
        let first = b & b.wrapping_neg();
        if first & p != 0 {
            f |= (first - 1) & up[d];
        }
        let b = !o & down[d];
        if b != 0 {
            let last = 1u64 << (63 - b.leading_zeros());
            if last & p != 0 {
                // Ray squares above `last` (the ray lies below `sq`).
                f |= down[d] & !((last << 1) - 1);
            }
        }
    }
    f
}
