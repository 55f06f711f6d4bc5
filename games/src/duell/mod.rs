//! Duell (Geoffrey Hayes, 1975; published in the UK as Conquest): seed 000's
//! example game, `GAME TYPE Conquest`.
//!
//! Two sides of eight dice and a key on a 9 x 8 board. A die rolls exactly
//! the pips on its top, straight or with one right-angle turn, never through
//! a piece, turning over at every square; the key moves one square. Landing
//! on an enemy piece captures it. Capturing the enemy key, or bringing one's
//! key onto the enemy key's starting square, wins. Every decision the seed
//! leaves open is in `spec/games/duell.md`.

mod board;
mod bot;
mod die;
mod direction;
mod game;
mod info;
mod moves;
mod notation;
#[cfg(test)]
mod tests;

pub use board::{Board, Kind, Token, HEIGHT, WIDTH};
pub use bot::DuellBot;
pub use die::Die;
pub use direction::Direction;
pub use game::{Duell, QUIET_PLIES};
pub use info::INFO;
pub use moves::{legal_moves, Move};
pub use notation::square_name;

use crate::module::Module;

pub const MODULE: Module = Module {
    info: &INFO,
    params: &[],
    new_game: |_| Box::new(Duell::new()),
};
