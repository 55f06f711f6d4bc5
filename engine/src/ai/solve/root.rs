//! A solve's root: the moves ordered by a midgame search, the passes
//! (selective ones first on long solves), each in an aspiration window.

use std::convert::Infallible;

use super::node::{ordering_terms, Search};
use super::{Pass, SELECTIVITY};
use crate::ai::endgame::{final_score, Endgame};
use crate::ai::ordering::{pvs_child, Best, MoveList};
use crate::ai::table::NO_MOVE;
use crate::rules::moves::Kernel;
use crate::Square;

/// Empties from which a solve makes the selective passes (below, they
/// cost more than they save: FFO #40-#44, 20-23 empties, 118 M nodes
/// without, 142 M with; #45, 24 empties, 415 M without, 384 M with).
const SELECTIVE_MIN: u32 = 24;
/// Half-width of the first window around the root's midgame estimate
/// (aspiration): 2 discs, one even score either side.
const ASPIRATION: i32 = 2;

/// Depth of the midgame search ordering the moves at the root of a solve
/// with `empties` empty squares (0: none).
fn root_sort_depth(empties: u32) -> u32 {
    empties.saturating_sub(10).min(10)
}

impl<K: Kernel + Endgame> Search<'_, '_, K> {
    /// Root search: the score and the best move's square index.
    pub fn root(&mut self, p: u64, o: u64, alpha: i32, beta: i32) -> (i32, Option<u8>) {
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
}
