//! Node counting and the deadline, shared by the midgame search and the
//! solver: reading the time costs more than a node, so it is looked at only
//! once every so many nodes.

use std::time::Instant;

/// Counts positions visited and says when a search must stop.
pub(crate) struct Clock {
    /// Positions visited since [`Clock::start`].
    pub nodes: u64,
    deadline: Option<Instant>,
    stopped: bool,
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
            mask: (1 << interval_bits) - 1,
        }
    }

    /// Starts a search that must end by `deadline` (never if `None`).
    pub fn start(&mut self, deadline: Option<Instant>) {
        self.nodes = 0;
        self.deadline = deadline;
        self.stopped = false;
    }

    /// Counts one node; true once the deadline has passed (then the search
    /// unwinds and its results are not trusted).
    #[inline]
    pub fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes & self.mask == 0 {
            if let Some(deadline) = self.deadline {
                if Instant::now() >= deadline {
                    self.stopped = true;
                }
            }
        }
        self.stopped
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
        clock.start(Some(Instant::now()));
        // The time is read on the 4th node only.
        assert!(!clock.tick() && !clock.tick() && !clock.tick());
        assert!(clock.tick());
        assert!(clock.stopped());
        assert_eq!(clock.nodes, 4);
        clock.start(None);
        assert!((0..100).all(|_| !clock.tick()));
    }
}
