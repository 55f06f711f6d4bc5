//! The rules of the game, with nothing of the computer player: squares and
//! sides, the bitboard position, legal moves and flips, the game with its
//! colours and history, text notations (transcripts, board strings and
//! OBF test-set lines), and perft.

pub(crate) mod bitboard;
mod game;
pub(crate) mod moves;
mod notation;
mod obf;
mod perft;
pub(crate) mod square;

pub use bitboard::{Board, CORNERS};
pub use game::{Game, IllegalMove, Move, Outcome};
pub use moves::{kernel, KernelKind};
pub use notation::ParseError;
pub use obf::{parse_obf, ObfPosition};
pub use perft::{perft, perft_portable_only};
pub use square::{ParseSquareError, Side, Square, Squares};
