//! Engine tools: `reversi perft` and `reversi solve`.

use std::time::Instant;

use reversi_engine::solve::solve;
use reversi_engine::{perft, Board, Game, Side};

/// Leaves (or nodes) per second, in millions, with a floor on the elapsed time.
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

/// Solves a position given as a board string and prints the result.
pub fn run_solve(position: &str) -> u8 {
    let game = match Game::from_position(position) {
        Ok(game) => game,
        Err(err) => {
            eprintln!("reversi solve: {err}");
            return 2;
        }
    };
    let Some(side) = game.side_to_move() else {
        let (black, white) = (game.count(Side::Black), game.count(Side::White));
        println!("game over: black {black}, white {white}");
        return 0;
    };
    let start = Instant::now();
    let solution = solve(game.board());
    let seconds = start.elapsed().as_secs_f64();
    let best = solution
        .best
        .map_or_else(|| "none".to_string(), |sq| sq.to_string());
    println!(
        "{side} to move, {} empties: score {:+} (final disc difference for {side}), best move {best}",
        game.empty_count(),
        solution.score
    );
    println!(
        "{} nodes in {seconds:.3} s ({:.1} M nodes/s)",
        solution.nodes,
        rate(solution.nodes, seconds)
    );
    0
}
