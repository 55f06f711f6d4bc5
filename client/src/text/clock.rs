//! Clocks and timers (spec/TEXT-PROTOCOL.md §3, `GAME CLOCK k ms` and
//! `GAME TIMER name ms text`): the server's clock is the only authority;
//! the client counts down from the last value it was sent, as a display.
//! A countdown keeps the instant its line was read, so the state machine
//! stays pure and the screen asks how much is left at the moment it draws.

use std::time::{Duration, Instant};

/// Under this, a running clock is shown with a warning.
pub const LOW: Duration = Duration::from_secs(10);

/// A clock or timer line from the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timing {
    /// `GAME CLOCK k ms`: team `team`'s clock shows `ms` now.
    Clock { team: u8, ms: u64 },
    /// `GAME TIMER name ms text`: `text` happens in `ms` (0: stopped).
    Timer { name: String, ms: u64, text: String },
}

impl Timing {
    /// Reads a clock or timer line; `None` for any other line.
    ///
    /// Parsed here from the raw line because `reversi-text`'s codec does
    /// not have these two messages yet: once its `ServerMessage` has them,
    /// the text transport should take them from there and this goes.
    pub fn parse(line: &str) -> Option<Timing> {
        let mut words = line.split_whitespace();
        if !words.next()?.eq_ignore_ascii_case("GAME") {
            return None;
        }
        let kind = words.next()?.to_ascii_uppercase();
        match kind.as_str() {
            "CLOCK" => {
                let team = words.next()?.parse().ok().filter(|&k| k > 0)?;
                let ms = words.next()?.parse().ok()?;
                words.next().is_none().then_some(Timing::Clock { team, ms })
            }
            "TIMER" => {
                let name = words.next()?.to_owned();
                let ms = words.next()?.parse().ok()?;
                let text = words.collect::<Vec<_>>().join(" ");
                Some(Timing::Timer { name, ms, text })
            }
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
    fn clock_and_timer_lines_are_read_and_others_are_not() {
        assert_eq!(
            Timing::parse("GAME CLOCK 2 29500"),
            Some(Timing::Clock { team: 2, ms: 29500 })
        );
        assert_eq!(
            Timing::parse("GAME TIMER tide 10000 the tide turns"),
            Some(Timing::Timer {
                name: "tide".into(),
                ms: 10000,
                text: "the tide turns".into()
            })
        );
        for line in [
            "GAME CLOCK 0 100",
            "GAME CLOCK 1",
            "GAME CLOCK 1 x",
            "GAME CLOCK 1 5 6",
            "GAME TIMER tide",
            "GAME TURN 1",
            "MOVE 1 1 1",
        ] {
            assert_eq!(Timing::parse(line), None, "{line}");
        }
    }

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
