//! A computer player for any game: the game's own strong player where its
//! module brings one (Reversi's engine, the draughts search), the general
//! Monte Carlo player of `reversi-games` otherwise.
//!
//! ```
//! use std::time::Duration;
//! use reversi_client::bots::{self, Strength};
//! use reversi_games::{registry, Team};
//!
//! let module = registry::find("tictactoe").unwrap();
//! let mut bot = bots::for_game(module, &Strength::default());
//! let game = (module.new_game)(&Default::default());
//! assert!(bot.choose(&*game, Team::FIRST, Duration::from_millis(20)).is_some());
//! ```

use std::time::Duration;

use reversi_engine::player::{Player, PlayerConfig};
use reversi_games::mcts::Mcts;
use reversi_games::registry::Module;
use reversi_games::{Action, Bot, DrawAnswer, Game, RandomBot, Team};

/// How the bot plays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strength {
    /// Time per move ([`DEFAULT_MOVE_TIME`] if none).
    pub move_time: Option<Duration>,
    /// Seed for the player's random choices.
    pub seed: u64,
}

impl Default for Strength {
    fn default() -> Strength {
        Strength {
            move_time: None,
            seed: 1,
        }
    }
}

/// The time per move when none is given.
pub const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(1);

impl Strength {
    /// The time a search may take for one move.
    pub fn budget(&self) -> Duration {
        self.move_time.unwrap_or(DEFAULT_MOVE_TIME)
    }
}

/// The computer player for `module`'s game: the game's own (its module's
/// `own_bot`) where it has one, the general one otherwise.
pub fn for_game(module: &Module, strength: &Strength) -> Box<dyn Bot> {
    match module.own_bot() {
        Some(own) => own(strength.seed),
        None => Box::new(Mcts::new(strength.seed)),
    }
}

/// Reversi's engine searching to a fixed depth (`reversi bot --level`),
/// or for `move_time` per move when one is given: the games crate's own
/// Reversi player always plays on the clock.
pub fn reversi_engine(level: u8, move_time: Option<Duration>, seed: u64) -> Box<dyn Bot> {
    Box::new(EngineAtLevel(Player::new(PlayerConfig {
        level,
        move_time,
        seed,
        opening_variety: true,
    })))
}

struct EngineAtLevel(Player);

impl Bot for EngineAtLevel {
    fn choose(&mut self, game: &dyn Game, team: Team, _budget: Duration) -> Option<Action> {
        if game.turn() != Some(team) {
            return None;
        }
        // The engine's game, rebuilt from the moves (the trait object hides the type).
        let transcript: String = game.history().iter().map(|m| m.notation.as_str()).collect();
        let board = reversi_engine::Game::from_transcript(&transcript).ok()?;
        let square = self.0.choose(&board)?;
        Some(Action::Move(vec![reversi_games::reversi::point(square)]))
    }
}

/// Plays the first moves of a game at random, then hands over: two bots
/// that would otherwise play the same game every time vary their openings.
pub struct RandomOpening {
    bot: Box<dyn Bot>,
    random: RandomBot,
    /// Moves of the game (both sides) played at random.
    plies: usize,
}

impl RandomOpening {
    /// `bot` after the first `plies` moves of each game; `seed` picks the moves.
    pub fn new(bot: Box<dyn Bot>, plies: usize, seed: u64) -> RandomOpening {
        RandomOpening {
            bot,
            random: RandomBot::new(seed),
            plies,
        }
    }
}

impl Bot for RandomOpening {
    fn choose(&mut self, game: &dyn Game, team: Team, budget: Duration) -> Option<Action> {
        if game.history().len() < self.plies {
            self.random.choose(game, team, budget)
        } else {
            self.bot.choose(game, team, budget)
        }
    }

    fn answer_draw(&mut self, game: &dyn Game, team: Team, budget: Duration) -> DrawAnswer {
        self.bot.answer_draw(game, team, budget)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_games::registry;

    #[test]
    fn every_game_has_a_bot_that_plays_legal_moves_to_the_end() {
        for module in registry::all().iter().filter(|m| !m.info.realtime) {
            let strength = Strength {
                move_time: Some(Duration::from_millis(5)),
                seed: 3,
            };
            let mut bot = for_game(module, &strength);
            let mut game = (module.new_game)(&Default::default());
            while let Some(team) = game.turn() {
                let action = bot.choose(&*game, team, strength.budget()).unwrap();
                game.play(team, &action, 0).unwrap();
            }
            assert!(game.outcome().is_some(), "{}", module.info.name);
        }
    }

    #[test]
    fn the_engine_at_a_level_plays_reversi_to_the_end() {
        let reversi = registry::find("reversi").unwrap();
        let mut bot = reversi_engine(1, None, 5);
        let mut game = (reversi.new_game)(&Default::default());
        while let Some(team) = game.turn() {
            let action = bot.choose(&*game, team, Duration::ZERO).unwrap();
            game.play(team, &action, 0).unwrap();
        }
        assert!(game.outcome().is_some());
        assert_eq!(bot.choose(&*game, Team::FIRST, Duration::ZERO), None);
    }

    #[test]
    fn random_openings_differ_by_seed_then_the_bot_takes_over() {
        let reversi = registry::find("reversi").unwrap();
        let opening = |seed| {
            let strength = Strength {
                move_time: Some(Duration::from_millis(5)),
                ..Strength::default()
            };
            let mut bot = RandomOpening::new(for_game(reversi, &strength), 6, seed);
            let mut game = (reversi.new_game)(&Default::default());
            for _ in 0..8 {
                let team = game.turn().unwrap();
                let action = bot.choose(&*game, team, Duration::ZERO).unwrap();
                game.play(team, &action, 0).unwrap();
            }
            game.history()
                .iter()
                .map(|m| m.notation.clone())
                .collect::<Vec<_>>()
        };
        let games: Vec<Vec<String>> = (1..=4).map(opening).collect();
        assert!(games.iter().any(|g| g[..6] != games[0][..6]), "{games:?}");
        // The engine plays on the clock after that: only the opening repeats.
        assert_eq!(opening(2)[..6], opening(2)[..6]);
    }
}
