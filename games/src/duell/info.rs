//! The facts about Duell that hold before any game of it starts.

use crate::game::{BoardSpec, GameInfo, IllegalPolicy};

use super::board::{HEIGHT, WIDTH};
use super::notation::LABELS;

pub static INFO: GameInfo = GameInfo {
    name: "duell",
    wire_type: "Conquest",
    title: "Duell (Conquest)",
    board: BoardSpec {
        // The seed's transcript says ConquestBoard, its GAME section ConqustBoard.
        name: "ConquestBoard",
        width: WIDTH,
        height: HEIGHT,
        labels: Some(LABELS),
    },
    teams: &["south", "north"],
    illegal: IllegalPolicy::Retry,
    realtime: false,
    random_teams: false,
    rematch: false,
    record_ext: "txt",
};
