//! Plays the engine's [`Player`] against a GTP Othello program (GRhino's
//! `gtp-rhino` by default) for tuning. Colours alternate; each game uses a
//! different seed so opening variety gives different games.
//!
//! ```text
//! cargo run --release -p reversi-engine --example gtp_match -- \
//!     [--games 20] [--ms 1000 | --level 8] [--seed 1] [-- /usr/games/gtp-rhino -l 3]
//! ```
//!
//! Prints one line per game and a summary (points: win 1, draw 1/2; our
//! average and maximum time per move).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use reversi_engine::player::{Player, PlayerConfig};
use reversi_engine::{Game, Outcome, Side, Square};

/// A running GTP program.
struct Gtp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Gtp {
    fn spawn(cmd: &[String]) -> Gtp {
        let mut child = Command::new(&cmd[0])
            .args(&cmd[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Gtp {
            child,
            stdin,
            stdout,
        }
    }

    /// Sends one command and returns the response text (after `= `), or the
    /// error text as `Err`.
    fn send(&mut self, command: &str) -> Result<String, String> {
        writeln!(self.stdin, "{command}").map_err(|e| e.to_string())?;
        self.stdin.flush().map_err(|e| e.to_string())?;
        let mut response = String::new();
        loop {
            let mut line = String::new();
            if self
                .stdout
                .read_line(&mut line)
                .map_err(|e| e.to_string())?
                == 0
            {
                return Err("GTP program exited".into());
            }
            if line.trim().is_empty() && !response.is_empty() {
                break;
            }
            response.push_str(&line);
        }
        let response = response.trim();
        match response.strip_prefix('=') {
            Some(ok) => Ok(ok.trim().to_owned()),
            None => Err(response.trim_start_matches('?').trim().to_owned()),
        }
    }
}

impl Drop for Gtp {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.wait();
    }
}

fn colour(side: Side) -> &'static str {
    match side {
        Side::Black => "black",
        Side::White => "white",
    }
}

struct Args {
    games: u32,
    ms: Option<u64>,
    level: u8,
    seed: u64,
    opponent: Vec<String>,
}

fn parse_args() -> Args {
    let mut a = Args {
        games: 20,
        ms: Some(1000),
        level: 8,
        seed: 1,
        opponent: vec!["/usr/games/gtp-rhino".into(), "-l".into(), "3".into()],
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().expect("option needs a value");
        match arg.as_str() {
            "--games" => a.games = value().parse().expect("--games N"),
            "--ms" => a.ms = Some(value().parse().expect("--ms N")),
            "--level" => {
                a.level = value().parse().expect("--level N");
                a.ms = None;
            }
            "--seed" => a.seed = value().parse().expect("--seed N"),
            "--" => {
                a.opponent = it.by_ref().collect();
                break;
            }
            other => panic!("unknown option {other}"),
        }
    }
    a
}

/// Per-game statistics of our moves.
#[derive(Default)]
struct Times {
    total: Duration,
    max: Duration,
    moves: u32,
}

/// Plays one game; returns the final game and our timing.
fn play_game(args: &Args, ours: Side, seed: u64) -> Result<(Game, Times), String> {
    let mut gtp = Gtp::spawn(&args.opponent);
    gtp.send("boardsize 8").ok();
    gtp.send("clear_board")?;
    let mut bot = Player::new(PlayerConfig {
        level: args.level,
        move_time: args.ms.map(Duration::from_millis),
        seed,
        opening_variety: true,
    });
    let mut game = Game::new();
    let mut times = Times::default();
    while let Some(side) = game.side_to_move() {
        let sq = if side == ours {
            let t = Instant::now();
            let sq = bot.choose(&game).ok_or("engine returned no move")?;
            let spent = t.elapsed();
            times.total += spent;
            times.max = times.max.max(spent);
            times.moves += 1;
            gtp.send(&format!("play {} {sq}", colour(side)))
                .map_err(|e| format!("opponent refused {sq}: {e}"))?;
            sq
        } else {
            let reply = gtp.send(&format!("genmove {}", colour(side)))?;
            reply
                .to_lowercase()
                .parse::<Square>()
                .map_err(|_| format!("opponent said {reply:?} in {}", game.transcript()))?
        };
        game.play(sq)
            .map_err(|e| format!("{e} ({} by {side}) after {}", sq, game.transcript()))?;
    }
    Ok((game, times))
}

fn main() {
    let args = parse_args();
    let (mut points, mut played) = (0.0, 0);
    let mut all = Times::default();
    for g in 0..args.games {
        let ours = if g % 2 == 0 { Side::Black } else { Side::White };
        match play_game(&args, ours, args.seed.wrapping_add(g as u64)) {
            Ok((game, t)) => {
                let (us, them) = (game.count(ours), game.count(ours.opponent()));
                let result = match game.outcome() {
                    Some(Outcome::Win(s)) if s == ours => 1.0,
                    Some(Outcome::Draw) => 0.5,
                    _ => 0.0,
                };
                points += result;
                played += 1;
                all.total += t.total;
                all.moves += t.moves;
                all.max = all.max.max(t.max);
                println!(
                    "game {:2} engine {:5} {us:2}-{them:2} {result}  max {:4} ms  {}",
                    g + 1,
                    colour(ours),
                    t.max.as_millis(),
                    game.transcript()
                );
            }
            Err(e) => println!("game {:2} aborted: {e}", g + 1),
        }
    }
    let avg = all.total.as_millis() as f64 / all.moves.max(1) as f64;
    println!(
        "score {points}/{played} = {:.0}%  (engine avg {avg:.0} ms/move, max {} ms) vs {:?}",
        100.0 * points / played.max(1) as f64,
        all.max.as_millis(),
        args.opponent
    );
}
