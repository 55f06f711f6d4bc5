//! The facts about English draughts that hold before any game of it starts.

use crate::game::{BoardSpec, GameInfo, IllegalPolicy};

pub static INFO: GameInfo = GameInfo {
    name: "draughts",
    wire_type: "Draughts",
    title: "English draughts",
    board: BoardSpec {
        name: "DraughtsBoard",
        width: 8,
        height: 8,
        // Its notation numbers the 32 dark squares (`11-15`).
        labels: None,
    },
    teams: &["black", "white"],
    illegal: IllegalPolicy::Retry,
    realtime: false,
    random_teams: true,
    rematch: true,
    record_ext: "pdn",
};
