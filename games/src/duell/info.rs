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
    rules: "Each side has eight dice and a key; south begins. A die rolls exactly as many \
squares as its top face shows, along rows and columns with at most one right-angle turn, never through a piece, and tips \
over with each square it rolls, so its top face changes. The key moves one square. A piece \
captures an enemy piece by ending its move on it. Capture the enemy key, \
or bring your key to the enemy key's starting square, to win; 50 moves each without a capture is \
a draw.",
};
