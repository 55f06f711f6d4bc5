//! What the supervisor knows per client address: how many of its games run
//! (so one host cannot take every slot; its waiting connections are counted
//! in [`super::pending`]),
//! the games it abandoned lately (so it cannot snipe pairs), the games it may
//! still start (a token bucket, so it cannot start and lose games as fast as it
//! can connect), and how many of its routine events were logged this period (so
//! it cannot flood the log).
//!
//! An IPv4 address counts alone; an IPv6 address counts with its whole /64,
//! which one host usually has to itself. Waiting connections are also counted
//! per [`Network`] (an IPv4 /24, an IPv6 /48), so that many addresses of one
//! network cannot fill the pending pool between them.

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

/// The unit the per-network limit applies to: an IPv4 /24 or an IPv6 /48.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Network(IpAddr);

impl Network {
    pub fn of(peer: SocketAddr) -> Network {
        Network::containing(Host::of(peer))
    }

    pub fn containing(host: Host) -> Network {
        match host.0 {
            IpAddr::V4(v4) => Network(IpAddr::V4((v4.to_bits() & !0xff).into())),
            IpAddr::V6(v6) => Network(IpAddr::V6((v6.to_bits() & !((1u128 << 80) - 1)).into())),
        }
    }
}

impl fmt::Display for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V6(v6) => write!(f, "{v6}/48"),
            v4 => write!(f, "{v4}/24"),
        }
    }
}

/// The per-address limits and the abandonment penalty.
#[derive(Clone, Debug)]
pub struct Limits {
    pub pending_per_host: usize,
    pub pending_per_network: usize,
    pub sessions_per_host: usize,
    /// This many abandoned games within [`Limits::strike_window`] start a penalty.
    pub strikes: usize,
    pub strike_window: Duration,
    /// The first penalty; each further one doubles, up to [`MAX_PENALTY`].
    pub penalty: Duration,
    /// Routine events logged one by one per host and log period; the rest are counted.
    pub log_burst: u32,
    /// Routine events logged one by one per log period, all hosts together.
    pub log_total: u32,
    /// Games a host may start: each seat costs one, a fast loss [`FAST_LOSS_COST`] more.
    pub starts_per_host: StartBudget,
    /// The same, for all the hosts of a [`Network`] together.
    pub starts_per_network: StartBudget,
}

/// A token bucket of game starts: full at `burst`, filling at `per_second`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StartBudget {
    pub burst: f64,
    pub per_second: f64,
}

/// A game its loser ended within this long of its start (by an illegal move, a protocol
/// violation, a quit, a drop, a timeout, never moving) was lost fast: a client that loses
/// on purpose to start again.
pub const FAST_LOSS: Duration = Duration::from_secs(10);
/// What a fast loss costs its loser's host besides the start, in games. A game played out
/// holds its players for minutes, so the start alone bounds their rate; a game lost at
/// once frees them at once, and each writes a record and log lines: so a host that
/// loses fast starts 1 game for every 5 an honest host of the same budget may start.
pub const FAST_LOSS_COST: f64 = 4.0;

/// A [`StartBudget`]'s state: the tokens it had at `at`. Spending may take it below
/// zero (a surcharge for a fast loss), down to minus the burst: a debt paid in time.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn full(budget: StartBudget, now: Instant) -> Bucket {
        Bucket {
            tokens: budget.burst,
            at: now,
        }
    }

    fn level(&self, budget: StartBudget, now: Instant) -> f64 {
        let filled = now.saturating_duration_since(self.at).as_secs_f64() * budget.per_second;
        (self.tokens + filled).min(budget.burst)
    }

    fn spend(&mut self, budget: StartBudget, cost: f64, now: Instant) {
        self.tokens = (self.level(budget, now) - cost).max(-budget.burst);
        self.at = now;
    }

    /// How long until one game may start, if not now.
    fn wait(&self, budget: StartBudget, now: Instant) -> Option<Duration> {
        let short = 1.0 - self.level(budget, now);
        (short > 0.0).then(|| Duration::from_secs_f64(short / budget.per_second.max(1e-9)))
    }

    fn is_full(&self, budget: StartBudget, now: Instant) -> bool {
        self.level(budget, now) >= budget.burst
    }
}

/// The longest penalty.
pub const MAX_PENALTY: Duration = Duration::from_secs(3600);
/// How often the counted events are summarised.
pub const LOG_PERIOD: Duration = Duration::from_secs(10);
/// Hosts remembered for penalties before the forgotten ones are swept.
const SWEEP_AT: usize = 4096;
/// Hosts named one by one in a period's summary; the others are counted together.
const SUMMARY_HOSTS: usize = 5;

#[derive(Default)]
struct Record {
    sessions: usize,
    /// When its recent games were abandoned.
    strikes: VecDeque<Instant>,
    penalties: u32,
    barred_until: Option<Instant>,
    /// Its game starts; `None`: full.
    starts: Option<Bucket>,
    logged: u32,
    unlogged: u32,
}

impl Record {
    fn is_idle(&self, now: Instant, limits: &Limits) -> bool {
        let window = limits.strike_window;
        self.sessions == 0
            && self
                .starts
                .is_none_or(|b| b.is_full(limits.starts_per_host, now))
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
    /// Networks' game starts; a network not here has its budget full.
    networks: HashMap<Network, Bucket>,
    period_start: Instant,
    /// Routine events logged one by one this period, all hosts together.
    logged: u32,
}

/// Why a host may not have one more connection or game now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    TooManyWaiting(usize),
    NetworkTooManyWaiting(usize),
    TooManyGames(usize),
    Barred {
        abandoned: usize,
        wait: Duration,
    },
    /// The host's game-start budget is spent; one game may start after `wait`.
    StartsSpent {
        network: bool,
        wait: Duration,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::TooManyWaiting(n) => {
                write!(f, "your address already has {n} connections waiting")
            }
            Refusal::NetworkTooManyWaiting(n) => {
                write!(f, "your network already has {n} connections waiting")
            }
            Refusal::TooManyGames(n) => {
                write!(f, "your address already holds {n} seats in running games")
            }
            Refusal::Barred { abandoned, wait } => write!(
                f,
                "your address abandoned {abandoned} games lately; wait {} s",
                wait.as_secs().max(1)
            ),
            Refusal::StartsSpent { network, wait } => write!(
                f,
                "your {} started too many games lately; you may start one again in {} s",
                if *network { "network" } else { "address" },
                wait.as_secs_f64().ceil().max(1.0)
            ),
        }
    }
}

impl Hosts {
    pub fn new(limits: Limits, now: Instant) -> Hosts {
        Hosts {
            limits,
            records: HashMap::new(),
            networks: HashMap::new(),
            period_start: now,
            logged: 0,
        }
    }

    fn record(&mut self, host: Host) -> &mut Record {
        self.records.entry(host).or_default()
    }

    /// Whether a host with `waiting` connections waiting, in a network with
    /// `in_network`, may have one more.
    pub fn may_wait(&self, waiting: usize, in_network: usize) -> Result<(), Refusal> {
        if waiting >= self.limits.pending_per_host {
            return Err(Refusal::TooManyWaiting(waiting));
        }
        if in_network >= self.limits.pending_per_network {
            return Err(Refusal::NetworkTooManyWaiting(in_network));
        }
        Ok(())
    }

    /// Whether `host` may join a game queue now.
    pub fn may_play(&self, host: Host, now: Instant) -> Result<(), Refusal> {
        if let Some(r) = self.records.get(&host) {
            if let Some(until) = r.barred_until.filter(|&t| t > now) {
                return Err(Refusal::Barred {
                    abandoned: r.strikes.len(),
                    wait: until - now,
                });
            }
            if r.sessions >= self.limits.sessions_per_host {
                return Err(Refusal::TooManyGames(r.sessions));
            }
        }
        self.starts_left(host, now)
    }

    /// Whether `host`'s and its network's game-start budgets allow one more; if not, the
    /// longer of their waits.
    fn starts_left(&self, host: Host, now: Instant) -> Result<(), Refusal> {
        let own = self.records.get(&host).and_then(|r| r.starts);
        let own = own.and_then(|b| b.wait(self.limits.starts_per_host, now));
        let network = self.networks.get(&Network::containing(host));
        let network = network.and_then(|b| b.wait(self.limits.starts_per_network, now));
        let refusal = |network, wait| Err(Refusal::StartsSpent { network, wait });
        match (own, network) {
            (None, None) => Ok(()),
            (Some(a), Some(n)) if n > a => refusal(true, n),
            (Some(a), _) => refusal(false, a),
            (None, Some(n)) => refusal(true, n),
        }
    }

    /// `host` has a seat in a game that starts now: one start spent.
    pub fn game_started(&mut self, host: Host, now: Instant) {
        self.record(host).sessions += 1;
        self.spend_starts(host, 1.0, now);
    }

    /// A running game of `host` adopted by an upgrade: counted, costing no start.
    pub fn game_adopted(&mut self, host: Host) {
        self.record(host).sessions += 1;
    }

    /// `host` lost a game within [`FAST_LOSS`] of its start: it pays more for that start.
    pub fn lost_fast(&mut self, host: Host, now: Instant) {
        self.spend_starts(host, FAST_LOSS_COST, now);
    }

    fn spend_starts(&mut self, host: Host, cost: f64, now: Instant) {
        let (per_host, per_network) = (self.limits.starts_per_host, self.limits.starts_per_network);
        self.record(host)
            .starts
            .get_or_insert_with(|| Bucket::full(per_host, now))
            .spend(per_host, cost, now);
        self.networks
            .entry(Network::containing(host))
            .or_insert_with(|| Bucket::full(per_network, now))
            .spend(per_network, cost, now);
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

    /// Whether a routine event of `host` is logged one by one (else it is counted):
    /// a few per host and period, and a few more per period in all.
    pub fn log_it(&mut self, host: Host) -> bool {
        let (burst, total) = (self.limits.log_burst, self.limits.log_total);
        let room = self.logged < total;
        let r = self.record(host);
        if room && r.logged < burst {
            r.logged += 1;
            self.logged += 1;
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

    /// At the end of a log period: the events not logged, the hosts with most first.
    pub fn summary(&mut self, now: Instant) -> Summary {
        let mut summary = Summary::default();
        if now < self.next_summary() {
            return summary;
        }
        self.period_start = now;
        self.logged = 0;
        let mut counts = Vec::new();
        for (host, r) in &mut self.records {
            if r.unlogged > 0 {
                counts.push((*host, r.unlogged));
            }
            r.logged = 0;
            r.unlogged = 0;
        }
        counts.sort_by_key(|&(host, n)| (std::cmp::Reverse(n), host.to_string()));
        for (host, n) in counts {
            if summary.hosts.len() < SUMMARY_HOSTS {
                summary.hosts.push((host, n));
            } else {
                summary.other_hosts += 1;
                summary.other_events += u64::from(n);
            }
        }
        self.sweep(now);
        summary
    }

    fn sweep(&mut self, now: Instant) {
        let limits = &self.limits;
        self.records.retain(|_, r| !r.is_idle(now, limits));
        let per_network = limits.starts_per_network;
        self.networks.retain(|_, b| !b.is_full(per_network, now));
    }
}

/// A log period's events that were counted rather than logged: a few hosts by name,
/// the rest together, so that the summary of a flood from many addresses is short too.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub hosts: Vec<(Host, u32)>,
    pub other_hosts: usize,
    pub other_events: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            pending_per_host: 2,
            pending_per_network: 3,
            sessions_per_host: 1,
            strikes: 2,
            strike_window: Duration::from_secs(60),
            penalty: Duration::from_secs(10),
            log_burst: 5,
            log_total: 8,
            starts_per_host: StartBudget {
                burst: 10.0,
                per_second: 1.0,
            },
            starts_per_network: StartBudget {
                burst: 15.0,
                per_second: 2.0,
            },
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
        assert_eq!(hosts.may_wait(2, 2), Err(Refusal::TooManyWaiting(2)));
        assert_eq!(hosts.may_wait(1, 2), Ok(()));
        assert_eq!(hosts.may_wait(1, 3), Err(Refusal::NetworkTooManyWaiting(3)));
        hosts.game_started(h, now);
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
        assert_eq!(
            hosts.summary(t0),
            Summary::default(),
            "the period is not over"
        );
        assert_eq!(hosts.summary(t0 + LOG_PERIOD).hosts, vec![(h, 95)]);
        assert!(hosts.log_it(h), "a new period logs again");
    }

    #[test]
    fn many_hosts_log_a_few_lines_in_all_and_a_short_summary() {
        let t0 = Instant::now();
        let mut hosts = Hosts::new(limits(), t0);
        let many: Vec<Host> = (0..100u8)
            .map(|i| Host::of(SocketAddr::from(([10, 0, 0, i], 1))))
            .collect();
        let logged = many.iter().filter(|&&h| hosts.log_it(h)).count();
        assert_eq!(logged, 8, "the period's total");
        let summary = hosts.summary(t0 + LOG_PERIOD);
        assert_eq!(summary.hosts.len(), SUMMARY_HOSTS);
        assert_eq!(summary.other_hosts, 92 - SUMMARY_HOSTS);
        assert_eq!(summary.other_events, (92 - SUMMARY_HOSTS) as u64);
    }

    fn limits_of_many_games() -> Limits {
        Limits {
            sessions_per_host: 1000,
            ..limits()
        }
    }

    /// Starts games for `host` until its budget refuses one; returns how many started.
    fn start_until_refused(hosts: &mut Hosts, host: Host, now: Instant) -> usize {
        let mut started = 0;
        while hosts.may_play(host, now).is_ok() {
            hosts.game_started(host, now);
            hosts.game_ended(host);
            started += 1;
            assert!(started < 1000, "the budget never runs out");
        }
        started
    }

    #[test]
    fn game_starts_are_a_token_bucket_per_host() {
        let t0 = Instant::now();
        let mut hosts = Hosts::new(limits_of_many_games(), t0);
        let h = Host::of("10.0.0.1:1".parse().unwrap());
        assert_eq!(start_until_refused(&mut hosts, h, t0), 10, "the burst");
        let refusal = hosts.may_play(h, t0).unwrap_err();
        assert_eq!(
            refusal,
            Refusal::StartsSpent {
                network: false,
                wait: Duration::from_secs(1)
            }
        );
        assert_eq!(
            refusal.to_string(),
            "your address started too many games lately; you may start one again in 1 s"
        );
        let later = t0 + Duration::from_secs(3);
        assert_eq!(start_until_refused(&mut hosts, h, later), 3, "one a second");
        let other = Host::of("10.0.1.1:1".parse().unwrap());
        assert_eq!(start_until_refused(&mut hosts, other, later), 10, "its own");
    }

    #[test]
    fn a_fast_loss_costs_more_than_a_game() {
        let t0 = Instant::now();
        let mut hosts = Hosts::new(limits_of_many_games(), t0);
        let h = Host::of("10.0.0.1:1".parse().unwrap());
        let mut started = 0;
        while hosts.may_play(h, t0).is_ok() {
            hosts.game_started(h, t0);
            hosts.lost_fast(h, t0);
            started += 1;
        }
        assert_eq!(started, 2, "10 tokens buy 2 fast losses of 5");
        // 10 - 2 * 5 = 0 tokens: it waits for one.
        let wait = |hosts: &Hosts, at| match hosts.may_play(h, at) {
            Err(Refusal::StartsSpent { wait, .. }) => wait,
            other => panic!("{other:?}"),
        };
        assert_eq!(wait(&hosts, t0), Duration::from_secs(1));
        // Debt is bounded: losing fast while refused cannot bar a host for ever.
        for _ in 0..100 {
            hosts.lost_fast(h, t0);
        }
        assert_eq!(wait(&hosts, t0), Duration::from_secs(11), "from -10 to 1");
        // Its network's debt (-15 at 2 a second: 8 s) is the shorter wait here.
        assert!(matches!(
            hosts.may_play(h, t0),
            Err(Refusal::StartsSpent { network: false, .. })
        ));
    }

    #[test]
    fn the_hosts_of_a_network_share_its_budget() {
        let t0 = Instant::now();
        let mut hosts = Hosts::new(limits_of_many_games(), t0);
        let hosts_of_net: Vec<Host> = (1..=3u8)
            .map(|i| Host::of(SocketAddr::from(([10, 0, 0, i], 1))))
            .collect();
        let started: usize = hosts_of_net
            .iter()
            .map(|&h| start_until_refused(&mut hosts, h, t0))
            .sum();
        assert_eq!(started, 15, "the network's burst");
        assert!(matches!(
            hosts.may_play(hosts_of_net[2], t0),
            Err(Refusal::StartsSpent { network: true, .. })
        ));
        // Full buckets are forgotten at a sweep.
        hosts.sweep(t0 + Duration::from_secs(60));
        assert!(hosts.networks.is_empty() && hosts.records.is_empty());
    }

    #[test]
    fn networks_are_ipv4_24s_and_ipv6_48s() {
        let net = |a: &str| Network::of(a.parse().unwrap());
        assert_eq!(net("10.1.2.3:1"), net("10.1.2.200:9"));
        assert_ne!(net("10.1.2.3:1"), net("10.1.3.3:1"));
        assert_eq!(net("10.1.2.3:1").to_string(), "10.1.2.0/24");
        assert_eq!(net("[2001:db8:1:2::1]:1"), net("[2001:db8:1:ff::1]:1"));
        assert_eq!(net("[2001:db8:1:2::1]:1").to_string(), "2001:db8:1::/48");
        assert_eq!(net("[::ffff:10.1.2.3]:1"), net("10.1.2.9:1"));
    }
}
