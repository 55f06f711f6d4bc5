//! `reversi`: the terminal client for reversid, a computer player and
//! engine tools. This file only parses the command line and dispatches.

mod bot;
mod cli;
mod demo;
mod gtp;
mod input;
#[path = "match.rs"]
mod match_gtp;
mod play;
mod render;
mod tools;

use std::process::ExitCode;

// The library's modules under the names the binary's own modules use.
use reversi_client::{connection, driver, state};

use std::time::Duration;

use clap::Parser;

use crate::cli::{Cli, Cmd};

fn main() -> ExitCode {
    restore_sigpipe();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let code = match cli.command {
        Cmd::Play { addr } => play::run(&addr),
        Cmd::Bot {
            addr,
            engine,
            games,
            show,
        } => {
            let options = bot::BotOptions {
                games,
                show,
                ..engine.options()
            };
            bot::run(&addr, &options)
        }
        Cmd::Demo { engine, delay } => demo::run(&bot::BotOptions {
            delay: Duration::from_millis(delay),
            ..engine.options()
        }),
        Cmd::Perft { depth } => tools::run_perft(depth),
        Cmd::Solve { position } => tools::run_solve(&position),
        Cmd::Match { gtp, games, engine } => match_gtp::run(&gtp, games, &engine.options()),
    };
    ExitCode::from(code)
}

/// Lets a closed stdout (`reversi bot | head -1`) end the process quietly,
/// as for other Unix tools, instead of making every print fail.
fn restore_sigpipe() {
    // SAFETY: called first thing in main, before any thread exists; setting
    // a signal's disposition to the default has no other effect.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
