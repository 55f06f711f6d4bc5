//! Engine tools: `reversi perft`.

use std::time::Instant;

use reversi_engine::{perft, Board};

/// Leaves per second, in millions, with a floor on the elapsed time.
fn rate(leaves: u64, seconds: f64) -> f64 {
    leaves as f64 / seconds.max(1e-9) / 1e6
}

/// Runs perft from the initial position and prints count, time and rate.
pub fn run_perft(depth: u32) -> u8 {
    let start = Instant::now();
    let leaves = perft(Board::start(), depth);
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "perft({depth}) = {leaves} leaves in {seconds:.3} s ({:.1} M leaves/s)",
        rate(leaves, seconds)
    );
    0
}
