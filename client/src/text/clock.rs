//! Clocks and timers (spec/TEXT-PROTOCOL.md §3, `GAME CLOCK k ms` and
//! `GAME TIMER name ms text`): the server's clock is the only authority;
//! the client counts down from the last value it was sent, as a display.
//! A countdown keeps the instant its line was read, so the state machine
//! stays pure and the screen asks how much is left at the moment it draws.

use std::time::{Duration, Instant};

/// Under this, a running clock is shown with a warning.
pub const LOW: Duration = Duration::from_secs(10);

/// A clock or timer line from the server (`ServerMessage::Clock`, `ServerMessage::Timer`),
/// kept apart so that the transport can stamp it with the instant it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timing {
    /// `GAME CLOCK k ms`: team `team`'s clock shows `ms` now.
    Clock { team: u8, ms: u64 },
    /// `GAME TIMER name ms text`: `text` happens in `ms` (0: stopped).
    Timer { name: String, ms: u64, text: String },
    /// `GAME AWAY k ms`: team `team`'s seat is held `ms` more (0: the grace is over).
    Away { team: u8, ms: u64 },
}

impl Timing {
    /// The clock or timer `message` holds, if it is one.
    pub fn of(message: &reversi_text::ServerMessage) -> Option<Timing> {
        use reversi_text::ServerMessage;
        match message {
            ServerMessage::Clock { team, ms } => Some(Timing::Clock {
                team: *team,
                ms: *ms,
            }),
            ServerMessage::Timer { name, ms, text } => Some(Timing::Timer {
                name: name.clone(),
                ms: *ms,
                text: text.clone(),
            }),
            ServerMessage::Away { team, ms } => Some(Timing::Away {
                team: *team,
                ms: *ms,
            }),
            _ => None,
        }
    }
}

/// Time counting down from `ms` at `since`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Countdown {
    pub ms: u64,
    pub since: Instant,
}

impl Countdown {
    /// What is left at `now`, if it runs; else what it showed.
    pub fn left(&self, now: Instant, running: bool) -> Duration {
        let full = Duration::from_millis(self.ms);
        if running {
            full.saturating_sub(now.saturating_duration_since(self.since))
        } else {
            full
        }
    }
}

/// A team's clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    pub team: u8,
    pub time: Countdown,
}

/// A team whose player dropped, and the grace its seat is held for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Away {
    pub team: u8,
    pub time: Countdown,
}

/// A countdown the game runs (the tide, the quiet rule).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timer {
    pub name: String,
    /// What happens when it runs out.
    pub text: String,
    pub time: Countdown,
}

/// "1:05" or "9.4 s": minutes once there are any, tenths in the last ten seconds.
pub fn format_left(left: Duration) -> String {
    let secs = left.as_secs();
    if left < LOW {
        format!("{}.{} s", secs, left.subsec_millis() / 100)
    } else if secs >= 60 {
        format!("{}:{:02}", secs / 60, secs % 60)
    } else {
        format!("{secs} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_running_countdown_counts_down_and_a_stopped_one_does_not() {
        let since = Instant::now();
        let time = Countdown { ms: 30_000, since };
        let later = since + Duration::from_millis(12_500);
        assert_eq!(time.left(later, true), Duration::from_millis(17_500));
        assert_eq!(time.left(later, false), Duration::from_secs(30));
        let much_later = since + Duration::from_secs(60);
        assert_eq!(time.left(much_later, true), Duration::ZERO);
        assert_eq!(format_left(Duration::from_millis(17_500)), "17 s");
        assert_eq!(format_left(Duration::from_millis(9_450)), "9.4 s");
        assert_eq!(format_left(Duration::from_secs(65)), "1:05");
    }
}
