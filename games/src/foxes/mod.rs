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
mod game;
mod letters;
mod notation;
mod record;
mod rng;
mod terrain;
#[cfg(test)]
mod tests;
mod timing;

pub use board::{Board, Species, Step, FOX_REACH};
pub use bot::FoxesBot;
pub use game::{Event, Foxes};
pub use record::replay;
pub use terrain::{Size, Terrain};
pub use timing::Timing;

use crate::game::{BoardSpec, GameInfo, IllegalPolicy};
use crate::module::Module;

pub static INFO: GameInfo = GameInfo {
    name: "foxes",
    wire_type: "FoxesDolphins",
    title: "Foxes & Dolphins",
    board: BoardSpec {
        name: "FoxesBoard",
        width: Size::DEFAULT.get(),
        height: Size::DEFAULT.get(),
        // Squares are written as their coordinates (`MOVE 2 9 11 9 12`).
        labels: None,
    },
    teams: &["foxes", "dolphins"],
    // A refused step only costs the cooldown: the player tries again when it ends.
    illegal: IllegalPolicy::Retry,
    realtime: true,
    random_teams: false,
    rematch: false,
    record_ext: "txt",
};

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
