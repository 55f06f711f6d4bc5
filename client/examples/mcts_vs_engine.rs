//! The general Monte Carlo player against Reversi's engine at the same
//! time per move, in one process (the two alternate, so a busy machine
//! slows both alike). Each opening (four random moves) is played twice,
//! colours swapped.
//!
//! cargo run --release -p reversi-client --example mcts_vs_engine -- [GAMES] [MS]

use std::time::Duration;

use reversi_games::mcts::Mcts;
use reversi_games::reversi::ReversiBot;
use reversi_games::{registry, Bot, Game, RandomBot, Standing, Team};

/// Random moves that open each pair of games.
const OPENING: usize = 4;

fn opening(seed: u64) -> Box<dyn Game> {
    let mut game = (registry::find("reversi").unwrap().new_game)(&Default::default());
    let mut random = RandomBot::new(seed);
    for _ in 0..OPENING {
        let team = game.turn().unwrap();
        let action = random.choose(&*game, team, Duration::ZERO).unwrap();
        game.play(team, &action, 0).unwrap();
    }
    game
}

fn main() {
    let mut args = std::env::args().skip(1);
    let games: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let ms: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let budget = Duration::from_millis(ms);
    let (mut won, mut drawn, mut lost) = (0, 0, 0);
    for number in 0..games {
        let mut game = opening(number / 2 + 1);
        let mcts_team = if number % 2 == 0 {
            Team::FIRST
        } else {
            Team::SECOND
        };
        let mut mcts = Mcts::new(number + 1);
        let mut engine = ReversiBot::new(number + 1);
        while let Some(team) = game.turn() {
            let bot: &mut dyn Bot = if team == mcts_team {
                &mut mcts
            } else {
                &mut engine
            };
            let action = bot.choose(&*game, team, budget).expect("a legal move");
            game.play(team, &action, 0).expect("legal");
        }
        let outcome = game.outcome().unwrap();
        match outcome.standing(mcts_team) {
            Standing::Win => won += 1,
            Standing::Draw => drawn += 1,
            Standing::Lose => lost += 1,
        }
        let colour = if mcts_team == Team::FIRST {
            "black"
        } else {
            "white"
        };
        println!(
            "game {}: MCTS {colour}, {:?} {}",
            number + 1,
            outcome.standing(mcts_team),
            outcome.why()
        );
    }
    println!(
        "MCTS against the engine at {ms} ms a move: {won} won, {drawn} drawn, {lost} lost of {games}"
    );
}
