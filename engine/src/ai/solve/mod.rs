//! Exact endgame solver: principal-variation search with a transposition
//! table. `root.rs` runs a solve: the root's moves ordered by a midgame
//! search, an aspiration window around its estimate, and on long solves
//! selective passes (ProbCut) that fill the table before the exact one.
//! `node.rs` searches below the root: move ordering (fastest first, and
//! far from the end a shallow midgame search of each move), stability and
//! enhanced transposition cutoffs, ProbCut in selective passes; the last
//! six empties go to `endgame.rs`.
//!
//! Scores are final disc differences for the side to move, with the empty
//! squares given to the winner (the FFO convention), so they lie in -64..=64.

mod node;
mod root;

use std::time::{Duration, Instant};

use crate::ai::clock::Clock;
use crate::ai::search::Searcher;
use crate::ai::table::Table;
use crate::rules::moves::with_kernel;
use crate::{Board, Square};

use node::Search;

/// The result of an exact solve.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Solution {
    /// Final disc difference for the side to move with perfect play.
    pub score: i32,
    /// A move achieving it; `None` when the side to move must pass or the
    /// game is over.
    pub best: Option<Square>,
    /// Positions visited.
    pub nodes: u64,
}

/// How far a solve has got, for [`Solver::solve_reporting`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Progress {
    /// Moves at the root already searched.
    pub searched: usize,
    /// Legal moves at the root.
    pub moves: usize,
    /// The best of the searched moves and its score: the final result is
    /// at least that (`None` until the first move is searched).
    pub best: Option<(Square, i32)>,
    /// Positions visited so far.
    pub nodes: u64,
    /// During a selective pass, the chance in percent that each of its
    /// ProbCut cuts is right (a long solve makes several, more and more
    /// exact, before the exact one); `None` in the exact search.
    pub selectivity: Option<u8>,
}

/// Where a solve sends its progress.
type Reporter<'r> = &'r mut dyn FnMut(&Progress);

/// Solves `board` exactly (single-threaded, fresh transposition table).
pub fn solve(board: Board) -> Solution {
    let mut s = Solver::new(20);
    s.solve(board, None).unwrap_or(Solution {
        score: 0,
        best: None,
        nodes: 0,
    })
}

/// The selective passes a long solve makes before the exact one: the
/// margin of their ProbCut in standard deviations, and the chance in
/// percent that a cut it makes is right. Each is much cheaper than the
/// exact search and leaves it good moves to try first in the table.
const SELECTIVITY: [(f64, u8); 4] = [(1.1, 73), (1.5, 87), (2.0, 95), (2.6, 99)];

/// A reusable solver: keeps its transposition table between solves and can
/// be given a deadline (then a solve may be abandoned, returning `None`).
pub struct Solver {
    table: Table,
    /// Shallow midgame searches that order moves far from the end.
    ordering: Searcher,
    clock: Clock,
    /// The root's progress, as of the last root move searched.
    progress: Progress,
    /// The pass under way: a selective one (an index in [`SELECTIVITY`])
    /// or the exact one.
    pass: Pass,
}

/// One pass of a solve.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pass {
    /// ProbCut at `SELECTIVITY[i]` standard deviations.
    Selective(usize),
    /// No pruning beyond what is proven.
    Exact,
}

impl Pass {
    /// The precision its results are stored with in the table: a search
    /// uses stored bounds from its own pass or a more exact one.
    fn precision(self) -> u8 {
        match self {
            Pass::Selective(i) => i as u8,
            Pass::Exact => SELECTIVITY.len() as u8,
        }
    }
}

impl Solver {
    /// A solver with a table of `1 << table_bits` entries of 32 bytes
    /// (`table_bits` is clamped to 4..=26; 20 is a good default).
    pub fn new(table_bits: u32) -> Solver {
        Solver {
            table: Table::new(table_bits),
            ordering: Searcher::new(16),
            // Solver nodes are fast: read the time every 4096.
            clock: Clock::new(12),
            progress: Progress::default(),
            pass: Pass::Exact,
        }
    }

    /// Solves `board` exactly, or returns `None` if `deadline` passes first.
    pub fn solve(&mut self, board: Board, deadline: Option<Instant>) -> Option<Solution> {
        self.solve_window(board, -64, 64, deadline)
    }

    /// Solves within the window `alpha..beta`: the score is exact when it
    /// lies strictly inside, otherwise a bound on the same side.
    pub fn solve_window(
        &mut self,
        board: Board,
        alpha: i32,
        beta: i32,
        deadline: Option<Instant>,
    ) -> Option<Solution> {
        self.run(board, (alpha, beta), deadline, None)
    }

    /// [`Solver::solve`], calling `report` with the progress after each
    /// move at the root and at least every `every` in between (long solves
    /// can then show how far they got).
    pub fn solve_reporting(
        &mut self,
        board: Board,
        deadline: Option<Instant>,
        every: Duration,
        report: &mut dyn FnMut(&Progress),
    ) -> Option<Solution> {
        self.run(board, (-64, 64), deadline, Some((every, report)))
    }

    fn run(
        &mut self,
        board: Board,
        (alpha, beta): (i32, i32),
        deadline: Option<Instant>,
        reporting: Option<(Duration, Reporter<'_>)>,
    ) -> Option<Solution> {
        // Scores lie in -64..=64: keep the window there and non-empty.
        let alpha = alpha.clamp(-64, 63);
        let beta = beta.clamp(alpha + 1, 64);
        let (every, report) = reporting.unzip();
        self.clock.start(deadline, every);
        self.table.next_age();
        self.progress = Progress::default();
        self.pass = Pass::Exact;
        self.ordering.start(deadline);
        let (score, best) = with_kernel!(|k| Search {
            k,
            s: &mut *self,
            report,
        }
        .root(board.player, board.opponent, alpha, beta));
        if self.clock.stopped() {
            return None;
        }
        Some(Solution {
            score,
            best: best.and_then(Square::from_index),
            nodes: self.clock.nodes + self.ordering.nodes(),
        })
    }
}

/// The FFO endgame positions #40-#59 (`data/ffo-40-59.obf`), for tests.
#[cfg(test)]
pub(crate) fn ffo(number: usize) -> crate::ObfPosition {
    let set = crate::parse_obf(include_str!("../../../data/ffo-40-59.obf"));
    match set.into_iter().nth(number - 40) {
        Some((_, Ok(position))) => position,
        _ => panic!("FFO #{number} is not in data/ffo-40-59.obf"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;
    use proptest::prelude::*;

    /// Plain minimax reference.
    fn minimax(b: Board) -> i32 {
        let moves = b.moves();
        if moves == 0 {
            if b.pass().moves() == 0 {
                return b.final_score();
            }
            return -minimax(b.pass());
        }
        crate::Squares(moves)
            .map(|sq| -minimax(b.play(sq)))
            .max()
            .unwrap_or(-64)
    }

    /// Plays seeded random moves from the start until `empties` remain.
    fn random_endgame(seed: u64, empties: u32) -> Board {
        let mut g = Game::new();
        let mut x = seed | 1;
        while g.empty_count() > empties && g.side_to_move().is_some() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let moves: Vec<_> = g.legal_moves().collect();
            let sq = moves[(x % moves.len() as u64) as usize];
            g.play(sq).unwrap();
        }
        g.board()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn solver_matches_minimax(seed in any::<u64>(), empties in 1u32..=9) {
            let b = random_endgame(seed, empties);
            let s = solve(b);
            prop_assert_eq!(s.score, minimax(b));
            if let Some(best) = s.best {
                prop_assert_eq!(-minimax(b.play(best)), s.score);
            }
        }
    }

    /// The quick one of the FFO set; all of them are checked by the
    /// ignored tests in `tests/ffo.rs`.
    #[test]
    fn ffo_40() {
        let ffo = ffo(40);
        let s = solve(ffo.game.board());
        assert_eq!(Some(s.score), ffo.best_score());
        assert_eq!(ffo.best_moves(), [s.best.unwrap()]);
    }

    #[test]
    fn progress_is_reported_after_every_root_move() {
        let board = random_endgame(5, 14);
        let mut reports = Vec::new();
        let mut solver = Solver::new(16);
        let solution = solver
            .solve_reporting(board, None, Duration::from_secs(3600), &mut |p| {
                reports.push(*p)
            })
            .unwrap();
        // One pass over the root's moves per aspiration window, the last
        // one complete.
        let moves = board.moves().count_ones() as usize;
        let searched: Vec<usize> = reports.iter().map(|p| p.searched).collect();
        assert!(
            searched.ends_with(&(1..=moves).collect::<Vec<_>>()),
            "{searched:?}"
        );
        assert!(searched.windows(2).all(|w| w[1] == w[0] + 1 || w[1] == 1));
        let last = reports.last().unwrap();
        assert_eq!(last.best, solution.best.map(|sq| (sq, solution.score)));
        assert!(reports.iter().all(|p| p.moves == moves));
        assert!(reports.windows(2).all(|w| w[0].nodes <= w[1].nodes));
    }

    #[test]
    fn finished_and_passing_positions() {
        let over = Board::new(0b111, 1 << 63);
        assert!(over.is_game_over());
        let s = solve(over);
        assert_eq!((s.score, s.best), (62, None));
        // Side to move must pass; the opponent then wins everything.
        let pass = Board::new(0b10, 0b1);
        let s = solve(pass);
        assert_eq!((s.score, s.best), (-64, None));
    }
}
