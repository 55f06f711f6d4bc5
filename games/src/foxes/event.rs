//! What changed the board: steps and tides, as a game keeps them for its record.

use crate::game::{Millis, Point, Team};

use super::board::Step;

/// Something that changed the board, in the order it happened.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Event {
    Step {
        at: Millis,
        team: Team,
        step: Step,
    },
    Tide {
        /// When it was due (the tide period's multiple), not when the runtime woke.
        at: Millis,
        floodstate: u8,
        changed: Vec<Point>,
    },
}
