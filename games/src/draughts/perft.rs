//! Perft: the number of move sequences of a given length, to check move
//! generation against Aart Bik's published table for English draughts
//! (a multi-jump is one move; different routes are different moves).

use super::board::Position;
use super::moves::Move;

/// Leaf count from the start position at `depth` plies.
pub fn perft(depth: u32) -> u64 {
    perft_from(&Position::start(), depth)
}

/// Leaf count from `position` at `depth` plies.
pub fn perft_from(position: &Position, depth: u32) -> u64 {
    // One move list per ply, reused: no allocation after the first visit.
    let mut lists = vec![Vec::new(); depth as usize + 1];
    count(position, depth, &mut lists)
}

fn count(position: &Position, depth: u32, lists: &mut [Vec<Move>]) -> u64 {
    let Some((list, deeper)) = lists.split_first_mut() else {
        return 1;
    };
    match depth {
        0 => 1,
        // Bulk counting: the last ply only needs the number of moves.
        1 => position.count_moves(list),
        _ => {
            position.legal_moves_into(list);
            list.iter()
                .map(|m| count(&position.play(m), depth - 1, deeper))
                .sum()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Aart Bik's table for the start position, depths 1 to 12.
    pub const BIK: [u64; 12] = [
        7,
        49,
        302,
        1_469,
        7_361,
        36_768,
        179_740,
        845_931,
        3_963_680,
        18_391_564,
        85_242_128,
        388_623_673,
    ];

    #[test]
    fn perft_matches_the_published_table_to_depth_9() {
        for depth in 1..=9 {
            assert_eq!(perft(depth), BIK[depth as usize - 1], "depth {depth}");
        }
        assert_eq!(perft(0), 1);
    }

    /// `cargo test --release -p reversi-games -- --ignored perft_12`
    #[test]
    #[ignore = "minutes in a debug build; run in release"]
    fn perft_12_matches_the_published_table() {
        assert_eq!(perft(12), BIK[11]);
    }
}
