//! Learned against hand-written evaluation, at a fixed search depth, over
//! pairs of games from the same random opening with colours swapped.
//!
//! ```text
//! cargo run --release -p reversi-engine --example selfmatch -- [pairs 50] [depth 6] [solve 14]
//! ```

use reversi_engine::training::SelfPlayer;
use reversi_engine::{Board, Squares};

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse::<u32>().ok());
    let pairs = args.next().unwrap_or(50);
    let depth = args.next().unwrap_or(6);
    let solve = args.next().unwrap_or(14);
    let mut learned = SelfPlayer::new(false);
    let mut hand = SelfPlayer::new(true);
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
        "learned vs hand, depth {depth}: {points}/{games} = {:.0}%, average disc difference {:+.1}",
        100.0 * points / games as f64,
        discs as f64 / games as f64
    );
}
