//! `reversi`: the terminal client for reversid, a computer player and
//! engine tools. This file only parses the command line and dispatches.

mod bot;
mod cli;
mod connection;
mod driver;
mod input;
mod play;
mod render;
mod side;
mod state;
mod tools;

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

use crate::cli::{Cli, Cmd};

fn main() -> ExitCode {
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
                level: engine.level,
                move_time: engine.move_time.map(Duration::from_millis),
                seed: engine.seed,
                games,
                show,
                ..bot::BotOptions::default()
            };
            bot::run(&addr, &options)
        }
        Cmd::Perft { depth } => tools::run_perft(depth),
    };
    ExitCode::from(code)
}
