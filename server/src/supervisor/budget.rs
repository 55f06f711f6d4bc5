//! A turn of the supervisor's loop by the loop thread's CPU clock: where its CPU went,
//! part by part ([`Turn`]), so that a turn longer than [`LONG_TURN`] is logged at debug
//! with its breakdown (target `reversid::supervisor::budget`).
//!
//! The clock is read by the caller ([`crate::metrics::thread_cpu`]) and handed in: what
//! is counted here is pure, and tested so.

use std::time::Duration;

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

/// One turn's CPU so far, by part: each [`Turn::mark`] gives the CPU since the last mark
/// to a part.
#[derive(Clone, Debug)]
pub struct Turn {
    began: Duration,
    last: Duration,
    spent: [Duration; PARTS],
    /// Items done, by part (children reaped, ends recorded...), where counted.
    items: [u32; PARTS],
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
        }
    }

    /// The CPU since the last mark (the clock reads `cpu`) was spent on `part`.
    pub fn mark(&mut self, part: Part, cpu: Duration) {
        self.spent[part as usize] += cpu.saturating_sub(self.last);
        self.last = self.last.max(cpu);
    }

    /// As [`Turn::mark`], for `n` items of `part` (children reaped, ends recorded).
    pub fn mark_items(&mut self, part: Part, n: usize, cpu: Duration) {
        self.mark(part, cpu);
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        self.items[part as usize] = self.items[part as usize].saturating_add(n);
    }

    /// The turn's CPU from its beginning to its last mark.
    pub fn used(&self) -> Duration {
        self.last.saturating_sub(self.began)
    }

    /// The turn's breakdown, if it took [`LONG_TURN`] or more: its parts, costliest first
    /// ("reap 1.20 ms (12)": 12 items), those that took nothing left out.
    pub fn long(&self) -> Option<String> {
        if self.used() < LONG_TURN {
            return None;
        }
        let mut parts: Vec<Part> = Part::ALL
            .into_iter()
            .filter(|&p| self.spent[p as usize] > Duration::ZERO)
            .collect();
        parts.sort_by_key(|&p| std::cmp::Reverse(self.spent[p as usize]));
        let parts: Vec<String> = parts
            .into_iter()
            .map(|p| {
                let ms = self.spent[p as usize].as_secs_f64() * 1000.0;
                match self.items[p as usize] {
                    0 => format!("{} {ms:.2} ms", p.label()),
                    n => format!("{} {ms:.2} ms ({n})", p.label()),
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
        assert_eq!(turn.used(), us(3_100));
        assert_eq!(
            turn.long().as_deref(),
            Some(
                "a long turn: 3.10 ms of CPU: reap 2.00 ms (2), io 0.50 ms, pair 0.40 ms, \
                 ends 0.20 ms (1)"
            )
        );
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
