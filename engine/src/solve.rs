//! Exact endgame solver: negamax alpha-beta (principal-variation search)
//! with fastest-first move ordering (plus the learned evaluation from 12
//! empties), stability and enhanced transposition cutoffs, a
//! transposition table from 9 empties, and for the last 6 empties a
//! table-free search with quadrant-parity ordering and a dedicated
//! last-square function (`endgame.rs`).
//!
//! Scores are final disc differences for the side to move, with the empty
//! squares given to the winner (the FFO convention), so they lie in -64..=64.

use std::time::Instant;

use crate::bitboard::{Board, CORNERS};
use crate::moves::{with_kernel, Kernel};
use crate::square::Square;
use crate::table::{Table, EXACT_DEPTH, NO_MOVE};

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

use crate::endgame::{final_score, odd_quadrants, Endgame};

/// Empties from which the transposition table is used (below, probing
/// costs more than it saves).
const TT_MIN: u32 = 9;
/// Empties from which enhanced transposition cutoffs are tried.
const ETC_MIN: u32 = 12;
/// Empties from which move ordering also uses the learned evaluation
/// (about 35% fewer nodes on FFO #40-#44 than mobility alone).
const SORT_BY_EVAL_MIN: u32 = 12;

/// A reusable solver: keeps its transposition table between solves and can
/// be given a deadline (then a solve may be abandoned, returning `None`).
pub struct Solver {
    table: Table,
    nodes: u64,
    deadline: Option<Instant>,
    stopped: bool,
}

impl Solver {
    /// A solver with a table of `1 << table_bits` entries of 24 bytes
    /// (`table_bits` is clamped to 4..=26; 20 is a good default).
    pub fn new(table_bits: u32) -> Solver {
        Solver {
            table: Table::new(table_bits),
            nodes: 0,
            deadline: None,
            stopped: false,
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
        // Scores lie in -64..=64: keep the window there and non-empty.
        let alpha = alpha.clamp(-64, 63);
        let beta = beta.clamp(alpha + 1, 64);
        self.nodes = 0;
        self.deadline = deadline;
        self.stopped = false;
        self.table.next_age();
        let (score, best) =
            with_kernel!(|k| Search { k, s: self }.root(board.player, board.opponent, alpha, beta));
        if self.stopped {
            return None;
        }
        Some(Solution {
            score,
            best: best.and_then(|b| Square::from_index(b as u8)),
            nodes: self.nodes,
        })
    }
}

/// One solve, monomorphised for a move generator.
struct Search<'a, K: Kernel + Endgame> {
    k: K,
    s: &'a mut Solver,
}

/// A candidate move: square, flipped discs, ordering key (lower first).
#[derive(Clone, Copy, Default)]
struct Candidate {
    flips: u64,
    key: i32,
    sq: u8,
}

/// Room for every legal move of any board, even unreachable ones.
const MAX_MOVES: usize = 64;

impl<K: Kernel + Endgame> Search<'_, K> {
    /// Counts a node and checks the clock every 4096 nodes.
    #[inline]
    fn tick(&mut self) -> bool {
        self.s.nodes += 1;
        if self.s.nodes & 0xfff == 0 {
            if let Some(d) = self.s.deadline {
                if Instant::now() >= d {
                    self.s.stopped = true;
                }
            }
        }
        self.s.stopped
    }

    /// Root search: returns the score and the best move's square index.
    fn root(&mut self, p: u64, o: u64, alpha: i32, beta: i32) -> (i32, Option<u32>) {
        let moves = self.k.moves(p, o);
        if moves == 0 {
            let score = if self.k.moves(o, p) == 0 {
                final_score(p, o)
            } else {
                -self.search(o, p, -beta, -alpha, true)
            };
            return (score, None);
        }
        let mut list = [Candidate::default(); MAX_MOVES];
        // No cutoff is possible at the root with beta = +inf... but a
        // narrower window may have one; then the bound is the answer.
        let hint = self.s.table.probe(p, o).map_or(NO_MOVE, |e| e.best) as u32;
        let n = match self.candidates(p, o, moves, hint, 65, &mut list) {
            Ok(n) => n,
            Err(v) => return (v, None),
        };
        let (mut alpha, mut best, mut best_sq) = (alpha, -65, list[0].sq as u32);
        for (i, c) in list[..n].iter().enumerate() {
            let (cp, co) = (o ^ c.flips, p | c.flips | 1 << c.sq);
            let mut v;
            if i == 0 {
                v = -self.search(cp, co, -beta, -alpha, false);
            } else {
                v = -self.search(cp, co, -alpha - 1, -alpha, false);
                if v > alpha && v < beta {
                    v = -self.search(cp, co, -beta, -alpha, false);
                }
            }
            if self.s.stopped {
                break;
            }
            if v > best {
                best = v;
                best_sq = c.sq as u32;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        (best, Some(best_sq))
    }

    /// Fills `list` with the moves and their flips, sorted best-first: the
    /// table's move, then fewest replies for the opponent (corners counted
    /// double), fewest empties next to our discs, parity, corners. Returns
    /// the count, or `Err(score)` when a child's stored bound already
    /// refutes this node (enhanced transposition cutoff).
    fn candidates(
        &mut self,
        p: u64,
        o: u64,
        moves: u64,
        hint: u32,
        beta: i32,
        list: &mut [Candidate; MAX_MOVES],
    ) -> Result<usize, i32> {
        let empties = !(p | o);
        let etc = empties.count_ones() >= ETC_MIN;
        let weights = (empties.count_ones() >= SORT_BY_EVAL_MIN)
            .then(crate::patterns::Weights::get)
            .flatten();
        let odd = odd_quadrants(empties);
        let mut n = 0;
        let mut rest = moves;
        while rest != 0 {
            let sq = rest.trailing_zeros();
            rest &= rest - 1;
            let flips = self.k.flips(p, o, sq);
            let (cp, co) = (o ^ flips, p | flips | 1 << sq);
            if etc {
                if let Some(e) = self.s.table.probe(cp, co) {
                    if e.depth == EXACT_DEPTH && -(e.upper as i32) >= beta {
                        return Err(-(e.upper as i32));
                    }
                }
            }
            let replies = self.k.moves(cp, co);
            let mut key = (replies.count_ones() + (replies & CORNERS).count_ones()) as i32 * 16;
            // Potential mobility: empties next to our discs are where the
            // opponent may find moves later.
            key += (crate::eval::neighbours(co) & empties).count_ones() as i32 * 2;
            key -= if odd >> sq & 1 == 1 { 4 } else { 0 };
            key -= if CORNERS >> sq & 1 == 1 { 8 } else { 0 };
            if let Some(w) = weights {
                // Far from the end, add the learned evaluation of the
                // child (for the opponent, in hundredths of a disc).
                let theirs = self.k.moves(co, cp).count_ones();
                key = key * 16 + w.evaluate(cp, co, replies.count_ones(), theirs) / 2;
            }
            if sq == hint {
                key = i32::MIN;
            }
            list[n] = Candidate {
                sq: sq as u8,
                flips,
                key,
            };
            n += 1;
        }
        list[..n].sort_unstable_by_key(|c| c.key);
        Ok(n)
    }

    /// Negamax value of the position for `p`, fail-soft within
    /// `alpha..beta`. `passed` means the previous ply was a pass.
    fn search(&mut self, p: u64, o: u64, alpha: i32, beta: i32, passed: bool) -> i32 {
        let empties = !(p | o);
        let n = empties.count_ones();
        if n <= SHALLOW {
            return self
                .k
                .shallow(p, o, alpha, beta, empties, n, passed, &mut self.s.nodes);
        }
        if self.tick() {
            return 0;
        }
        let (mut alpha, mut beta) = (alpha, beta);
        let mut hint = NO_MOVE as u32;
        let use_table = n >= TT_MIN;
        if let Some(e) = use_table.then(|| self.s.table.probe(p, o)).flatten() {
            hint = e.best as u32;
            if e.depth == EXACT_DEPTH {
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
        if alpha >= 0 {
            // The opponent keeps its stable discs: that caps our score.
            let cap = 64 - 2 * crate::stability::stable(o, p).count_ones() as i32;
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
        let alpha0 = alpha;
        let mut list = [Candidate::default(); MAX_MOVES];
        let count = match self.candidates(p, o, moves, hint, beta, &mut list) {
            Ok(count) => count,
            Err(cut) => return cut,
        };
        let (mut best, mut best_sq) = (-65, NO_MOVE as u32);
        for (i, c) in list[..count].iter().enumerate() {
            let v = self.child(p, o, c.sq as u32, c.flips, alpha, beta, i == 0);
            if v > best {
                best = v;
                best_sq = c.sq as u32;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        self.finish(p, o, best, best_sq, alpha0, beta)
    }

    /// Searches one child with PVS: full window for the first move, a null
    /// window (and a re-search if it fails high) for the others.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn child(
        &mut self,
        p: u64,
        o: u64,
        sq: u32,
        f: u64,
        alpha: i32,
        beta: i32,
        first: bool,
    ) -> i32 {
        let (cp, co) = (o ^ f, p | f | 1 << sq);
        if first || beta - alpha == 1 {
            return -self.search(cp, co, -beta, -alpha, false);
        }
        let v = -self.search(cp, co, -alpha - 1, -alpha, false);
        if v > alpha && v < beta {
            -self.search(cp, co, -beta, -v, false)
        } else {
            v
        }
    }

    /// Stores the result in the table (unless the search was abandoned).
    fn finish(&mut self, p: u64, o: u64, best: i32, best_sq: u32, alpha0: i32, beta: i32) -> i32 {
        if !self.s.stopped && (!(p | o)).count_ones() >= TT_MIN {
            let (lo, hi) = if best <= alpha0 {
                (-64, best)
            } else if best >= beta {
                (best, 64)
            } else {
                (best, best)
            };
            self.s.table.store(p, o, lo, hi, EXACT_DEPTH, best_sq as u8);
        }
        best
    }
}

/// Test data shared with other modules' tests.
#[cfg(test)]
pub(crate) mod tests_support {
    /// FFO #40: board, best move, exact score.
    pub(crate) const FFO_40: (&str, &str, i32) = (
        "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X",
        "a2",
        38,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
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
        crate::square::Squares(moves)
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

    /// FFO test positions #40..#44: board, best-move choices, exact score.
    pub const FFO: [(&str, &[&str], i32); 5] = [
        (
            "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X",
            &["a2"],
            38,
        ),
        (
            "-OOOOO----OOOOX--OOOOOO-XXXXXOO--XXOOX--OOXOXX----OXXO---OOO--O- X",
            &["h4"],
            0,
        ),
        (
            "--OOO-------XX-OOOOOOXOO-OOOOXOOX-OOOXXO---OOXOO---OOOXO--OOOO-- X",
            &["g2"],
            6,
        ),
        (
            "--XXXXX---XXXX---OOOXX---OOXXXX--OOXXXO-OOOOXOO----XOX----XXXXX- O",
            &["g3", "c7"],
            -12,
        ),
        (
            "--O-X-O---O-XO-O-OOXXXOOOOOOXXXOOOOOXX--XXOOXO----XXXX-----XXX-- O",
            &["d2", "b8"],
            -14,
        ),
    ];

    fn check_ffo(i: usize) {
        let (pos, bests, score) = FFO[i];
        let b = Game::from_position(pos).unwrap().board();
        let s = solve(b);
        assert_eq!(s.score, score, "FFO #{}", 40 + i);
        let best = s.best.unwrap().to_string();
        assert!(bests.contains(&best.as_str()), "FFO #{}: {best}", 40 + i);
    }

    #[test]
    fn ffo_40() {
        check_ffo(0);
    }

    #[test]
    #[ignore = "slow: run with --release -- --ignored"]
    fn ffo_41_to_44() {
        for i in 1..5 {
            check_ffo(i);
        }
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
