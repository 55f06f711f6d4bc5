//! Midgame search: iterative deepening principal-variation search with a
//! transposition table, fastest-first move ordering, ProbCut and a clock.

use std::convert::Infallible;
use std::time::{Duration, Instant};

use crate::ai::clock::Clock;
use crate::ai::eval::evaluate_with_moves;
use crate::ai::ordering::{mobility_key, pvs_child, Best, MoveList};
use crate::ai::patterns::Weights;
use crate::ai::table::{bounds, Table, NO_MOVE};
use crate::rules::moves::{with_kernel, Kernel};
use crate::{Board, Square, Squares, CORNERS};

/// Score of a finished game in search units: disc difference in hundredths,
/// pushed beyond any heuristic score so a sure win beats a good position.
const WIN: i32 = 20_000;
/// Bound on search scores.
const INF: i32 = 30_000;

/// What a search found.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct SearchInfo {
    /// Chosen move (`None` when there is nothing to play).
    pub best: Option<Square>,
    /// Deepest fully completed iteration (for exact solves: the empties).
    pub depth: u32,
    /// Score for the side to move in hundredths of a disc. When `exact`, the
    /// final disc difference with perfect play (times 100); after a
    /// win/loss/draw solve, +100, 0 or -100.
    pub score: i32,
    /// Positions visited.
    pub nodes: u64,
    /// Whether the score is the exact final disc difference with perfect
    /// play (from the solver, or a search that reached the end of the game).
    pub exact: bool,
    /// Time spent.
    pub elapsed: Duration,
}

/// The score of a finished game for the side owning `p`.
#[inline]
fn terminal(p: u64, o: u64) -> i32 {
    let d = Board::new(p, o).final_score();
    d * 100 + d.signum() * WIN
}

/// Converts a search score back to discs if it is a proven game result.
pub(crate) fn proven_discs(score: i32) -> Option<i32> {
    (score.abs() >= WIN).then(|| (score - score.signum() * WIN) / 100)
}

/// ProbCut's margin in standard deviations: a cut is right about 84% of
/// the time. At 100 ms a move, 1.0 scored 65% against no ProbCut, 64%
/// against 1.5 and 51% against 0.7 (40 games each, self-play).
const PROBCUT_CONFIDENCE: f64 = 1.0;

/// The shallow depth that predicts a search `depth` plies deep, and the
/// standard deviation of the deep value about the shallow one (hundredths
/// of a disc), as measured by `examples/probcut_fit.rs midgame` on self-play
/// positions. The pairs keep the depth's parity: the evaluation is biased
/// by who is to move at the leaves.
fn probcut_pair(depth: u32) -> (u32, i32) {
    match depth {
        0..=3 => (1, 450),
        4 => (2, 420),
        5 => (3, 340),
        6 => (4, 300),
        7 => (3, 400),
        8 => (4, 350),
        9 => (5, 330),
        _ => (depth - 4, 350),
    }
}

/// A reusable midgame searcher.
pub(crate) struct Searcher {
    /// Learned weights, or `None` for the hand-written evaluation.
    weights: Option<&'static Weights>,
    table: Table,
    clock: Clock,
}

/// Limits of one search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Maximum depth.
    pub depth: u32,
    /// Do not start a new iteration after this instant.
    pub soft: Option<Instant>,
    /// Abandon the search at this instant.
    pub hard: Option<Instant>,
}

impl Searcher {
    /// A searcher with a table of `1 << bits` entries.
    pub fn new(bits: u32) -> Searcher {
        Searcher {
            weights: Weights::get(),
            table: Table::new(bits),
            // Midgame nodes are slow (an evaluation each): look often.
            clock: Clock::new(8),
        }
    }

    /// Uses the hand-written evaluation instead of the learned one.
    pub fn use_hand_eval(&mut self) {
        self.weights = None;
    }

    /// Uses these learned weights instead of the committed ones.
    pub fn use_weights(&mut self, weights: &'static Weights) {
        self.weights = Some(weights);
    }

    /// Iterative deepening to `limits`; returns the deepest completed result
    /// (or a better move found in an abandoned iteration).
    pub fn search(&mut self, board: Board, limits: Limits) -> SearchInfo {
        let start = Instant::now();
        self.clock.start(limits.hard, None);
        self.table.next_age();
        let mut info = with_kernel!(|k| Ctx { k, s: self }.iterate(board, limits));
        info.nodes = self.clock.nodes;
        info.elapsed = start.elapsed();
        info
    }

    /// Starts a series of [`Searcher::value`] calls that must end by
    /// `deadline` (then they return meaningless values).
    pub fn start(&mut self, deadline: Option<Instant>) {
        self.clock.start(deadline, None);
    }

    /// Positions visited since the last search started (by
    /// [`Searcher::value`] calls too).
    pub fn nodes(&self) -> u64 {
        self.clock.nodes
    }

    /// The value of a position for the side owning `p` by a `depth`-ply
    /// search, full window, in hundredths of a disc (proven results beyond
    /// any heuristic one): how another search orders its moves.
    #[inline]
    pub fn value<K: Kernel>(&mut self, k: K, p: u64, o: u64, depth: u32) -> i32 {
        Ctx { k, s: self }.pvs(p, o, depth, -INF, INF)
    }

    /// Whether the `depth`-ply value of the position for the side owning
    /// `p` is at least `bound` (hundredths of a disc), by a null-window
    /// search.
    #[inline]
    pub fn at_least<K: Kernel>(&mut self, k: K, p: u64, o: u64, depth: u32, bound: i32) -> bool {
        Ctx { k, s: self }.pvs(p, o, depth, bound - 1, bound) >= bound
    }

    /// Scores of every legal move at a fixed depth, full window (used to
    /// pick among near-equal moves for opening variety); `None` if
    /// `deadline` passes first.
    pub fn root_scores(
        &mut self,
        board: Board,
        depth: u32,
        deadline: Option<Instant>,
    ) -> Option<Vec<(Square, i32)>> {
        self.clock.start(deadline, None);
        let scores: Vec<(Square, i32)> = with_kernel!(|k| {
            let mut c = Ctx { k, s: self };
            Squares(board.moves())
                .map(|sq| {
                    let b = board.play(sq);
                    (
                        sq,
                        -c.pvs(b.player, b.opponent, depth.saturating_sub(1), -INF, INF),
                    )
                })
                .collect()
        });
        (!self.clock.stopped()).then_some(scores)
    }
}

/// One search, monomorphised for a move generator.
struct Ctx<'a, K: Kernel> {
    k: K,
    s: &'a mut Searcher,
}

impl<K: Kernel> Ctx<'_, K> {
    /// Static evaluation given both sides' legal moves.
    #[inline]
    fn eval(&self, p: u64, o: u64, mp: u64, mo: u64) -> i32 {
        let v = match self.s.weights {
            Some(w) => w.evaluate(p, o, mp.count_ones(), mo.count_ones()),
            None => evaluate_with_moves(p, o, mp, mo),
        };
        // Heuristic scores must stay below every proven result.
        v.clamp(-WIN / 2, WIN / 2)
    }

    fn stopped(&self) -> bool {
        self.s.clock.stopped()
    }

    fn iterate(&mut self, board: Board, limits: Limits) -> SearchInfo {
        let (p, o) = (board.player, board.opponent);
        let moves = self.k.moves(p, o);
        let mut info = SearchInfo::default();
        if moves == 0 {
            return info;
        }
        let mut list = MoveList::new();
        self.candidates(&mut list, p, o, moves, NO_MOVE as u32);
        info.best = Square::from_index(list.as_slice()[0].sq);
        let empties = board.empty_count();
        for depth in 1..=limits.depth.max(1).min(empties) {
            if depth > 1 && limits.soft.is_some_and(|s| Instant::now() >= s) {
                break;
            }
            let (mut alpha, beta) = (-INF, INF);
            let mut best: Option<(u8, i32)> = None;
            for (i, c) in list.as_mut_slice().iter_mut().enumerate() {
                let (cp, co) = c.child(p, o);
                let v = pvs_child(i == 0, alpha, beta, |a, b| {
                    -self.pvs(cp, co, depth - 1, -b, -a)
                });
                if self.stopped() {
                    break;
                }
                // Order the next iteration by this one's scores.
                c.key = -v;
                if v > alpha {
                    alpha = v;
                    best = Some((c.sq, v));
                }
            }
            if let Some((sq, v)) = best {
                // Safe even when abandoned: every recorded score is from a
                // completed search of that move at this depth, and it beat
                // the previous best (searched first).
                info.best = Square::from_index(sq);
                info.score = v;
                if !self.stopped() {
                    info.depth = depth;
                }
            }
            if self.stopped() {
                break;
            }
            list.sort();
            // Every line ends the game: the score is the exact result.
            info.exact = depth == empties;
            if let Some(d) = proven_discs(info.score) {
                // A forced win or loss within the horizon: deeper search
                // cannot change who wins. The margin is exact only when the
                // whole tree was searched (a bound otherwise).
                info.score = d * 100;
                break;
            }
        }
        info
    }

    /// The legal moves best-first: the table's move, then fastest-first
    /// with corners early. (Ordering by the static evaluation of each child
    /// was tried: it saved under 5% of the nodes and cost more time.)
    #[inline]
    fn candidates(&self, list: &mut MoveList, p: u64, o: u64, moves: u64, hint: u32) {
        let Ok(()) = list.fill(self.k, (p, o), moves, hint, |child| {
            let corner = if CORNERS >> child.sq & 1 == 1 { 40 } else { 0 };
            Ok::<_, Infallible>(mobility_key(child) - corner)
        });
    }

    /// Negamax value for `p` at `depth`, fail-soft within `alpha..beta`.
    fn pvs(&mut self, p: u64, o: u64, depth: u32, alpha: i32, beta: i32) -> i32 {
        if self.s.clock.tick() {
            return 0;
        }
        let moves = self.k.moves(p, o);
        if depth == 0 {
            return self.eval(p, o, moves, self.k.moves(o, p));
        }
        if moves == 0 {
            if self.k.moves(o, p) == 0 {
                return terminal(p, o);
            }
            return -self.pvs(o, p, depth, -beta, -alpha);
        }
        if depth == 1 {
            return self.frontier(p, o, moves, alpha, beta);
        }
        let (mut alpha, mut beta) = (alpha, beta);
        let mut hint = NO_MOVE as u32;
        if let Some(e) = self.s.table.probe(p, o) {
            hint = e.best as u32;
            if e.depth as u32 >= depth {
                match e.narrow(alpha, beta) {
                    Ok(window) => (alpha, beta) = window,
                    Err(value) => return value,
                }
            }
        }
        // Null-window nodes only: the principal variation is searched in full.
        if depth >= 3 && beta - alpha == 1 {
            if let Some(bound) = self.probcut(p, o, depth, alpha, beta) {
                return bound;
            }
        }
        let mut list = MoveList::new();
        self.candidates(&mut list, p, o, moves, hint);
        let mut best = Best::new(-INF, list.as_slice()[0].sq, alpha, beta);
        for (i, c) in list.as_slice().iter().enumerate() {
            let (cp, co) = c.child(p, o);
            let v = pvs_child(i == 0, best.alpha, beta, |a, b| {
                -self.pvs(cp, co, depth - 1, -b, -a)
            });
            if self.stopped() {
                return 0;
            }
            if best.offer(v, c.sq) {
                break;
            }
        }
        let bounds = bounds(best.value, alpha, beta, INF);
        let depth = depth.min(255) as u8;
        self.s.table.store(p, o, bounds, depth, 0, best.sq);
        best.value
    }

    /// ProbCut (Buro): a shallow search predicts a deep one well enough
    /// that when it lands far outside the window, the deep one almost
    /// surely would too. `Some(bound)` when that cuts the node.
    fn probcut(&mut self, p: u64, o: u64, depth: u32, alpha: i32, beta: i32) -> Option<i32> {
        let (shallow, sigma) = probcut_pair(depth);
        let margin = (PROBCUT_CONFIDENCE * sigma as f64) as i32;
        if beta + margin < WIN / 2 {
            let bound = beta + margin;
            if self.pvs(p, o, shallow, bound - 1, bound) >= bound {
                return Some(beta);
            }
        }
        if alpha - margin > -WIN / 2 {
            let bound = alpha - margin;
            if self.pvs(p, o, shallow, bound, bound + 1) <= bound {
                return Some(alpha);
            }
        }
        None
    }

    /// Depth-1 node: the best static evaluation over the moves.
    fn frontier(&mut self, p: u64, o: u64, moves: u64, alpha: i32, beta: i32) -> i32 {
        let mut best = -INF;
        let mut alpha = alpha;
        let mut rest = moves;
        while rest != 0 {
            let sq = rest.trailing_zeros();
            rest &= rest - 1;
            self.s.clock.nodes += 1;
            let f = self.k.flips(p, o, sq);
            let (cp, co) = (o ^ f, p | f | 1 << sq);
            let cm = self.k.moves(cp, co);
            let cmo = self.k.moves(co, cp);
            let v = if cm == 0 && cmo == 0 {
                -terminal(cp, co)
            } else {
                -self.eval(cp, co, cm, cmo)
            };
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_legal_move_and_deepens() {
        let mut s = Searcher::new(16);
        let b = Board::start();
        let info = s.search(
            b,
            Limits {
                depth: 6,
                soft: None,
                hard: None,
            },
        );
        assert_eq!(info.depth, 6);
        assert!(b.is_legal(info.best.unwrap()));
        assert!(info.nodes > 0);
    }

    #[test]
    fn proven_scores_convert_back() {
        assert_eq!(proven_discs(terminal(0b111, 0b1000_0000)), Some(62));
        assert_eq!(proven_discs(-terminal(0b111, 0b1000_0000)), Some(-62));
        assert_eq!(proven_discs(1500), None);
    }
}
