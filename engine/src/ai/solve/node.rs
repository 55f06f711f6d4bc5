//! The solver below the root: move ordering, cutoffs and the recursion.

use super::{Pass, Reporter, Solver, SELECTIVITY};
use crate::ai::endgame::{final_score, odd_quadrants, Endgame};
use crate::ai::ordering::{mobility_key, pvs_child, Best, Child, MoveList};
use crate::ai::patterns::Weights;
use crate::ai::stability::stability_cutoff;
use crate::ai::table::{bounds, NO_MOVE};
use crate::rules::moves::Kernel;
use crate::CORNERS;
use std::convert::Infallible;

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
const SORT_BY_SEARCH_MIN: u32 = 14;
/// Weight of the mobility key against a shallow search's score (in
/// hundredths of a disc) when both order moves: one reply fewer for the
/// opponent is worth 1.28 discs.
const MOBILITY_WEIGHT: i32 = 8;
/// Empties from which a node of a selective pass tries ProbCut.
const PROBCUT_MIN: u32 = 12;

/// Depth of the shallow midgame search ordering the moves of a node with
/// `empties` empty squares: none below [`SORT_BY_SEARCH_MIN`], then one
/// ply more every three empties. (On FFO #48, 725 M nodes without, 115 M
/// with; from 14 empties every 3 rather than from 16 every 4: #40-#44
/// 111 M -> 79 M nodes, #49 385 M -> 296 M.)
fn sort_depth(empties: u32) -> u32 {
    match empties.checked_sub(SORT_BY_SEARCH_MIN) {
        Some(above) => 1 + above / 3,
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

/// What move ordering needs of a node besides its moves: the empties in
/// odd regions, and the learned weights when far enough from the end.
#[inline]
pub(super) fn ordering_terms(p: u64, o: u64) -> (u64, Option<&'static Weights>) {
    let empties = !(p | o);
    let weights = (empties.count_ones() >= SORT_BY_EVAL_MIN)
        .then(Weights::get)
        .flatten();
    (odd_quadrants(empties), weights)
}

/// One solve, monomorphised for a move generator.
pub(super) struct Search<'a, 'r, K: Kernel + Endgame> {
    pub k: K,
    pub s: &'a mut Solver,
    /// Where progress goes, if anywhere.
    pub report: Option<Reporter<'r>>,
}

impl<K: Kernel + Endgame> Search<'_, '_, K> {
    /// Counts a node; true when the deadline has passed. Reports progress
    /// when due.
    #[inline]
    fn tick(&mut self) -> bool {
        if self.s.clock.take_report() {
            self.report_progress();
        }
        self.s.clock.tick()
    }

    /// Hands the progress to the reporter, if there is one.
    pub fn report_progress(&mut self) {
        if let Some(report) = self.report.as_mut() {
            self.s.progress.nodes = self.s.clock.nodes;
            report(&self.s.progress);
        }
    }

    /// The ordering key of a move (lower first): fastest first, then
    /// parity (`odd`: empties in regions with an odd count) and corners;
    /// far from the end, the learned evaluation of the child too, or a
    /// shallow search of it.
    #[inline]
    pub fn key(&mut self, child: &Child, odd: u64, weights: Option<&Weights>) -> i32 {
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
        beta: i32,
    ) -> Result<(), i32> {
        let n = (!(p | o)).count_ones();
        if n >= ETC_MIN {
            self.etc(p, o, moves, beta)?;
        }
        let (odd, weights) = ordering_terms(p, o);
        let prefetch = n > TT_MIN;
        let Ok(()) = list.fill(self.k, (p, o), moves, NO_MOVE as u32, |child| {
            if prefetch {
                // Each child probes the table first thing.
                self.s.table.prefetch(child.p, child.o);
            }
            Ok::<_, Infallible>(self.key(child, odd, weights))
        });
        Ok(())
    }

    /// Enhanced transposition cutoff: `Err(score)` when a child's stored
    /// bound already refutes this node. Every child's bucket is fetched
    /// before any is read, so the memory accesses overlap.
    fn etc(&mut self, p: u64, o: u64, moves: u64, beta: i32) -> Result<(), i32> {
        let k = self.k;
        let children = || {
            (0..64)
                .filter(move |sq| moves >> sq & 1 == 1)
                .map(move |sq| {
                    let f = k.flips(p, o, sq);
                    (o ^ f, p | f | 1 << sq)
                })
        };
        for (cp, co) in children() {
            self.s.table.prefetch(cp, co);
        }
        let precision = self.s.pass.precision();
        for (cp, co) in children() {
            if let Some(e) = self.s.table.probe(cp, co) {
                if e.precision >= precision && -(e.upper as i32) >= beta {
                    return Err(-(e.upper as i32));
                }
            }
        }
        Ok(())
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
    pub fn search(&mut self, p: u64, o: u64, alpha: i32, beta: i32, passed: bool) -> i32 {
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
        if let Some(cap) = stability_cutoff(p, o, alpha) {
            return cap;
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
        let mut best = Best::new(-65, NO_MOVE, alpha, beta);
        let mut rest = moves;
        let mut cut = false;
        if hint < 64 && moves >> hint & 1 == 1 {
            // The table's move first, before the others are ordered: it
            // often refutes the node alone, and their ordering (far from
            // the end, a search of each) is then saved.
            let f = self.k.flips(p, o, hint);
            let v = -self.search(o ^ f, p | f | 1 << hint, -beta, -alpha, false);
            rest &= !(1 << hint);
            cut = best.offer(v, hint as u8);
        }
        if !cut && rest != 0 {
            let mut list = MoveList::new();
            if let Err(cut) = self.candidates(&mut list, (p, o), rest, beta) {
                return cut;
            }
            let searched = rest != moves;
            for (i, c) in list.as_slice().iter().enumerate() {
                let (cp, co) = c.child(p, o);
                let v = pvs_child(i == 0 && !searched, best.alpha, beta, |a, b| {
                    -self.search(cp, co, -b, -a, false)
                });
                if best.offer(v, c.sq) {
                    break;
                }
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
