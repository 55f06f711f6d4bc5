//! Measures how well shallow searches predict deeper ones, to set the
//! ProbCut margins of the midgame search (`midgame`) and of the solver's
//! selective passes (`endgame`). Positions come from self-play games
//! (random opening moves, then a shallow search).
//!
//! ```text
//! cargo run --release -p reversi-engine --example probcut_fit -- midgame [positions 300] [max depth 9]
//! cargo run --release -p reversi-engine --example probcut_fit -- endgame [positions per empties 60]
//! ```
//!
//! `midgame`: per stage and (shallow, deep) depth pair, the mean and
//! standard deviation of deep minus shallow value. `endgame`: for 12 to
//! 22 empties, the same for the exact score (in hundredths) minus the
//! value of a 0- to 4-ply search. Both in hundredths of a disc.

use reversi_engine::training::SelfPlayer;
use reversi_engine::{Board, Squares};

/// xorshift64: small and seeded.
fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// A position with `empties` empty squares and a move to play, reached by
/// `random` random moves then `depth`-ply searches; `None` when the game
/// ends or passes its way past it.
fn sample(
    player: &mut SelfPlayer,
    x: &mut u64,
    random: u32,
    depth: u32,
    empties: u32,
) -> Option<Board> {
    let mut board = Board::start();
    let mut ply = 0;
    while board.empty_count() > empties {
        let moves = board.moves();
        if moves == 0 {
            if board.pass().moves() == 0 {
                return None;
            }
            board = board.pass();
            continue;
        }
        let sq = if ply < random {
            Squares(moves).nth((next(x) % moves.count_ones() as u64) as usize)
        } else {
            player.search_move(board, depth)
        };
        board = board.play(sq?);
        ply += 1;
    }
    (board.moves() != 0 && board.empty_count() == empties).then_some(board)
}

/// Mean and standard deviation.
fn stats(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// Values at depths 0..=max, shallowest first (deeper results in a hash
/// table would otherwise answer shallower searches).
fn values(board: Board, max: u32) -> Vec<i32> {
    let mut fresh = SelfPlayer::new(false);
    (0..=max).map(|d| fresh.value(board, d)).collect()
}

fn midgame(count: usize, max_depth: u32) {
    let mut player = SelfPlayer::new(false);
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut rows: Vec<(u32, Vec<i32>)> = Vec::new();
    while rows.len() < count {
        let empties = 14 + (next(&mut x) % 40) as u32;
        if let Some(board) = sample(&mut player, &mut x, 8, 3, empties) {
            rows.push((empties, values(board, max_depth)));
        }
    }
    println!("empties shallow deep n mean sd");
    for (lo, hi) in [(14u32, 29u32), (30, 44), (45, 60)] {
        for deep in 3..=max_depth as usize {
            for shallow in 0..deep.min(6) {
                let diffs: Vec<f64> = rows
                    .iter()
                    .filter(|(e, v)| (lo..=hi).contains(e) && v[deep].abs() < 5000)
                    .map(|(_, v)| (v[deep] - v[shallow]) as f64)
                    .collect();
                let (mean, sd) = stats(&diffs);
                println!(
                    "{lo}-{hi} {shallow} {deep} {} {mean:.0} {sd:.0}",
                    diffs.len()
                );
            }
        }
    }
}

fn endgame(per: usize) {
    let mut player = SelfPlayer::new(false);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    println!("empties depth n mean sd");
    for empties in (12..=22).step_by(2) {
        let mut rows: Vec<(i32, Vec<i32>)> = Vec::new();
        while rows.len() < per {
            if let Some(board) = sample(&mut player, &mut x, 10, 4, empties) {
                let exact = player.solve(board).expect("no deadline").score;
                rows.push((exact, values(board, 4)));
            }
        }
        for depth in 0..=4 {
            let diffs: Vec<f64> = rows
                .iter()
                .map(|(e, v)| (e * 100 - v[depth]) as f64)
                .collect();
            let (mean, sd) = stats(&diffs);
            println!("{empties} {depth} {} {mean:.0} {sd:.0}", diffs.len());
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_default();
    let numbers: Vec<u32> = args.filter_map(|a| a.parse().ok()).collect();
    match mode.as_str() {
        "midgame" => midgame(
            numbers.first().copied().unwrap_or(300) as usize,
            numbers.get(1).copied().unwrap_or(9),
        ),
        "endgame" => endgame(numbers.first().copied().unwrap_or(60) as usize),
        _ => eprintln!(
            "usage: probcut_fit midgame [positions [max depth]] | endgame [positions per empties]"
        ),
    }
}
