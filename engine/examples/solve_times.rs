//! Times exact and win/loss/draw solves on self-play positions, by number
//! of empties, to choose how early the player can afford to solve.
//!
//! `cargo run --release -p reversi-engine --example solve_times -- FILE [per-count 20]`
//! where FILE holds `examples/selfplay.rs` records.

use std::time::Instant;

use reversi_engine::solve::Solver;
use reversi_engine::Board;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: solve_times FILE [N]");
    let per: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let bytes = std::fs::read(&path).expect("readable file");
    for empties in [16u32, 18, 20, 22] {
        let boards: Vec<Board> = bytes
            .chunks_exact(17)
            .map(|r| {
                let p = u64::from_le_bytes(r[0..8].try_into().unwrap());
                let o = u64::from_le_bytes(r[8..16].try_into().unwrap());
                Board::new(p, o)
            })
            .filter(|b| b.empty_count() == empties)
            .step_by(7)
            .take(per)
            .collect();
        for (name, window) in [("exact", (-64, 64)), ("wld", (-1, 1))] {
            let (mut total, mut worst) = (0.0f64, 0.0f64);
            for b in &boards {
                let mut s = Solver::new(20);
                let t = Instant::now();
                s.solve_window(*b, window.0, window.1, None);
                let secs = t.elapsed().as_secs_f64();
                total += secs;
                worst = worst.max(secs);
            }
            println!(
                "{empties} empties {name:5}: mean {:.3} s, worst {:.3} s over {}",
                total / boards.len().max(1) as f64,
                worst,
                boards.len()
            );
        }
    }
}
