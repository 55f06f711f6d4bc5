//! The command line (clap derive).

use clap::{Parser, Subcommand};

/// The address `play`, `bot` and friends connect to by default.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8765";

/// Reversi: play on a reversid server, let the engine play, or use the engine's tools.
#[derive(Debug, Parser)]
#[command(name = "reversi", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Cmd,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Play a game in the terminal (or from a script on stdin, one command per line).
    ///
    /// Type a move as d3 (D3 and d 3 work too), or hint, moves, board, quit, help.
    /// When stdin is not a terminal, each line is held until it is your turn, so a
    /// file of your moves plays them in order; the end of stdin means quit.
    /// Exit codes: 0 game over or quit, 1 the server ended the game (error or
    /// closed connection), 2 could not connect, 3 the server broke the protocol.
    Play {
        /// Server address, host:port.
        #[arg(default_value = DEFAULT_ADDR)]
        addr: String,
    },
    /// Let the engine play games on the server.
    Bot {
        /// Server address, host:port.
        #[arg(default_value = DEFAULT_ADDR)]
        addr: String,
        #[command(flatten)]
        engine: EngineArgs,
        /// Games to play, one connection each.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        games: u32,
        /// Print the board after every move.
        #[arg(long)]
        show: bool,
    },
    /// Start a reversid and two bots, and watch them play one game.
    Demo {
        #[command(flatten)]
        engine: EngineArgs,
        /// Pause before each move, in milliseconds, to follow the game.
        #[arg(long, value_name = "MS", default_value_t = 300)]
        delay: u64,
    },
    /// Count the leaf positions of the move tree from the start (perft).
    Perft(crate::tools::perft::PerftArgs),
    /// Solve a position exactly (best move and final disc difference), or
    /// every position of an OBF file with --file.
    Solve(crate::tools::solve::SolveArgs),
    /// Play a match against a GTP engine such as "/usr/games/gtp-rhino -l 3".
    Match(crate::tools::r#match::MatchArgs),
}

/// How strong the engine plays.
#[derive(Debug, Clone, clap::Args)]
pub struct EngineArgs {
    /// Engine strength, 1 (weakest) to 20: the search depth in plies.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(1..=20))]
    pub level: u8,
    /// Time per move in milliseconds; overrides --level.
    #[arg(long, value_name = "MS")]
    pub move_time: Option<u64>,
    /// Seed for the engine's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl EngineArgs {
    /// Bot options with these engine settings.
    pub fn options(&self) -> crate::bot::BotOptions {
        crate::bot::BotOptions {
            level: self.level,
            move_time: self.move_time.map(std::time::Duration::from_millis),
            seed: self.seed,
            ..crate::bot::BotOptions::default()
        }
    }
}
