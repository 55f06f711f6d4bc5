//! Exact endgame solver: negamax alpha-beta (principal-variation search)
//! with fastest-first move ordering (plus the learned evaluation from 12
//! empties), stability and enhanced transposition cutoffs, a
//! transposition table from 9 empties, and for the last 6 empties a
//! table-free search with quadrant-parity ordering and a dedicated
//! last-square function (`endgame.rs`).
//!
//! Scores are final disc differences for the side to move, with the empty
//! squares given to the winner (the FFO convention), so they lie in -64..=64.

use std::convert::Infallible;
use std::time::{Duration, Instant};

use crate::ai::clock::Clock;
use crate::ai::endgame::{final_score, odd_quadrants, Endgame};
use crate::ai::ordering::{mobility_key, pvs_child, Best, Child, MoveList};
use crate::ai::patterns::Weights;
use crate::ai::search::Searcher;
use crate::ai::stability::stable;
use crate::ai::table::{bounds, Table, NO_MOVE};
use crate::rules::moves::{with_kernel, Kernel};
use crate::{Board, Square, CORNERS};

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

/// Empties at or below which no transposition table or move ordering by
/// mobility is used: the tree is small and parity ordering is enough.
const SHALLOW: u32 = 6;
/// Empties from which the transposition table is used (below, probing
/// costs more than it saves).
const TT_MIN: u32 = 9;
/// Empties from which enhanced transposition cutoffs are tried.
const ETC_MIN: u32 = 12;
/// Empties from which move ordering also uses the learned evaluation
/// (about 35% fewer nodes on FFO #40-#44 than mobility alone).
const SORT_BY_EVAL_MIN: u32 = 12;
/// Empties from which moves are ordered by a shallow midgame search of
/// each (see [`sort_depth`]).
const SORT_BY_SEARCH_MIN: u32 = 16;
/// Weight of the mobility key against a shallow search's score (in
/// hundredths of a disc) when both order moves: one reply fewer for the
/// opponent is worth 1.28 discs.
const MOBILITY_WEIGHT: i32 = 8;
/// The selective passes a long solve makes before the exact one: the
/// margin of their ProbCut in standard deviations, and the chance in
/// percent that a cut it makes is right. Each is much cheaper than the
/// exact search and leaves it good moves to try first in the table.
const SELECTIVITY: [(f64, u8); 4] = [(1.1, 73), (1.5, 87), (2.0, 95), (2.6, 99)];
/// Empties from which a solve makes the selective passes (below, they
/// cost more than they save: FFO #40-#44, 20-23 empties, 118 M nodes
/// without, 142 M with; #45, 24 empties, 415 M without, 384 M with).
const SELECTIVE_MIN: u32 = 24;
/// Empties from which a node of a selective pass tries ProbCut.
const PROBCUT_MIN: u32 = 12;
/// Half-width of the first window around the root's midgame estimate
/// (aspiration): 2 discs, one even score either side.
const ASPIRATION: i32 = 2;

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
    /// A solver with a table of `1 << table_bits` entries of 24 bytes
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
            report: None,
        }
        .with_report(report)
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

/// Depth of the shallow midgame search ordering the moves of a node with
/// `empties` empty squares: none below [`SORT_BY_SEARCH_MIN`], then one
/// ply more every four empties. (On FFO #48, 725 M nodes without, 165 M
/// with.)
fn sort_depth(empties: u32) -> u32 {
    match empties.checked_sub(SORT_BY_SEARCH_MIN) {
        Some(above) => 1 + above / 4,
        None => 0,
    }
}

/// The midgame search that predicts the exact score of a position with
/// `empties` empty squares in ProbCut, and the standard deviation of the
/// exact score (in hundredths) about its value, as measured by
/// `examples/probcut_fit.rs endgame` (600 to 900 at 12 to 22 empties).
fn probcut_search(empties: u32) -> (u32, i32) {
    if empties < 18 {
        (2, 700)
    } else {
        (4, 660)
    }
}

/// Depth of the midgame search ordering the moves at the root of a solve
/// with `empties` empty squares (0: none).
fn root_sort_depth(empties: u32) -> u32 {
    empties.saturating_sub(10).min(10)
}

/// What move ordering needs of a node besides its moves: the empties in
/// odd regions, and the learned weights when far enough from the end.
#[inline]
fn ordering_terms(p: u64, o: u64) -> (u64, Option<&'static Weights>) {
    let empties = !(p | o);
    let weights = (empties.count_ones() >= SORT_BY_EVAL_MIN)
        .then(Weights::get)
        .flatten();
    (odd_quadrants(empties), weights)
}

/// One solve, monomorphised for a move generator.
struct Search<'a, 'r, K: Kernel + Endgame> {
    k: K,
    s: &'a mut Solver,
    /// Where progress goes, if anywhere.
    report: Option<Reporter<'r>>,
}

impl<'r, K: Kernel + Endgame> Search<'_, 'r, K> {
    fn with_report(mut self, report: Option<Reporter<'r>>) -> Self {
        self.report = report;
        self
    }

    /// Counts a node; true when the deadline has passed. Reports progress
    /// when due.
    #[inline]
    fn tick(&mut self) -> bool {
        if self.s.clock.take_report() {
            self.report_progress();
        }
        self.s.clock.tick()
    }

    fn report_progress(&mut self) {
        if let Some(report) = self.report.as_mut() {
            self.s.progress.nodes = self.s.clock.nodes;
            report(&self.s.progress);
        }
    }

    /// Root search: the score and the best move's square index.
    fn root(&mut self, p: u64, o: u64, alpha: i32, beta: i32) -> (i32, Option<u8>) {
        let moves = self.k.moves(p, o);
        if moves == 0 {
            let score = if self.k.moves(o, p) == 0 {
                final_score(p, o)
            } else {
                -self.search(o, p, -beta, -alpha, true)
            };
            return (score, None);
        }
        // No transposition cutoff at the root: it needs a best move.
        let empties = (!(p | o)).count_ones();
        let depth = root_sort_depth(empties);
        if depth == 0 {
            let hint = self.s.table.probe(p, o).map_or(NO_MOVE, |e| e.best) as u32;
            let (odd, weights) = ordering_terms(p, o);
            let mut list = MoveList::new();
            let Ok(()) = list.fill(self.k, (p, o), moves, hint, |child| {
                Ok::<_, Infallible>(self.key(child, odd, weights))
            });
            return self.root_window(p, o, &list, alpha, beta);
        }
        // Far from the end, each move is keyed by a midgame search of it
        // (its value for the opponent, lower first), and the best of them
        // estimates the score.
        let mut list = MoveList::new();
        let Ok(()) = list.fill(self.k, (p, o), moves, NO_MOVE as u32, |child| {
            Ok::<_, Infallible>(self.s.ordering.value(self.k, child.p, child.o, depth - 1))
        });
        let estimate = -list.as_slice()[0].key;
        // The nearest even score (every final score is even), in the window
        // (a proven result is beyond any heuristic score, so beyond it).
        let mut guess = ((estimate as f64 / 200.0).round() as i32 * 2).clamp(alpha, beta);
        let selective = if empties >= SELECTIVE_MIN {
            SELECTIVITY.len()
        } else {
            0
        };
        let passes = (0..selective).map(Pass::Selective).chain([Pass::Exact]);
        let mut result = (guess, None);
        for pass in passes {
            self.s.pass = pass;
            self.s.progress.selectivity = match pass {
                Pass::Selective(i) => Some(SELECTIVITY[i].1),
                Pass::Exact => None,
            };
            result = self.aspiration(p, o, &list, guess, (alpha, beta));
            if self.s.clock.stopped() {
                break;
            }
            // The next pass starts from this one's answer.
            guess = result.0.clamp(alpha, beta);
            if let Some(sq) = result.1 {
                list.promote(sq);
            }
        }
        self.s.pass = Pass::Exact;
        result
    }

    /// Searches the root within `window`, first in a narrow window around
    /// `guess`, widened on the side the score falls out of.
    fn aspiration(
        &mut self,
        p: u64,
        o: u64,
        list: &MoveList,
        guess: i32,
        (alpha, beta): (i32, i32),
    ) -> (i32, Option<u8>) {
        let (mut a, mut b) = (
            (guess - ASPIRATION).max(alpha),
            (guess + ASPIRATION).min(beta),
        );
        loop {
            let (v, sq) = self.root_window(p, o, list, a, b);
            let failed_low = v <= a && a > alpha;
            let failed_high = v >= b && b < beta;
            if self.s.clock.stopped() || !(failed_low || failed_high) {
                return (v, sq);
            }
            // Fail-soft: `v` bounds the score; search beyond it.
            (a, b) = if failed_low {
                ((v - 2 * ASPIRATION).max(alpha), v + 1)
            } else {
                (v - 1, (v + 2 * ASPIRATION).min(beta))
            };
        }
    }

    /// One principal-variation search of the root's moves `list` within
    /// `alpha..beta`: the score and the best move's square index.
    fn root_window(
        &mut self,
        p: u64,
        o: u64,
        list: &MoveList,
        alpha: i32,
        beta: i32,
    ) -> (i32, Option<u8>) {
        self.s.progress.moves = list.as_slice().len();
        let mut best = Best::new(-65, list.as_slice()[0].sq, alpha, beta);
        for (i, c) in list.as_slice().iter().enumerate() {
            let (cp, co) = c.child(p, o);
            let v = pvs_child(i == 0, best.alpha, beta, |a, b| {
                -self.search(cp, co, -b, -a, false)
            });
            if self.s.clock.stopped() {
                break;
            }
            let cut = best.offer(v, c.sq);
            self.s.progress.searched = i + 1;
            self.s.progress.best = Square::from_index(best.sq).map(|sq| (sq, best.value));
            self.report_progress();
            if cut {
                break;
            }
        }
        (best.value, Some(best.sq))
    }

    /// The ordering key of a move (lower first): fastest first, then
    /// parity (`odd`: empties in regions with an odd count) and corners;
    /// far from the end, the learned evaluation of the child too, or a
    /// shallow search of it.
    #[inline]
    fn key(&mut self, child: &Child, odd: u64, weights: Option<&Weights>) -> i32 {
        let mut key = mobility_key(child);
        key -= if odd >> child.sq & 1 == 1 { 4 } else { 0 };
        key -= if CORNERS >> child.sq & 1 == 1 { 8 } else { 0 };
        let depth = sort_depth((!(child.p | child.o)).count_ones() + 1);
        if depth > 0 {
            let v = self.s.ordering.value(self.k, child.p, child.o, depth - 1);
            return key * MOBILITY_WEIGHT + v;
        }
        if let Some(w) = weights {
            // For the opponent, in hundredths of a disc.
            let theirs = self.k.moves(child.o, child.p).count_ones();
            key = key * 16 + w.evaluate(child.p, child.o, child.replies.count_ones(), theirs) / 2;
        }
        key
    }

    /// The moves best-first, or `Err(score)` when a child's stored exact
    /// bound already refutes this node (enhanced transposition cutoff).
    #[inline]
    fn candidates(
        &mut self,
        list: &mut MoveList,
        (p, o): (u64, u64),
        moves: u64,
        hint: u32,
        beta: i32,
    ) -> Result<(), i32> {
        let etc = (!(p | o)).count_ones() >= ETC_MIN;
        let (odd, weights) = ordering_terms(p, o);
        let precision = self.s.pass.precision();
        list.fill(self.k, (p, o), moves, hint, |child| {
            if etc {
                if let Some(e) = self.s.table.probe(child.p, child.o) {
                    if e.precision >= precision && -(e.upper as i32) >= beta {
                        return Err(-(e.upper as i32));
                    }
                }
            }
            Ok(self.key(child, odd, weights))
        })
    }

    /// ProbCut for a node with `n` empties in a selective pass: a shallow
    /// midgame search estimates the final score; when it lies more than
    /// `confidence` standard deviations beyond the window, the node is cut
    /// at the window's edge.
    fn probcut(
        &mut self,
        p: u64,
        o: u64,
        n: u32,
        confidence: f64,
        alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        let (depth, sigma) = probcut_search(n);
        let margin = (confidence * sigma as f64) as i32;
        if beta < 64
            && self
                .s
                .ordering
                .at_least(self.k, p, o, depth, beta * 100 + margin)
        {
            return Some(beta);
        }
        let bound = alpha * 100 - margin;
        if alpha > -64 && !self.s.ordering.at_least(self.k, p, o, depth, bound + 1) {
            return Some(alpha);
        }
        None
    }

    /// Negamax value of the position for `p`, fail-soft within
    /// `alpha..beta`. `passed` means the previous ply was a pass.
    fn search(&mut self, p: u64, o: u64, alpha: i32, beta: i32, passed: bool) -> i32 {
        let empties = !(p | o);
        let n = empties.count_ones();
        if n <= SHALLOW {
            return self
                .k
                .shallow(p, o, alpha, beta, empties, passed, &mut self.s.clock.nodes);
        }
        if self.tick() {
            return 0;
        }
        let (mut alpha, mut beta) = (alpha, beta);
        let mut hint = NO_MOVE as u32;
        if let Some(e) = (n >= TT_MIN).then(|| self.s.table.probe(p, o)).flatten() {
            hint = e.best as u32;
            if e.precision >= self.s.pass.precision() {
                match e.narrow(alpha, beta) {
                    Ok(window) => (alpha, beta) = window,
                    Err(value) => return value,
                }
            }
        }
        if n >= PROBCUT_MIN {
            if let Pass::Selective(i) = self.s.pass {
                if let Some(bound) = self.probcut(p, o, n, SELECTIVITY[i].0, alpha, beta) {
                    return bound;
                }
            }
        }
        if alpha >= 0 {
            // The opponent keeps its stable discs: that caps our score.
            let cap = 64 - 2 * stable(o, p).count_ones() as i32;
            if cap <= alpha {
                return cap;
            }
        }
        let moves = self.k.moves(p, o);
        if moves == 0 {
            if passed {
                return -final_score(o, p);
            }
            if self.k.moves(o, p) == 0 {
                return final_score(p, o);
            }
            return -self.search(o, p, -beta, -alpha, true);
        }
        let mut list = MoveList::new();
        if let Err(cut) = self.candidates(&mut list, (p, o), moves, hint, beta) {
            return cut;
        }
        let mut best = Best::new(-65, NO_MOVE, alpha, beta);
        for (i, c) in list.as_slice().iter().enumerate() {
            let (cp, co) = c.child(p, o);
            let v = pvs_child(i == 0, best.alpha, beta, |a, b| {
                -self.search(cp, co, -b, -a, false)
            });
            if best.offer(v, c.sq) {
                break;
            }
        }
        if !self.s.clock.stopped() && n >= TT_MIN {
            let bounds = bounds(best.value, alpha, beta, 64);
            let precision = self.s.pass.precision();
            self.s
                .table
                .store(p, o, bounds, n as u8, precision, best.sq);
        }
        best.value
    }
}

/// The FFO endgame positions #40-#59 (`data/ffo-40-59.obf`), for tests.
#[cfg(test)]
pub(crate) fn ffo(number: usize) -> crate::ObfPosition {
    let set = crate::parse_obf(include_str!("../../data/ffo-40-59.obf"));
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
