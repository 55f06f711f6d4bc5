//! Reversi (Othello) on bitboards: rules under the World Othello Federation
//! conventions, text notations, perft, an exact endgame solver and a computer
//! player.
//!
//! Squares are indexed `y * 8 + x` (a1 = 0, h1 = 7, a8 = 56). [`Board`] is
//! the fast, side-to-move-relative representation used by the search code;
//! [`Game`] is the absolute state with colours and history that protocol code
//! should use.

mod bitboard;
mod endgame;
mod eval;
mod game;
pub mod moves;
mod notation;
mod patterns;
mod perft;
pub mod player;
pub mod search;
pub mod solve;
mod square;
mod stability;
mod table;
pub mod training;

pub use bitboard::{Board, CORNERS};
pub use game::{Game, IllegalMove, Move, Outcome};
pub use notation::ParseError;
pub use perft::{perft, perft_portable_only};
pub use square::{ParseSquareError, Side, Square, Squares};
