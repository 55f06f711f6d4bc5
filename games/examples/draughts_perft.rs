//! Times draughts perft from the start position, every depth up to N.
//!
//! `cargo run --release -p reversi-games --example draughts_perft -- 12`

use std::time::Instant;

use reversi_games::draughts::perft;

fn main() {
    let depth: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(12);
    for d in 1..=depth {
        let start = Instant::now();
        let leaves = perft(d);
        let secs = start.elapsed().as_secs_f64();
        println!(
            "perft {d:>2}: {leaves:>12} leaves in {secs:>8.3} s = {:>6.1} M leaves/s",
            leaves as f64 / secs.max(1e-9) / 1e6
        );
    }
}
