//! reversid: the command line. Everything else lives in the modules below.

mod address;
mod arena;
mod cluster;
mod config;
mod control;
mod ctl;
mod daemon;
mod fd_passing;
mod fork_server;
mod games;
mod journal_dir;
mod log;
mod metrics;
mod outbox;
mod paths;
mod protocols;
mod session;
mod signals;
mod spawn;
mod store;
mod supervisor;
mod terms;
mod tournaments;
mod upgrade;

use std::process::ExitCode;

use ::log::{error, info, warn};
use clap::Parser;

use config::Cli;
use supervisor::Supervisor;

/// malloc, except in a session, which allocates from a heap of its own (see arena.rs).
#[global_allocator]
static ALLOCATOR: arena::SessionHeap = arena::SessionHeap;

fn main() -> ExitCode {
    if let Some(invocation) = fork_server::serve::invocation() {
        return fork_server::serve::run(invocation, config::games_of_this_command_line);
    }
    let mut cli = Cli::parse();
    if let Some(config::Command::Ctl { order }) = &cli.command {
        return match order.send() {
            Ok(done) => {
                println!("{done}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("reversid ctl: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let asked = match &cli.command {
        Some(config::Command::Tournament { socket, order }) => {
            Some(("tournament", order.run(socket)))
        }
        Some(config::Command::Account { socket, order }) => Some(("account", order.run(socket))),
        _ => None,
    };
    if let Some((command, answer)) = asked {
        return match answer {
            Ok(said) => {
                println!("{said}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("reversid {command}: {e}");
                ExitCode::FAILURE
            }
        };
    }
    // --daemon changes directory to /: make the paths absolute first.
    if let Err(e) = cli.absolutize_paths() {
        eprintln!(
            "reversid: cannot read the current directory, which relative paths are read in: {e}"
        );
        return ExitCode::FAILURE;
    }
    if cli.check_upgrade {
        return check_upgrade(&cli);
    }
    // Before anything names the journal directory or starts a thread.
    let inherited = match upgrade::inherited().transpose() {
        Ok(state) => state,
        Err(e) => {
            eprintln!("reversid: cannot take over after an upgrade in place: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(dir) = inherited
        .as_ref()
        .and_then(|s| s.own_journal_dir.as_deref())
    {
        journal_dir::inherit_own(dir);
    }
    log::choose(cli.log.log_format);
    log::init();
    match run(&cli, inherited) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Once: stderr is the terminal, or the log file once it took over.
            error!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// `--check-upgrade`: the trial of an upgrade in place. The command line was read (a
/// bad one failed already); the settings every part takes from it are made, then the
/// state formats this binary reads are printed (`crate::upgrade::trial`).
fn check_upgrade(cli: &Cli) -> ExitCode {
    if let Err(e) = cli.store.setting() {
        eprintln!("reversid --check-upgrade: {e}");
        return ExitCode::FAILURE;
    }
    let _ = (cli.supervisor(), cli.games());
    println!("{}", upgrade::check_line());
    ExitCode::SUCCESS
}

fn run(cli: &Cli, inherited: Option<upgrade::State>) -> std::io::Result<()> {
    match daemon::raise_nofile() {
        Ok(limit) => ::log::info!("open files limit: {limit}"),
        Err(e) => warn!("cannot raise the open files limit: {e}"),
    }
    // Records and journals are written while games run: better refused now than
    // a warning per game.
    if let Some(dir) = &cli.record_dir {
        paths::check_dir("--record-dir", dir)?;
    }
    let store = cli.store.setting().map_err(std::io::Error::other)?;
    match (&store, &inherited) {
        (Some(setting), None) => store::prepare(setting)?,
        // After an upgrade in place the data directory's lock is held already: a POSIX
        // lock, which taking and dropping again here would let go. The database is
        // opened (its migrations applied) all the same.
        (Some(setting), Some(_)) => drop(store::open(setting)?),
        (None, _) => {}
    }
    let journals = cli.journals();
    let named_by = cli.journals_named_by();
    // After an upgrade in place the directory is the old image's, in use.
    if inherited.is_none() {
        journals
            .create()
            .map_err(|e| paths::create_dir_error(named_by, journals.path(), e))?;
    }
    paths::check_dir(named_by, journals.path())?;
    match serve(cli, store, inherited) {
        // Every session has ended (or none started): no journal in it is needed unless
        // one was left behind, and then it is kept. (A daemon's parent _exits before this.)
        Ok(()) => {
            journals.close();
            Ok(())
        }
        Err(Failure::SetUp(e)) => {
            journals.close();
            Err(e)
        }
        // Sessions may still be running and about to write their journals: the
        // directory stays.
        Err(Failure::Serving(e)) => Err(e),
    }
}

/// Why `serve` failed: before any session could start, or while serving.
enum Failure {
    SetUp(std::io::Error),
    Serving(std::io::Error),
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        Failure::SetUp(e)
    }
}

/// Sets up the listeners and the supervisor, detaches if asked, and serves until shutdown.
fn serve(
    cli: &Cli,
    store: Option<store::Setting>,
    inherited: Option<upgrade::State>,
) -> Result<(), Failure> {
    if cli.daemon && cli.log_file.is_none() {
        warn!("--daemon without --log-file: the daemon's log goes nowhere");
    }
    let inherited_pid_file = inherited.as_ref().and_then(|s| s.pid_file);
    let mut pid_file =
        cli.pid_file
            .as_deref()
            .map(|path| match inherited_pid_file {
                Some(fd) => Ok(daemon::PidFile::adopt(fd, path)),
                None => daemon::PidFile::lock(path)
                    .map_err(|e| paths::file_error("--pid-file", path, e)),
            })
            .transpose()?;
    let supervisor_config = cli.supervisor();
    if let Some(files) = &supervisor_config.tls {
        protocols::tls::check(files)?;
    }
    let games = cli.games();
    let listeners = match &inherited {
        Some(state) => supervisor::inherited_listeners(state, &games)?,
        None => supervisor::bind_all(&supervisor_config).map_err(address::bind_hint)?,
    };
    // After an upgrade in place the socket is this process's own, closed by the exec.
    let control = match cli.control_path() {
        Some(path) if cli.control.is_none() && control::socket::too_long(&path) => {
            warn!(
                "no control socket: {} is too long a path for a Unix socket (give --control PATH)",
                path.display()
            );
            None
        }
        Some(path) => Some((control::socket::bind(&path, inherited.is_some())?, path)),
        None => None,
    };
    // Logged once set up, so that with --daemon they reach --log-file.
    let addresses: Vec<_> = listeners
        .iter()
        .map(|(_, addr, seed)| (*addr, *seed))
        .collect();
    // Everything that can fail is set up before detaching, so errors reach the terminal.
    let reopen = cli.log_file.clone();
    let exe = match &cli.upgrade_binary {
        Some(path) => Some(path.clone()),
        None => std::env::current_exe().ok(),
    };
    let mut supervisor = Supervisor::new(games, supervisor_config, listeners)?
        .with_store(store)
        .with_tournaments(cli.tournaments.clone())
        .on_hangup(move || match &reopen {
            Some(path) => match log::redirect_stderr(path) {
                Ok(()) => info!("SIGHUP: reopened {}", path.display()),
                Err(e) => error!("SIGHUP: cannot reopen {}: {e}", path.display()),
            },
            None => info!("SIGHUP ignored (no --log-file to reopen)"),
        });
    let mut control_path = None;
    if let Some((listener, path)) = control {
        supervisor = supervisor.with_control(listener, &path)?;
        control_path = Some(path);
    }
    if let Some(exe) = exe {
        let fd = pid_file.as_ref().map(daemon::PidFile::fd);
        supervisor = supervisor.upgrades_from(exe, cli.start_dir.clone(), fd);
    }
    let upgraded = inherited.is_some();
    if let Some(state) = inherited {
        supervisor = supervisor.adopt(state);
    }
    let log_file = cli.log_file.clone();
    let set_up = |pid_file: &mut Option<daemon::PidFile>| -> std::io::Result<()> {
        if let Some(pid_file) = pid_file {
            let path = pid_file.path().to_owned();
            pid_file
                .write_pid()
                .map_err(|e| paths::file_error("--pid-file", &path, e))?;
        }
        if let Some(path) = &log_file {
            log::redirect_stderr(path).map_err(|e| paths::file_error("--log-file", path, e))?;
        }
        Ok(())
    };
    if cli.daemon && upgraded {
        // Detached already; the upgrade was executed in the start directory.
        daemon::back_to_root()?;
        set_up(&mut pid_file)?;
    } else if cli.daemon {
        daemon::daemonize(|| set_up(&mut pid_file))?;
        log::refresh_pid();
    } else {
        set_up(&mut pid_file)?;
    }
    for (addr, seed) in &addresses {
        match seed {
            None => info!("listening on {addr}"),
            Some((game, _)) => info!(
                "listening on {addr} for {} clients in their seed's own protocol",
                game.info.name
            ),
        }
    }
    info!(
        "reversid {} {} (pid {})",
        env!("CARGO_PKG_VERSION"),
        if upgraded { "took over" } else { "started" },
        std::process::id()
    );
    supervisor.run().map_err(Failure::Serving)?;
    if let Some(pid_file) = &pid_file {
        let _ = std::fs::remove_file(pid_file.path());
    }
    if let Some(path) = &control_path {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}
