//! English draughts (seed 001) under the rules of the World Checkers/Draughts
//! Federation: see `spec/games/draughts.md`.

mod board;
mod fen;
mod moves;
mod notation;
mod perft;

pub use board::{Color, Kind, Position, Square, Stone};
pub use moves::Move;
pub use notation::{parse_squares, ParseError};
pub use perft::{perft, perft_from};
