//! Perft: counting the leaves of the game tree, to check move generation
//! against published figures and to measure its speed.
//!
//! Convention (Aart Bik's table): a pass counts as one ply, and a finished
//! game counts as one leaf whatever depth remains.

use crate::Board;

/// Defines one recursive perft function over a given `moves`/`flips` pair.
/// A macro rather than a generic so the AVX2 copy can carry
/// `#[target_feature]` itself and have every kernel call inlined into it.
macro_rules! define_perft {
    ($(#[$attr:meta])* $vis:vis fn $name:ident uses $moves:path, $flips:path) => {
        $(#[$attr])*
        $vis fn $name(p: u64, o: u64, depth: u32) -> u64 {
            let moves = $moves(p, o);
            if moves == 0 {
                // Passing (one ply) or a finished game (one leaf) both count
                // as a single leaf at the frontier.
                if depth <= 1 {
                    return 1;
                }
                if $moves(o, p) == 0 {
                    return 1;
                }
                return $name(o, p, depth - 1);
            }
            if depth <= 1 {
                return moves.count_ones() as u64;
            }
            let mut total = 0;
            let mut rest = moves;
            if depth == 2 {
                // Bulk-count the children: each child's leaves are its move
                // count, or exactly one when it must pass or the game ends.
                while rest != 0 {
                    let sq = rest.trailing_zeros();
                    rest &= rest - 1;
                    let f = $flips(p, o, sq);
                    let (cp, co) = (o ^ f, p | f | 1 << sq);
                    let n = $moves(cp, co).count_ones() as u64;
                    total += n + (n == 0) as u64;
                }
                return total;
            }
            while rest != 0 {
                let sq = rest.trailing_zeros();
                rest &= rest - 1;
                let f = $flips(p, o, sq);
                total += $name(o ^ f, p | f | 1 << sq, depth - 1);
            }
            total
        }
    };
}

define_perft!(fn perft_portable uses crate::rules::moves::portable::moves, crate::rules::moves::portable::flips);

#[cfg(target_arch = "x86_64")]
define_perft!(
    #[target_feature(enable = "avx2,bmi1,popcnt")]
    fn perft_avx2 uses crate::rules::moves::avx2::moves, crate::rules::moves::avx2::flips
);

/// Number of leaves of the game tree `depth` plies below `board` (1 for
/// depth 0). Single-threaded, no hash table; uses the AVX2 move generator
/// when the CPU has it.
pub fn perft(board: Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (p, o) = (board.player, board.opponent);
    #[cfg(target_arch = "x86_64")]
    if crate::rules::moves::kernel() == crate::rules::moves::KernelKind::Avx2
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("popcnt")
    {
        // SAFETY: AVX2 (checked by `kernel()`), BMI1 and POPCNT were detected
        // on this CPU just above.
        return unsafe { perft_avx2(p, o, depth) };
    }
    perft_portable(p, o, depth)
}

/// [`perft`] forced onto the portable move generator (for tests and
/// benchmarks comparing the two).
pub fn perft_portable_only(board: Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    perft_portable(board.player, board.opponent, depth)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Aart Bik's leaf counts from the initial position, depth 1..=13.
    pub(crate) const BIK: [u64; 13] = [
        4,
        12,
        56,
        244,
        1_396,
        8_200,
        55_092,
        390_216,
        3_005_288,
        24_571_284,
        212_258_800,
        1_939_886_636,
        18_429_641_748,
    ];

    #[test]
    fn perft_matches_bik_to_depth_9() {
        for d in 1..=9 {
            assert_eq!(perft(Board::start(), d), BIK[d as usize - 1], "depth {d}");
        }
        assert_eq!(perft(Board::start(), 0), 1);
    }

    #[test]
    fn portable_perft_matches_bik_to_depth_8() {
        for d in 1..=8 {
            assert_eq!(
                perft_portable_only(Board::start(), d),
                BIK[d as usize - 1],
                "depth {d}"
            );
        }
    }

    #[test]
    #[ignore = "slow: run with --release -- --ignored"]
    fn perft_matches_bik_10_to_12() {
        for d in 10..=12 {
            assert_eq!(perft(Board::start(), d), BIK[d as usize - 1], "depth {d}");
        }
    }
}
