//! Matches for the draughts computer player.
//!
//! `cargo run --release -p reversi-games --example draughts_match -- self 98 100`
//! plays the bot with 100 ms a move against itself with 50 ms, over the 49
//! two-move openings, each opening twice with colours swapped.
//!
//! `cargo run --release -p reversi-games --example draughts_match -- random 100 20`
//! plays the bot with 20 ms a move against a random mover, colours alternating.
//!
//! Both print the score and the bots' nodes per second.

use std::time::Duration;

use reversi_games::draughts::{Draughts, DraughtsBot, Position};
use reversi_games::{Bot, Game, RandomBot, Standing, Team};

/// Searches made and their total nodes and seconds.
#[derive(Default)]
struct Speed {
    nodes: u64,
    secs: f64,
}

impl Speed {
    fn add(&mut self, bot: &DraughtsBot) {
        if let Some(r) = bot.last_report() {
            self.nodes += r.nodes;
            self.secs += r.elapsed.as_secs_f64();
        }
    }

    fn per_second(&self) -> f64 {
        self.nodes as f64 / self.secs.max(1e-9)
    }
}

enum Player {
    Bot(Box<DraughtsBot>, Duration),
    Random(RandomBot),
}

impl Player {
    fn choose(&mut self, game: &Draughts, team: Team, speed: &mut Speed) -> reversi_games::Action {
        match self {
            Player::Bot(bot, budget) => {
                let action = bot.choose(game, team, *budget);
                speed.add(bot);
                action.expect("the bot has a move")
            }
            Player::Random(random) => random.choose(game, team, Duration::ZERO).expect("a move"),
        }
    }
}

/// Plays one game from `opening`; `players[0]` plays Black. Returns Black's standing.
fn play(opening: &[&str], players: &mut [Player; 2], speeds: &mut [Speed; 2]) -> Standing {
    let mut game = Draughts::new();
    for text in opening {
        let team = game.turn().expect("the opening is legal");
        let action = game.parse_action(text).expect("the opening is legal");
        game.play(team, &action, 0).expect("the opening is legal");
    }
    while let Some(team) = game.turn() {
        let i = usize::from(team.0);
        let action = players[i].choose(&game, team, &mut speeds[i]);
        game.play(team, &action, 0)
            .expect("players make legal moves");
    }
    game.outcome().expect("over").standing(Team::FIRST)
}

/// The 49 two-move openings, in move order.
fn openings() -> Vec<[String; 2]> {
    let start = Position::start();
    let mut all = Vec::new();
    for first in start.legal_moves() {
        let after = start.play(&first);
        for second in after.legal_moves() {
            all.push([first.to_string(), second.to_string()]);
        }
    }
    all
}

fn points(standing: Standing) -> f64 {
    match standing {
        Standing::Win => 1.0,
        Standing::Draw => 0.5,
        Standing::Lose => 0.0,
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "self".to_owned());
    let games: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(98);
    let ms: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let budget = Duration::from_millis(ms);
    let openings = openings();
    // Player A is the bot at the full budget; B the opponent.
    let (mut score, mut wins, mut draws, mut losses) = (0.0, 0, 0, 0);
    let mut speeds = [Speed::default(), Speed::default()];
    for n in 0..games {
        let a = Player::Bot(Box::default(), budget);
        let b = match mode.as_str() {
            "random" => Player::Random(RandomBot::new(n as u64 + 1)),
            _ => Player::Bot(Box::default(), budget / 2),
        };
        let a_black = n % 2 == 0;
        let opening: Vec<&str> = match mode.as_str() {
            "random" => Vec::new(),
            _ => openings[(n / 2) % openings.len()]
                .iter()
                .map(String::as_str)
                .collect(),
        };
        let (mut players, flip) = if a_black {
            ([a, b], false)
        } else {
            ([b, a], true)
        };
        let mut game_speeds = [Speed::default(), Speed::default()];
        let black = play(&opening, &mut players, &mut game_speeds);
        if flip {
            game_speeds.swap(0, 1);
        }
        for (total, game) in speeds.iter_mut().zip(game_speeds) {
            total.nodes += game.nodes;
            total.secs += game.secs;
        }
        let a_standing = if a_black { black } else { opponent(black) };
        score += points(a_standing);
        match a_standing {
            Standing::Win => wins += 1,
            Standing::Draw => draws += 1,
            Standing::Lose => losses += 1,
        }
        println!(
            "game {:>3} {:<12} A as {}: {a_standing:?}",
            n + 1,
            opening.join(" "),
            if a_black { "black" } else { "white" },
        );
    }
    let opponent_name = if mode == "random" {
        "a random mover".to_owned()
    } else {
        format!("itself at {} ms", ms / 2)
    };
    println!(
        "bot at {ms} ms against {opponent_name}: {score}/{games} \
         (+{wins} ={draws} -{losses}); nodes/s: A {:.0}, B {:.0}",
        speeds[0].per_second(),
        speeds[1].per_second()
    );
}

fn opponent(standing: Standing) -> Standing {
    match standing {
        Standing::Win => Standing::Lose,
        Standing::Lose => Standing::Win,
        Standing::Draw => Standing::Draw,
    }
}
