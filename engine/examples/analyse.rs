//! Runs the computer player on one position and prints what it found.
//!
//! ```text
//! cargo run --release -p reversi-engine --example analyse -- [--ms 1000 | --level 10] [TRANSCRIPT]
//! ```

use std::time::Duration;

use reversi_engine::player::{Player, PlayerConfig};
use reversi_engine::Game;

fn main() {
    let mut cfg = PlayerConfig {
        move_time: Some(Duration::from_millis(1000)),
        ..PlayerConfig::default()
    };
    let mut transcript = String::from("f5d6c3d3c4f4f6f3e6e7");
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--ms" => {
                cfg.move_time = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .map(Duration::from_millis)
            }
            "--level" => {
                cfg.level = it.next().and_then(|v| v.parse().ok()).expect("--level N");
                cfg.move_time = None;
            }
            _ => transcript = arg,
        }
    }
    let game = Game::from_transcript(&transcript).unwrap_or_else(|e| panic!("bad transcript: {e}"));
    let mut player = Player::new(cfg);
    let info = player.choose_with_info(&game);
    let best = info.best.map_or("none".into(), |s| s.to_string());
    println!(
        "best {best} score {:+.2}{} depth {} nodes {} in {:.3} s ({:.2} M nodes/s)",
        info.score as f64 / 100.0,
        if info.exact { " (exact)" } else { "" },
        info.depth,
        info.nodes,
        info.elapsed.as_secs_f64(),
        info.nodes as f64 / info.elapsed.as_secs_f64() / 1e6
    );
}
