//! What the supervisor knows per client address: how many of its games run
//! (so one host cannot take every slot; its waiting connections are counted
//! in [`super::pending`]),
//! the games it abandoned lately (so it cannot snipe pairs), and how many of
//! its routine events were logged this period (so it cannot flood the log).
//!
//! An IPv4 address counts alone; an IPv6 address counts with its whole /64,
//! which one host usually has to itself.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

/// The unit limits apply to: an IPv4 address or an IPv6 /64.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Host(IpAddr);

impl Host {
    pub fn of(peer: SocketAddr) -> Host {
        match peer.ip() {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Host(IpAddr::V4(v4)),
                None => {
                    let bits = u128::from(v6) & !((1u128 << 64) - 1);
                    Host(IpAddr::V6(bits.into()))
                }
            },
            v4 => Host(v4),
        }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
            v4 => write!(f, "{v4}"),
        }
    }
}

/// The per-address limits and the abandonment penalty.
#[derive(Clone, Debug)]
pub struct Limits {
    pub pending_per_host: usize,
    pub sessions_per_host: usize,
    /// This many abandoned games within [`Limits::strike_window`] start a penalty.
    pub strikes: usize,
    pub strike_window: Duration,
    /// The first penalty; each further one doubles, up to [`MAX_PENALTY`].
    pub penalty: Duration,
    /// Routine events logged one by one per host and log period; the rest are counted.
    pub log_burst: u32,
}

/// The longest penalty.
pub const MAX_PENALTY: Duration = Duration::from_secs(3600);
/// How often the counted events are summarised.
pub const LOG_PERIOD: Duration = Duration::from_secs(10);
/// Hosts remembered for penalties before the forgotten ones are swept.
const SWEEP_AT: usize = 4096;

#[derive(Default)]
struct Record {
    sessions: usize,
    /// When its recent games were abandoned.
    strikes: VecDeque<Instant>,
    penalties: u32,
    barred_until: Option<Instant>,
    logged: u32,
    unlogged: u32,
}

impl Record {
    fn is_idle(&self, now: Instant, window: Duration) -> bool {
        self.sessions == 0
            && self.unlogged == 0
            && self.barred_until.is_none_or(|t| t <= now)
            && self
                .strikes
                .back()
                .is_none_or(|&t| now.duration_since(t) > window)
    }
}

/// Every host the supervisor is dealing with.
pub struct Hosts {
    limits: Limits,
    records: HashMap<Host, Record>,
    period_start: Instant,
}

/// Why a host may not have one more connection or game now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    TooManyWaiting(usize),
    TooManyGames(usize),
    Barred { abandoned: usize, wait: Duration },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::TooManyWaiting(n) => {
                write!(f, "your address already has {n} connections waiting")
            }
            Refusal::TooManyGames(n) => write!(f, "your address already plays {n} games"),
            Refusal::Barred { abandoned, wait } => write!(
                f,
                "your address abandoned {abandoned} games lately; wait {} s",
                wait.as_secs().max(1)
            ),
        }
    }
}

impl Hosts {
    pub fn new(limits: Limits, now: Instant) -> Hosts {
        Hosts {
            limits,
            records: HashMap::new(),
            period_start: now,
        }
    }

    fn record(&mut self, host: Host) -> &mut Record {
        self.records.entry(host).or_default()
    }

    /// Whether a host with `waiting` connections waiting may have one more.
    pub fn may_wait(&self, waiting: usize) -> Result<(), Refusal> {
        if waiting >= self.limits.pending_per_host {
            return Err(Refusal::TooManyWaiting(waiting));
        }
        Ok(())
    }

    /// Whether `host` may join a game queue now.
    pub fn may_play(&self, host: Host, now: Instant) -> Result<(), Refusal> {
        let Some(r) = self.records.get(&host) else {
            return Ok(());
        };
        if let Some(until) = r.barred_until.filter(|&t| t > now) {
            return Err(Refusal::Barred {
                abandoned: r.strikes.len(),
                wait: until - now,
            });
        }
        if r.sessions >= self.limits.sessions_per_host {
            return Err(Refusal::TooManyGames(r.sessions));
        }
        Ok(())
    }

    pub fn game_started(&mut self, host: Host) {
        self.record(host).sessions += 1;
    }

    pub fn game_ended(&mut self, host: Host) {
        let r = self.record(host);
        r.sessions = r.sessions.saturating_sub(1);
    }

    /// `host` abandoned a game (left it, timed out, or never moved): a strike, and a
    /// penalty when the strikes pile up. Returns the penalty started, if any.
    pub fn abandoned(&mut self, host: Host, now: Instant) -> Option<Duration> {
        let limits = self.limits.clone();
        let r = self.record(host);
        r.strikes.push_back(now);
        while r
            .strikes
            .front()
            .is_some_and(|&t| now.duration_since(t) > limits.strike_window)
        {
            r.strikes.pop_front();
        }
        let penalty = if r.strikes.len() >= limits.strikes {
            let wait = limits
                .penalty
                .saturating_mul(1 << r.penalties.min(12))
                .min(MAX_PENALTY);
            r.penalties += 1;
            r.barred_until = Some(now + wait);
            Some(wait)
        } else {
            None
        };
        if self.records.len() > SWEEP_AT {
            self.sweep(now);
        }
        penalty
    }

    /// Whether a routine event of `host` is logged one by one (else it is counted).
    pub fn log_it(&mut self, host: Host) -> bool {
        let burst = self.limits.log_burst;
        let r = self.record(host);
        if r.logged < burst {
            r.logged += 1;
            true
        } else {
            r.unlogged += 1;
            false
        }
    }

    /// When the log period ends.
    pub fn next_summary(&self) -> Instant {
        self.period_start + LOG_PERIOD
    }

    /// At the end of a log period: the hosts with events not logged, and how many.
    pub fn summary(&mut self, now: Instant) -> Vec<(Host, u32)> {
        if now < self.next_summary() {
            return Vec::new();
        }
        self.period_start = now;
        let mut out = Vec::new();
        for (host, r) in &mut self.records {
            if r.unlogged > 0 {
                out.push((*host, r.unlogged));
            }
            r.logged = 0;
            r.unlogged = 0;
        }
        self.sweep(now);
        out
    }

    fn sweep(&mut self, now: Instant) {
        let window = self.limits.strike_window;
        self.records.retain(|_, r| !r.is_idle(now, window));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            pending_per_host: 2,
            sessions_per_host: 1,
            strikes: 2,
            strike_window: Duration::from_secs(60),
            penalty: Duration::from_secs(10),
            log_burst: 5,
        }
    }

    #[test]
    fn ipv6_hosts_are_their_64_and_mapped_ipv4_is_ipv4() {
        let a = Host::of("[2001:db8:1:2:aaaa::1]:5".parse().unwrap());
        let b = Host::of("[2001:db8:1:2:bbbb::9]:6".parse().unwrap());
        let c = Host::of("[2001:db8:1:3::1]:5".parse().unwrap());
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.to_string(), "2001:db8:1:2::/64");
        let mapped = Host::of("[::ffff:10.0.0.1]:5".parse().unwrap());
        assert_eq!(mapped, Host::of("10.0.0.1:9".parse().unwrap()));
    }

    #[test]
    fn waiting_and_playing_are_limited_per_host() {
        let now = Instant::now();
        let mut hosts = Hosts::new(limits(), now);
        let h = Host::of("10.0.0.1:1".parse().unwrap());
        assert_eq!(hosts.may_wait(2), Err(Refusal::TooManyWaiting(2)));
        assert_eq!(hosts.may_wait(1), Ok(()));
        hosts.game_started(h);
        assert_eq!(hosts.may_play(h, now), Err(Refusal::TooManyGames(1)));
        hosts.game_ended(h);
        assert_eq!(hosts.may_play(h, now), Ok(()));
    }

    #[test]
    fn repeated_abandonment_bars_with_doubling_penalties() {
        let t0 = Instant::now();
        let mut hosts = Hosts::new(limits(), t0);
        let h = Host::of("10.0.0.1:1".parse().unwrap());
        assert_eq!(hosts.abandoned(h, t0), None);
        assert_eq!(hosts.abandoned(h, t0), Some(Duration::from_secs(10)));
        assert!(matches!(hosts.may_play(h, t0), Err(Refusal::Barred { .. })));
        assert_eq!(hosts.may_play(h, t0 + Duration::from_secs(11)), Ok(()));
        let t1 = t0 + Duration::from_secs(12);
        assert_eq!(hosts.abandoned(h, t1), Some(Duration::from_secs(20)));
        // Strikes older than the window are forgotten.
        let late = t1 + Duration::from_secs(500);
        assert_eq!(hosts.abandoned(h, late), None);
    }

    #[test]
    fn routine_events_past_a_few_are_counted_and_summarised() {
        let t0 = Instant::now();
        let mut hosts = Hosts::new(limits(), t0);
        let h = Host::of("10.0.0.1:1".parse().unwrap());
        let logged = (0..100).filter(|_| hosts.log_it(h)).count();
        assert_eq!(logged, 5);
        assert!(hosts.summary(t0).is_empty(), "the period is not over");
        assert_eq!(hosts.summary(t0 + LOG_PERIOD), vec![(h, 95)]);
        assert!(hosts.log_it(h), "a new period logs again");
    }
}
