//! Board games as rules alone: no sockets, no clocks read, no logging of wire
//! bytes. Every game is a module implementing [`Game`]; the server's session
//! runtime and its wire adapters (binary Reversi, the text protocol of
//! `spec/TEXT-PROTOCOL.md`) drive any of them the same way.
//!
//! ```
//! use reversi_games::{registry, Action, Point, Team};
//!
//! let module = registry::find("tictactoe").unwrap();
//! let mut game = (module.new_game)(&Default::default());
//! let x = Team::FIRST;
//! let update = game.play(x, &Action::Move(vec![Point::new(2, 2)]), 0).unwrap();
//! assert_eq!(update.moved.unwrap().notation, "b2");
//! ```

pub mod bot;
pub mod draughts;
pub mod duell;
pub mod foxes;
pub mod game;
pub mod mcts;
pub mod module;
pub mod params;
pub mod record;
pub mod registry;
pub mod reversi;
pub mod tictactoe;

pub use bot::{Bot, DrawAnswer, RandomBot};
pub use game::{
    Action, BoardSpec, Cell, CloneGame, Game, GameInfo, Illegal, IllegalPolicy, Labels, Millis,
    Moved, Outcome, Piece, Point, Settings, Standing, Team, Timer, Update, Viewer,
};
