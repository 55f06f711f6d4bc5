//! One evaluation against another at a fixed search depth, over pairs of
//! games from the same random opening with colours swapped. By default the
//! committed weights play the hand-written evaluation; `--a FILE` and
//! `--b FILE` load weights files instead (`--b hand` for the hand-written
//! one).
//!
//! ```text
//! cargo run --release -p reversi-engine --example selfmatch -- \
//!     [--a new.bin] [--b hand|old.bin] [pairs 50] [depth 6] [solve 14]
//! ```

use reversi_engine::training::SelfPlayer;
use reversi_engine::{Board, Squares};

fn main() {
    let (mut a, mut b) = (SelfPlayer::new(false), SelfPlayer::new(true));
    let mut numbers = Vec::new();
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--a" | "--b" => {
                let path = it.next().expect("--a/--b need a value");
                let player = if path == "hand" {
                    SelfPlayer::new(true)
                } else {
                    let bytes = std::fs::read(&path).expect("readable weights file");
                    SelfPlayer::with_weights(&bytes).expect("weights fit the layout")
                };
                if arg == "--a" {
                    a = player;
                } else {
                    b = player;
                }
            }
            n => numbers.push(n.parse::<u32>().expect("a number")),
        }
    }
    let mut numbers = numbers.into_iter();
    let pairs = numbers.next().unwrap_or(50);
    let depth = numbers.next().unwrap_or(6);
    let solve = numbers.next().unwrap_or(14);
    let (mut learned, mut hand) = (a, b);
    let (mut points, mut discs) = (0.0, 0i32);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..pairs {
        // A random 8-ply opening.
        let mut opening = Board::start();
        for _ in 0..8 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = opening.moves();
            let sq = Squares(m)
                .nth((x % m.count_ones() as u64) as usize)
                .expect("a move");
            opening = opening.play(sq);
        }
        for learned_first in [true, false] {
            let (mut b, mut learned_to_move) = (opening, learned_first);
            loop {
                if b.moves() == 0 {
                    if b.pass().moves() == 0 {
                        break;
                    }
                    b = b.pass();
                    learned_to_move = !learned_to_move;
                    continue;
                }
                let p = if learned_to_move {
                    &mut learned
                } else {
                    &mut hand
                };
                let sq = if b.empty_count() <= solve {
                    p.solve(b).and_then(|s| s.best)
                } else {
                    p.search_move(b, depth)
                };
                b = b.play(sq.expect("a move"));
                learned_to_move = !learned_to_move;
            }
            let d = if learned_to_move {
                b.final_score()
            } else {
                -b.final_score()
            };
            discs += d;
            points += if d > 0 {
                1.0
            } else if d == 0 {
                0.5
            } else {
                0.0
            };
        }
    }
    let games = 2 * pairs;
    println!(
        "a vs b, depth {depth}: {points}/{games} = {:.0}% for a, average disc difference {:+.1}",
        100.0 * points / games as f64,
        discs as f64 / games as f64
    );
}
