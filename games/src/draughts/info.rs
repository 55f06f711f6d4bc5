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
    rules: "English draughts on the 32 dark squares, numbered 1-32 (shown on the board): \
black begins at the top. Men move one square diagonally forward; a man reaching the far row \
becomes a king, which moves diagonally both ways. Capturing is compulsory: jump over an enemy \
piece to the empty square beyond, and go on jumping while you can. Moves are written 11-15, \
captures 15x24. A side with no piece or no move loses; a position repeated three times, or 40 \
moves each without a capture or a man's move, is a draw; a draw may be offered and accepted.",
};
