//! Perft: counting the leaves of the game tree, to check move generation
//! against published figures and to measure its speed.
//!
//! Convention (Aart Bik's table): a pass counts as one ply, and a finished
//! game counts as one leaf whatever depth remains.

use crate::rules::moves::{kernel, KernelKind};
use crate::Board;

/// Defines one recursive perft function over a `moves`/`flips` pair and
/// a function counting the leaves of a node's last plies (how many is its
/// depth; below it, only a pass can lead). A macro
/// rather than a generic so each copy can carry `#[target_feature]` itself
/// and have every kernel call inlined into it.
macro_rules! define_perft {
    ($(#[$attr:meta])* $vis:vis fn $name:ident uses $moves:path, $flips:path, $frontier:path, $frontier_depth:literal) => {
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
            if depth == $frontier_depth {
                return $frontier(p, o, moves);
            }
            let mut total = 0;
            let mut rest = moves;
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

/// Defines the one-child-at-a-time count of a node's last two plies: each
/// child's leaves are its move count, or exactly one when it must pass or
/// the game is over.
macro_rules! define_two_plies {
    ($(#[$attr:meta])* fn $name:ident uses $moves:path, $flips:path) => {
        $(#[$attr])*
        #[inline]
        fn $name(p: u64, o: u64, moves: u64) -> u64 {
            let mut total = 0;
            let mut rest = moves;
            while rest != 0 {
                let sq = rest.trailing_zeros();
                rest &= rest - 1;
                let f = $flips(p, o, sq);
                let n = $moves(o ^ f, p | f | 1 << sq).count_ones() as u64;
                total += n + (n == 0) as u64;
            }
            total
        }
    };
}

use crate::rules::moves::portable;

define_two_plies!(fn two_plies_portable uses portable::moves, portable::flips);
define_perft!(fn perft_portable uses portable::moves, portable::flips, two_plies_portable, 2);

#[cfg(target_arch = "x86_64")]
use crate::rules::moves::{avx2, avx512};

#[cfg(target_arch = "x86_64")]
define_two_plies!(
    #[target_feature(enable = "avx2,bmi1,popcnt")]
    fn two_plies_avx2 uses avx2::moves, avx2::flips
);

#[cfg(target_arch = "x86_64")]
define_perft!(
    #[target_feature(enable = "avx2,bmi1,popcnt")]
    fn perft_avx2 uses avx2::moves, avx2::flips, two_plies_avx2, 2
);

#[cfg(target_arch = "x86_64")]
define_perft!(
    #[target_feature(enable = "avx2,bmi1,popcnt,avx512f,avx512vpopcntdq")]
    fn perft_avx512 uses avx2::moves, avx2::flips, avx512::leaves_three_plies, 3
);

/// Number of leaves of the game tree `depth` plies below `board` (1 for
/// depth 0). Single-threaded, no hash table; uses the fastest move
/// generator the CPU has (see [`crate::kernel`]).
pub fn perft(board: Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (p, o) = (board.player, board.opponent);
    #[cfg(target_arch = "x86_64")]
    match kernel() {
        // SAFETY: `kernel()` names a vector kernel only once its CPU
        // features (AVX2, BMI1 and POPCNT; AVX-512F and VPOPCNTDQ too for
        // AVX-512) were detected.
        KernelKind::Avx512 => return unsafe { perft_avx512(p, o, depth) },
        KernelKind::Avx2 => return unsafe { perft_avx2(p, o, depth) },
        KernelKind::Portable => {}
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

    /// From positions all over the game, every move generator counts the
    /// same (the AVX-512 one batches across positions, so its passes and
    /// game ends need checking away from the opening).
    #[test]
    fn every_kernel_counts_alike_from_midgame_positions() {
        let mut game = crate::Game::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        while game.side_to_move().is_some() {
            let board = game.board();
            for depth in 1..=4 {
                assert_eq!(
                    perft(board, depth),
                    perft_portable_only(board, depth),
                    "{}",
                    game.transcript()
                );
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let moves: Vec<_> = game.legal_moves().collect();
            game.play(moves[(x % moves.len() as u64) as usize]).unwrap();
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
