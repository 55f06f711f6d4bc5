//! The supervisor's command-line options, and the settings it runs by.

use std::net::SocketAddr;
use std::time::Duration;

use clap::{ArgAction, Args};

use super::addresses::{Limits, StartBudget};
use super::cidr::Cidr;
use crate::fork_server::handle::ForkServerSpec;
use crate::protocols::SeedListener;

/// Routine events logged one by one per log period in all, per one of `--log-burst`.
const LOG_TOTAL_PER_BURST: u32 = 20;

/// A network's game-start budget, in multiples of an address's (as for waiting connections).
const STARTS_PER_NETWORK: f64 = 4.0;

/// How long an abandoned game counts against its address.
const STRIKE_WINDOW: Duration = Duration::from_secs(600);

#[derive(Debug, Clone, Args)]
#[group(id = "supervisor_options")]
pub struct Options {
    /// Address to listen on: IP:PORT (IPv4 or [IPv6]), a bare port (on 127.0.0.1) or a bare IP
    /// address (port 8765); port 0 picks a free one. May be given several times.
    #[arg(long = "listen", value_name = "ADDR", action = ArgAction::Append,
          default_value = "127.0.0.1:8765", value_parser = crate::address::parse_listen)]
    pub listen: Vec<SocketAddr>,

    /// Trust the PROXY protocol header (v1 or v2) from this address block, e.g. a load
    /// balancer's 10.0.0.5/32: a connection from there must start with one, and the client
    /// address it carries is used instead of the balancer's (spec/DEPLOY.md). Anyone else
    /// who sends one is refused. May be given several times.
    #[arg(long = "proxy-from", value_name = "CIDR", action = ArgAction::Append)]
    pub proxy_from: Vec<Cidr>,

    /// Seconds a new connection has to send its first request (connect, or a line).
    #[arg(long, value_name = "SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub handshake_timeout: u64,

    /// Most sessions running at once; further pairs wait in the queue.
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_sessions: u64,

    /// Most connections waiting for a game (handshake or queued); more get error.
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_pending: u64,

    /// Most connections from one address (an IPv6 /64) waiting for a game; more get error.
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_pending_per_address: u64,

    /// Most connections from one network (an IPv4 /24, an IPv6 /48) waiting for a game; more
    /// get error. Default: 4 times --max-pending-per-address.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_pending_per_network: Option<u64>,

    /// Most seats one address (an IPv6 /64) holds in running games at once; it may queue again when one ends.
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_sessions_per_address: u64,

    /// Games an address may abandon (leave without quitting, time out, never move) within
    /// 10 minutes before it must wait to queue again.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    pub abandon_strikes: u64,

    /// Seconds of the first wait after too many abandoned games; each further one doubles
    /// (at most an hour).
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub abandon_penalty: u64,

    /// Games one address (an IPv6 /64) may start at once, a token bucket's size: each seat in
    /// a game costs one, a game it loses within 10 s of its start (an illegal move, a quit, a
    /// drop) 4 more. Its network (an IPv4 /24, an IPv6 /48) has 4 times this budget.
    #[arg(long, value_name = "N", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub game_starts_per_address: u64,

    /// Games per minute that refill an address's game-start budget (its network's: 4 times).
    #[arg(long, value_name = "N", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub game_start_rate: u64,

    /// Routine connection events (queued, left, refused, timed out) logged one by one per
    /// address and 10 s at the default level, and 20 times that in all; the rest are counted
    /// in a few summary lines (RUST_LOG=debug shows each).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub log_burst: u32,

    /// Seconds a smart shutdown waits for running games before it turns fast.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub shutdown_timeout: u64,

    /// Answer `GET /metrics` on the listeners with the server's metrics, for Prometheus
    /// (spec/DEPLOY.md). Off by default: the game port is public, the metrics are the
    /// operator's; bind an address of your own (another --listen, firewalled) for them.
    #[arg(long)]
    pub metrics: bool,

    /// Seconds a challenge's join code lives (TEXT-PROTOCOL.md §4.1).
    #[arg(long, value_name = "SECS", default_value_t = 900, value_parser = clap::value_parser!(u64).range(1..))]
    pub code_ttl: u64,

    /// Most challenges open at once; more are refused.
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_challenges: u64,

    /// Reads of the store one address (an IPv6 /64) may ask for at once: its pages, and the
    /// text protocol's `GAME HISTORY`, `GAME EXPORT` and other account requests but sign-ins
    /// and registrations (which have limits of their own); one more every 100 ms after.
    #[arg(long, value_name = "N", default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..))]
    pub store_reads_per_address: u32,

    /// The web page's address as players reach it, for the links that join a challenge
    /// (`GAME LINK`). Default: http:// and the first --listen address.
    #[arg(long, value_name = "URL")]
    pub public_url: Option<String>,

    /// This host's symbol, the first of every resume token it draws (one of 0-9 A-Z without
    /// I L O U): in a cluster, a token names the host whose session holds its seat.
    #[arg(long, value_name = "S", default_value = "0", value_parser = host_id)]
    pub host_id: u8,

    #[command(flatten)]
    pub tls: crate::protocols::tls::TlsOptions,

    /// Join the other hosts of a cluster through this PostgreSQL database (a connection
    /// string, e.g. `host=db dbname=reversid`): they learn of each other there
    /// (spec/DEPLOY.md §4). Without it the host serves alone.
    #[arg(long, value_name = "CONNINFO", value_parser = crate::cluster::parse_conninfo)]
    pub cluster: Option<postgres::Config>,

    /// The address other hosts of the cluster reach this one at (default: the first --listen).
    #[arg(long, value_name = "ADDR", requires = "cluster")]
    pub advertise: Option<String>,

    /// Most connections this host relays to other hosts of the cluster at once; more are
    /// told to try again.
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_relays: u64,

    /// How long, in milliseconds, a public queue of this host holds waiters it cannot pair
    /// before the other hosts of the cluster are told (one side then moves to the other).
    #[arg(long, value_name = "MS", default_value_t = 500, requires = "cluster")]
    pub meet_after: u64,
}

/// Reads `--host-id`: one Crockford symbol.
fn host_id(text: &str) -> Result<u8, String> {
    crate::terms::host_symbol(text)
        .ok_or_else(|| format!("{text:?} is not one of 0-9 A-Z without I L O U"))
}

/// What the supervisor runs by, whatever game it serves.
#[derive(Debug, Clone)]
pub struct SupervisorConfig {
    pub listen: Vec<SocketAddr>,
    pub listen_seed: Vec<SeedListener>,
    /// Load balancers whose PROXY headers are believed.
    pub proxy_from: Vec<Cidr>,
    pub limits: Limits,
    pub handshake_timeout: Duration,
    pub max_sessions: usize,
    pub max_pending: usize,
    pub shutdown_timeout: Duration,
    /// Whether `GET /metrics` is answered.
    pub metrics: bool,
    /// Join codes' life and how many challenges may be open.
    pub challenges: super::challenges::Limits,
    /// The store's reads per address (reads.rs).
    pub store_reads: reversi_store::Limits,
    /// `--public-url`; `None`: the first listener's.
    pub public_url: Option<String>,
    /// Start sessions through a fork server started so; `None`: fork them from the supervisor.
    pub fork_server: Option<ForkServerSpec>,
    /// This host's symbol in the resume tokens it draws.
    pub host_id: u8,
    /// The certificate and key TLS is served with; `None`: no TLS (spec/TLS.md).
    pub tls: Option<crate::protocols::tls::TlsFiles>,
    /// `--cluster`: the other hosts are known through PostgreSQL.
    pub cluster: Option<crate::cluster::Settings>,
}

fn count(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

impl Options {
    /// The game-start budget of an address, times `scale`.
    fn start_budget(&self, scale: f64) -> StartBudget {
        StartBudget {
            burst: self.game_starts_per_address as f64 * scale,
            per_second: self.game_start_rate as f64 / 60.0 * scale,
        }
    }

    /// The settings, with the seed protocols' listeners and where sessions come from.
    pub fn config(
        &self,
        listen_seed: Vec<SeedListener>,
        fork_server: Option<ForkServerSpec>,
    ) -> SupervisorConfig {
        SupervisorConfig {
            listen: self.listen.clone(),
            listen_seed,
            proxy_from: self.proxy_from.clone(),
            limits: Limits {
                pending_per_host: count(self.max_pending_per_address),
                pending_per_network: count(
                    self.max_pending_per_network
                        .unwrap_or(self.max_pending_per_address.saturating_mul(4)),
                ),
                sessions_per_host: count(self.max_sessions_per_address),
                strikes: count(self.abandon_strikes),
                strike_window: STRIKE_WINDOW,
                penalty: Duration::from_secs(self.abandon_penalty),
                log_burst: self.log_burst,
                log_total: self.log_burst.saturating_mul(LOG_TOTAL_PER_BURST),
                starts_per_host: self.start_budget(1.0),
                starts_per_network: self.start_budget(STARTS_PER_NETWORK),
            },
            handshake_timeout: Duration::from_secs(self.handshake_timeout),
            max_sessions: count(self.max_sessions),
            max_pending: count(self.max_pending),
            shutdown_timeout: Duration::from_secs(self.shutdown_timeout),
            metrics: self.metrics,
            fork_server,
            host_id: self.host_id,
            cluster: self.cluster.clone().map(|config| crate::cluster::Settings {
                config,
                advertise: self.advertise.clone(),
                max_relays: count(self.max_relays),
                meet_after: Duration::from_millis(self.meet_after),
            }),
            challenges: super::challenges::Limits {
                ttl: Duration::from_secs(self.code_ttl),
                max: count(self.max_challenges),
            },
            store_reads: super::reads::limits(self.store_reads_per_address),
            public_url: self.public_url.clone(),
            tls: self.tls.files(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        options: Options,
    }

    fn config(args: &[&str]) -> SupervisorConfig {
        let args = std::iter::once("reversid").chain(args.iter().copied());
        Cli::parse_from(args).options.config(Vec::new(), None)
    }

    #[test]
    fn defaults_follow_the_spec() {
        let sup = config(&[]);
        assert_eq!(sup.listen, vec!["127.0.0.1:8765".parse().unwrap()]);
        assert_eq!(sup.handshake_timeout, Duration::from_secs(10));
        assert_eq!((sup.max_sessions, sup.max_pending), (1024, 4096));
        assert_eq!(sup.limits.strike_window, STRIKE_WINDOW);
        let starts = sup.limits.starts_per_host;
        assert_eq!((starts.burst, starts.per_second), (30.0, 0.5));
        assert_eq!(sup.limits.starts_per_network.burst, 120.0);
        assert!(!sup.metrics);
        assert!(config(&["--metrics"]).metrics);
        assert_eq!(sup.host_id, b'0');
        assert_eq!(config(&["--host-id", "k"]).host_id, b'K');
        assert!(Cli::try_parse_from(["reversid", "--host-id", "U"]).is_err());
        assert!(Cli::try_parse_from(["reversid", "--host-id", "12"]).is_err());
    }

    #[test]
    fn the_cluster_options_are_read_and_checked() {
        assert!(config(&[]).cluster.is_none());
        let cluster = config(&[
            "--cluster",
            "host=/tmp dbname=reversid",
            "--advertise",
            "10.0.0.2:8765",
        ])
        .cluster
        .expect("--cluster given");
        assert_eq!(cluster.advertise.as_deref(), Some("10.0.0.2:8765"));
        assert_eq!(cluster.max_relays, 10_000);
        assert!(Cli::try_parse_from(["reversid", "--cluster", "host='unclosed"]).is_err());
        assert!(
            Cli::try_parse_from(["reversid", "--advertise", "10.0.0.2:8765"]).is_err(),
            "--advertise without --cluster"
        );
    }

    #[test]
    fn listen_repeats() {
        assert_eq!(
            config(&["--listen", "127.0.0.1:1", "--listen", "[::1]:2"])
                .listen
                .len(),
            2
        );
    }

    #[test]
    fn proxies_are_trusted_by_address_block() {
        let sup = config(&["--proxy-from", "10.0.0.0/8", "--proxy-from", "2001:db8::1"]);
        let shown: Vec<String> = sup.proxy_from.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["10.0.0.0/8", "2001:db8::1/128"]);
        assert!(Cli::try_parse_from(["reversid", "--proxy-from", "10.0.0.1/8"]).is_err());
    }

    #[test]
    fn zero_limits_are_refused() {
        assert!(Cli::try_parse_from(["reversid", "--max-sessions", "0"]).is_err());
        assert!(Cli::try_parse_from(["reversid", "--handshake-timeout", "0"]).is_err());
    }
}
