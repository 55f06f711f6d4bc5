//! Tournaments in the server: the director ([`Director`]) holds every tournament's pure
//! machine (the `reversi-tournament` crate), calls each paired game's two accounts, starts the
//! game when both are there or forfeits the absent after the grace, and feeds each game's
//! end back. It does no I/O: the supervisor applies its [`Action`]s (seat two connections,
//! send a line, store a snapshot). See spec/TOURNAMENTS.md §7-8.
//!
//! - [`director`]: the tournaments and their boards, state x event.
//! - [`orders`]: what organisers and players ask (`GAME TOURNAMENT …`, `reversid tournament
//!   …`), read from words.
//! - [`options`]: who may organise.
//! - [`pages`]: the tournaments' pages, from the store.
//! - [`outcome`]: a game's end, as its journal says it, as a tournament result.

pub mod director;
pub mod options;
pub mod orders;
pub mod outcome;
pub mod pages;

pub use director::{Action, Director, Pairing};
