//! `reversi`: the terminal client for reversid, a computer player and
//! engine tools. This file only parses the command line and dispatches.

mod account;
mod cli;
mod config;
mod demo;
mod escapes;
mod game_bot;
mod replay;
mod stdin_lines;
mod talk;
mod text_ui;
mod tools;
mod tournament;
mod watch;

use std::process::ExitCode;

// The library's modules under the names the binary's own modules use.
use reversi_client::transport::Protocol;

use std::time::Duration;

use clap::Parser;

use crate::cli::{Cli, Cmd};

fn main() -> ExitCode {
    restore_sigpipe();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    if let Some(trust) = cli.tls() {
        reversi_client::transport::tls::enable(trust);
    }
    if let Some(source) = cli.bind {
        reversi_client::connection::bind_source(source);
    }
    let code = match cli.command {
        Cmd::Play {
            addr,
            game,
            together,
            who,
        } => match (together.request(game.as_deref()), who.identity()) {
            (Err(why), _) | (_, Err(why)) => {
                eprintln!("reversi play: {why}");
                reversi_client::exit::CONNECT_FAILED
            }
            (Ok(Some(request)), Ok(identity)) => {
                text_ui::play_together(&addr, request, game.as_deref(), identity)
            }
            // Without --game: Reversi over the binary protocol, the same client.
            (Ok(None), Ok(identity)) => match game {
                None => {
                    binary_is_anonymous("play", &who);
                    text_ui::play(&addr, "reversi", Protocol::Binary, None)
                }
                Some(game) => text_ui::play(&addr, &game, Protocol::Text, identity),
            },
        },
        Cmd::Account { action, addr } => account::account(&addr, &action),
        Cmd::Tournament { action, addr, who } => tournament_command(&addr, action, &who),
        Cmd::Token { action, addr } => account::token(&addr, &action),
        Cmd::History {
            player,
            game,
            count,
            addr,
            who,
        } => match who.identity() {
            Ok(identity) => {
                account::history(&addr, player.as_deref(), game.as_deref(), count, identity)
            }
            Err(why) => {
                eprintln!("reversi history: {why}");
                reversi_client::exit::CONNECT_FAILED
            }
        },
        Cmd::Replay { id, addr } => replay::run(&addr, &id),
        Cmd::Export { id, format, addr } => account::export(&addr, &id, format.as_deref()),
        Cmd::Watch { addr, id, list } => watch::run(&addr, id, list),
        Cmd::Bot {
            addr,
            game,
            engine,
            games,
            show,
            random_opening,
            opening_seed,
            together,
            who,
            no_rematch,
            tournament,
            player,
        } => {
            let identity = match who.identity() {
                Ok(identity) => identity,
                Err(why) => {
                    eprintln!("reversi bot: {why}");
                    return ExitCode::from(reversi_client::exit::CONNECT_FAILED);
                }
            };
            let together = match together.request(game.as_deref()) {
                Ok(request) => request,
                Err(why) => {
                    eprintln!("reversi bot: {why}");
                    return ExitCode::from(reversi_client::exit::CONNECT_FAILED);
                }
            };
            let opening_seed = opening_seed.unwrap_or_else(|| {
                let seed = fresh_seed();
                if random_opening > 0 {
                    println!("random openings of {random_opening} moves, --opening-seed {seed}");
                }
                seed
            });
            if game.is_none() {
                binary_is_anonymous("bot", &who);
            }
            match game {
                None => game_bot::run(
                    &addr,
                    &game_bot::Options {
                        games,
                        show,
                        random_opening,
                        opening_seed,
                        ..engine.binary_bot()
                    },
                ),
                Some(name) => match reversi_games::registry::find(&name) {
                    Some(_) if player == game_bot::Kind::Engine && name != "reversi" => {
                        eprintln!(
                            "reversi bot: --player engine is Reversi's engine (--game reversi)"
                        );
                        reversi_client::exit::CONNECT_FAILED
                    }
                    Some(module) => {
                        let options = game_bot::Options {
                            module,
                            kind: player,
                            strength: engine.strength(),
                            games,
                            show,
                            random_opening,
                            opening_seed,
                            protocol: Protocol::Text,
                            level: (player == game_bot::Kind::Engine).then_some(engine.level),
                            delay: Duration::ZERO,
                            report: true,
                            name: "bot".to_owned(),
                            shown_as: None,
                            together,
                            identity: identity.clone(),
                            rematch: !no_rematch,
                        };
                        match tournament {
                            Some(id) => tournament::bot::run(&addr, id, &options),
                            None => game_bot::run(&addr, &options),
                        }
                    }
                    None => {
                        eprintln!(
                            "reversi bot: no game {name:?} here; games: {}",
                            game_names()
                        );
                        reversi_client::exit::CONNECT_FAILED
                    }
                },
            }
        }
        Cmd::Demo { engine, delay } => demo::run(&game_bot::Options {
            delay: Duration::from_millis(delay),
            report: false,
            ..engine.binary_bot()
        }),
        Cmd::Perft(args) => tools::perft::run(&args),
        Cmd::Solve(args) => tools::solve::run(&args),
        Cmd::Match(args) => tools::r#match::run(&args),
    };
    ExitCode::from(code)
}

/// `reversi tournament list|standings|register|play`.
fn tournament_command(addr: &str, action: cli::TournamentCmd, who: &cli::Who) -> u8 {
    use cli::TournamentCmd;
    let identity = match who.identity() {
        Ok(identity) => identity,
        Err(why) => {
            eprintln!("reversi tournament: {why}");
            return reversi_client::exit::CONNECT_FAILED;
        }
    };
    match action {
        TournamentCmd::List => tournament::print_list(addr),
        TournamentCmd::Standings { id, follow } => tournament::print_standings(addr, id, follow),
        TournamentCmd::Register { id } => tournament::register(addr, id, identity),
        TournamentCmd::Play { id } => tournament::play::run(addr, id, identity),
    }
}

/// Says that a --name or --token given is not used without --game: binary
/// Reversi's protocol has no names (the config file's are passed over quietly).
fn binary_is_anonymous(command: &str, who: &cli::Who) {
    if who.name.is_some() || who.token.is_some() {
        eprintln!(
            "reversi {command}: binary Reversi (no --game) has no names: playing anonymously \
             (--game reversi plays it over the text protocol, signed in)"
        );
    }
}

/// The games `reversi bot --game` can play.
fn game_names() -> String {
    let names: Vec<&str> = reversi_games::registry::all()
        .iter()
        .map(|m| m.info.name)
        .collect();
    names.join(", ")
}

/// A seed that differs from run to run (std's hash keys are drawn at random).
fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
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
