//! Generates training positions for the learned evaluation by self-play.
//!
//! ```text
//! cargo run --release -p reversi-engine --example selfplay -- \
//!     --games 20000 --seed 1 --depth 4 --solve 14 [--hand] --out /tmp/games.bin
//! ```
//!
//! Each game opens with 6 to 13 uniformly random plies (for variety), then
//! both sides play a fixed-depth search, and from `--solve` empties on they
//! play perfectly (exact solver). Every position with a legal move is
//! written as a 17-byte record: the side to move's discs (`u64` LE), the
//! opponent's (`u64` LE), and the final disc difference for the side to
//! move (`i8`). `--hand` uses the hand-written evaluation (to bootstrap
//! before any weights exist). Output is appended.

use std::io::Write;
use std::time::Instant;

use reversi_engine::training::SelfPlayer;
use reversi_engine::{Board, Square};

struct Args {
    games: u64,
    seed: u64,
    depth: u32,
    solve: u32,
    hand: bool,
    out: String,
}

fn parse_args() -> Args {
    let mut a = Args {
        games: 1000,
        seed: 1,
        depth: 4,
        solve: 14,
        hand: false,
        out: "/tmp/selfplay.bin".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().expect("option needs a value");
        match arg.as_str() {
            "--games" => a.games = value().parse().expect("--games N"),
            "--seed" => a.seed = value().parse().expect("--seed N"),
            "--depth" => a.depth = value().parse().expect("--depth N"),
            "--solve" => a.solve = value().parse().expect("--solve N"),
            "--hand" => a.hand = true,
            "--out" => a.out = value(),
            other => panic!("unknown option {other}"),
        }
    }
    a
}

/// xorshift64*: small, seeded, good enough to pick random moves.
fn next(x: &mut u64) -> u64 {
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    x.wrapping_mul(0x2545_f491_4f6c_dd1d)
}

/// Plays one game; returns positions (relative to the side to move, with
/// whether that side is black) and black's final disc difference.
fn play(sp: &mut SelfPlayer, args: &Args, rng: &mut u64) -> (Vec<(Board, bool)>, i32) {
    let random_plies = 6 + next(rng) % 8;
    let mut board = Board::start();
    let mut black = true;
    let mut positions = Vec::new();
    let mut ply = 0;
    loop {
        let moves = board.moves();
        if moves == 0 {
            if board.pass().moves() == 0 {
                break;
            }
            board = board.pass();
            black = !black;
            continue;
        }
        positions.push((board, black));
        let sq = if ply < random_plies {
            let n = moves.count_ones() as u64;
            reversi_engine::Squares(moves).nth((next(rng) % n) as usize)
        } else if board.empty_count() <= args.solve {
            sp.solve(board).and_then(|s| s.best)
        } else {
            sp.search_move(board, args.depth)
        };
        let sq: Square = sq.expect("a move exists");
        board = board.play(sq);
        black = !black;
        ply += 1;
    }
    let diff = board.final_score();
    (positions, if black { diff } else { -diff })
}

fn main() {
    let args = parse_args();
    let mut sp = SelfPlayer::new(args.hand);
    let mut out = std::io::BufWriter::new(
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&args.out)
            .expect("cannot open output"),
    );
    let start = Instant::now();
    let mut records = 0u64;
    for g in 0..args.games {
        let mut rng = (args.seed << 32 ^ g).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let (positions, black_diff) = play(&mut sp, &args, &mut rng);
        for (b, is_black) in positions {
            let label = if is_black { black_diff } else { -black_diff };
            out.write_all(&b.player.to_le_bytes()).unwrap();
            out.write_all(&b.opponent.to_le_bytes()).unwrap();
            out.write_all(&[label as i8 as u8]).unwrap();
            records += 1;
        }
        if (g + 1) % 500 == 0 {
            eprintln!(
                "{} games, {records} positions, {:.0} s",
                g + 1,
                start.elapsed().as_secs_f64()
            );
            out.flush().unwrap();
        }
    }
    out.flush().unwrap();
    eprintln!("done: {} games, {records} positions", args.games);
}
