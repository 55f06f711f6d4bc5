//! The lag allowance (TEXT-PROTOCOL.md §8): each seat's network round trip,
//! measured by the server (its pings and their pongs), credited to its moves
//! through a quota as lichess's lag compensation does, so that transit the clock
//! charged comes back and thinking time never does.

use std::time::{Duration, Instant};

/// A ping not answered within this is given up (and a first one never answered
/// means the client does not answer pings: it is not pinged again).
const PING_PATIENCE: Duration = Duration::from_secs(10);
/// At most one ping a second per connection.
const PING_EVERY: Duration = Duration::from_secs(1);

pub(super) struct Lag {
    /// A: the most credited to one move (zero: no credit, no pings).
    allowance: Duration,
    seats: Vec<SeatLag>,
}

#[derive(Default)]
struct SeatLag {
    /// The round trip's estimate: a weighted mean of the samples.
    estimate: Option<Duration>,
    quota: Duration,
    /// The number of the last ping sent.
    pinged: u32,
    /// The ping awaiting its pong, and when it was sent.
    outstanding: Option<(u32, Instant)>,
    last_ping: Option<Instant>,
    answered: bool,
    /// It never answered its first ping: not pinged again.
    deaf: bool,
    /// Credit used, and the moves it was used on, for the log.
    credited: Duration,
    moves: u32,
}

impl Lag {
    pub fn new(allowance: Duration, seats: usize) -> Lag {
        let mut lag = Lag {
            allowance,
            seats: Vec::new(),
        };
        lag.seats = (0..seats)
            .map(|_| SeatLag {
                quota: lag.quota_max(),
                ..SeatLag::default()
            })
            .collect();
        lag
    }

    pub fn is_on(&self) -> bool {
        !self.allowance.is_zero()
    }

    fn quota_max(&self) -> Duration {
        self.allowance * 2
    }

    /// The credit a move of `seat` gets, frozen at its READY: its round trip, at most
    /// the allowance and what its quota holds.
    pub fn credit(&self, seat: usize) -> Duration {
        let lag = &self.seats[seat];
        let estimate = lag.estimate.unwrap_or_default();
        estimate.min(self.allowance).min(lag.quota)
    }

    /// `seat` moved `took` after its READY, with `credit`: the quota pays what was used
    /// and gains half the allowance, up to twice the allowance.
    pub fn spent(&mut self, seat: usize, credit: Duration, took: Duration) {
        let gain = self.allowance / 2;
        let max = self.quota_max();
        let lag = &mut self.seats[seat];
        let used = credit.min(took);
        lag.quota = (lag.quota + gain).saturating_sub(used).min(max);
        lag.credited += used;
        lag.moves += 1;
    }

    /// A ping for `seat` at `now`, if it is owed one: the allowance is on, the seat
    /// answers pings, none is outstanding, and the last was a second ago or more.
    pub fn ping(&mut self, seat: usize, now: Instant) -> Option<u32> {
        if !self.is_on() {
            return None;
        }
        let lag = &mut self.seats[seat];
        if let Some((_, sent)) = lag.outstanding {
            if now.saturating_duration_since(sent) < PING_PATIENCE {
                return None;
            }
            lag.outstanding = None;
            lag.deaf |= !lag.answered;
        }
        let recent = lag
            .last_ping
            .is_some_and(|last| now.saturating_duration_since(last) < PING_EVERY);
        if lag.deaf || recent {
            return None;
        }
        lag.pinged += 1;
        lag.outstanding = Some((lag.pinged, now));
        lag.last_ping = Some(now);
        Some(lag.pinged)
    }

    /// `seat` answered ping `n` at `now`: a sample of its round trip. A pong that
    /// answers no outstanding ping is ignored.
    pub fn pong(&mut self, seat: usize, n: u32, now: Instant) {
        let lag = &mut self.seats[seat];
        match lag.outstanding {
            Some((pinged, sent)) if pinged == n => {
                lag.outstanding = None;
                lag.answered = true;
                let sample = now.saturating_duration_since(sent);
                self.sample(seat, sample);
            }
            _ => {}
        }
    }

    /// The round trip of `seat`, measured otherwise than by a pong (the kernel's, for a
    /// client that has no pings): the ping it was owed is done with.
    pub fn measured(&mut self, seat: usize, rtt: Duration) {
        let lag = &mut self.seats[seat];
        lag.outstanding = None;
        lag.answered = true;
        self.sample(seat, rtt);
    }

    /// A round-trip sample for `seat`, capped at twice the allowance; the estimate
    /// gives the newest a quarter of its weight.
    pub fn sample(&mut self, seat: usize, rtt: Duration) {
        let sample = rtt.min(self.quota_max());
        let lag = &mut self.seats[seat];
        lag.estimate = Some(lag.estimate.map_or(sample, |e| (e * 3 + sample) / 4));
    }

    /// The mean credit used per move by `seat`, for the log.
    pub fn mean_credit(&self, seat: usize) -> Duration {
        let lag = &self.seats[seat];
        lag.credited.checked_div(lag.moves).unwrap_or_default()
    }
}
