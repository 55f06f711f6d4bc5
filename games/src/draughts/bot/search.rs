//! Alpha-beta search: principal variation search with iterative deepening,
//! a transposition table, killer and history move ordering, and captures
//! searched past the horizon (they are forced, so a position with one is
//! never judged statically).
//!
//! Game-ending rules are part of the search: a side with no move has lost,
//! and a position seen before in the same quiet run (no capture or man move
//! since) or 40 quiet moves each score as a draw. A win or loss found this
//! way is exact: [`Score::Win`] and [`Score::Loss`] are proofs within the
//! searched tree, the repetition rule read as a draw at the first return.

use std::time::{Duration, Instant};

use crate::draughts::board::Position;
use crate::draughts::draws::{irreversible, QUIET_MOVES};
use crate::draughts::moves::Move;

use super::eval::evaluate;
use super::table::{Bound, Table};
use super::zobrist::hash;

/// The score of a position whose side to move has lost, at the root.
const MATE: i32 = 30_000;
/// The deepest line searched, extensions included.
const MAX_PLY: usize = 128;
/// Scores beyond this are proven wins or losses.
const PROVEN: i32 = MATE - MAX_PLY as i32;
/// Nodes between two looks at the clock.
const CLOCK_EVERY: u64 = 1024;

/// What a search found a position to be worth to the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Score {
    /// A proven win, the game ending after this many plies at the latest.
    Win(u32),
    /// A proven loss, this many plies away at the soonest.
    Loss(u32),
    /// An estimate, in hundredths of a man.
    Value(i32),
}

impl Score {
    fn from_raw(raw: i32) -> Score {
        if raw >= PROVEN {
            Score::Win((MATE - raw) as u32)
        } else if raw <= -PROVEN {
            Score::Loss((MATE + raw) as u32)
        } else {
            Score::Value(raw)
        }
    }
}

/// How long a search may run.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    /// Wall-clock time; the first iteration always completes.
    pub time: Option<Duration>,
    /// The deepest iteration.
    pub depth: u32,
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct Report {
    pub best: Move,
    pub score: Score,
    /// The deepest iteration completed.
    pub depth: u32,
    pub nodes: u64,
    pub elapsed: Duration,
}

impl Report {
    pub fn nodes_per_second(&self) -> f64 {
        self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-6)
    }
}

pub struct Searcher {
    table: Table,
    nodes: u64,
    deadline: Option<Instant>,
    stopped: bool,
    /// Hashes of the positions from the earliest one the draw rules can
    /// still see to the node being searched.
    line: Vec<u64>,
    /// One move list and one ordering list per ply, reused.
    lists: Vec<Vec<Move>>,
    orders: Vec<Vec<(i32, u8)>>,
    /// Two quiet moves per ply that caused cut-offs, as (from, to) numbers.
    killers: Vec<[(u8, u8); 2]>,
    /// Cut-offs by (from, to), weighted by depth.
    history: Box<[[i32; 32]; 32]>,
}

impl Searcher {
    /// A searcher with a table of `2^table_bits` entries.
    pub fn new(table_bits: u32) -> Searcher {
        Searcher {
            table: Table::new(table_bits),
            nodes: 0,
            deadline: None,
            stopped: false,
            line: Vec::new(),
            lists: vec![Vec::new(); MAX_PLY + 1],
            orders: vec![Vec::new(); MAX_PLY + 1],
            killers: vec![[(0, 0); 2]; MAX_PLY + 1],
            history: Box::new([[0; 32]; 32]),
        }
    }

    /// The best of `moves` (legal moves of `root`, at least one) for the
    /// side to move. `past` holds the hashes of the positions before `root`
    /// since the last capture or man move, oldest first.
    pub fn search(
        &mut self,
        root: &Position,
        past: &[u64],
        moves: &[Move],
        limit: Limit,
    ) -> Report {
        let start = Instant::now();
        self.nodes = 0;
        self.stopped = false;
        // No deadline for the first iteration: it always completes.
        self.deadline = None;
        self.table.new_search();
        self.killers.iter_mut().for_each(|k| *k = [(0, 0); 2]);
        self.history.iter_mut().flatten().for_each(|h| *h /= 8);
        self.line.clear();
        self.line.extend_from_slice(past);
        self.line.push(hash(root));

        let mut order: Vec<Move> = moves.to_vec();
        let mut best = (order[0], 0);
        let mut depth = 0;
        while depth < limit.depth.max(1) {
            let Some(found) = self.root(root, &order, depth as i32 + 1, past.len()) else {
                break;
            };
            depth += 1;
            self.deadline = limit.time.map(|t| start + t);
            best = found;
            // The best move first next time: it is the likeliest to stay best.
            if let Some(i) = order.iter().position(|m| *m == best.0) {
                order[..=i].rotate_right(1);
            }
            let proven = best.1.abs() >= PROVEN;
            let half_spent = limit.time.is_some_and(|t| start.elapsed() * 2 > t);
            if proven || half_spent || order.len() == 1 {
                break;
            }
        }
        Report {
            best: best.0,
            score: Score::from_raw(best.1),
            depth,
            nodes: self.nodes,
            elapsed: start.elapsed(),
        }
    }

    /// One iteration at the root; `None` if time ran out.
    fn root(
        &mut self,
        p: &Position,
        moves: &[Move],
        depth: i32,
        quiet: usize,
    ) -> Option<(Move, i32)> {
        let (mut alpha, beta) = (-MATE - 1, MATE + 1);
        let mut best = moves[0];
        for (i, m) in moves.iter().enumerate() {
            let score = self.child(p, m, depth - 1, alpha, beta, 1, quiet, i == 0);
            if self.stopped {
                return None;
            }
            if score > alpha {
                alpha = score;
                best = *m;
            }
        }
        Some((best, alpha))
    }

    /// The score of `m` played in `p`, searched with a null window first
    /// unless it is the first move (principal variation search).
    #[allow(clippy::too_many_arguments)]
    fn child(
        &mut self,
        p: &Position,
        m: &Move,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        quiet: usize,
        first: bool,
    ) -> i32 {
        let next = p.play(m);
        let quiet = if irreversible(p, m) { 0 } else { quiet + 1 };
        if first {
            return -self.node(&next, depth, -beta, -alpha, ply, quiet);
        }
        let probe = -self.node(&next, depth, -alpha - 1, -alpha, ply, quiet);
        if probe > alpha && probe < beta {
            -self.node(&next, depth, -beta, -alpha, ply, quiet)
        } else {
            probe
        }
    }

    fn node(
        &mut self,
        p: &Position,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        quiet: usize,
    ) -> i32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CLOCK_EVERY)
            && self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        let key = hash(p);
        self.line.push(key);
        let mut moves = std::mem::take(&mut self.lists[ply]);
        p.legal_moves_into(&mut moves);
        let score = self.judge(p, &moves, depth, alpha, beta, ply, quiet, key);
        self.lists[ply] = moves;
        self.line.pop();
        score
    }

    #[allow(clippy::too_many_arguments)]
    fn judge(
        &mut self,
        p: &Position,
        moves: &[Move],
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        quiet: usize,
        key: u64,
    ) -> i32 {
        if moves.is_empty() {
            return -(MATE - ply as i32);
        }
        if quiet >= 2 * QUIET_MOVES || self.repeated(quiet) {
            return 0;
        }
        let captures = moves[0].is_capture();
        if (depth <= 0 && !captures) || ply >= MAX_PLY {
            return evaluate(p);
        }
        let entry = self.table.get(key);
        if let Some(e) = entry.filter(|e| i32::from(e.depth) >= depth) {
            let score = from_table(e.score, ply);
            let usable = match e.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if usable {
                return score;
            }
        }
        let order = self.order(moves, entry.map(|e| e.best), ply);
        // A forced move costs no depth: forced lines are followed to their end.
        let next_depth = if moves.len() == 1 { depth } else { depth - 1 };
        let original_alpha = alpha;
        let mut best = (-MATE - 1, 0u8);
        for (n, &(_, i)) in order.iter().enumerate() {
            let m = &moves[usize::from(i)];
            let score = self.child(p, m, next_depth, alpha, beta, ply + 1, quiet, n == 0);
            if self.stopped {
                self.orders[ply] = order;
                return 0;
            }
            if score > best.0 {
                best = (score, i);
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                self.cut_off(m, depth, ply);
                break;
            }
        }
        self.orders[ply] = order;
        let bound = if best.0 >= beta {
            Bound::Lower
        } else if best.0 > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let stored_depth = depth.clamp(0, i32::from(i8::MAX)) as i8;
        self.table
            .put(key, to_table(best.0, ply), stored_depth, bound, best.1);
        best.0
    }

    /// Whether the node's position occurred before in its quiet run, with
    /// the same side to move (every second position back).
    fn repeated(&self, quiet: usize) -> bool {
        let Some((&key, earlier)) = self.line.split_last() else {
            return false;
        };
        earlier
            .iter()
            .rev()
            .take(quiet)
            .skip(1)
            .step_by(2)
            .any(|&k| k == key)
    }

    /// Move indices, best first: the table's move, then by captures,
    /// killers and history.
    fn order(&mut self, moves: &[Move], table_move: Option<u8>, ply: usize) -> Vec<(i32, u8)> {
        let mut order = std::mem::take(&mut self.orders[ply]);
        order.clear();
        for (i, m) in moves.iter().enumerate() {
            let i = i as u8;
            let key = (m.from().number(), m.to().number());
            let score = if Some(i) == table_move {
                i32::MAX
            } else if m.is_capture() {
                1_000_000 + m.captured().count() as i32
            } else if self.killers[ply].contains(&key) {
                500_000
            } else {
                self.history[usize::from(key.0 - 1)][usize::from(key.1 - 1)]
            };
            order.push((score, i));
        }
        order.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
        order
    }

    fn cut_off(&mut self, m: &Move, depth: i32, ply: usize) {
        if m.is_capture() {
            return;
        }
        let key = (m.from().number(), m.to().number());
        let killers = &mut self.killers[ply];
        if killers[0] != key {
            killers[1] = killers[0];
            killers[0] = key;
        }
        let h = &mut self.history[usize::from(key.0 - 1)][usize::from(key.1 - 1)];
        *h = h.saturating_add(depth.max(1) * depth.max(1)).min(400_000);
    }
}

/// Proven scores count plies from the root; the table stores them from the node.
fn to_table(score: i32, ply: usize) -> i32 {
    match score {
        s if s >= PROVEN => s + ply as i32,
        s if s <= -PROVEN => s - ply as i32,
        s => s,
    }
}

fn from_table(score: i32, ply: usize) -> i32 {
    match score {
        s if s >= PROVEN => s - ply as i32,
        s if s <= -PROVEN => s + ply as i32,
        s => s,
    }
}
