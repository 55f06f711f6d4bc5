//! The general computer player: Monte Carlo tree search (UCT) over the
//! [`Game`] trait alone, so any game has an opponent the day it is added.
//!
//! Each iteration copies the position ([`Game::clone_box`]), walks down the
//! tree choosing the child with the best upper confidence bound, adds one
//! untried action, plays random actions to the end ([`Game::legal_actions`],
//! [`Game::play`], [`Game::outcome`]), and counts the result for every
//! node on the way. The most visited action at the root is played. A game
//! that plays in real time has no turns: the search pretends the teams take
//! turns, starting with the one to choose for.
//!
//! ```
//! use std::time::Duration;
//! use reversi_games::{mcts::Mcts, registry, Bot, Team};
//!
//! let game = (registry::find("tictactoe").unwrap().new_game)(&Default::default());
//! let mut bot = Mcts::with_iterations(1, 500);
//! let action = bot.choose(&*game, Team::FIRST, Duration::from_millis(50));
//! assert!(game.legal_actions(Team::FIRST).contains(&action.unwrap()));
//! ```

use std::time::{Duration, Instant};

use crate::bot::{Bot, DrawAnswer, RandomBot};
use crate::game::{Action, Game, Outcome, Team};

/// The exploration constant of UCB1 (√2 for rewards in 0..=1).
const EXPLORATION: f64 = std::f64::consts::SQRT_2;

/// A random playout stops after this many actions and counts as a draw
/// (games that can go on for ever, or nearly).
const MAX_PLAYOUT: usize = 1000;

/// Time is read once per this many iterations.
const CLOCK_EVERY: u32 = 32;

/// How long to search for each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Limit {
    /// The budget [`Bot::choose`] is given.
    Time,
    /// This many iterations whatever the budget: same seed, same moves.
    Iterations(u32),
}

/// The UCT player.
pub struct Mcts {
    rng: RandomBot,
    limit: Limit,
}

/// One node: the position after `action` by `mover`.
struct Node {
    parent: Option<usize>,
    /// The action that led here from the parent (none at the root).
    action: Option<Action>,
    /// Who played `action`: rewards are counted from its side.
    mover: Team,
    children: Vec<usize>,
    untried: Vec<Action>,
    visits: u32,
    /// Sum of rewards for `mover`: 1 a win, ½ a draw, 0 a loss.
    reward: f64,
    /// The ending with best play from here, once proven (MCTS-Solver).
    proven: Option<Ending>,
}

impl Mcts {
    /// A player that searches for the budget each move is given.
    pub fn new(seed: u64) -> Mcts {
        Mcts {
            rng: RandomBot::new(seed),
            limit: Limit::Time,
        }
    }

    /// A player that runs `iterations` iterations a move, whatever the
    /// budget: reproducible, for tests and measurements.
    pub fn with_iterations(seed: u64, iterations: u32) -> Mcts {
        Mcts {
            rng: RandomBot::new(seed),
            limit: Limit::Iterations(iterations.max(1)),
        }
    }

    /// Whether to stop after `done` iterations begun at `start`.
    fn enough(&self, done: u32, start: Instant, budget: Duration) -> bool {
        match self.limit {
            Limit::Iterations(n) => done >= n,
            Limit::Time => done.is_multiple_of(CLOCK_EVERY) && start.elapsed() >= budget,
        }
    }

    fn pick(&mut self, actions: &mut Vec<Action>) -> Option<Action> {
        if actions.is_empty() {
            return None;
        }
        let i = self.rng.below(actions.len());
        Some(actions.swap_remove(i))
    }
}

/// Who acts in `game` now: its turn, or in a real-time game the team
/// whose pretended turn it is (`fallback`); `None` once it is over.
fn to_act(game: &dyn Game, fallback: Team) -> Option<Team> {
    if game.outcome().is_some() {
        return None;
    }
    if game.info().realtime {
        Some(fallback)
    } else {
        game.turn()
    }
}

/// How a playout ended, or how a node ends with best play once proven.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    Won(Team),
    /// A draw, or a playout abandoned as too long.
    Drawn,
}

impl Ending {
    fn of(outcome: Option<&Outcome>) -> Ending {
        match outcome {
            Some(Outcome::Win { team, .. }) => Ending::Won(*team),
            Some(Outcome::Draw { .. }) | None => Ending::Drawn,
        }
    }

    /// What it is worth to `team`: 1 a win, ½ a draw, 0 a loss.
    fn reward(self, team: Team) -> f64 {
        match self {
            Ending::Won(winner) if winner == team => 1.0,
            Ending::Won(_) => 0.0,
            Ending::Drawn => 0.5,
        }
    }
}

/// The next team of a real-time game's pretended turns.
fn after(game: &dyn Game, team: Team) -> Team {
    let teams = game.info().team_count().max(1) as u8;
    Team((team.0 + 1) % teams)
}

struct Tree {
    nodes: Vec<Node>,
    /// Whether endings may be proven (MCTS-Solver): real turns, two teams.
    proving: bool,
}

impl Tree {
    /// The team that acts at `node` (the mover of its children).
    fn acting(&self, node: usize) -> Option<Team> {
        let first = *self.nodes[node].children.first()?;
        Some(self.nodes[first].mover)
    }

    /// The child to descend into: a proven win for the team acting, else
    /// the best upper confidence bound (proven children at their true value).
    fn select_child(&self, node: usize) -> usize {
        let parent = &self.nodes[node];
        let acting = self.acting(node).expect("a node with children");
        let children = &parent.children;
        if let Some(&win) = children
            .iter()
            .find(|&&c| self.nodes[c].proven == Some(Ending::Won(acting)))
        {
            return win;
        }
        let log_n = f64::from(parent.visits.max(1)).ln();
        let score = |&c: &usize| {
            let child = &self.nodes[c];
            let n = f64::from(child.visits.max(1));
            let mean = match child.proven {
                Some(ending) => ending.reward(acting),
                None => child.reward / n,
            };
            mean + EXPLORATION * (log_n / n).sqrt()
        };
        *children
            .iter()
            .max_by(|a, b| score(a).total_cmp(&score(b)))
            .expect("a node with children")
    }

    fn add(&mut self, parent: usize, action: Action, mover: Team, game: &dyn Game, next: Team) {
        let untried = match to_act(game, next) {
            Some(team) => game.legal_actions(team),
            None => Vec::new(),
        };
        let over = game.outcome().is_some();
        let i = self.nodes.len();
        self.nodes.push(Node {
            parent: Some(parent),
            action: Some(action),
            mover,
            children: Vec::new(),
            untried,
            visits: 0,
            reward: 0.0,
            proven: (self.proving && over).then(|| Ending::of(game.outcome())),
        });
        self.nodes[parent].children.push(i);
    }

    /// Proves `node` from its children where it can: a child that wins for
    /// the team acting wins; when every action is tried and proven, the
    /// best of them (a draw if any, else the opponent's win).
    fn prove(&mut self, node: usize) {
        if !self.proving || self.nodes[node].proven.is_some() {
            return;
        }
        let Some(acting) = self.acting(node) else {
            return;
        };
        let endings: Vec<Option<Ending>> = self.nodes[node]
            .children
            .iter()
            .map(|&c| self.nodes[c].proven)
            .collect();
        let proven = if endings.contains(&Some(Ending::Won(acting))) {
            Some(Ending::Won(acting))
        } else if self.nodes[node].untried.is_empty() && endings.iter().all(Option::is_some) {
            Some(if endings.contains(&Some(Ending::Drawn)) {
                Ending::Drawn
            } else {
                endings[0].expect("all proven")
            })
        } else {
            None
        };
        self.nodes[node].proven = proven;
    }

    /// The action to play: a proven win, else the most visited action that
    /// is not a proven loss (if every action loses, the most visited).
    fn best(&self, team: Team) -> Option<usize> {
        let children = &self.nodes[0].children;
        let proven = |c: usize| self.nodes[c].proven;
        if let Some(&win) = children
            .iter()
            .find(|&&c| proven(c) == Some(Ending::Won(team)))
        {
            return Some(win);
        }
        let loses = |c: usize| matches!(proven(c), Some(Ending::Won(t)) if t != team);
        let most_visited = |keep: &dyn Fn(usize) -> bool| {
            children
                .iter()
                .copied()
                .filter(|&c| keep(c))
                .max_by_key(|&c| self.nodes[c].visits)
        };
        most_visited(&|c| !loses(c)).or_else(|| most_visited(&|_| true))
    }
}

impl Mcts {
    /// Searches `game` for `team` within `budget`; `None` when `team` has
    /// no action.
    fn search(&mut self, game: &dyn Game, team: Team, budget: Duration) -> Option<Tree> {
        let actions = game.legal_actions(team);
        if actions.is_empty() {
            return None;
        }
        let start = Instant::now();
        let mut tree = Tree {
            nodes: vec![Node {
                parent: None,
                action: None,
                // The root's reward is never read: its mover is whoever moved last.
                mover: team,
                children: Vec::new(),
                untried: actions,
                visits: 0,
                reward: 0.0,
                proven: None,
            }],
            proving: !game.info().realtime && game.info().team_count() == 2,
        };
        let mut done = 0;
        // Once the root is proven, more iterations cannot change the choice.
        while !self.enough(done, start, budget) && tree.nodes[0].proven.is_none() {
            self.iterate(&mut tree, game, team);
            done += 1;
        }
        Some(tree)
    }

    /// What `team`'s best action is worth to it, from 0 (a loss) to 1 (a
    /// win), after a search of `budget`; `None` when it has no action.
    pub fn expected_score(&mut self, game: &dyn Game, team: Team, budget: Duration) -> Option<f64> {
        let tree = self.search(game, team, budget)?;
        let best = &tree.nodes[tree.best(team)?];
        Some(match best.proven {
            Some(ending) => ending.reward(team),
            None => best.reward / f64::from(best.visits.max(1)),
        })
    }

    /// Answers a draw offer from the search's expected score: a draw is
    /// worth ½, so accept at or under [`ACCEPT_DRAW_AT`].
    pub fn answer_draw(&mut self, game: &dyn Game, team: Team, budget: Duration) -> DrawAnswer {
        match self.expected_score(game, team, budget) {
            Some(score) => DrawAnswer {
                accept: score <= ACCEPT_DRAW_AT,
                why: format!("its search expects {score:.2} of a point (a draw is worth 0.50)"),
            },
            None => DrawAnswer {
                accept: true,
                why: "it has no move to play".to_owned(),
            },
        }
    }
}

/// The expected score at or under which the search takes a draw: a draw's
/// ½ and a little room for the search's noise.
pub const ACCEPT_DRAW_AT: f64 = 0.55;

impl Bot for Mcts {
    fn choose(&mut self, game: &dyn Game, team: Team, budget: Duration) -> Option<Action> {
        let mut actions = game.legal_actions(team);
        if actions.len() <= 1 {
            return actions.pop();
        }
        let tree = self.search(game, team, budget)?;
        match tree.best(team) {
            Some(c) => tree.nodes[c].action.clone(),
            // Not one iteration finished: any legal action.
            None => game.legal_actions(team).into_iter().next(),
        }
    }

    fn answer_draw(&mut self, game: &dyn Game, team: Team, budget: Duration) -> DrawAnswer {
        Mcts::answer_draw(self, game, team, budget)
    }
}

impl Mcts {
    /// One iteration: select, expand, play out, count.
    fn iterate(&mut self, tree: &mut Tree, root: &dyn Game, team: Team) {
        let mut game = root.clone_box();
        let mut node = 0;
        // Whose (pretended) turn it is at `node`.
        let mut next = team;
        // Select, down to a node with untried actions or a proven ending.
        while tree.nodes[node].untried.is_empty()
            && !tree.nodes[node].children.is_empty()
            && tree.nodes[node].proven.is_none()
        {
            node = tree.select_child(node);
            let child = &tree.nodes[node];
            let action = child.action.as_ref().expect("a child has an action");
            if game.play(child.mover, action, 0).is_err() {
                break;
            }
            next = after(&*game, child.mover);
        }
        let ending = match tree.nodes[node].proven {
            Some(ending) => ending,
            None => {
                node = self.expand(tree, node, &mut *game, &mut next);
                self.play_out(&mut *game, next)
            }
        };
        // Count, and prove what can be proven on the way up.
        let mut at = Some(node);
        while let Some(i) = at {
            tree.prove(i);
            let n = &mut tree.nodes[i];
            n.visits += 1;
            n.reward += ending.reward(n.mover);
            at = n.parent;
        }
    }

    /// Adds one untried action of `node` to the tree; returns the new node
    /// (or `node` if it had none).
    fn expand(
        &mut self,
        tree: &mut Tree,
        node: usize,
        game: &mut dyn Game,
        next: &mut Team,
    ) -> usize {
        let Some(action) = self.pick(&mut tree.nodes[node].untried) else {
            return node;
        };
        let Some(mover) = to_act(game, *next) else {
            return node;
        };
        if game.play(mover, &action, 0).is_err() {
            return node;
        }
        *next = after(game, mover);
        tree.add(node, action, mover, game, *next);
        tree.nodes.len() - 1
    }

    /// Random actions to the end (or [`MAX_PLAYOUT`] of them).
    fn play_out(&mut self, game: &mut dyn Game, mut next: Team) -> Ending {
        let mut plies = 0;
        while let Some(mover) = to_act(game, next) {
            let mut actions = game.legal_actions(mover);
            let Some(action) = self.pick(&mut actions) else {
                break;
            };
            if plies >= MAX_PLAYOUT || game.play(mover, &action, 0).is_err() {
                break;
            }
            next = after(game, mover);
            plies += 1;
        }
        Ending::of(game.outcome())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::game::Point;

    fn tictactoe() -> Box<dyn Game> {
        (crate::tictactoe::MODULE.new_game)(&Default::default())
    }

    fn position(moves: &[&str]) -> Box<dyn Game> {
        let mut game = tictactoe();
        for (i, notation) in moves.iter().enumerate() {
            let action = game.parse_action(notation).unwrap();
            game.play(Team((i % 2) as u8), &action, 0).unwrap();
        }
        game
    }

    #[test]
    fn a_draw_is_taken_in_a_lost_position_and_refused_in_a_won_one() {
        let mut mcts = Mcts::with_iterations(7, 4000);
        // O threatens a3 and c1; X, to move, blocks one and loses.
        let lost = position(&["b2", "a1", "c2", "a2", "b3", "b1"]);
        let answer = mcts.answer_draw(&*lost, Team::FIRST, Duration::ZERO);
        assert!(answer.accept, "{answer:?}");
        assert!(answer.why.contains("expects 0.00 of a point"), "{answer:?}");
        // X on a1 and b1, to move: c1 wins.
        let won = position(&["a1", "a2", "b1", "b2"]);
        let answer = mcts.answer_draw(&*won, Team::FIRST, Duration::ZERO);
        assert!(!answer.accept, "{answer:?}");
        assert!(answer.why.contains("expects 1.00"), "{answer:?}");
    }

    /// The position as a key: who stands on each square.
    fn key(game: &dyn Game) -> Vec<Option<Team>> {
        let view = game.view(crate::Viewer::Spectator);
        view.iter()
            .map(|c| c.piece.as_ref().map(|p| p.team))
            .collect()
    }

    /// Minimax value of `game` for the team to move: 1 win, 0 draw, -1 loss
    /// (ended positions: scored from the side of the team that moved last).
    fn value(game: &dyn Game, memo: &mut HashMap<Vec<Option<Team>>, i32>) -> i32 {
        let Some(team) = game.turn() else {
            return match game.outcome() {
                Some(Outcome::Win { .. }) => -1,
                _ => 0,
            };
        };
        if let Some(&v) = memo.get(&key(game)) {
            return v;
        }
        let best = game
            .legal_actions(team)
            .iter()
            .map(|action| -value(&*after_action(game, team, action), memo))
            .max()
            .unwrap_or(0);
        memo.insert(key(game), best);
        best
    }

    fn after_action(game: &dyn Game, team: Team, action: &Action) -> Box<dyn Game> {
        let mut next = game.clone_box();
        next.play(team, action, 0).unwrap();
        next
    }

    /// A perfect player: one of the actions with the best minimax value,
    /// chosen at random so that the games differ.
    struct Perfect {
        rng: RandomBot,
        memo: HashMap<Vec<Option<Team>>, i32>,
    }

    impl Perfect {
        fn new(seed: u64) -> Perfect {
            Perfect {
                rng: RandomBot::new(seed),
                memo: HashMap::new(),
            }
        }
    }

    impl Bot for Perfect {
        fn choose(&mut self, game: &dyn Game, team: Team, _: Duration) -> Option<Action> {
            let mut scored: Vec<(i32, Action)> = game
                .legal_actions(team)
                .into_iter()
                .map(|action| {
                    let v = -value(&*after_action(game, team, &action), &mut self.memo);
                    (v, action)
                })
                .collect();
            let best = scored.iter().map(|(v, _)| *v).max()?;
            scored.retain(|(v, _)| *v == best);
            let i = self.rng.below(scored.len());
            Some(scored.swap_remove(i).1)
        }
    }

    /// Plays one game; returns the outcome.
    fn play(first: &mut dyn Bot, second: &mut dyn Bot) -> Outcome {
        let mut game = tictactoe();
        while let Some(team) = game.turn() {
            let bot: &mut dyn Bot = if team == Team::FIRST { first } else { second };
            let action = bot.choose(&*game, team, Duration::ZERO).unwrap();
            game.play(team, &action, 0).unwrap();
        }
        game.outcome().unwrap().clone()
    }

    #[test]
    fn the_perfect_player_is_perfect() {
        assert_eq!(value(&*tictactoe(), &mut HashMap::new()), 0);
        // It never loses to the random mover, and wins most games.
        let mut wins = 0;
        for seed in 1..=20 {
            let outcome = play(&mut Perfect::new(seed), &mut RandomBot::new(seed));
            assert_ne!(outcome.standing(Team::FIRST), crate::Standing::Lose);
            wins += usize::from(outcome.winner() == Some(Team::FIRST));
        }
        assert!(wins > 10, "{wins}");
    }

    /// Issue 11's measure: the general player never loses a game of
    /// Tic-Tac-Toe to a perfect player over 100 games, 50 with each team.
    #[test]
    fn never_loses_tictactoe_to_a_perfect_player() {
        let mut draws = 0;
        for seed in 1..=100u64 {
            let mut mcts = Mcts::with_iterations(seed, 2000);
            let mut perfect = Perfect::new(seed * 7919);
            let (outcome, mcts_team) = if seed % 2 == 0 {
                (play(&mut mcts, &mut perfect), Team::FIRST)
            } else {
                (play(&mut perfect, &mut mcts), Team::SECOND)
            };
            assert_ne!(
                outcome.standing(mcts_team),
                crate::Standing::Lose,
                "game {seed}: {outcome:?}"
            );
            draws += usize::from(outcome.winner().is_none());
        }
        // A perfect player cannot lose either: every game is drawn.
        assert_eq!(draws, 100);
    }

    #[test]
    fn takes_a_win_and_blocks_a_loss() {
        // X: a1 b1, O: a2 b2; X to move wins at c1.
        let mut game = tictactoe();
        for (team, x, y) in [(0, 1, 1), (1, 1, 2), (0, 2, 1), (1, 2, 2)] {
            game.play(Team(team), &Action::Move(vec![Point::new(x, y)]), 0)
                .unwrap();
        }
        let mut bot = Mcts::with_iterations(3, 500);
        let win = Action::Move(vec![Point::new(3, 1)]);
        assert_eq!(bot.choose(&*game, Team::FIRST, Duration::ZERO), Some(win));
        // X: a1 b1, O: a2; O to move must block at c1.
        let mut game = tictactoe();
        for (team, x, y) in [(0, 1, 1), (1, 1, 2), (0, 2, 1)] {
            game.play(Team(team), &Action::Move(vec![Point::new(x, y)]), 0)
                .unwrap();
        }
        let block = Action::Move(vec![Point::new(3, 1)]);
        assert_eq!(
            bot.choose(&*game, Team::SECOND, Duration::ZERO),
            Some(block)
        );
    }

    #[test]
    fn a_time_budget_is_kept_roughly_and_reversi_gets_a_legal_move() {
        let game = (crate::reversi::MODULE.new_game)(&Default::default());
        let mut bot = Mcts::new(5);
        let action = bot
            .choose(&*game, Team::FIRST, Duration::from_millis(20))
            .unwrap();
        assert!(game.legal_actions(Team::FIRST).contains(&action));
    }

    #[test]
    fn nothing_to_do_gives_none() {
        let game = tictactoe();
        let mut bot = Mcts::with_iterations(1, 10);
        assert_eq!(bot.choose(&*game, Team::SECOND, Duration::ZERO), None);
    }
}
