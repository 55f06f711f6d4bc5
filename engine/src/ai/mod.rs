//! The computer player: an exact endgame solver and an iterative-deepening
//! midgame search over a learned evaluation, sharing move ordering, the
//! clock and a transposition table.

mod clock;
mod endgame;
mod eval;
mod ordering;
mod patterns;
pub mod player;
mod search;
pub mod solve;
mod stability;
mod table;
pub mod training;
