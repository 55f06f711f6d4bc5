//! Fair turns on the supervisor's loop. mio is edge-triggered: a socket left with
//! unread bytes (or a listener with connections still in its backlog) gets no new
//! event, so whatever stops before WouldBlock is put on the [`ReadyList`] and served
//! again in a later turn, after every other ready connection had its own. Each turn
//! is bounded by a [`Budget`], so that one fast sender cannot hold the loop.

use std::collections::{HashSet, VecDeque};

/// Bytes read from one waiting connection in one turn (spec/PROTOCOL.md §8.11).
pub const READ_BUDGET: usize = 16 * 1024;
/// Requests of one waiting connection judged in one turn.
pub const REQUEST_BUDGET: usize = 32;
/// Connections accepted from one listener in one turn.
pub const ACCEPT_BUDGET: usize = 64;
/// A waiting connection with this many reply bytes unsent is not read until they go:
/// a client that does not read its replies stops being read.
pub const OUT_PAUSE: usize = 16 * 1024;
/// A waiting connection with more reply bytes unsent than this is closed.
pub const OUT_LIMIT: usize = 256 * 1024;

/// What may be served in a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Turn {
    /// A waiting connection, by index.
    Conn(usize),
    /// A listener, by index.
    Listener(usize),
}

/// What was left to do when a turn ended, first come first served, each once.
#[derive(Default)]
pub struct ReadyList {
    order: VecDeque<Turn>,
    listed: HashSet<Turn>,
}

impl ReadyList {
    /// Puts `turn` at the back, unless it is listed already.
    pub fn push(&mut self, turn: Turn) {
        if self.listed.insert(turn) {
            self.order.push_back(turn);
        }
    }

    /// The turns listed so far, in order; what they push again waits for the next round.
    pub fn take_round(&mut self) -> Vec<Turn> {
        self.listed.clear();
        self.order.drain(..).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

/// What one turn of one connection may still use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub bytes: usize,
    pub requests: usize,
}

impl Budget {
    pub fn turn() -> Budget {
        Budget {
            bytes: READ_BUDGET,
            requests: REQUEST_BUDGET,
        }
    }

    /// Counts `n` bytes read.
    pub fn read(&mut self, n: usize) {
        self.bytes = self.bytes.saturating_sub(n);
    }

    /// Counts one request judged.
    pub fn judged(&mut self) {
        self.requests = self.requests.saturating_sub(1);
    }

    pub fn is_spent(&self) -> bool {
        self.bytes == 0 || self.requests == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_is_listed_once_and_served_in_order() {
        let mut ready = ReadyList::default();
        ready.push(Turn::Conn(3));
        ready.push(Turn::Listener(0));
        ready.push(Turn::Conn(3));
        assert!(!ready.is_empty());
        assert_eq!(ready.take_round(), [Turn::Conn(3), Turn::Listener(0)]);
        assert!(ready.is_empty());
        // Pushed again while its round is served: it comes in the next round.
        ready.push(Turn::Conn(3));
        assert_eq!(ready.take_round(), [Turn::Conn(3)]);
    }

    #[test]
    fn a_budget_is_spent_by_bytes_or_by_requests() {
        let mut budget = Budget::turn();
        budget.read(READ_BUDGET - 1);
        assert!(!budget.is_spent());
        budget.read(5);
        assert!(budget.is_spent());
        let mut budget = Budget::turn();
        for _ in 0..REQUEST_BUDGET {
            assert!(!budget.is_spent());
            budget.judged();
        }
        assert!(budget.is_spent());
    }
}
