//! Support for generating the learned evaluation's weights: self-play move
//! choice and feature extraction. Used by `examples/selfplay.rs` and
//! `examples/train.rs`; not needed to play.

use crate::ai::patterns::{Layout, Weights};
use crate::ai::search::{Limits, Searcher};
use crate::ai::solve::{Solution, Solver};
use crate::rules::moves::with_kernel;
use crate::Board;
use crate::Square;

pub use crate::ai::patterns::{stage, SCALARS, STAGES};

/// Plays self-play moves: fixed-depth search, exact solves near the end.
pub struct SelfPlayer {
    searcher: Searcher,
    solver: Solver,
}

impl SelfPlayer {
    /// A self-player using the learned evaluation, or the hand-written one
    /// when `hand_eval` (or when no learned weights are committed).
    pub fn new(hand_eval: bool) -> SelfPlayer {
        let mut searcher = Searcher::new(18);
        if hand_eval {
            searcher.use_hand_eval();
        }
        SelfPlayer {
            searcher,
            solver: Solver::new(18),
        }
    }

    /// A self-player using the weights in `bytes` (the format of
    /// `data/eval.bin`), or `None` if they do not fit the pattern layout.
    /// The weights are leaked: meant for short-lived tools.
    pub fn with_weights(bytes: &[u8]) -> Option<SelfPlayer> {
        let weights: &'static Weights = Box::leak(Box::new(Weights::parse(bytes)?));
        let mut player = SelfPlayer::new(false);
        player.searcher.use_weights(weights);
        Some(player)
    }

    /// Best move by a `depth`-ply search (`None` if the side must pass).
    pub fn search_move(&mut self, board: Board, depth: u32) -> Option<Square> {
        let limits = Limits {
            depth,
            soft: None,
            hard: None,
        };
        self.searcher.search(board, limits).best
    }

    /// The value of `board` for the side to move by a `depth`-ply search
    /// (full window), in hundredths of a disc. Search shallower depths
    /// first: deeper results in the hash table would answer shallower
    /// searches.
    pub fn value(&mut self, board: Board, depth: u32) -> i32 {
        let searcher = &mut self.searcher;
        with_kernel!(|k| searcher.value(k, board.player, board.opponent, depth))
    }

    /// Exact solve.
    pub fn solve(&mut self, board: Board) -> Option<Solution> {
        self.solver.solve(board, None)
    }
}

/// Weights per stage (pattern tables, then [`SCALARS`] linear terms).
pub fn weights_per_stage() -> usize {
    Layout::get().per_stage
}

/// Calls `f` with the weight index (within its stage) of every pattern
/// instance of the position, for the side owning `p`.
pub fn for_each_feature(p: u64, o: u64, f: impl FnMut(usize)) {
    Layout::get().for_each_index(p, o, f)
}

/// The linear terms of the position for the side owning `p`.
pub fn scalars(p: u64, o: u64) -> [f32; SCALARS] {
    let b = Board::new(p, o);
    Layout::get().scalars(p, o, b.moves().count_ones(), b.pass().moves().count_ones())
}

/// The weights (all stages, hundredths of a disc) in `bytes`, in the
/// format of `data/eval.bin`; `None` if they do not fit the layout.
pub fn weights_from_bytes(bytes: &[u8]) -> Option<Vec<i16>> {
    Weights::parse(bytes).map(|w| w.as_slice().to_vec())
}

/// Serialises weights (all stages, hundredths of a disc) in the format of
/// `data/eval.bin`.
pub fn weights_to_bytes(weights: &[i16]) -> Vec<u8> {
    Weights::to_bytes(weights)
}
