//! reversid: the command line. Everything else lives in the modules below.

mod config;
mod daemon;
mod log;
mod outbox;
mod session;
mod signals;
mod supervisor;
mod wire;

use std::process::ExitCode;

use ::log::{error, info, warn};
use clap::Parser;

use config::Cli;
use supervisor::Supervisor;

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    // --daemon changes directory to /: make the paths absolute first.
    if let Err(e) = cli.absolutize_paths() {
        eprintln!("reversid: {e}");
        return ExitCode::FAILURE;
    }
    log::init();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            error!("{e}");
            eprintln!("reversid: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> std::io::Result<()> {
    match daemon::raise_nofile() {
        Ok(limit) => ::log::debug!("open files limit: {limit}"),
        Err(e) => warn!("cannot raise the open files limit: {e}"),
    }
    let mut pid_file = cli
        .pid_file
        .as_deref()
        .map(daemon::PidFile::lock)
        .transpose()?;
    let supervisor_config = cli.supervisor();
    let listeners = supervisor::bind_all(&supervisor_config)?;
    for (_, addr, seed) in &listeners {
        match seed {
            None => info!("listening on {addr}"),
            Some((game, _)) => info!(
                "listening on {addr} for {} clients in their seed's own protocol",
                game.info.name
            ),
        }
    }
    // Everything that can fail is set up before detaching, so errors reach the terminal.
    let reopen = cli.log_file.clone();
    let supervisor = Supervisor::new(cli.games(), supervisor_config, listeners)?.on_hangup(
        move || match &reopen {
            Some(path) => match log::redirect_stderr(path) {
                Ok(()) => info!("SIGHUP: reopened {}", path.display()),
                Err(e) => error!("SIGHUP: cannot reopen {}: {e}", path.display()),
            },
            None => info!("SIGHUP ignored (no --log-file to reopen)"),
        },
    );
    let log_file = cli.log_file.clone();
    let set_up = |pid_file: &mut Option<daemon::PidFile>| -> std::io::Result<()> {
        if let Some(pid_file) = pid_file {
            pid_file.write_pid()?;
        }
        if let Some(path) = &log_file {
            log::redirect_stderr(path)?;
        }
        Ok(())
    };
    if cli.daemon {
        daemon::daemonize(|| set_up(&mut pid_file))?;
        log::refresh_pid();
    } else {
        set_up(&mut pid_file)?;
    }
    info!(
        "reversid {} started (pid {})",
        env!("CARGO_PKG_VERSION"),
        std::process::id()
    );
    supervisor.run()?;
    if let Some(pid_file) = &pid_file {
        let _ = std::fs::remove_file(pid_file.path());
    }
    Ok(())
}
