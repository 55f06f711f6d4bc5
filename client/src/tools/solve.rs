//! `reversi solve`: exact endgame solving of one position, or of every
//! position of an OBF file (a test set such as the FFO positions) with one
//! line each and the total.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use reversi_engine::{parse_obf, Game, ObfPosition, Progress, Side, Solution, Solver};

use super::{exit, millions_per_second, plural, thread_cpu_seconds};

/// `reversi solve` arguments.
#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    /// The position: 64 squares a1..h1, a2..h2, ... (X black, O white, '-'
    /// empty), a space, X or O to move. A leading '-' is fine; so is giving
    /// the side to move as a second argument.
    #[arg(
        value_name = "POSITION",
        num_args = 1..=2,
        allow_hyphen_values = true,
        required_unless_present = "file",
        conflicts_with = "file"
    )]
    pub position: Vec<String>,
    /// Solve every position of an OBF file instead (one a line, optionally
    /// with the known best moves as "; A2:+38;"): one line per position,
    /// then the total.
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
}

/// From how many empties a solve warns how long it may take.
const WARN_EMPTIES: u32 = 24;
/// How much longer a solve takes for each empty more, roughly (FFO #40-#59
/// on the development machine: 0.5 s of CPU at 20 empties, 15 to 70 s at
/// 26).
const GROWTH: f64 = 2.4;

/// A rough expected solve time for `empties` empties, in seconds.
fn expected_seconds(empties: u32) -> f64 {
    0.5 * GROWTH.powi(empties as i32 - 20)
}

/// "40 s", "12 min", "3 h", "5 days", "2e9 years".
fn human_duration(seconds: f64) -> String {
    const MINUTE: f64 = 60.0;
    const HOUR: f64 = 60.0 * MINUTE;
    const DAY: f64 = 24.0 * HOUR;
    const YEAR: f64 = 365.0 * DAY;
    match seconds {
        s if s < MINUTE => format!("{s:.0} s"),
        s if s < HOUR => format!("{:.0} min", s / MINUTE),
        s if s < DAY => format!("{:.0} h", s / HOUR),
        s if s < YEAR => format!("{:.0} days", s / DAY),
        s => format!("{:.0e} years", s / YEAR),
    }
}

/// How often a long solve reports its progress.
const PROGRESS_EVERY: Duration = Duration::from_secs(2);

/// Solves what the arguments name and prints the results.
pub fn run(args: &SolveArgs) -> u8 {
    match &args.file {
        Some(path) => run_file(path),
        None => run_position(&args.position.join(" ")),
    }
}

/// One position: the score, the best move, nodes and time, with progress
/// on stderr while it runs.
fn run_position(text: &str) -> u8 {
    let game = match Game::from_position(text) {
        Ok(game) => game,
        Err(err) => {
            eprintln!("reversi solve: {err}");
            return exit::BAD_INPUT;
        }
    };
    let Some(side) = game.side_to_move() else {
        let (black, white) = (game.count(Side::Black), game.count(Side::White));
        println!("game over: black {black}, white {white}");
        return exit::OK;
    };
    let empties = game.empty_count();
    if empties >= WARN_EMPTIES {
        eprintln!(
            "reversi solve: {empties} empties may take {} (each empty multiplies the time by \
             about {GROWTH}; progress every {} s)",
            human_duration(expected_seconds(empties)),
            PROGRESS_EVERY.as_secs()
        );
    }
    let start = Instant::now();
    let mut solver = Solver::new(22);
    // Quick solves say nothing; long ones show how far they got.
    let mut show = |progress: &Progress| {
        let elapsed = start.elapsed();
        if elapsed >= PROGRESS_EVERY {
            eprintln!("  {}", progress_line(progress, elapsed));
        }
    };
    let Some(solution) = solver.solve_reporting(game.board(), None, PROGRESS_EVERY, &mut show)
    else {
        unreachable!("a solve without a deadline always finishes");
    };
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{side} to move, {}: score {:+} (final disc difference for {side}), best move {}",
        plural(empties.into(), "empty", "empties"),
        solution.score,
        best_name(&solution)
    );
    println!(
        "{} in {seconds:.3} s ({:.1} M nodes/s)",
        plural(solution.nodes, "node", "nodes"),
        millions_per_second(solution.nodes, seconds)
    );
    exit::OK
}

/// "selective pass (87% sure): 3 of 9 moves searched, best so far a2 (at
/// least +38); 1234 nodes in 40.0 s".
fn progress_line(progress: &Progress, elapsed: Duration) -> String {
    let pass = progress.selectivity.map_or("exact".to_string(), |percent| {
        format!("selective pass ({percent}% sure)")
    });
    let best = progress.best.map_or(String::new(), |(sq, score)| {
        format!(", best so far {sq} (at least {score:+})")
    });
    format!(
        "{pass}: {} of {} moves searched{best}; {} nodes in {:.1} s",
        progress.searched,
        progress.moves,
        progress.nodes,
        elapsed.as_secs_f64()
    )
}

fn best_name(solution: &Solution) -> String {
    solution
        .best
        .map_or_else(|| "none (pass)".to_string(), |sq| sq.to_string())
}

/// Every position of an OBF file, one line each, then the total; fails
/// when a line does not parse or a result disagrees with the file.
fn run_file(path: &PathBuf) -> u8 {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) => {
            eprintln!("reversi solve: cannot read {}: {err}", path.display());
            return exit::BAD_INPUT;
        }
    };
    let mut positions = Vec::new();
    for (line, parsed) in parse_obf(&text) {
        match parsed {
            Ok(position) => positions.push((line, position)),
            Err(err) => {
                eprintln!("reversi solve: {}:{line}: {err}", path.display());
                return exit::BAD_INPUT;
            }
        }
    }
    if positions.is_empty() {
        eprintln!("reversi solve: {} holds no position", path.display());
        return exit::BAD_INPUT;
    }
    let mut solver = Solver::new(22);
    let (mut wrong, mut nodes) = (0, 0);
    let (start, cpu) = (Instant::now(), thread_cpu_seconds());
    for (number, (line, position)) in positions.iter().enumerate() {
        let solved = solve_line(&mut solver, number + 1, *line, position);
        println!("{}", solved.text);
        wrong += usize::from(!solved.as_expected);
        nodes += solved.nodes;
    }
    let seconds = start.elapsed().as_secs_f64();
    let cpu = thread_cpu_seconds() - cpu;
    let checked = positions
        .iter()
        .filter(|(_, p)| p.best_score().is_some())
        .count();
    println!(
        "total: {} in {seconds:.3} s ({cpu:.3} s of CPU), {} ({:.1} M nodes/s); {} of {checked} checked results as expected",
        plural(positions.len() as u64, "position", "positions"),
        plural(nodes, "node", "nodes"),
        millions_per_second(nodes, seconds),
        checked - wrong
    );
    if wrong == 0 {
        exit::OK
    } else {
        exit::FAILED
    }
}

/// One position of a file, solved.
struct Solved {
    /// Its line of output.
    text: String,
    /// Whether the result is the file's (true when the file gives none).
    as_expected: bool,
    nodes: u64,
}

/// Solves the `number`th position of a file, found on `line`.
fn solve_line(solver: &mut Solver, number: usize, line: usize, position: &ObfPosition) -> Solved {
    let game = &position.game;
    let head = format!(
        "#{number} (line {line}): {} to move, {}:",
        game.side_to_move()
            .map_or("nobody".to_string(), |s| s.to_string()),
        plural(game.empty_count().into(), "empty", "empties"),
    );
    let (start, cpu) = (Instant::now(), thread_cpu_seconds());
    let Some(solution) = solver.solve(game.board(), None) else {
        unreachable!("a solve without a deadline always finishes");
    };
    let seconds = start.elapsed().as_secs_f64();
    let cpu = thread_cpu_seconds() - cpu;
    let best = solution.best;
    let (verdict, as_expected) = match position.best_score() {
        None => (String::new(), true),
        Some(expected) => {
            let moves = position.best_moves();
            let ok = solution.score == expected && best.is_none_or(|sq| moves.contains(&sq));
            let names: Vec<String> = moves.iter().map(|sq| sq.to_string()).collect();
            let verdict = if ok { "as expected" } else { "WRONG, expected" };
            (format!(" ({verdict} {expected:+} {})", names.join("/")), ok)
        }
    };
    let text = format!(
        "{head} {:+} {}{verdict} in {seconds:.3} s ({cpu:.3} s of CPU), {} nodes",
        solution.score,
        best_name(&solution),
        solution.nodes
    );
    Solved {
        text,
        as_expected,
        nodes: solution.nodes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_times_read_well() {
        assert_eq!(human_duration(expected_seconds(20)), "0 s");
        assert_eq!(human_duration(45.0), "45 s");
        assert_eq!(human_duration(720.0), "12 min");
        assert_eq!(human_duration(3.0 * 3600.0), "3 h");
        assert_eq!(human_duration(5.0 * 86400.0), "5 days");
        assert!(human_duration(expected_seconds(60)).ends_with(" years"));
        assert!(expected_seconds(30) > expected_seconds(29));
    }

    #[test]
    fn progress_says_how_far_and_the_best_so_far() {
        let mut progress = Progress {
            searched: 0,
            moves: 9,
            best: None,
            nodes: 1234,
            selectivity: Some(87),
        };
        let line = progress_line(&progress, Duration::from_millis(2500));
        assert_eq!(
            line,
            "selective pass (87% sure): 0 of 9 moves searched; 1234 nodes in 2.5 s"
        );
        progress.searched = 3;
        progress.best = Some(("a2".parse().unwrap(), 38));
        progress.selectivity = None;
        let line = progress_line(&progress, Duration::from_secs(40));
        assert_eq!(
            line,
            "exact: 3 of 9 moves searched, best so far a2 (at least +38); 1234 nodes in 40.0 s"
        );
    }
}
