//! The command line: each part's options, flattened into one, and passed down
//! to the part that reads them. Only what concerns the process itself (paths,
//! detaching, how sessions are forked) is declared here.

use std::path::PathBuf;

use clap::Parser;

use crate::fork_server::handle::ForkServerSpec;
use crate::games::{self, Dirs, Games};
use crate::journal_dir::JournalDir;
use crate::protocols;
use crate::supervisor::{self, SupervisorConfig};

/// reversid: a server for networked board games. It queues players per game and plays each
/// game in its own process; one port speaks the binary Reversi protocol and a line-based text
/// protocol for every game (spec/PROTOCOL.md, spec/TEXT-PROTOCOL.md).
///
/// Signals: the first SIGTERM or SIGINT (^C in its terminal) starts a smart shutdown (stop
/// listening, turn away waiting clients, let running games finish, exit 0 once the last session is
/// reaped); a second one makes it fast (every session sends error to both players and exits). Only
/// the server gets them: each game runs in a session of its own, out of the terminal's reach. SIGHUP reopens --log-file (for log
/// rotation) and is otherwise only logged. SIGUSR1 drains the server (no new games; running
/// ones finish; GET /health fails) and SIGUSR2 takes games again; SIGWINCH upgrades in place
/// (the binary now at --upgrade-binary replaces this one; no game or connection is dropped):
/// `reversid ctl` sends them. The operator's control socket (--control; by default control.sock
/// in the data directory, mode 0600) answers `reversid tournament …`, `reversid account create`
/// and `reversid ctl` without --pid-file (spec/DEPLOY.md §10).
/// Logging goes to stderr (or --log-file), as text or as JSON lines (--log-format json), and is
/// filtered with RUST_LOG (default info; debug shows every PDU).
#[derive(Debug, Clone, Parser)]
#[command(name = "reversid", version, args_override_self = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub supervisor: supervisor::Options,

    #[command(flatten)]
    pub protocols: protocols::Options,

    #[command(flatten)]
    pub games: games::Options,

    #[command(flatten)]
    pub log: crate::log::Options,

    #[command(flatten)]
    pub store: crate::store::Options,

    #[command(flatten)]
    pub tournaments: crate::tournaments::options::Organising,

    /// Write each finished game into this directory (GGF for Reversi; each game's own format).
    #[arg(long, value_name = "DIR")]
    pub record_dir: Option<PathBuf>,

    /// Where running games keep their journals, from which a game whose session died is
    /// recovered (default: --record-dir, else reversid-PID-NONCE-journals in the temporary directory,
    /// removed at exit when no journal is left in it; a directory given is never removed).
    #[arg(long, value_name = "DIR")]
    pub journal_dir: Option<PathBuf>,

    /// Detach from the terminal and run in the background.
    #[arg(long)]
    pub daemon: bool,

    /// The operator's control socket, where `reversid tournament …` is answered (default:
    /// control.sock in the data directory; none with --no-store unless given). Made mode
    /// 0600: whoever may open it has every organiser's right (spec/DEPLOY.md "Control socket").
    #[arg(long, value_name = "PATH")]
    pub control: Option<PathBuf>,

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

    /// The binary an upgrade in place (SIGWINCH, `reversid ctl upgrade`) executes
    /// (default: the file this one was started from, symbolic links resolved: give the link
    /// here when a link names the installed version).
    #[arg(long, value_name = "PATH")]
    pub upgrade_binary: Option<PathBuf>,

    /// Only check that this binary could take over from a running reversid with this
    /// command line (the trial run of an upgrade in place), print the state formats it
    /// reads, and exit.
    #[arg(long, hide = true)]
    pub check_upgrade: bool,

    /// The directory reversid was started in, where its relative paths are read (--daemon
    /// moves to /); the fork server reads the command line there again.
    #[arg(skip)]
    pub start_dir: PathBuf,
}

/// What reversid does instead of serving.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Command {
    /// Tell the running reversid what to do: by signal with --pid-file, else by its control
    /// socket.
    Ctl {
        #[command(subcommand)]
        order: crate::ctl::Order,
    },
    /// Create and run tournaments as the operator, through the running reversid's control
    /// socket (spec/TOURNAMENTS.md §7).
    Tournament {
        #[command(flatten)]
        socket: crate::control::client::Socket,
        #[command(subcommand)]
        order: crate::control::client::Tournament,
    },
    /// Make accounts as the operator (a class's bots, each with its API token), through the
    /// running reversid's control socket.
    Account {
        #[command(flatten)]
        socket: crate::control::client::Socket,
        #[command(subcommand)]
        order: crate::control::client::Account,
    },
}

impl Cli {
    /// Makes every path option absolute (against the current directory).
    pub fn absolutize_paths(&mut self) -> std::io::Result<()> {
        self.start_dir = std::env::current_dir()?;
        self.store.absolutize()?;
        for path in [
            &mut self.record_dir,
            &mut self.pid_file,
            &mut self.log_file,
            &mut self.journal_dir,
            &mut self.upgrade_binary,
            &mut self.control,
        ]
        .into_iter()
        .flatten()
        {
            *path = std::path::absolute(&*path)?;
        }
        Ok(())
    }

    /// The supervisor's settings, with the fork server it starts (unless --fork-directly).
    pub fn supervisor(&self) -> SupervisorConfig {
        let fork_server = (!self.fork_directly).then(|| ForkServerSpec {
            dir: self.start_dir.clone(),
            extra_args: vec!["--journal-dir".into(), self.journals().path().into()],
        });
        let seeds = self.protocols.listen_seed.clone();
        self.supervisor.config(seeds, fork_server)
    }

    /// The games to serve with each one's session settings.
    pub fn games(&self) -> Games {
        let journals = self.journals();
        let mut games = self.games.games(Dirs {
            records: self.record_dir.as_deref(),
            journals: journals.path(),
        });
        let handshake = std::time::Duration::from_secs(self.supervisor.handshake_timeout);
        let keep_journals = self.store.setting().is_ok_and(|s| s.is_some());
        for session in games.sessions.values_mut() {
            session.silent_first_move_timeout = (!handshake.is_zero()).then_some(handshake);
            session.keep_journals = keep_journals;
        }
        games
    }

    /// Where the control socket is, if there is one (`crate::control::path`).
    pub fn control_path(&self) -> Option<PathBuf> {
        let store = self.store.setting().ok().flatten();
        crate::control::path(
            self.control.as_deref(),
            store.as_ref().map(|s| &*s.data_dir),
        )
    }

    /// The option that chose the journal directory, to name it in an error.
    pub fn journals_named_by(&self) -> &'static str {
        if self.journal_dir.is_some() {
            "--journal-dir"
        } else if self.store_journals().is_some() {
            "--data-dir"
        } else if self.record_dir.is_some() {
            "--record-dir"
        } else {
            "the journal directory under TMPDIR (--journal-dir sets another)"
        }
    }

    /// Where running games keep their journals: --journal-dir, else with a store the data
    /// directory's `journals` (kept across runs: what a killed server left is archived at the
    /// next start), else the record directory, else a directory of this server's under the
    /// system's temporary one.
    pub fn journals(&self) -> JournalDir {
        let given = self.journal_dir.clone().or_else(|| self.store_journals());
        match given.or_else(|| self.record_dir.clone()) {
            Some(given) => JournalDir::Given(given),
            None => JournalDir::own_in(&std::env::temp_dir()),
        }
    }

    /// The store's journal directory, when a store is on.
    fn store_journals(&self) -> Option<std::path::PathBuf> {
        self.store.setting().ok().flatten().map(|s| s.journal_dir())
    }
}

/// What the fork server serves: the command line it was started with (the
/// supervisor's), read in the directory it names.
pub fn games_of_this_command_line() -> std::io::Result<Games> {
    let mut cli = Cli::try_parse().map_err(|e| std::io::Error::other(e.to_string()))?;
    cli.absolutize_paths()?;
    Ok(cli.games())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn each_part_reads_its_own_options() {
        let cli = Cli::parse_from([
            "reversid",
            "--listen",
            "127.0.0.1:1",
            "--games",
            "tictactoe",
            "--record-dir",
            "/tmp/records",
            "--fork-directly",
            "--no-store",
        ]);
        let sup = cli.supervisor();
        assert_eq!(sup.listen, vec!["127.0.0.1:1".parse().unwrap()]);
        assert!(sup.fork_server.is_none());
        let games = cli.games();
        assert_eq!(games.modules.len(), 1);
        let tictactoe = &games.sessions["tictactoe"];
        assert_eq!(
            tictactoe.record_dir.as_deref(),
            Some(Path::new("/tmp/records"))
        );
        assert_eq!(tictactoe.journal_dir, Path::new("/tmp/records"));
    }

    #[test]
    fn the_control_socket_is_in_the_data_directory_unless_given() {
        let at = |args: &[&str]| {
            let cli = Cli::parse_from([&["reversid"], args].concat());
            cli.control_path()
        };
        assert_eq!(
            at(&["--data-dir", "/srv/r"]),
            Some(PathBuf::from("/srv/r/control.sock"))
        );
        assert_eq!(at(&["--no-store"]), None);
        assert_eq!(
            at(&["--no-store", "--control", "/run/r.sock"]),
            Some(PathBuf::from("/run/r.sock"))
        );
    }

    #[test]
    fn the_fork_server_is_told_the_journal_directory() {
        let cli = Cli::parse_from(["reversid", "--journal-dir", "/tmp/j"]);
        let spec = cli
            .supervisor()
            .fork_server
            .expect("a fork server by default");
        assert_eq!(spec.extra_args, ["--journal-dir", "/tmp/j"]);
    }
}
