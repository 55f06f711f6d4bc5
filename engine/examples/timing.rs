//! Plays the player against itself with a time per move and reports every
//! move that overran its budget (to check the time control).
//!
//! `cargo run --release -p reversi-engine --example timing -- [ms 200] [games 2]`

use std::time::{Duration, Instant};

use reversi_engine::player::{Player, PlayerConfig};
use reversi_engine::Game;

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse::<u64>().ok());
    let ms = args.next().unwrap_or(200);
    let games = args.next().unwrap_or(2);
    let budget = Duration::from_millis(ms);
    let (mut worst, mut moves) = (Duration::ZERO, 0);
    for seed in 0..games {
        let mut bot = Player::new(PlayerConfig {
            move_time: Some(budget),
            seed,
            opening_variety: true,
            ..PlayerConfig::default()
        });
        let mut game = Game::new();
        while game.side_to_move().is_some() {
            let t = Instant::now();
            let info = bot.choose_with_info(&game);
            let spent = t.elapsed();
            moves += 1;
            worst = worst.max(spent);
            if spent > budget {
                println!(
                    "over: {:?} at ply {} ({} empties, depth {}, exact {}, nodes {})",
                    spent,
                    game.moves().len(),
                    game.empty_count(),
                    info.depth,
                    info.exact,
                    info.nodes
                );
            }
            game.play(info.best.expect("a move")).expect("legal");
        }
    }
    println!("{moves} moves, worst {worst:?} for a budget of {budget:?}");
}
