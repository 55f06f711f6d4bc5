//! The record of a game: the plain record's tags, then the seed, the size,
//! the times and the starting board, then every step and tide at its game
//! time. Tides list their tiles, so a record replays without the generator.
//!
//! ```text
//! [Seed "42"]
//! [Size "20"]
//! [Timing "cooldown 500 tide 10000 quiet 120000"]
//! [Start "WWWL…"]
//!
//! 0 foxes 4,5-4,6
//! 10000 tide 1 3,4 5,6 …
//! 10250 dolphins 7,1x7,2
//! ```
//!
//! (`replay.rs` reads one back.)

use crate::record::{self, RecordMeta};

use super::board::Board;
use super::event::Event;
use super::info::INFO;
use super::notation::write_step;
use super::timing::Timing;

/// The record of a game set up from `seed` (none: from a drawn board) as
/// `start`, played with `timing`, in which `events` happened.
pub fn write(
    seed: Option<u64>,
    start: &Board,
    timing: Timing,
    events: &[Event],
    meta: &RecordMeta,
) -> String {
    let plain = record::plain(&INFO, &[], meta);
    let mut text = plain.trim_end().to_owned();
    let seed = seed.map_or("none".to_owned(), |s| s.to_string());
    let t = timing;
    text.push_str(&format!(
        "\n[Seed \"{seed}\"]\n[Size \"{}\"]\n[Timing \"cooldown {} tide {} quiet {}\"]\n[Start \"{}\"]\n\n",
        start.size().get(),
        t.cooldown,
        t.tide_period,
        t.quiet_limit,
        start.letters()
    ));
    for event in events {
        let line = match event {
            Event::Step { at, team, step } => {
                format!("{at} {} {}", INFO.team_name(*team), write_step(step))
            }
            Event::Tide {
                at,
                floodstate,
                changed,
            } => {
                let tiles: Vec<String> =
                    changed.iter().map(|p| format!("{},{}", p.x, p.y)).collect();
                format!("{at} tide {floodstate} {}", tiles.join(" "))
            }
        };
        text.push_str(&line);
        text.push('\n');
    }
    text
}
