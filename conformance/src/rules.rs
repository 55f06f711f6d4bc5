//! The kit's own copy of every game's rules: the `reversi-games` crate's
//! modules, started as a server starts a game (default settings: the
//! opening position; Foxes & Dolphins' random board is read from the wire
//! instead, `server::foxes`).

use reversi_games::registry::{self, Module};
use reversi_games::Game;

/// The module of a game the kit knows, by name or type word.
pub fn module(game: &str) -> &'static Module {
    registry::find(game).expect("the kit asks only for games it knows")
}

/// A new game of `module`, from its opening.
pub fn new_game(module: &Module) -> Box<dyn Game> {
    (module.new_game)(&Default::default())
}

/// A new game of the game named `game`.
pub fn opening(game: &str) -> Box<dyn Game> {
    new_game(module(game))
}
