//! reversi-attack: the attack suite's figures. See `reversi-attack --help`.

#[path = "../../tests/attacks_support/mod.rs"]
mod attacks_support;

use std::collections::VecDeque;
use std::io::Write;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use attacks_support::{
    connect_from, honest_pair, instant_game, loopback, newest_game_id, open_descriptors, quantile,
    resident, session_pid, spread, text_players, watch, Flood, InstantGame, Kind, LineFlood,
};
use clap::{Parser, ValueEnum};
use reversi_tests::Server;

/// Runs attacks on a reversid it starts (the one next to this binary: build both with
/// `cargo build --release -p reversi-server -p reversi-tests`), to loopback addresses only,
/// and prints each attack's figure. Every attack is bounded in connections and time.
///
///   flood        10 flooders of each kind that never read their replies (MOVE lines while
///                queued, GAME LIST lines, WebSocket pings, MOVE lines on the Duell listener),
///                then honest pairs one after another: start time p50/p99/max, supervisor RSS.
///                Holds: p99 under 50 ms, RSS under 64 MiB.
///   crowd        5,000 idle connections from 334 addresses (15 each, each address in a /24 of
///                its own), renewed as the server closes them, while honest games start: the
///                share started within 2 s, and the bytes logged per minute.
///                Holds: 95% within 2 s.
///   descriptors  reversid under RLIMIT_NOFILE 256 with 200 idle connections: does an honest
///                pair start? Holds: yes.
///   silent-seed  1,000 connections that never speak on the Duell listener: how many
///                sessions start (seed 000's clients speak only after the server: spec
///                TEXT-PROTOCOL.md §14), and when the last is closed. Holds: by the 10 s
///                handshake timeout (and a little), not the 30 s first-move clock.
///   viewer-churn 100,000 watch-and-close cycles on one game (8 at a time, from 800 addresses):
///                the session's open descriptors before and after, and the log it cost.
///                Holds: descriptors flat.
///   viewers      binary Reversi games of random moves, with no viewer and with 1,000 text viewers
///                watching each: the mover's place-to-update_board time p50/p99.
///                Holds: p50 with viewers within 1.5x of p50 without.
///   out-of-turn  a text Reversi player refused moves one after another (ERROR, READY), alone and
///                while its opponent sends MOVE out of turn as fast as it can, reading every reply:
///                the round trip p50/p99, and how late the 3 s first-move clock fires.
///                Holds: p50 within 2x, the clock within 10 ms.
///   instant-games for 10 s each, from one address, with the game-start budget off and then
///                as by default: two text players join Tic-Tac-Toe, the second loses at once by an
///                illegal move, again and again: games started a second, refusals, record
///                files written, log bytes. Holds: with the budget, 30 starts at once, then one
///                game (2 starts, 4 more for the fast loss) per 12 s, and a bounded log.
///
/// Example: target/release/reversi-attack all
#[derive(Parser)]
#[command(verbatim_doc_comment)]
struct Cli {
    #[arg(value_enum)]
    attack: Attack,
    /// Honest games started in the flood and crowd attacks.
    #[arg(long, default_value_t = 400)]
    games: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Attack {
    Flood,
    Crowd,
    Descriptors,
    SilentSeed,
    ViewerChurn,
    Viewers,
    OutOfTurn,
    InstantGames,
    All,
}

fn main() {
    let cli = Cli::parse();
    println!("load average: {}", load_average());
    let all = cli.attack == Attack::All;
    if all || cli.attack == Attack::Flood {
        flood(cli.games);
    }
    if all || cli.attack == Attack::Crowd {
        crowd(cli.games);
    }
    if all || cli.attack == Attack::Descriptors {
        descriptors();
    }
    if all || cli.attack == Attack::SilentSeed {
        silent_seed();
    }
    if all || cli.attack == Attack::ViewerChurn {
        viewer_churn(100_000);
    }
    if all || cli.attack == Attack::Viewers {
        viewers(1000);
    }
    if all || cli.attack == Attack::OutOfTurn {
        out_of_turn();
    }
    if all || cli.attack == Attack::InstantGames {
        instant_games(false);
        instant_games(true);
    }
    println!("load average: {}", load_average());
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A reversid with the per-address limits off (one loopback address plays every honest
/// game) but its log rated as by default.
fn server(args: &[&str]) -> Server {
    let mut all = vec!["--log-burst", "5"];
    all.extend_from_slice(args);
    Server::start(&all)
}

fn flood(games: usize) {
    let server = server(&["--listen-seed", "duell=127.0.0.1:0"]);
    let duell = server.seed_addr("duell");
    let floods: Vec<Flood> = Kind::ALL
        .into_iter()
        .map(|kind| {
            let at = if kind == Kind::Duell {
                duell
            } else {
                server.addr()
            };
            Flood::start(kind, at, 10)
        })
        .collect();
    std::thread::sleep(Duration::from_secs(1));
    let mut times = Vec::new();
    let mut peak = 0;
    let mut failed = 0;
    for i in 0..games {
        match honest_pair(server.addr(), loopback(i), Duration::from_secs(10)) {
            Some(took) => times.push(took),
            None => failed += 1,
        }
        peak = peak.max(resident(server.pid()));
    }
    let sent: u64 = floods.into_iter().map(Flood::stop).sum();
    println!(
        "flood: 40 flooders sent {} MiB; {} honest games started ({failed} not within 10 s): \
         start p50 {:?} p99 {:?} max {:?}; supervisor RSS peak {:.1} MiB",
        sent >> 20,
        times.len(),
        quantile(&mut times, 0.5),
        quantile(&mut times, 0.99),
        quantile(&mut times, 1.0),
        peak as f64 / f64::from(1 << 20)
    );
}

fn crowd(games: usize) {
    let server = server(&["--max-pending-per-address", "16"]);
    let addr = server.addr();
    let stop = Arc::new(AtomicBool::new(false));
    let crowd = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || hold_crowd(addr, &stop))
    };
    // Two log periods of the crowd alone: what it costs the log.
    std::thread::sleep(Duration::from_secs(1));
    let quiet_from: usize = server.logs().iter().map(|l| l.len() + 1).sum();
    std::thread::sleep(Duration::from_secs(20));
    let logged_before: usize = server.logs().iter().map(|l| l.len() + 1).sum();
    let crowd_per_minute = (logged_before - quiet_from) * 3;
    let started = Instant::now();
    let mut within = 0;
    for i in 0..games {
        if honest_pair(addr, loopback(i), Duration::from_secs(2)).is_some() {
            within += 1;
        }
    }
    let elapsed = started.elapsed();
    let logged_after: usize = server.logs().iter().map(|l| l.len() + 1).sum();
    stop.store(true, Ordering::Relaxed);
    let opened = crowd.join().unwrap_or(0);
    let per_game = (logged_after - logged_before) / games.max(1);
    println!(
        "crowd: {opened} idle connections opened from 334 addresses; {within} of {games} honest \
         games started within 2 s ({:.1}%, in {elapsed:?}); log: {crowd_per_minute} bytes a \
         minute from the crowd alone, then {per_game} bytes per honest game",
        100.0 * within as f64 / games as f64,
    );
}

/// Keeps about 5,000 idle connections open (15 from each of 334 addresses), opening new
/// ones as the server closes old ones, until `stop`, for at most 2 minutes; returns how
/// many it opened.
fn hold_crowd(addr: std::net::SocketAddr, stop: &AtomicBool) -> usize {
    let mut held: VecDeque<TcpStream> = VecDeque::new();
    let mut opened = 0;
    let until = Instant::now() + Duration::from_secs(120);
    let mut next = 0usize;
    while !stop.load(Ordering::Relaxed) && Instant::now() < until {
        if let Ok(stream) = connect_from(spread(next % 334), addr) {
            held.push_back(stream);
            opened += 1;
        }
        next += 1;
        if held.len() > 334 * 15 {
            held.pop_front();
        }
        if opened % 100 == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    opened
}

fn descriptors() {
    let server = Server::start_with_nofile(&[], 256);
    let idle: Vec<TcpStream> = (0..200)
        .filter_map(|_| TcpStream::connect(server.addr()).ok())
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let pair = honest_pair(server.addr(), loopback(0), Duration::from_secs(10));
    println!(
        "descriptors: RLIMIT_NOFILE 256, {} idle connections: honest pair {}",
        idle.len(),
        match pair {
            Some(took) => format!("started in {took:?} (1 of 1)"),
            None => "did not start (0 of 1)".to_owned(),
        }
    );
}

fn silent_seed() {
    let server = server(&["--listen-seed", "duell=127.0.0.1:0"]);
    let duell = server.seed_addr("duell");
    let connected = Instant::now();
    let silent: Vec<TcpStream> = (0..1000)
        .filter_map(|i| connect_from(loopback(i % 50), duell).ok())
        .collect();
    std::thread::sleep(Duration::from_secs(3));
    let sessions = server
        .logs()
        .iter()
        .filter(|l| l.contains("] session ") && l.contains(" started: game "))
        .count();
    // Every game's end closes its connections: the last close is when the last game ended.
    for mut stream in &silent {
        let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
        let mut sink = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stream, &mut sink);
    }
    println!(
        "silent-seed: {} silent connections on the Duell listener: {sessions} sessions started; \
         the last was closed {:?} after the first connected (handshake timeout 10 s, first-move \
         clock 30 s)",
        silent.len(),
        connected.elapsed()
    );
    let _ = std::io::stdout().flush();
}

fn log_bytes(server: &Server) -> usize {
    server.logs().iter().map(|l| l.len() + 1).sum()
}

fn viewer_churn(cycles: usize) {
    let server = server(&["--fixed-colours", "--max-pending-per-address", "64"]);
    let _players = text_players(server.addr(), "tictactoe");
    let id = newest_game_id(server.addr());
    let pid = session_pid(&server, id);
    let before = open_descriptors(pid);
    let logged = log_bytes(&server);
    let started = Instant::now();
    let threads = 8;
    let refused: usize = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let addr = server.addr();
                scope.spawn(move || {
                    (t..cycles)
                        .step_by(threads)
                        .filter(|i| watch(addr, loopback(i % 800), id).is_err())
                        .count()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or(0)).sum()
    });
    let took = started.elapsed();
    std::thread::sleep(Duration::from_millis(500));
    let after = open_descriptors(pid);
    println!(
        "viewer-churn: {cycles} watch-and-close cycles in {took:?} ({refused} refused): session \
         {pid} had {before} descriptors before, {after} after; {} bytes logged",
        log_bytes(&server) - logged
    );
}

/// The mover's round trips over `games` binary Reversi games, each watched by `watchers`
/// text viewers.
fn timed_games(server: &Server, games: usize, watchers: usize) -> Vec<Duration> {
    let mut rng = reversi_tests::Rng::new(7);
    let mut times = Vec::new();
    for _ in 0..games {
        let (mut black, mut white) = server.pair();
        let id = newest_game_id(server.addr());
        let watching: Vec<TcpStream> = (0..watchers)
            .filter_map(|i| {
                let mut s = connect_from(spread(i), server.addr()).ok()?;
                s.write_all(format!("GAME WATCH {id}\n").as_bytes()).ok()?;
                Some(s)
            })
            .collect();
        // Every viewer has been shown the board before the first move.
        std::thread::sleep(Duration::from_millis(500 + watchers as u64));
        times.extend(reversi_tests::play_out(&mut black, &mut white, &mut rng).round_trips);
        drop(watching);
    }
    times
}

fn viewers(watchers: usize) {
    let count = watchers.to_string();
    let server = server(&["--max-viewers", &count, "--max-viewers-per-address", &count]);
    let mut alone = timed_games(&server, 5, 0);
    let mut watched = timed_games(&server, 5, watchers);
    let (a50, w50) = (quantile(&mut alone, 0.5), quantile(&mut watched, 0.5));
    println!(
        "viewers: move round trip alone p50 {a50:?} p99 {:?}; with {watchers} viewers p50 \
         {w50:?} p99 {:?} ({:.2}x at the median)",
        quantile(&mut alone, 0.99),
        quantile(&mut watched, 0.99),
        w50.as_secs_f64() / a50.as_secs_f64().max(1e-9)
    );
}

/// Round trips of refused moves by the player to move for `span`, then how late its
/// first-move clock (`clock`, from its first READY) fires; the opponent floods if `flood`.
fn refused_moves(
    server: &Server,
    flood: bool,
    span: Duration,
    clock: Duration,
) -> (Vec<Duration>, Duration) {
    let (mut honest, other) = text_players(server.addr(), "reversi");
    honest.expect("READY");
    let ready = Instant::now();
    let flooder = flood.then(|| LineFlood::start(other.stream().try_clone().unwrap(), "MOVE d3\n"));
    let mut times = Vec::new();
    while ready.elapsed() < span {
        let sent = Instant::now();
        honest.send("MOVE a1");
        honest.expect("ERROR");
        honest.next_is("READY");
        times.push(sent.elapsed());
    }
    honest.expect("GAME ABORTED");
    let late = ready.elapsed().saturating_sub(clock);
    if let Some(f) = flooder {
        f.stop();
    }
    (times, late)
}

fn out_of_turn() {
    let server = server(&["--fixed-colours", "--first-move-timeout", "3"]);
    let (span, clock) = (Duration::from_millis(2500), Duration::from_secs(3));
    let (mut alone, late_alone) = refused_moves(&server, false, span, clock);
    let (mut flooded, late_flooded) = refused_moves(&server, true, span, clock);
    let (a50, f50) = (quantile(&mut alone, 0.5), quantile(&mut flooded, 0.5));
    println!(
        "out-of-turn: refused-move round trip alone p50 {a50:?} p99 {:?}, clock late {late_alone:?}; \
         under an out-of-turn flood p50 {f50:?} p99 {:?} ({:.2}x at the median), clock late \
         {late_flooded:?}",
        quantile(&mut alone, 0.99),
        quantile(&mut flooded, 0.99),
        f50.as_secs_f64() / a50.as_secs_f64().max(1e-9)
    );
}

/// Item 5: one address starts and loses Tic-Tac-Toe games as fast as it can for 10 s,
/// with the game-start budget as by default if `budget`, else with none.
fn instant_games(budget: bool) {
    let records = reversi_tests::scratch::Scratch::new("attack-records");
    let dir = records.path().to_str().unwrap_or_default().to_owned();
    let mut args = vec!["--fixed-colours", "--record-dir", &dir];
    if budget {
        args.extend(["--game-starts-per-address", "30", "--game-start-rate", "30"]);
    }
    let server = server(&args);
    let logged = log_bytes(&server);
    let span = Duration::from_secs(10);
    let started = Instant::now();
    let (mut lost, mut refused, mut failed) = (0, 0, 0);
    let mut told = None;
    while started.elapsed() < span {
        match instant_game(server.addr(), loopback(0)) {
            InstantGame::Lost => lost += 1,
            InstantGame::Refused(why) => {
                refused += 1;
                told.get_or_insert(why);
                // As fast as an attacker would retry, short of melting the machine.
                std::thread::sleep(Duration::from_millis(20));
            }
            InstantGame::Failed => failed += 1,
        }
    }
    let took = started.elapsed();
    // The last sessions end and write their records.
    std::thread::sleep(Duration::from_secs(3));
    println!(
        "instant-games ({}): {lost} games in {took:.1?} from one address ({:.1} a second), \
         {refused} refused, {failed} failed; {} record files written; {} bytes logged; told: {}",
        if budget {
            "budget as by default"
        } else {
            "no budget"
        },
        lost as f64 / took.as_secs_f64(),
        records.entries().len(),
        log_bytes(&server) - logged,
        told.as_deref().unwrap_or("-")
    );
}
