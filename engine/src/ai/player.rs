//! The computer player: midgame search plus exact endgame solving, at a
//! fixed level or with a time per move.

use std::time::{Duration, Instant};

use crate::ai::search::{Limits, Searcher};
use crate::ai::solve::Solver;
use crate::Game;
use crate::Square;

pub use crate::ai::search::SearchInfo;

/// How a [`Player`] plays.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PlayerConfig {
    /// Strength 1..=[`Player::MAX_LEVEL`] when no `move_time` is given: the
    /// midgame search depth; positions with `level + 6` or fewer empties
    /// (at most 20) are solved exactly, and up to `level + 8` (at most 22)
    /// a win/loss/draw solve is tried first. Values out of range are
    /// clamped.
    pub level: u8,
    /// Time per move. When set, the search deepens until the time is spent
    /// (a few per cent of slack at most) and `level` is ignored; moves then
    /// depend on the machine's speed.
    pub move_time: Option<Duration>,
    /// Seed for the opening variety. At a fixed level, players created with
    /// the same configuration and shown the same sequence of positions
    /// choose the same moves (the hash tables carry over between moves, so
    /// a player's history matters too).
    pub seed: u64,
    /// In the first plies, pick at random (seeded) among moves scoring
    /// within a small margin of the best so matches do not repeat one game.
    pub opening_variety: bool,
}

impl Default for PlayerConfig {
    fn default() -> PlayerConfig {
        PlayerConfig {
            level: 8,
            move_time: None,
            seed: 0,
            opening_variety: false,
        }
    }
}

/// Plies (from the start of the game) during which opening variety applies.
const VARIETY_PLIES: usize = 10;
/// Margin in hundredths of a disc within which moves count as near-equal.
const VARIETY_MARGIN: i32 = 60;

/// Which solve a timed move tries before searching.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum SolveKind {
    /// The exact final score.
    Exact,
    /// Only whether the game is won, lost or drawn (5-10 times cheaper).
    WinLossDraw,
}

/// How a move with a time budget spends it; every instant lies within
/// `start + budget`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Plan {
    start: Instant,
    /// A solve to try first, abandoned at its instant.
    solve: Option<(SolveKind, Instant)>,
    /// No new search iteration starts after this.
    soft: Instant,
    /// The search is abandoned here.
    search_end: Instant,
    /// Everything, opening variety included, ends here.
    end: Instant,
}

impl Plan {
    /// The plan for a move started at `start` with `budget`, in a position
    /// with `empties` empty squares; `forced` when there is one legal move
    /// (it needs no thinking: a tenth of the budget still gives callers a
    /// meaningful score), `varies` when opening variety applies (it keeps
    /// half the time for scoring every move).
    fn new(start: Instant, budget: Duration, empties: u32, forced: bool, varies: bool) -> Plan {
        let budget = if forced { budget / 10 } else { budget };
        // Keep a margin for the caller's own overhead (and keep absurd
        // budgets from overflowing the clock).
        let budget = budget
            .min(Duration::from_secs(86_400))
            .mul_f64(0.93)
            .saturating_sub(Duration::from_millis(2));
        let at = |share: f64| start + budget.mul_f64(share);
        // Measured on self-play positions (examples/solve_times.rs): exact
        // solves average 0.04 s at 18 empties and 0.6 s at 20; win/loss/draw
        // solves are 5-10 times cheaper.
        let solve_limit = 14 + (budget.as_secs_f64() / 0.05).max(1.0).log2().floor() as u32;
        let solve = if empties <= solve_limit.min(24) {
            Some((SolveKind::Exact, at(0.6)))
        } else if empties <= (solve_limit + 3).min(26) {
            Some((SolveKind::WinLossDraw, at(0.45)))
        } else {
            None
        };
        let share = if varies { 0.5 } else { 1.0 };
        Plan {
            start,
            solve,
            soft: at(0.45 * share),
            search_end: at(share),
            end: at(1.0),
        }
    }
}

/// A computer player. Keeps its hash tables between moves (two tables of
/// 2^20 entries, up to about 48 MB once filled; the memory is committed
/// lazily as the tables are used), so reuse one per game or per bot.
pub struct Player {
    cfg: PlayerConfig,
    searcher: Searcher,
    solver: Solver,
}

impl Player {
    /// Highest fixed level.
    pub const MAX_LEVEL: u8 = 20;

    /// A player with this configuration.
    pub fn new(cfg: PlayerConfig) -> Player {
        Player {
            cfg,
            searcher: Searcher::new(20),
            solver: Solver::new(20),
        }
    }

    /// The configuration in use.
    pub fn config(&self) -> PlayerConfig {
        self.cfg
    }

    /// The move to play, `None` only when the game is over.
    pub fn choose(&mut self, game: &Game) -> Option<Square> {
        self.choose_with_info(game).best
    }

    /// The move to play with what the search found (depth, score, nodes).
    /// `best` is `None` only when the game is over.
    pub fn choose_with_info(&mut self, game: &Game) -> SearchInfo {
        let start = Instant::now();
        let mut info = self.think(game, start);
        // Never return an illegal move, whatever went wrong above.
        match info.best {
            Some(sq) if game.is_legal(sq) => {}
            _ => info.best = game.legal_moves().next(),
        }
        info.elapsed = start.elapsed();
        info
    }

    fn think(&mut self, game: &Game, start: Instant) -> SearchInfo {
        if game.side_to_move().is_none() {
            return SearchInfo::default();
        }
        let board = game.board();
        let empties = board.empty_count();
        let level = self.cfg.level.clamp(1, Self::MAX_LEVEL) as u32;
        match self.cfg.move_time {
            None => {
                let solve = if empties <= (level + 6).min(20) {
                    Some(SolveKind::Exact)
                } else if empties <= (level + 8).min(22) {
                    Some(SolveKind::WinLossDraw)
                } else {
                    None
                };
                if let Some(info) = solve.and_then(|kind| self.solve(game, kind, None, start)) {
                    return info;
                }
                let info = self.searcher.search(
                    board,
                    Limits {
                        depth: level,
                        soft: None,
                        hard: None,
                    },
                );
                self.vary(game, info, level.min(6), None)
            }
            Some(budget) => {
                let plan = Plan::new(
                    start,
                    budget,
                    empties,
                    board.moves().count_ones() == 1,
                    self.varies(game),
                );
                self.timed(game, &plan)
            }
        }
    }

    /// Time-limited move, as planned: a solve first when the position is
    /// small enough; otherwise (or if the solve runs out of time or finds
    /// only losses) iterative deepening, then opening variety.
    fn timed(&mut self, game: &Game, plan: &Plan) -> SearchInfo {
        if let Some((kind, deadline)) = plan.solve {
            if let Some(info) = self.solve(game, kind, Some(deadline), plan.start) {
                return info;
            }
        }
        let info = self.searcher.search(
            game.board(),
            Limits {
                depth: 60,
                soft: Some(plan.soft),
                hard: Some(plan.search_end),
            },
        );
        let variety_depth = info.depth.saturating_sub(2).clamp(1, 6);
        self.vary(game, info, variety_depth, Some(plan.end))
    }

    /// A solve of the current position; `None` if the deadline passed
    /// first, or if a win/loss/draw solve finds only losses (a lost
    /// position is left to the midgame search, which plays on for the
    /// opponent's mistakes). A win/loss/draw score is +1 disc for a win, 0
    /// for a draw.
    fn solve(
        &mut self,
        game: &Game,
        kind: SolveKind,
        deadline: Option<Instant>,
        start: Instant,
    ) -> Option<SearchInfo> {
        let board = game.board();
        let (score, exact, s) = match kind {
            SolveKind::Exact => {
                let s = self.solver.solve(board, deadline)?;
                (s.score, true, s)
            }
            SolveKind::WinLossDraw => {
                let s = self.solver.solve_window(board, -1, 1, deadline)?;
                if s.score < 0 {
                    return None;
                }
                (s.score.signum(), false, s)
            }
        };
        Some(SearchInfo {
            best: s.best,
            depth: board.empty_count(),
            score: score * 100,
            nodes: s.nodes,
            exact,
            elapsed: start.elapsed(),
        })
    }

    /// In the opening, with variety on, replaces the chosen move by a seeded
    /// random one among those scoring within [`VARIETY_MARGIN`] of the best
    /// at a shallow fixed depth.
    fn vary(
        &mut self,
        game: &Game,
        info: SearchInfo,
        depth: u32,
        deadline: Option<Instant>,
    ) -> SearchInfo {
        if !self.varies(game) {
            return info;
        }
        let Some(scores) = self.searcher.root_scores(game.board(), depth, deadline) else {
            return info;
        };
        let Some(top) = scores.iter().map(|&(_, v)| v).max() else {
            return info;
        };
        let near: Vec<(Square, i32)> = scores
            .into_iter()
            .filter(|&(_, v)| v >= top - VARIETY_MARGIN)
            .collect();
        let mut h = self.cfg.seed ^ 0x243f_6a88_85a3_08d3;
        for sq in game.moves() {
            h = mix(h ^ sq.index() as u64);
        }
        let (sq, score) = near[(mix(h) % near.len() as u64) as usize];
        SearchInfo {
            best: Some(sq),
            score,
            ..info
        }
    }
}

impl Player {
    /// Whether opening variety applies to this move.
    fn varies(&self, game: &Game) -> bool {
        self.cfg.opening_variety && game.moves().len() < VARIETY_PLIES
    }
}

/// SplitMix64 finaliser: a well-spread hash of a 64-bit value.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn player(level: u8, seed: u64, variety: bool) -> Player {
        Player::new(PlayerConfig {
            level,
            move_time: None,
            seed,
            opening_variety: variety,
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]
        /// Random games where the bot moves for one side: every move it
        /// picks must be legal, and it answers until the game ends.
        #[test]
        fn bot_moves_are_always_legal(seed in any::<u64>(), level in 1u8..4) {
            let mut bot = player(level, seed, true);
            let mut g = Game::new();
            let mut x = seed | 1;
            while let Some(side) = g.side_to_move() {
                let sq = if (side == crate::Side::Black) == (seed & 1 == 0) {
                    let sq = bot.choose(&g);
                    prop_assert!(sq.is_some());
                    sq.unwrap()
                } else {
                    x = mix(x);
                    let moves: Vec<_> = g.legal_moves().collect();
                    moves[(x % moves.len() as u64) as usize]
                };
                prop_assert!(g.is_legal(sq), "{} illegal in {}", sq, g.transcript());
                g.play(sq).unwrap();
            }
            prop_assert_eq!(bot.choose(&g), None);
        }
    }

    #[test]
    fn same_seed_same_moves_and_variety_varies() {
        let game = |seed| {
            let mut a = player(3, seed, true);
            let mut b = player(3, seed ^ 0x55, true);
            let mut g = Game::new();
            while g.side_to_move().is_some() && g.moves().len() < 12 {
                let sq = if g.moves().len().is_multiple_of(2) {
                    a.choose(&g)
                } else {
                    b.choose(&g)
                };
                g.play(sq.unwrap()).unwrap();
            }
            g.transcript()
        };
        assert_eq!(game(1), game(1));
        let distinct: std::collections::HashSet<String> = (0..6).map(game).collect();
        assert!(
            distinct.len() > 1,
            "opening variety gave one game: {distinct:?}"
        );
    }

    #[test]
    fn extreme_budgets_do_not_panic() {
        let g = Game::from_transcript("f5d6c3d3c4f4f6f3e6e7").unwrap();
        let mut zero = Player::new(PlayerConfig {
            move_time: Some(Duration::ZERO),
            ..PlayerConfig::default()
        });
        assert!(g.is_legal(zero.choose(&g).unwrap()));
        // Duration::MAX must not overflow the deadline arithmetic. With 10
        // empties the exact solve answers at once, whatever the budget.
        let mut huge = Player::new(PlayerConfig {
            move_time: Some(Duration::MAX),
            ..PlayerConfig::default()
        });
        let mut g = Game::new();
        let mut x = 3u64;
        while g.empty_count() > 10 && g.side_to_move().is_some() {
            x = mix(x);
            let moves: Vec<_> = g.legal_moves().collect();
            g.play(moves[(x % moves.len() as u64) as usize]).unwrap();
        }
        let info = huge.choose_with_info(&g);
        assert_eq!(info.best.is_some(), g.side_to_move().is_some());
    }

    /// Every instant of a plan lies within the budget (a tenth of it for a
    /// forced move), in the order the move uses them. Checked on the plan
    /// rather than by timing moves, which depends on the machine's load.
    #[test]
    fn time_plans_stay_within_the_budget() {
        let start = Instant::now();
        for ms in [0, 1, 5, 100, 1000, 60_000] {
            let budget = Duration::from_millis(ms);
            for empties in [4, 14, 18, 22, 26, 40, 60] {
                for (forced, varies) in [(false, false), (false, true), (true, false)] {
                    let plan = Plan::new(start, budget, empties, forced, varies);
                    let limit = start + if forced { budget / 10 } else { budget };
                    let solve_end = plan.solve.map_or(start, |(_, at)| at);
                    assert!(solve_end <= plan.end && plan.soft <= plan.search_end);
                    assert!(plan.search_end <= plan.end && plan.end <= limit, "{plan:?}");
                    if varies {
                        // Half the time is left for scoring every move.
                        assert!(
                            plan.search_end - start
                                <= (plan.end - start) / 2 + Duration::from_nanos(1)
                        );
                    }
                }
            }
        }
        // Large budgets solve earlier; absurd ones do not overflow.
        let exact =
            |ms, empties| Plan::new(start, Duration::from_millis(ms), empties, false, false).solve;
        assert!(matches!(exact(1000, 18), Some((SolveKind::Exact, _))));
        assert!(matches!(exact(1000, 21), Some((SolveKind::WinLossDraw, _))));
        assert_eq!(exact(1000, 30), None);
        assert!(exact(50, 18).is_none() || exact(50, 18).unwrap().0 == SolveKind::WinLossDraw);
        let _ = Plan::new(start, Duration::MAX, 30, false, true);
    }

    /// A search whose deadline has already passed still answers a legal
    /// move (from the move ordering), however loaded the machine is.
    #[test]
    fn a_passed_deadline_still_gives_a_legal_move() {
        let g = Game::from_transcript("f5d6c3d3c4f4f6f3e6e7").unwrap();
        let mut searcher = Searcher::new(10);
        let info = searcher.search(
            g.board(),
            Limits {
                depth: 60,
                soft: Some(Instant::now()),
                hard: Some(Instant::now()),
            },
        );
        assert!(g.is_legal(info.best.unwrap()));
        assert!(info.depth <= 1, "{info:?}");
    }

    #[test]
    fn win_loss_draw_solve_finds_a_winning_move() {
        let g = crate::ai::solve::ffo(40).game;
        // Level 13: exact from 19 empties, win/loss/draw from 21; #40 has 20.
        let mut p = player(13, 0, false);
        let info = p.choose_with_info(&g);
        assert!(!info.exact);
        assert_eq!(info.score, 100);
        let after = g.board().play(info.best.unwrap());
        assert!(crate::ai::solve::solve(after).score < 0);
    }

    #[test]
    fn solves_endgames_exactly() {
        let ffo = crate::ai::solve::ffo(40);
        let g = &ffo.game;
        let mut p = player(14, 0, false);
        let info = p.choose_with_info(g);
        assert!(info.exact);
        assert_eq!(Some(info.score), ffo.best_score().map(|s| s * 100));
        assert_eq!(ffo.best_moves(), [info.best.unwrap()]);
    }
}
