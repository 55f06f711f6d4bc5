//! Foxes & Dolphins (seed 002), a real-time game: no turns, each player
//! moves whenever its cooldown has passed.
//!
//! An island in the sea on an n x n board; n foxes on the land, n dolphins
//! in the water, placed from the game's seed. A step goes to a neighbouring
//! tile. Dolphins swim water to water; foxes go where land is within two
//! steps, and never onto a dolphin in the water. On land the fox eats what it
//! steps on, in water the dolphin. Every tide period the water rises (the
//! island loses n tiles) or falls (it gains n), keeping the island whole.
//! The species that eats the other's last animal wins. Every decision and
//! every fix of the seed is in `spec/games/foxes.md`.

#[cfg(test)]
mod arena;
mod board;
mod bot;
mod event;
mod game;
mod info;
mod letters;
mod notation;
mod record;
mod replay;
mod rng;
mod terrain;
#[cfg(test)]
mod tests;
mod timing;

pub use board::{Board, Species, Step, FOX_REACH};
pub use bot::FoxesBot;
pub use event::Event;
pub use game::Foxes;
pub use info::INFO;
pub use replay::replay;
pub use terrain::{Size, Terrain};
pub use timing::Timing;

use crate::module::Module;

pub const MODULE: Module = Module {
    info: &INFO,
    params: &timing::PARAMS,
    new_game: |settings| {
        Box::new(Foxes::new(
            Size::DEFAULT,
            settings.seed,
            Timing::from_params(&settings.params),
        ))
    },
};
