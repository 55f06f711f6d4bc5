//! The move clock of spec §8.8.

use std::time::{Duration, Instant};

/// Runs from each `turn` until the mover's place is accepted.
#[derive(Debug, Clone, Copy)]
pub struct MoveClock {
    limit: Option<Duration>,
    deadline: Option<Instant>,
}

impl MoveClock {
    /// `None`: no clock at all.
    pub fn new(limit: Option<Duration>) -> MoveClock {
        MoveClock {
            limit,
            deadline: None,
        }
    }

    /// A full clock from `now` (every turn, including a second turn after a pass).
    pub fn start(&mut self, now: Instant) {
        self.deadline = self.limit.map(|limit| now + limit);
    }

    pub fn stop(&mut self) {
        self.deadline = None;
    }

    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    pub fn expired(&self, now: Instant) -> bool {
        self.deadline.is_some_and(|d| d <= now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restarts_in_full_and_never_runs_without_a_limit() {
        let t0 = Instant::now();
        let mut clock = MoveClock::new(Some(Duration::from_secs(5)));
        clock.start(t0);
        assert!(!clock.expired(t0 + Duration::from_secs(4)));
        clock.start(t0 + Duration::from_secs(4));
        assert!(!clock.expired(t0 + Duration::from_secs(8)));
        assert!(clock.expired(t0 + Duration::from_secs(9)));
        clock.stop();
        assert!(!clock.expired(t0 + Duration::from_secs(99)));
        let mut none = MoveClock::new(None);
        none.start(t0);
        assert_eq!(none.deadline(), None);
    }
}
