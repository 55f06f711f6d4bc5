//! Node counting and the deadline, shared by the midgame search and the
//! solver: reading the time costs more than a node, so it is looked at only
//! once every so many nodes.

use std::time::{Duration, Instant};

/// Counts positions visited and says when a search must stop, and when a
/// progress report is due.
pub(crate) struct Clock {
    /// Positions visited since [`Clock::start`].
    pub nodes: u64,
    deadline: Option<Instant>,
    stopped: bool,
    /// Report progress this often, if at all.
    report_every: Option<Duration>,
    next_report: Option<Instant>,
    report_due: bool,
    /// The time is read when `nodes & mask == 0`.
    mask: u64,
}

impl Clock {
    /// A clock that reads the time once every `2^interval_bits` nodes.
    pub fn new(interval_bits: u32) -> Clock {
        Clock {
            nodes: 0,
            deadline: None,
            stopped: false,
            report_every: None,
            next_report: None,
            report_due: false,
            mask: (1 << interval_bits) - 1,
        }
    }

    /// Starts a search that must end by `deadline` (never if `None`) and
    /// reports progress every `report_every` (never if `None`).
    pub fn start(&mut self, deadline: Option<Instant>, report_every: Option<Duration>) {
        self.nodes = 0;
        self.deadline = deadline;
        self.stopped = false;
        self.report_every = report_every;
        self.next_report = report_every.map(|every| Instant::now() + every);
        self.report_due = false;
    }

    /// Counts one node; true once the deadline has passed (then the search
    /// unwinds and its results are not trusted).
    #[inline]
    pub fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes & self.mask == 0 && (self.deadline.is_some() || self.next_report.is_some()) {
            let now = Instant::now();
            self.stopped |= self.deadline.is_some_and(|deadline| now >= deadline);
            if let (Some(at), Some(every)) = (self.next_report, self.report_every) {
                if now >= at {
                    self.report_due = true;
                    self.next_report = Some(now + every);
                }
            }
        }
        self.stopped
    }

    /// Whether a progress report is due; true once per period.
    #[inline]
    pub fn take_report(&mut self) -> bool {
        std::mem::take(&mut self.report_due)
    }

    /// Whether the deadline stopped the search.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.stopped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_only_after_a_past_deadline_is_read() {
        let mut clock = Clock::new(2);
        clock.start(Some(Instant::now()), None);
        // The time is read on the 4th node only.
        assert!(!clock.tick() && !clock.tick() && !clock.tick());
        assert!(clock.tick());
        assert!(clock.stopped());
        assert_eq!(clock.nodes, 4);
        clock.start(None, None);
        assert!((0..100).all(|_| !clock.tick()));
        assert!(!clock.take_report());
    }

    #[test]
    fn reports_fall_due_once_per_period() {
        let mut clock = Clock::new(0);
        clock.start(None, Some(Duration::ZERO));
        assert!(!clock.tick());
        assert!(clock.take_report());
        assert!(!clock.take_report());
        clock.start(None, Some(Duration::from_secs(3600)));
        assert!((0..100).all(|_| !clock.tick()));
        assert!(!clock.take_report());
    }
}
