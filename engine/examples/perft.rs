//! Times perft from the initial position.
//!
//! `cargo run --release -p reversi-engine --example perft -- 12`

use std::time::Instant;

use reversi_engine::{perft, perft_portable_only, Board};

fn main() {
    let mut args = std::env::args().skip(1);
    let depth: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(11);
    let portable = args.next().as_deref() == Some("portable");
    let start = Instant::now();
    let leaves = if portable {
        perft_portable_only(Board::start(), depth)
    } else {
        perft(Board::start(), depth)
    };
    let secs = start.elapsed().as_secs_f64();
    println!(
        "perft {depth}: {leaves} leaves in {secs:.3} s = {:.1} M leaves/s ({})",
        leaves as f64 / secs / 1e6,
        if portable { "portable" } else { "auto" }
    );
}
