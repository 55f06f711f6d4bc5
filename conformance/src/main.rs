//! `reversi-conformance`: checks a server (`server HOST:PORT`) or a client
//! (`client --listen ADDR GAME`) against the project's protocol specs and
//! prints a report section by section. Exit status: 0 when every check
//! passed (known deviations and skipped checks aside), 1 when one failed,
//! 2 when the kit could not run.

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use reversi_conformance::{client, server, Report, Verdict};

#[derive(Parser)]
#[command(
    name = "reversi-conformance",
    version,
    about = "A conformance kit for reversid's binary and text protocols"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Check the server at HOST:PORT (run it for the kit alone: the kit's
    /// clients must meet each other in its queues).
    Server {
        /// The server's address.
        addr: String,
        /// The server's --handshake-timeout, in seconds, to check it (at most 10).
        #[arg(long, value_name = "SECS")]
        handshake_timeout: Option<u64>,
        /// The server's --move-timeout, in seconds, to check it (at most 10).
        #[arg(long, value_name = "SECS")]
        move_timeout: Option<u64>,
        /// The server's --first-move-timeout, in seconds, to check it (at most 10).
        #[arg(long, value_name = "SECS")]
        first_move_timeout: Option<u64>,
        /// The address of the server's seed 000 listener for duell (--listen-seed duell=ADDR).
        #[arg(long, value_name = "ADDR")]
        seed_duell: Option<String>,
        /// The address of the server's seed 002 listener for foxes (--listen-seed foxes=ADDR).
        #[arg(long, value_name = "ADDR")]
        seed_foxes: Option<String>,
        /// Random games a game in the rules checks.
        #[arg(long, value_name = "N", default_value_t = 2)]
        games: u32,
        /// Seeds the random moves (the same seed plays the same moves).
        #[arg(long, value_name = "N", default_value_t = 1)]
        seed: u64,
        /// Runs only the checks whose name contains TEXT (`§6.3`, `binary`).
        #[arg(long, value_name = "TEXT")]
        only: Option<String>,
    },
    /// Act as a server for one game and check the client that connects.
    Client {
        /// Where to listen for the client.
        #[arg(long, value_name = "ADDR")]
        listen: String,
        /// The game to play (a turn-based one: reversi, tictactoe, draughts, duell).
        game: String,
        /// Seeds the kit's own random moves.
        #[arg(long, value_name = "N", default_value_t = 1)]
        seed: u64,
    },
}

fn main() -> ExitCode {
    match Cli::parse().cmd {
        Cmd::Server {
            addr,
            handshake_timeout,
            move_timeout,
            first_move_timeout,
            seed_duell,
            seed_foxes,
            games,
            seed,
            only,
        } => {
            let target = (|| {
                let mut target = server::Target::new(resolve(&addr)?);
                target.handshake_timeout = handshake_timeout.map(Duration::from_secs);
                target.move_timeout = move_timeout.map(Duration::from_secs);
                target.first_move_timeout = first_move_timeout.map(Duration::from_secs);
                target.seed_duell = seed_duell.as_deref().map(resolve).transpose()?;
                target.seed_foxes = seed_foxes.as_deref().map(resolve).transpose()?;
                target.random_games = games;
                target.seed = seed;
                target.only = only;
                Ok::<_, String>(target)
            })();
            match target {
                Ok(target) => check_server(&target),
                Err(why) => fail(&why),
            }
        }
        Cmd::Client { listen, game, seed } => match client::game(&game) {
            Ok(module) => match TcpListener::bind(&listen) {
                Ok(listener) => {
                    if let Ok(addr) = listener.local_addr() {
                        eprintln!(
                            "reversi-conformance: waiting for a {} client on {addr}",
                            module.info.name
                        );
                    }
                    finish(client::check_one(&listener, module, seed))
                }
                Err(e) => fail(&format!("cannot listen on {listen}: {e}")),
            },
            Err(why) => fail(&why),
        },
    }
}

fn check_server(target: &server::Target) -> ExitCode {
    let mut section = "";
    let report = server::run(target, |entry| {
        if entry.section != section {
            section = entry.section;
            eprintln!("{section}");
        }
        let mark = match entry.verdict {
            Verdict::Pass => "pass",
            Verdict::Skip(_) => "skip",
            Verdict::Known(..) => "known",
            _ => "FAIL",
        };
        eprintln!("  {mark:5} {}", entry.what);
    });
    finish(report)
}

fn finish(report: Report) -> ExitCode {
    print!("{report}");
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn resolve(addr: &str) -> Result<SocketAddr, String> {
    addr.to_socket_addrs()
        .map_err(|e| format!("{addr}: {e}"))?
        .next()
        .ok_or_else(|| format!("{addr}: no address"))
}

fn fail(why: &str) -> ExitCode {
    eprintln!("reversi-conformance: {why}");
    ExitCode::from(2)
}
