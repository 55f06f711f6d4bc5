//! The hand-written static evaluation, from the side to move's point of
//! view, in hundredths of a disc. The player normally uses the learned
//! pattern evaluation (`patterns.rs`); this one is the fallback when no
//! weights are committed and bootstrapped the first round of self-play.
//!
//! Terms: mobility, potential mobility (frontier), edges (a 3^8 table per
//! edge scoring corners, C-squares and discs stable from a corner),
//! X-squares next to empty corners, and parity. Weights are interpolated
//! between an opening set and an endgame set by the number of discs.

use std::sync::OnceLock;

use crate::rules::bitboard::neighbours;

#[cfg(test)]
use crate::rules::moves::Kernel;

/// Weights of the linear terms, at the opening (index 0) and near the end
/// (index 1) of the game.
struct Weights {
    mobility: [i32; 2],
    potential: [i32; 2],
    edge: [i32; 2],
    x_square: [i32; 2],
    parity: [i32; 2],
}

const W: Weights = Weights {
    mobility: [90, 60],
    potential: [35, 15],
    edge: [100, 100],
    x_square: [-350, -150],
    parity: [0, 150],
};

/// X-squares b2, g2, b7, g7 and their corners a1, h1, a8, h8.
const X_SQUARES: [(u64, u64); 4] = [
    (1 << 9, 1 << 0),
    (1 << 14, 1 << 7),
    (1 << 49, 1 << 56),
    (1 << 54, 1 << 63),
];

/// Bits of column `x` gathered into a byte (row 1 in bit 7).
#[inline]
fn column(b: u64, x: u32) -> usize {
    (((b >> x) & 0x0101_0101_0101_0101).wrapping_mul(0x8040_2010_0804_0201) >> 56) as usize
}

/// Evaluation of one edge line from its two 8-bit occupancy masks.
struct EdgeTable {
    /// Base-3 digit value of each bit pattern (digits 0 or 1).
    ternary: [u16; 256],
    /// Score for the player per base-3 index (0 empty, 1 player, 2 opponent).
    score: Vec<i16>,
}

impl EdgeTable {
    fn get() -> &'static EdgeTable {
        static TABLE: OnceLock<EdgeTable> = OnceLock::new();
        TABLE.get_or_init(EdgeTable::build)
    }

    fn build() -> EdgeTable {
        let mut ternary = [0u16; 256];
        for (bits, t) in ternary.iter_mut().enumerate() {
            *t = (0..8)
                .filter(|i| bits >> i & 1 == 1)
                .map(|i| 3u16.pow(i))
                .sum();
        }
        let mut score = vec![0i16; 6561];
        for p in 0..256usize {
            for o in 0..256usize {
                if p & o == 0 {
                    let i = ternary[p] as usize + 2 * ternary[o] as usize;
                    score[i] = (edge_value(p as u8, o as u8) - edge_value(o as u8, p as u8)) as i16;
                }
            }
        }
        EdgeTable { ternary, score }
    }

    #[inline]
    fn eval(&self, p: usize, o: usize) -> i32 {
        self.score[self.ternary[p] as usize + 2 * self.ternary[o] as usize] as i32
    }
}

/// Heuristic worth (in hundredths of a disc, before weighting) of `me`'s
/// discs on an edge line: corners, discs anchored to a corner (they can
/// never flip), and C-squares next to an empty corner (they give the corner
/// away).
fn edge_value(me: u8, them: u8) -> i32 {
    let full = me | them == 0xff;
    let mut v = 0;
    // Anchored runs from each corner along the edge.
    let from_low = (me & !(me.wrapping_add(1))).count_ones();
    let from_high = (me.reverse_bits() & !(me.reverse_bits().wrapping_add(1))).count_ones();
    let stable = if full {
        me.count_ones()
    } else {
        (from_low + from_high).min(8)
    };
    v += stable as i32 * 100;
    for (corner, c) in [(0u8, 1u8), (7, 6)] {
        let has = |b: u8, i: u8| b >> i & 1 == 1;
        if has(me, corner) {
            v += 700;
        } else if !has(them, corner) && has(me, c) {
            // A C-square next to an empty corner: weak unless the edge
            // beyond is ours too (then it is at least hard to attack).
            v -= if has(me, if c == 1 { 2 } else { 5 }) {
                80
            } else {
                200
            };
        }
    }
    v
}

/// Evaluation for the side owning `p`, in hundredths of a disc.
#[cfg(test)]
pub(crate) fn evaluate<K: Kernel>(k: K, p: u64, o: u64) -> i32 {
    let mp = k.moves(p, o);
    let mo = k.moves(o, p);
    evaluate_with_moves(p, o, mp, mo)
}

/// [`evaluate`] given both sides' legal moves already computed.
#[inline]
pub(crate) fn evaluate_with_moves(p: u64, o: u64, mp: u64, mo: u64) -> i32 {
    let empties = !(p | o);
    let discs = (p | o).count_ones() as i32;
    // Interpolate between opening (4 discs) and end (64 discs) weights.
    let t = (discs - 4).clamp(0, 60);
    let mix = |w: [i32; 2]| (w[0] * (60 - t) + w[1] * t) / 60;

    let (nmp, nmo) = (mp.count_ones() as i32, mo.count_ones() as i32);
    // Corner moves are worth more than their count suggests.
    let corners = crate::CORNERS;
    let mobility =
        nmp - nmo + (mp & corners).count_ones() as i32 - (mo & corners).count_ones() as i32;
    let potential = (neighbours(o) & empties).count_ones() as i32
        - (neighbours(p) & empties).count_ones() as i32;

    let table = EdgeTable::get();
    let edges = table.eval((p & 0xff) as usize, (o & 0xff) as usize)
        + table.eval((p >> 56) as usize, (o >> 56) as usize)
        + table.eval(column(p, 0), column(o, 0))
        + table.eval(column(p, 7), column(o, 7));

    let mut x = 0;
    for (xs, corner) in X_SQUARES {
        if empties & corner != 0 {
            x += (p & xs != 0) as i32 - (o & xs != 0) as i32;
        }
    }
    let parity = if empties.count_ones() & 1 == 1 { 1 } else { -1 };

    mix(W.mobility) * mobility
        + mix(W.potential) * potential
        + mix(W.edge) * edges / 100
        + mix(W.x_square) * x
        + mix(W.parity) * parity
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::moves::Portable;

    #[test]
    fn symmetric_and_sensible() {
        let b = crate::Board::start();
        let e = evaluate(Portable, b.player, b.opponent);
        assert!(e.abs() < 100, "start is roughly equal: {e}");
        // Owning a corner is good.
        let p = b.player | 1;
        assert!(evaluate(Portable, p, b.opponent) > evaluate(Portable, b.player, b.opponent | 1));
        // Negamax symmetry of the edge table.
        let t = EdgeTable::get();
        assert_eq!(
            t.eval(0b1000_0001, 0b0111_0000),
            -t.eval(0b0111_0000, 0b1000_0001)
        );
    }

    #[test]
    fn column_extraction() {
        assert_eq!(column(1, 0), 0x80);
        assert_eq!(column(1 << 63, 7), 0x01);
        assert_eq!(column(u64::MAX, 3), 0xff);
    }
}
