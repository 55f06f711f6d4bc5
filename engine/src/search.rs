//! Midgame search: iterative deepening principal-variation search with a
//! transposition table, fastest-first move ordering and a clock.

use std::time::{Duration, Instant};

use crate::bitboard::{Board, CORNERS};
use crate::eval::evaluate_with_moves;
use crate::moves::{with_kernel, Kernel};
use crate::patterns::Weights;
use crate::square::Square;
use crate::table::{Table, EXACT_DEPTH, NO_MOVE};

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

/// A reusable midgame searcher.
pub(crate) struct Searcher {
    /// Learned weights, or `None` for the hand-written evaluation.
    weights: Option<&'static Weights>,
    table: Table,
    nodes: u64,
    deadline: Option<Instant>,
    stopped: bool,
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
            nodes: 0,
            deadline: None,
            stopped: false,
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
        self.nodes = 0;
        self.stopped = false;
        self.deadline = limits.hard;
        self.table.next_age();
        let mut info = with_kernel!(|k| Ctx { k, s: self }.iterate(board, limits));
        info.nodes = self.nodes;
        info.elapsed = start.elapsed();
        info
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
        self.stopped = false;
        self.deadline = deadline;
        let scores: Vec<(Square, i32)> = with_kernel!(|k| {
            let mut c = Ctx { k, s: self };
            crate::square::Squares(board.moves())
                .map(|sq| {
                    let b = board.play(sq);
                    (
                        sq,
                        -c.pvs(b.player, b.opponent, depth.saturating_sub(1), -INF, INF),
                    )
                })
                .collect()
        });
        (!self.stopped).then_some(scores)
    }
}

/// Room for every legal move of any board, even unreachable ones.
const MAX_MOVES: usize = 64;

/// One search, monomorphised for a move generator.
struct Ctx<'a, K: Kernel> {
    k: K,
    s: &'a mut Searcher,
}

/// A candidate move with its ordering key (lower first).
#[derive(Clone, Copy, Default)]
struct Candidate {
    sq: u32,
    flips: u64,
    key: i32,
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

    #[inline]
    fn tick(&mut self) -> bool {
        self.s.nodes += 1;
        if self.s.nodes & 0xff == 0 {
            if let Some(d) = self.s.deadline {
                if Instant::now() >= d {
                    self.s.stopped = true;
                }
            }
        }
        self.s.stopped
    }

    fn iterate(&mut self, board: Board, limits: Limits) -> SearchInfo {
        let (p, o) = (board.player, board.opponent);
        let moves = self.k.moves(p, o);
        let mut info = SearchInfo::default();
        if moves == 0 {
            return info;
        }
        let mut list = [Candidate::default(); MAX_MOVES];
        let n = self.candidates(p, o, moves, NO_MOVE as u32, &mut list);
        let list = &mut list[..n];
        info.best = Square::from_index(list[0].sq as u8);
        let empties = board.empty_count();
        for depth in 1..=limits.depth.max(1).min(empties) {
            if depth > 1 && limits.soft.is_some_and(|s| Instant::now() >= s) {
                break;
            }
            let (mut alpha, beta) = (-INF, INF);
            let mut best: Option<(u32, i32)> = None;
            for (i, c) in list.iter_mut().enumerate() {
                let v = self.child(p, o, c, depth, alpha, beta, i == 0);
                if self.s.stopped {
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
                info.best = Square::from_index(sq as u8);
                info.score = v;
                if !self.s.stopped {
                    info.depth = depth;
                }
            }
            if self.s.stopped {
                break;
            }
            list.sort_by_key(|c| c.key);
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

    /// Fills `list` with the legal moves and their flips, best-first: the
    /// table's move, then fewest opponent replies (corners double) and
    /// fewest empties next to our discs, with corners early. Returns the
    /// number of moves. (Ordering by the static evaluation of each child
    /// was tried: it saved under 5% of the nodes and cost more time.)
    fn candidates(
        &mut self,
        p: u64,
        o: u64,
        moves: u64,
        hint: u32,
        list: &mut [Candidate; MAX_MOVES],
    ) -> usize {
        let mut n = 0;
        let mut rest = moves;
        while rest != 0 {
            let sq = rest.trailing_zeros();
            rest &= rest - 1;
            let flips = self.k.flips(p, o, sq);
            let (cp, co) = (o ^ flips, p | flips | 1 << sq);
            let replies = self.k.moves(cp, co);
            let mut key = (replies.count_ones() + (replies & CORNERS).count_ones()) as i32 * 16;
            key += (crate::eval::neighbours(co) & !(cp | co)).count_ones() as i32 * 2;
            if CORNERS >> sq & 1 == 1 {
                key -= 40;
            }
            if sq == hint {
                key = i32::MIN;
            }
            list[n] = Candidate { sq, flips, key };
            n += 1;
        }
        list[..n].sort_unstable_by_key(|c| c.key);
        n
    }

    /// Negamax value for `p` at `depth`, fail-soft within `alpha..beta`.
    /// Searches the move `c` from (`p`, `o`) with principal variation
    /// search: the first move with the full window, the others with a null
    /// window first and again with the full one only if they beat `alpha`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn child(
        &mut self,
        p: u64,
        o: u64,
        c: &Candidate,
        depth: u32,
        alpha: i32,
        beta: i32,
        first: bool,
    ) -> i32 {
        let (cp, co) = (o ^ c.flips, p | c.flips | 1 << c.sq);
        if first {
            return -self.pvs(cp, co, depth - 1, -beta, -alpha);
        }
        let v = -self.pvs(cp, co, depth - 1, -alpha - 1, -alpha);
        if v > alpha && v < beta && !self.s.stopped {
            -self.pvs(cp, co, depth - 1, -beta, -alpha)
        } else {
            v
        }
    }

    fn pvs(&mut self, p: u64, o: u64, depth: u32, alpha: i32, beta: i32) -> i32 {
        if self.tick() {
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
            if e.depth != EXACT_DEPTH && e.depth as u32 >= depth {
                let (lo, hi) = (e.lower as i32, e.upper as i32);
                if lo >= beta || lo == hi {
                    return lo;
                }
                if hi <= alpha {
                    return hi;
                }
                alpha = alpha.max(lo);
                beta = beta.min(hi);
            }
        }
        let alpha0 = alpha;
        let mut list = [Candidate::default(); MAX_MOVES];
        let n = self.candidates(p, o, moves, hint, &mut list);
        let (mut best, mut best_sq) = (-INF, list[0].sq);
        for (i, c) in list[..n].iter().enumerate() {
            let v = self.child(p, o, c, depth, alpha, beta, i == 0);
            if self.s.stopped {
                return 0;
            }
            if v > best {
                best = v;
                best_sq = c.sq;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        let (lo, hi) = if best <= alpha0 {
            (-INF, best)
        } else if best >= beta {
            (best, INF)
        } else {
            (best, best)
        };
        self.s
            .table
            .store(p, o, lo, hi, depth.min(250) as u8, best_sq as u8);
        best
    }

    /// Depth-1 node: the best static evaluation over the moves.
    fn frontier(&mut self, p: u64, o: u64, moves: u64, alpha: i32, beta: i32) -> i32 {
        let mut best = -INF;
        let mut alpha = alpha;
        let mut rest = moves;
        while rest != 0 {
            let sq = rest.trailing_zeros();
            rest &= rest - 1;
            self.s.nodes += 1;
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
