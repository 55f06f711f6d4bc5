//! Reversi (Othello) on bitboards: rules under the World Othello Federation
//! conventions, text notations, perft, an exact endgame solver and a computer
//! player.
//!
//! Squares are indexed `y * 8 + x` (a1 = 0, h1 = 7, a8 = 56). [`Board`] is
//! the fast, side-to-move-relative representation used by the search code;
//! [`Game`] is the absolute state with colours and history that protocol code
//! should use.
//!
//! ```
//! use reversi_engine::{Game, Side};
//! use reversi_engine::{Player, PlayerConfig};
//!
//! let mut game = Game::from_transcript("f5d6c3").unwrap();
//! assert_eq!(game.side_to_move(), Some(Side::White));
//! let mut bot = Player::new(PlayerConfig { level: 4, ..PlayerConfig::default() });
//! let sq = bot.choose(&game).unwrap();
//! let played = game.play(sq).unwrap();
//! // What an update_board PDU carries: placed square, then flips ascending.
//! let changed: Vec<String> = played.changed().map(|s| s.to_string()).collect();
//! assert_eq!(changed[0], sq.to_string());
//! ```
//!
//! # Layout
//!
//! - `rules/`: the game and nothing else. [`Square`] and [`Side`], the
//!   bitboard [`Board`], legal moves and flips (`rules/moves/`: Kogge-Stone
//!   fills, a portable, an AVX2 and an AVX-512 version, the last working
//!   on eight positions at once, picked once at start-up, see [`kernel`]),
//!   [`Game`] with its colours and history, the text notations
//!   (transcripts, board strings, [`ObfPosition`] test-set lines) and
//!   [`perft`].
//! - `ai/`: the computer player. [`solve`] (the exact endgame solver:
//!   `solve/root.rs` runs a solve, with selective ProbCut passes before
//!   the exact one on long solves; `solve/node.rs` orders moves and cuts
//!   below the root; the last six empties in `endgame.rs`), the midgame
//!   search (`search.rs`, iterative-deepening PVS with ProbCut), both
//!   sharing `ordering.rs` (move lists, the PVS step), `clock.rs` and
//!   `table.rs`; the evaluations (`patterns.rs`, learned, weights in
//!   `data/eval.bin` made by `examples/selfplay.rs` and `examples/train.rs`,
//!   see `data/README.md`; `eval.rs`, hand-written), `stability.rs`,
//!   [`player`] and [`training`].
//!
//! Measured figures (release build, one thread) are in the crate's
//! `PERFORMANCE.md`.

mod ai;
mod rules;
#[cfg(feature = "pdu")]
mod wire;

pub use ai::{player, solve, training};
pub use player::{Player, PlayerConfig, SearchInfo};
pub use rules::*;
pub use solve::{Progress, Solution, Solver};
