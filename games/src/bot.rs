//! Computer players: a bot is just another client, choosing actions from
//! the rules it shares with the server.

use std::time::Duration;

use crate::game::{Action, Game, Team};

/// A computer player for one game.
pub trait Bot: Send {
    /// An action for `team` in `game`, using at most about `budget` of wall-clock time;
    /// `None` when `team` has nothing to do.
    fn choose(&mut self, game: &dyn Game, team: Team, budget: Duration) -> Option<Action>;

    /// The answer of `team` to the draw its opponent offers in `game`:
    /// accept when this player's own evaluation says the position is drawn
    /// or lost for `team`, else decline; with the reason, for people. The
    /// default asks a Monte Carlo tree search; a game's own player judges
    /// with its own evaluation.
    fn answer_draw(&mut self, game: &dyn Game, team: Team, budget: Duration) -> DrawAnswer {
        crate::mcts::Mcts::new(0x5eed).answer_draw(game, team, budget)
    }
}

/// A computer player's answer to a draw offer, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawAnswer {
    pub accept: bool,
    /// What the evaluation found: `its search expects 0.31 of a point`.
    pub why: String,
}

/// A bot that picks uniformly among the legal actions: the opponent every
/// other bot must beat, and a smoke test for any game module.
pub struct RandomBot {
    state: u64,
}

impl RandomBot {
    pub fn new(seed: u64) -> RandomBot {
        RandomBot { state: seed | 1 }
    }

    /// xorshift64*: small, fast and good enough to pick moves.
    pub fn next_u64(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

impl Bot for RandomBot {
    fn choose(&mut self, game: &dyn Game, team: Team, _budget: Duration) -> Option<Action> {
        let mut actions = game.legal_actions(team);
        if actions.is_empty() {
            return None;
        }
        let i = self.below(actions.len());
        Some(actions.swap_remove(i))
    }
}
