//! The facts about Foxes & Dolphins that hold before any game of it starts.

use crate::game::{BoardSpec, GameInfo, IllegalPolicy};

use super::terrain::Size;

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
