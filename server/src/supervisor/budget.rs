//! A turn of the supervisor's loop by the loop thread's CPU clock: where its CPU went,
//! part by part ([`Turn`]), so that a turn longer than [`LONG_TURN`] is logged at debug
//! with its breakdown (target `reversid::supervisor::budget`); and one budget a turn for
//! the work that can wait ([`Deferred`]: collecting ended sessions with their bookkeeping,
//! the backstop sweep, the archive's answers and hand-overs, the signal pipe's news past
//! its first [`crate::signals::TAKE_SOME`] bytes).
//!
//! That work is done one item at a time (a child, a journal, an answer) while the turn
//! has used less than [`TURN_BUDGET`] of CPU, the turn's first item whatever it has used,
//! so that it always moves on; what is left waits for the next turn, which comes at once
//! (the poll's timeout is 0 while work is due), after the connections' I/O of that turn.
//! Which kind goes first rotates from turn to turn, so that none waits on another.
//!
//! The clock is read by the caller ([`crate::metrics::thread_cpu`]) and handed in: what
//! is counted here is pure, and tested so.

use std::time::Duration;

use crate::metrics::thread_cpu;

/// What a turn's CPU was spent on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Connections, listeners, the control socket, the sessions' metrics: the events.
    Io,
    /// The signal pipe's drain and what its news asks at once.
    Signals,
    /// A thread's news: the archive's reader and writer, accounts, pages, the cluster.
    Wake,
    /// Connections served again from the ready list.
    Ready,
    /// `waitpid(pid)` of sessions whose ends were named.
    Reap,
    /// The bookkeeping of ended sessions: hosts, tokens, metrics, ratings, the journal
    /// sent to the archive.
    Ends,
    /// `waitpid(-1)`: the backstop sweep.
    Sweep,
    /// The archive's turn: the reader asked, journals handed to the writer, retries.
    Archive,
    /// Every other timer: expiries, tournaments, the cluster, handshakes.
    Timers,
    /// Pairing queued players, starting helpers, the turn's metrics.
    Pair,
}

const PARTS: usize = 10;

impl Part {
    const ALL: [Part; PARTS] = [
        Part::Io,
        Part::Signals,
        Part::Wake,
        Part::Ready,
        Part::Reap,
        Part::Ends,
        Part::Sweep,
        Part::Archive,
        Part::Timers,
        Part::Pair,
    ];

    fn label(self) -> &'static str {
        match self {
            Part::Io => "io",
            Part::Signals => "signals",
            Part::Wake => "wake",
            Part::Ready => "ready",
            Part::Reap => "reap",
            Part::Ends => "ends",
            Part::Sweep => "sweep",
            Part::Archive => "archive",
            Part::Timers => "timers",
            Part::Pair => "pair",
        }
    }
}

/// A turn longer than this (the loop thread's CPU) is logged at debug with its breakdown.
pub const LONG_TURN: Duration = Duration::from_millis(3);

/// The turn's CPU past which no more deferrable work begins in it. Issue 26's goal is a
/// longest turn under 5 ms: an item begun just under the budget may cost up to 100 us (a
/// child's `release_task` under load) or, for a sweep's `waitpid(-1)`, a walk of every
/// child (3 ms with 10,000; sweeps are rare).
pub const TURN_BUDGET: Duration = Duration::from_micros(2_500);

/// The kinds of deferrable work, each done by its own shell (forking.rs, the archive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// Sessions whose ends were named: `waitpid(pid)` and the end's bookkeeping.
    Collect,
    /// The backstop sweep, when due.
    Sweep,
    /// The archive's turn.
    Archive,
    /// What is left in the signal pipe, a few exits a step.
    Signals,
}

/// Which kind of deferrable work goes first in a turn: each in its turn.
#[derive(Clone, Copy, Debug, Default)]
pub struct Deferred {
    turns: usize,
}

impl Deferred {
    const ORDER: [Work; 4] = [Work::Collect, Work::Sweep, Work::Archive, Work::Signals];

    /// The order of this turn's deferrable work; the next turn's begins with the next kind.
    pub fn order(&mut self) -> [Work; 4] {
        let first = self.turns % Self::ORDER.len();
        self.turns = self.turns.wrapping_add(1);
        let mut order = Self::ORDER;
        order.rotate_left(first);
        order
    }
}

/// One turn's CPU so far, by part: each [`Turn::mark`] gives the CPU since the last mark
/// to a part.
#[derive(Clone, Debug)]
pub struct Turn {
    began: Duration,
    last: Duration,
    spent: [Duration; PARTS],
    /// Items done, by part (children reaped, ends recorded...), where counted.
    items: [u32; PARTS],
    /// The longest of those items, by part.
    longest: [Duration; PARTS],
    /// Items of deferrable work begun ([`Turn::may_defer`]).
    deferred: u32,
}

impl Default for Turn {
    fn default() -> Turn {
        Turn::begin(Duration::ZERO)
    }
}

impl Turn {
    /// A turn that begins when the thread's CPU clock reads `cpu`.
    pub fn begin(cpu: Duration) -> Turn {
        Turn {
            began: cpu,
            last: cpu,
            spent: [Duration::ZERO; PARTS],
            items: [0; PARTS],
            longest: [Duration::ZERO; PARTS],
            deferred: 0,
        }
    }

    /// Whether one more item of deferrable work may begin, the clock reading `cpu`: the
    /// turn's first always, the others while the turn has used less than [`TURN_BUDGET`].
    /// One that may is counted as begun.
    pub fn may_defer(&mut self, cpu: Duration) -> bool {
        let may = self.deferred == 0 || cpu.saturating_sub(self.began) < TURN_BUDGET;
        if may {
            self.deferred += 1;
        }
        may
    }

    /// The CPU since the last mark (the clock reads `cpu`) was spent on `part`.
    pub fn mark(&mut self, part: Part, cpu: Duration) {
        self.spent[part as usize] += cpu.saturating_sub(self.last);
        self.last = self.last.max(cpu);
    }

    /// As [`Turn::mark`], for `n` items of `part` (children reaped, ends recorded).
    pub fn mark_items(&mut self, part: Part, n: usize, cpu: Duration) {
        let took = cpu.saturating_sub(self.last);
        let longest = &mut self.longest[part as usize];
        *longest = (*longest).max(took);
        self.mark(part, cpu);
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        self.items[part as usize] = self.items[part as usize].saturating_add(n);
    }

    /// The CPU clock's reading at the last mark.
    pub fn last(&self) -> Duration {
        self.last
    }

    /// The turn's CPU from its beginning to its last mark.
    pub fn used(&self) -> Duration {
        self.last.saturating_sub(self.began)
    }

    /// The turn's breakdown, if it took [`LONG_TURN`] or more: its parts, costliest first
    /// ("reap 1.20 ms (12, longest 0.30)": 12 items, the longest of the calls that marked
    /// them 0.30 ms), those that took under 0.01 ms left out.
    pub fn long(&self) -> Option<String> {
        if self.used() < LONG_TURN {
            return None;
        }
        let mut parts: Vec<Part> = Part::ALL
            .into_iter()
            .filter(|&p| self.spent[p as usize] >= Duration::from_micros(10))
            .collect();
        parts.sort_by_key(|&p| std::cmp::Reverse(self.spent[p as usize]));
        let parts: Vec<String> = parts
            .into_iter()
            .map(|p| {
                let ms = self.spent[p as usize].as_secs_f64() * 1000.0;
                let longest = self.longest[p as usize].as_secs_f64() * 1000.0;
                match self.items[p as usize] {
                    0 => format!("{} {ms:.2} ms", p.label()),
                    n => format!("{} {ms:.2} ms ({n}, longest {longest:.2})", p.label()),
                }
            })
            .collect();
        let ms = self.used().as_secs_f64() * 1000.0;
        Some(format!(
            "a long turn: {ms:.2} ms of CPU: {}",
            parts.join(", ")
        ))
    }
}

impl super::Supervisor {
    /// The work that can wait, within the turn's budget, each kind first in its turn.
    pub(super) fn deferred_work(&mut self, now: std::time::Instant) {
        let shutting_down = self.phase != super::Phase::Running;
        for work in self.deferred.order() {
            match work {
                Work::Collect => self.collect_named(),
                Work::Sweep => self.sweep_when_due(now, shutting_down),
                Work::Archive => self.archive_turn(now),
                Work::Signals => {
                    while self.signals.more() && self.may_defer() {
                        self.on_signals();
                        self.mark(Part::Signals);
                    }
                }
            }
        }
    }

    /// The archive's answers, hand-overs and retries, within the turn's budget.
    fn archive_turn(&mut self, now: std::time::Instant) {
        let turn = &mut self.turn;
        if let Some(archive) = &mut self.archive {
            archive.on_timer(now, &mut || {
                turn.mark(Part::Archive, thread_cpu());
                turn.may_defer(turn.last())
            });
        }
        self.mark(Part::Archive);
    }

    /// Whether one more item of deferrable work may begin in this turn ([`Turn::may_defer`]),
    /// by the clock's last reading: each item ends with a mark, and reading the thread's
    /// CPU clock is a system call (12% of the loop's CPU in the burst when read twice an
    /// item).
    pub(super) fn may_defer(&mut self) -> bool {
        self.turn.may_defer(self.turn.last())
    }

    /// The turn's CPU since its last mark was spent on `part`.
    pub(super) fn mark(&mut self, part: Part) {
        self.turn.mark(part, thread_cpu());
    }

    /// As [`super::Supervisor::mark`], for `n` items of `part`.
    pub(super) fn mark_items(&mut self, part: Part, n: usize) {
        self.turn.mark_items(part, n, thread_cpu());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    #[test]
    fn each_mark_gives_the_cpu_since_the_last_to_its_part() {
        let mut turn = Turn::begin(us(1_000));
        turn.mark(Part::Io, us(1_500));
        turn.mark_items(Part::Reap, 1, us(2_500));
        turn.mark_items(Part::Ends, 1, us(2_700));
        turn.mark_items(Part::Reap, 1, us(3_700));
        turn.mark(Part::Pair, us(4_100));
        turn.mark(Part::Ready, us(4_105));
        assert_eq!(turn.used(), us(3_105), "under 0.01 ms: not told");
        assert_eq!(
            turn.long().as_deref(),
            Some(
                "a long turn: 3.10 ms of CPU: reap 2.00 ms (2, longest 1.00), io 0.50 ms, \
                 pair 0.40 ms, ends 0.20 ms (1, longest 0.20)"
            )
        );
    }

    #[test]
    fn deferrable_work_begins_while_the_turn_is_under_budget_and_once_whatever_it_used() {
        // (the turn's CPU at each ask, from its beginning) -> whether an item may begin
        let table: &[(&[u64], &[bool])] = &[
            (
                &[0, 1_000, 2_499, 2_500, 2_400],
                &[true, true, true, false, true],
            ),
            (&[4_000, 4_100], &[true, false]),
            (&[2_500, 2_500], &[true, false]),
            (&[10, 3_000, 20], &[true, false, true]),
        ];
        for &(asks, want) in table {
            let mut turn = Turn::begin(us(500));
            let got: Vec<bool> = asks.iter().map(|&t| turn.may_defer(us(500 + t))).collect();
            assert_eq!(got, want, "{asks:?}");
        }
    }

    #[test]
    fn each_kind_of_deferrable_work_goes_first_in_its_turn() {
        let mut deferred = Deferred::default();
        let firsts: Vec<Work> = (0..8).map(|_| deferred.order()[0]).collect();
        use Work::{Archive, Collect, Signals, Sweep};
        let four = [Collect, Sweep, Archive, Signals];
        assert_eq!(firsts, [four, four].concat());
        assert_eq!(deferred.order(), [Collect, Sweep, Archive, Signals]);
        assert_eq!(deferred.order(), [Sweep, Archive, Signals, Collect]);
        assert_eq!(deferred.order(), [Archive, Signals, Collect, Sweep]);
        assert_eq!(deferred.order(), [Signals, Collect, Sweep, Archive]);
    }

    #[test]
    fn a_short_turn_is_not_told_and_a_clock_read_late_takes_nothing_back() {
        let mut turn = Turn::begin(us(100));
        turn.mark(Part::Io, us(2_000));
        assert_eq!(turn.long(), None, "under 3 ms");
        // A clock read before the last mark (a caller's stale reading) counts nothing.
        turn.mark(Part::Sweep, us(1_900));
        assert_eq!(turn.used(), us(1_900));
        turn.mark(Part::Sweep, us(3_100));
        assert_eq!(
            turn.long().as_deref(),
            Some("a long turn: 3.00 ms of CPU: io 1.90 ms, sweep 1.10 ms")
        );
    }
}
