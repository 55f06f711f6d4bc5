//! `reversi perft`: the leaves of the move tree from the start, counted
//! and timed.

use std::time::Instant;

use reversi_engine::{kernel, perft, Board};

use super::{exit, millions_per_second, plural};

/// `reversi perft` arguments.
#[derive(Debug, clap::Args)]
pub struct PerftArgs {
    /// Depth in plies (a pass counts as a ply in Reversi; a multi-jump is one move in draughts).
    #[arg(value_parser = clap::value_parser!(u32).range(0..=20))]
    pub depth: u32,
    /// The game: reversi, or draughts (English draughts from the start position).
    #[arg(long, default_value = "reversi", value_parser = ["reversi", "draughts"])]
    pub game: String,
}

/// Counts and prints the leaves, the time and the rate.
pub fn run(args: &PerftArgs) -> u8 {
    let start = Instant::now();
    let (leaves, generator) = match args.game.as_str() {
        "draughts" => (reversi_games::draughts::perft(args.depth), String::new()),
        _ => (
            perft(Board::start(), args.depth),
            format!(", {:?} move generator", kernel()),
        ),
    };
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "perft({}) = {} in {seconds:.3} s ({:.1} M leaves/s{generator})",
        args.depth,
        plural(leaves, "leaf", "leaves"),
        millions_per_second(leaves, seconds),
    );
    exit::OK
}
