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
    rules: "Real time, no turns: each player may step one animal one square (along a row or \
a column) at most every 500 ms. Foxes live on the island, dolphins in the sea; a fox eats a \
stranded dolphin by stepping onto it on land, a dolphin eats a swimming fox in the water. A \
dolphin cannot move on land; a fox needs land within 2 steps. Every 10 s the tide turns and moves \
the coast (the tide timer counts down). Eating the last animal of the other kind wins; if nothing \
is eaten for 120 s (the quiet timer), the kind with more animals wins, equal numbers draw.",
};
