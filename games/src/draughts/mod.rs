//! English draughts (seed 001) under the rules of the World Checkers/Draughts
//! Federation, as a game module: `spec/games/draughts.md` describes the rules,
//! the text protocol's view of the board and every decision where the seed
//! and the WCDF rules disagree.

mod board;
pub mod bot;
mod draws;
mod fen;
mod game;
mod info;
mod moves;
mod notation;
mod offer;
mod perft;
mod record;
mod replay;
#[cfg(test)]
mod rules_tests;
mod view;

pub use board::{Color, Kind, Position, Square, Stone};
pub use bot::DraughtsBot;
pub use draws::{DrawRule, QUIET_MOVES, REPETITIONS};
pub use game::Draughts;
pub use info::INFO;
pub use moves::Move;
pub use notation::{parse_squares, ParseError};
pub use perft::{perft, perft_from};
pub use replay::read as read_pdn;
pub use view::{point, square};

use crate::module::Module;

pub const MODULE: Module = Module {
    info: &INFO,
    params: &[],
    new_game: |_| Box::new(Draughts::new()),
};
