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

/// A game's typical number of moves per side, for sharing a clock's time out over a game.
pub fn typical_moves(game: &str) -> u32 {
    match game.to_ascii_lowercase().as_str() {
        "tictactoe" => 5,
        "draughts" | "duell" => 40,
        _ => 30,
    }
}

/// What a bot knows of its clock when it is to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnTheClock {
    /// The game's control (`GAME TIME`), if told.
    pub control: Option<reversi_text::TimeControl>,
    /// The bot's own time left now (`GAME CLOCK`), if told.
    pub left: Option<Duration>,
    /// Moves the bot made so far in this game.
    pub moves_made: u32,
    /// [`typical_moves`] of the game.
    pub typical: u32,
}

/// Kept back from the time left on every move: the way to the server and back, and
/// the server's reading of the move, must not flag the bot.
pub const SAFETY: Duration = Duration::from_secs(1);

impl Strength {
    /// The time to think about one move on this clock (docs/design/play-together.md
    /// §9.3). Fischer: the time left shared over the moves still to come (at least
    /// ten), plus most of the increment, never closer than [`SAFETY`] to the flag;
    /// a move limit: the limit less [`SAFETY`]; no more than `--move-time` when given.
    pub fn budget_on(&self, clock: &OnTheClock) -> Duration {
        use reversi_text::TimeControl;
        let ms = Duration::from_millis;
        let by_clock = match (clock.control, clock.left) {
            (Some(TimeControl::Fischer { increment, .. }), Some(left)) => {
                let to_come = clock.typical.saturating_sub(clock.moves_made).max(10);
                let share = left / to_come + ms(increment) * 4 / 5;
                Some(share.min(left.saturating_sub(SAFETY)))
            }
            (Some(TimeControl::Move { limit, .. }), left) => {
                let limit = left.unwrap_or(ms(limit));
                Some(limit.saturating_sub(SAFETY))
            }
            _ => None,
        };
        match (by_clock, self.move_time) {
            (Some(time), Some(cap)) => time.min(cap),
            (Some(time), None) => time,
            (None, _) => self.budget(),
        }
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
    fn a_bot_spends_its_time_by_the_clock() {
        use reversi_text::TimeControl;
        let s = Duration::from_secs;
        let ms = Duration::from_millis;
        let free = Strength {
            move_time: Some(s(60)),
            seed: 1,
        };
        let fischer = |left, moves_made| OnTheClock {
            control: Some(TimeControl::Fischer {
                base: 300_000,
                increment: 3_000,
            }),
            left: Some(left),
            moves_made,
            typical: 30,
        };
        // 5+3 at the start: 300 s / 30 + 2.4 s.
        assert_eq!(free.budget_on(&fischer(s(300), 0)), ms(12_400));
        // Late in the game the time left is shared over ten moves at least.
        assert_eq!(free.budget_on(&fischer(s(20), 40)), ms(4_400));
        // Near the flag: never closer than a second to it.
        assert_eq!(free.budget_on(&fischer(ms(1_500), 40)), ms(500));
        assert_eq!(free.budget_on(&fischer(ms(800), 40)), Duration::ZERO);
        // --move-time caps it.
        let capped = Strength {
            move_time: Some(ms(200)),
            seed: 1,
        };
        assert_eq!(capped.budget_on(&fischer(s(300), 0)), ms(200));
        // A move limit: the limit less the safety margin.
        let per_move = OnTheClock {
            control: Some(TimeControl::Move {
                limit: 5_000,
                first: 30_000,
            }),
            left: Some(s(5)),
            moves_made: 3,
            typical: 30,
        };
        assert_eq!(free.budget_on(&per_move), s(4));
        assert_eq!(capped.budget_on(&per_move), ms(200));
        // No clock: the usual budget.
        let none = OnTheClock {
            control: None,
            left: None,
            moves_made: 0,
            typical: 30,
        };
        assert_eq!(Strength::default().budget_on(&none), DEFAULT_MOVE_TIME);
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
