//! Command-line options and the settings derived from them.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Parser};
use reversi_games::registry::{self, GameOption, Module};

use crate::journal_dir::JournalDir;
use crate::session::referee::Rules;
use crate::session::SessionConfig;
use crate::supervisor::cidr::Cidr;
use crate::supervisor::front::Front;
use crate::supervisor::{Games, Limits};

/// How long an abandoned game counts against its address.
const STRIKE_WINDOW: Duration = Duration::from_secs(600);
use crate::wire::WireKind;

/// reversid: a server for networked board games. It queues players per game and plays each
/// game in its own process; one port speaks the binary Reversi protocol and a line-based text
/// protocol for every game (spec/PROTOCOL.md, spec/TEXT-PROTOCOL.md).
///
/// Signals: the first SIGTERM or SIGINT starts a smart shutdown (stop listening, turn away waiting
/// clients, let running games finish, exit 0 once the last session is reaped); a second one makes it
/// fast (every session sends error to both players and exits). SIGHUP reopens --log-file (for log
/// rotation) and is otherwise only logged. Logging goes to stderr (or --log-file) and is filtered with
/// RUST_LOG (default info; debug shows every PDU).
#[derive(Debug, Clone, Parser)]
#[command(name = "reversid", version, args_override_self = true)]
pub struct Cli {
    /// Address to listen on (IPv4 or IPv6, port 0 picks a free one); may be given several times.
    #[arg(long = "listen", value_name = "ADDR", action = ArgAction::Append,
          default_value = "127.0.0.1:8765")]
    pub listen: Vec<SocketAddr>,

    /// Games to serve, comma-separated (default: every game built in).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = game_names())]
    pub games: Vec<String>,

    /// Players per team: team mates take turns (seed 000's `-p N`).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=8))]
    pub team_size: u64,

    /// No automatic rematch, even for games that have one by default (draughts).
    #[arg(long)]
    pub no_rematch: bool,

    /// A listener for clients that speak a seed document's own protocol, as GAME=ADDR (duell:
    /// seed 000's Conquest clients, queued on arrival; foxes: seed 002's clients, which join with
    /// PBJ or watch with QBJ); may be given several times.
    #[arg(long = "listen-seed", value_name = "GAME=ADDR", action = ArgAction::Append,
          value_parser = parse_seed_listener)]
    pub listen_seed: Vec<SeedListener>,

    // Its help is the games' own words: each game module declares its parameters.
    #[arg(long = "game-option", value_name = "GAME.KEY=VALUE", action = ArgAction::Append,
          value_parser = registry::game_option, help = GAME_OPTION_HELP,
          long_help = game_options_help())]
    pub game_option: Vec<GameOption>,

    /// Trust the PROXY protocol header (v1 or v2) from this address block, e.g. a load
    /// balancer's 10.0.0.5/32: a connection from there must start with one, and the client
    /// address it carries is used instead of the balancer's (spec/DEPLOY.md). Anyone else
    /// who sends one is refused. May be given several times.
    #[arg(long = "proxy-from", value_name = "CIDR", action = ArgAction::Append)]
    pub proxy_from: Vec<Cidr>,

    /// Seconds a new connection has to send its first request (connect, or a line).
    #[arg(long, value_name = "SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub handshake_timeout: u64,

    /// Seconds a player has to make a legal move after turn (0 = no limit).
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    pub move_timeout: u64,

    /// Most sessions running at once; further pairs wait in the queue.
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_sessions: u64,

    /// Most connections waiting for a game (handshake or queued); more get error.
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_pending: u64,

    /// Most connections from one address (an IPv6 /64) waiting for a game; more get error.
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_pending_per_address: u64,

    /// Most games one address (an IPv6 /64) plays at once; it may queue again when one ends.
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_sessions_per_address: u64,

    /// Seconds a player has for its first move of a game (0 = the move clock). When it runs
    /// out the game never started: it is aborted, not scored, and counts as abandoned.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub first_move_timeout: u64,

    /// Games an address may abandon (leave without quitting, time out, never move) within
    /// 10 minutes before it must wait to queue again.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    pub abandon_strikes: u64,

    /// Seconds of the first wait after too many abandoned games; each further one doubles
    /// (at most an hour).
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub abandon_penalty: u64,

    /// Routine connection events (queued, left, refused) logged one by one per address and
    /// 10 s at the default level; the rest are counted in one line (RUST_LOG=debug shows each).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub log_burst: u32,

    /// Seconds a smart shutdown waits for running games before it turns fast.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub shutdown_timeout: u64,

    /// Give the first team (black, X) to the client that queued first (default: drawn at random
    /// in games that draw them).
    #[arg(long)]
    pub fixed_colours: bool,

    /// Write each finished game into this directory (GGF for Reversi; each game's own format).
    #[arg(long, value_name = "DIR")]
    pub record_dir: Option<PathBuf>,

    /// Where running games keep their journals, from which a game whose session died is
    /// recovered (default: --record-dir, else reversid-PID-journals in the temporary directory,
    /// removed at exit when no journal is left in it; a directory given is never removed).
    #[arg(long, value_name = "DIR")]
    pub journal_dir: Option<PathBuf>,

    /// Detach from the terminal and run in the background.
    #[arg(long)]
    pub daemon: bool,

    /// Write the server's pid here, locked: a second instance with the same file refuses to start.
    #[arg(long, value_name = "PATH")]
    pub pid_file: Option<PathBuf>,

    /// Append the log to this file instead of stderr (reopened on SIGHUP).
    #[arg(long, value_name = "PATH")]
    pub log_file: Option<PathBuf>,

    /// Fork each session from the supervisor itself instead of from the fork server (a small
    /// process started with the supervisor; see server/src/fork_server/), to compare the two.
    #[arg(long)]
    pub fork_directly: bool,

    /// The directory reversid was started in, where its relative paths are read (--daemon
    /// moves to /); the fork server reads the command line there again.
    #[arg(skip)]
    pub start_dir: PathBuf,
}

/// What the supervisor needs, whatever game it serves.
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
    /// Start sessions through a fork server started so; `None`: fork them from the supervisor.
    pub fork_server: Option<ForkServerSpec>,
}

/// How the fork server is started: reversid's own command line, read again in `dir`, with
/// `extra_args` after it (what the supervisor settled that the fork server must not
/// settle again, such as the journal directory named after the supervisor's pid).
#[derive(Debug, Clone)]
pub struct ForkServerSpec {
    pub dir: PathBuf,
    pub extra_args: Vec<std::ffi::OsString>,
}

/// A `--listen-seed` listener: the game its clients play, and where.
#[derive(Debug, Clone)]
pub struct SeedListener {
    pub game: &'static Module,
    pub wire: WireKind,
    pub addr: SocketAddr,
}

/// The game whose seed protocol a `--listen-seed` listener speaks, and that protocol.
fn seed_protocol(game: &str) -> Option<(&'static Module, WireKind)> {
    let module = registry::find(game)?;
    match module.info.name {
        "duell" => Some((module, WireKind::Seed000)),
        "foxes" => Some((module, WireKind::Seed002)),
        _ => None,
    }
}

fn parse_seed_listener(arg: &str) -> Result<SeedListener, String> {
    let (game, addr) = arg
        .split_once('=')
        .ok_or_else(|| format!("{arg:?} is not GAME=ADDR"))?;
    let (game, wire) = seed_protocol(game)
        .ok_or_else(|| format!("{game:?} has no seed protocol of its own (try duell or foxes)"))?;
    let addr = addr
        .parse()
        .map_err(|e| format!("{addr:?} is not an address: {e}"))?;
    Ok(SeedListener { game, wire, addr })
}

/// The game names `--games` accepts, with each game's title as its help.
fn game_names() -> clap::builder::PossibleValuesParser {
    registry::all()
        .iter()
        .map(|m| clap::builder::PossibleValue::new(m.info.name).help(m.info.title))
        .collect::<Vec<_>>()
        .into()
}

const GAME_OPTION_HELP: &str = "A value for a game's parameter, as GAME.KEY=VALUE; may be given \
     several times (the last value of a key counts; --help lists every game's parameters)";

/// `--game-option`'s long help: the short one, then every game's parameters.
fn game_options_help() -> String {
    format!("{GAME_OPTION_HELP}\n{}", registry::game_options_help())
}

impl Cli {
    /// Makes every path option absolute (against the current directory).
    pub fn absolutize_paths(&mut self) -> std::io::Result<()> {
        self.start_dir = std::env::current_dir()?;
        for path in [
            &mut self.record_dir,
            &mut self.pid_file,
            &mut self.log_file,
            &mut self.journal_dir,
        ]
        .into_iter()
        .flatten()
        {
            *path = std::path::absolute(&*path)?;
        }
        Ok(())
    }

    pub fn supervisor(&self) -> SupervisorConfig {
        SupervisorConfig {
            listen: self.listen.clone(),
            listen_seed: self.listen_seed.clone(),
            proxy_from: self.proxy_from.clone(),
            limits: Limits {
                pending_per_host: usize::try_from(self.max_pending_per_address)
                    .unwrap_or(usize::MAX),
                sessions_per_host: usize::try_from(self.max_sessions_per_address)
                    .unwrap_or(usize::MAX),
                strikes: usize::try_from(self.abandon_strikes).unwrap_or(usize::MAX),
                strike_window: STRIKE_WINDOW,
                penalty: Duration::from_secs(self.abandon_penalty),
                log_burst: self.log_burst,
            },
            handshake_timeout: Duration::from_secs(self.handshake_timeout),
            max_sessions: usize::try_from(self.max_sessions).unwrap_or(usize::MAX),
            max_pending: usize::try_from(self.max_pending).unwrap_or(usize::MAX),
            shutdown_timeout: Duration::from_secs(self.shutdown_timeout),
            fork_server: (!self.fork_directly).then(|| ForkServerSpec {
                dir: self.start_dir.clone(),
                extra_args: vec!["--journal-dir".into(), self.journals().path().into()],
            }),
        }
    }

    /// The games to serve with each one's session settings.
    pub fn games(&self) -> Games {
        let modules: Vec<&'static Module> = registry::all()
            .iter()
            .filter(|m| self.games.is_empty() || self.games.iter().any(|g| g == m.info.name))
            .collect();
        let sessions = modules
            .iter()
            .map(|m| (m.info.name, self.session(m)))
            .collect();
        Games {
            front: Front::new(modules),
            sessions,
            team_size: usize::try_from(self.team_size).unwrap_or(1),
        }
    }

    /// What every session of `module` is given.
    pub fn session(&self, module: &Module) -> SessionConfig {
        SessionConfig {
            rules: Rules {
                move_timeout: (self.move_timeout > 0)
                    .then(|| Duration::from_secs(self.move_timeout)),
                first_move_timeout: (self.first_move_timeout > 0)
                    .then(|| Duration::from_secs(self.first_move_timeout)),
                fixed_teams: self.fixed_colours,
                rematch: module.info.rematch && !self.no_rematch,
            },
            record_dir: self.record_dir.clone(),
            settings: module.settings(&self.game_option),
            journal_dir: self.journals().path().to_owned(),
        }
    }

    /// Where running games keep their journals: --journal-dir, else the record directory,
    /// else a directory of this server's under the system's temporary one.
    pub fn journals(&self) -> JournalDir {
        match self.journal_dir.as_ref().or(self.record_dir.as_ref()) {
            Some(given) => JournalDir::Given(given.clone()),
            None => JournalDir::Own(
                std::env::temp_dir().join(format!("reversid-{}-journals", std::process::id())),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_spec() {
        let cli = Cli::parse_from(["reversid"]);
        let sup = cli.supervisor();
        assert_eq!(sup.listen, vec!["127.0.0.1:8765".parse().unwrap()]);
        assert_eq!(sup.handshake_timeout, Duration::from_secs(10));
        let reversi = registry::find("reversi").unwrap();
        assert_eq!(
            cli.session(reversi).rules.move_timeout,
            Some(Duration::from_secs(600))
        );
        assert_eq!(cli.games().front.games().len(), registry::all().len());
        assert_eq!((sup.max_sessions, sup.max_pending), (1024, 4096));
    }

    #[test]
    fn listen_repeats_and_zero_disables_the_clock() {
        let cli = Cli::parse_from([
            "reversid",
            "--listen",
            "127.0.0.1:1",
            "--listen",
            "[::1]:2",
            "--move-timeout",
            "0",
        ]);
        assert_eq!(cli.listen.len(), 2);
        assert_eq!(
            cli.session(registry::find("reversi").unwrap())
                .rules
                .move_timeout,
            None
        );
    }

    #[test]
    fn games_are_chosen_by_name() {
        let cli = Cli::parse_from(["reversid", "--games", "tictactoe"]);
        let games = cli.games();
        let names: Vec<&str> = games.front.games().iter().map(|m| m.info.name).collect();
        assert_eq!(names, ["tictactoe"]);
        assert!(Cli::try_parse_from(["reversid", "--games", "chess"]).is_err());
    }

    #[test]
    fn seed_listeners_name_a_game_with_a_seed_protocol() {
        let cli = Cli::parse_from(["reversid", "--listen-seed", "conquest=127.0.0.1:0"]);
        assert_eq!(cli.listen_seed[0].game.info.name, "duell");
        assert_eq!(cli.listen_seed[0].wire, WireKind::Seed000);
        for bad in ["reversi=127.0.0.1:0", "duell", "duell=nowhere"] {
            assert!(
                Cli::try_parse_from(["reversid", "--listen-seed", bad]).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn foxes_has_seed_002s_protocol() {
        let cli = Cli::parse_from(["reversid", "--listen-seed", "foxes=127.0.0.1:0"]);
        assert_eq!(cli.listen_seed[0].game.info.name, "foxes");
        assert_eq!(cli.listen_seed[0].wire, WireKind::Seed002);
    }

    #[test]
    fn game_options_reach_their_games_sessions_only() {
        let foxes = registry::find("foxes").unwrap();
        let tide = foxes.param("tide-ms").unwrap();
        let cli = Cli::parse_from(["reversid"]);
        assert_eq!(cli.session(foxes).settings.params.get(tide), tide.default);
        let quick = Cli::parse_from([
            "reversid",
            "--game-option",
            "foxes.tide-ms=300",
            "--game-option",
            "foxes.cooldown-ms=20",
        ]);
        assert_eq!(quick.session(foxes).settings.params.get(tide), 300);
        let reversi = registry::find("reversi").unwrap();
        assert_eq!(quick.session(reversi).settings, Default::default());
        for bad in [
            "foxes.tide-ms=0",
            "foxes.tide=1",
            "chess.tide-ms=1",
            "foxes",
        ] {
            let why = Cli::try_parse_from(["reversid", "--game-option", bad])
                .unwrap_err()
                .to_string();
            assert!(why.contains("--game-option"), "{bad}: {why}");
        }
    }

    #[test]
    fn proxies_are_trusted_by_address_block() {
        let cli = Cli::parse_from([
            "reversid",
            "--proxy-from",
            "10.0.0.0/8",
            "--proxy-from",
            "2001:db8::1",
        ]);
        let shown: Vec<String> = cli
            .supervisor()
            .proxy_from
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(shown, ["10.0.0.0/8", "2001:db8::1/128"]);
        assert!(Cli::try_parse_from(["reversid", "--proxy-from", "10.0.0.1/8"]).is_err());
    }

    #[test]
    fn zero_limits_are_refused() {
        assert!(Cli::try_parse_from(["reversid", "--max-sessions", "0"]).is_err());
        assert!(Cli::try_parse_from(["reversid", "--handshake-timeout", "0"]).is_err());
    }
}
