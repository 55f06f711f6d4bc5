//! The computer player as a GTP (Go Text Protocol) engine on stdin and
//! stdout, the way Othello programs such as gtp-rhino speak it: so
//! `reversi match` can play the engine against itself at two settings.
//!
//! ```text
//! cargo run --release -p reversi-engine --example gtp -- [--move-time MS | --level N] [--seed S]
//! reversi match --gtp "target/release/examples/gtp --move-time 100" --move-time 1000 --games 20 --random-opening 8
//! ```
//!
//! Commands: protocol_version, name, version, known_command,
//! list_commands, boardsize (8 only), clear_board, play COLOUR VERTEX
//! (a square or pass), genmove COLOUR, showboard, quit.

use std::io::{BufRead, Write};
use std::time::Duration;

use reversi_engine::{Game, Player, PlayerConfig, Side, Square};

const COMMANDS: [&str; 11] = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "boardsize",
    "clear_board",
    "play",
    "genmove",
    "showboard",
    "quit",
];

fn config() -> Result<PlayerConfig, String> {
    let mut cfg = PlayerConfig::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> Result<u64, String> {
            let value = args.next().ok_or(format!("{name} needs a value"))?;
            value
                .parse()
                .map_err(|_| format!("{name}: {value:?} is not a number"))
        };
        match arg.as_str() {
            "--move-time" => cfg.move_time = Some(Duration::from_millis(number("--move-time")?)),
            "--level" => {
                let level = number("--level")?;
                cfg.level =
                    u8::try_from(level).map_err(|_| format!("--level {level} is too big"))?;
                cfg.move_time = None;
            }
            "--seed" => cfg.seed = number("--seed")?,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(cfg)
}

fn side(word: &str) -> Result<Side, String> {
    match word.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Side::Black),
        "w" | "white" => Ok(Side::White),
        _ => Err(format!("{word:?} is not a colour")),
    }
}

/// The engine's state between commands.
struct Engine {
    cfg: PlayerConfig,
    player: Player,
    game: Game,
}

impl Engine {
    /// The answer to one command line: `Ok(text)` for `=`, `Err` for `?`.
    fn answer(&mut self, words: &[&str]) -> Result<String, String> {
        match words {
            ["protocol_version"] => Ok("2".into()),
            ["name"] => Ok("reversi-engine".into()),
            ["version"] => Ok(env!("CARGO_PKG_VERSION").into()),
            ["known_command", name] => Ok(COMMANDS.contains(name).to_string()),
            ["list_commands"] => Ok(COMMANDS.join("\n")),
            ["boardsize", "8"] => Ok(String::new()),
            ["boardsize", _] => Err("unacceptable size".into()),
            ["clear_board"] => {
                self.game = Game::new();
                self.player = Player::new(self.cfg);
                Ok(String::new())
            }
            ["play", colour, vertex] => self.play(side(colour)?, vertex).map(|()| String::new()),
            ["genmove", colour] => self.genmove(side(colour)?),
            ["showboard"] => Ok(format!("\n{}", self.game.position())),
            ["quit"] => Ok(String::new()),
            _ => Err("unknown command".into()),
        }
    }

    /// `side` played `vertex`. A pass is accepted when `side` has no move
    /// (the game has already passed for it).
    fn play(&mut self, side: Side, vertex: &str) -> Result<(), String> {
        if vertex.eq_ignore_ascii_case("pass") {
            let board = match self.game.side_to_move() {
                Some(s) if s == side => self.game.board(),
                _ => self.game.board().pass(),
            };
            return if board.moves() == 0 {
                Ok(())
            } else {
                Err("illegal move".into())
            };
        }
        let square: Square = vertex
            .to_ascii_lowercase()
            .parse()
            .map_err(|e| format!("{e}"))?;
        if self.game.side_to_move() != Some(side) {
            return Err("illegal move: not that colour's turn".into());
        }
        self.game
            .play(square)
            .map(drop)
            .map_err(|e| format!("illegal move: {e}"))
    }

    /// Our move for `side`, played; `pass` when it has none.
    fn genmove(&mut self, side: Side) -> Result<String, String> {
        if self.game.side_to_move() != Some(side) {
            return Ok("pass".into());
        }
        let square = self.player.choose(&self.game).ok_or("no move")?;
        self.game.play(square).map_err(|e| e.to_string())?;
        Ok(square.to_string().to_uppercase())
    }
}

fn main() {
    let cfg = match config() {
        Ok(cfg) => cfg,
        Err(err) => {
            eprintln!("gtp: {err}");
            std::process::exit(2);
        }
    };
    let mut engine = Engine {
        cfg,
        player: Player::new(cfg),
        game: Game::new(),
    };
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        // An optional numeric id comes back with the answer.
        let (id, words) = match words.split_first() {
            Some((first, rest)) if first.parse::<u64>().is_ok() => (*first, rest),
            _ => ("", &words[..]),
        };
        if words.is_empty() {
            continue;
        }
        let reply = match engine.answer(words) {
            Ok(text) => format!("={id} {text}"),
            Err(text) => format!("?{id} {text}"),
        };
        if writeln!(out, "{}\n", reply.trim_end())
            .and_then(|()| out.flush())
            .is_err()
        {
            break;
        }
        if words == ["quit"] {
            break;
        }
    }
}
