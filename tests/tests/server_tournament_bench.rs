//! The 64-player benchmark (issue 27): a single round-robin of 64 signed-in text players at
//! Tic-Tac-Toe, 2,016 games in 63 rounds of 32, run to the end by the real reversid. It prints
//! the wall time and the supervisor's loop stall while a round of 32 games starts at once:
//! the players stay away after their 31st game, so round 32 is paired with nobody there; the
//! organiser pauses the tournament, the players come back to wait, and the organiser resumes
//! it: round 32's 32 games start in one tick of the director. `/metrics`
//! (`reversid_loop_turn_longest_seconds` and the `reversid_loop_turn_seconds` buckets) is
//! read before the resume and once the 32 games have started.
//!
//! A benchmark, so `#[ignore]`d: run it with scripts/bench-tournament.sh (a release build,
//! one benchmark at a time).
//!
//! Players come from loopback addresses of their own (registrations: 5 per address, then one
//! per 10 minutes) and sign in with API tokens in turn, nine sign-ins each (a token is limited
//! as an account is, 10 at once then one per 30 s; an address 20 at once then one per 3 s).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use reversi_tests::text::TextClient;
use reversi_tests::tournament::{
    answer, get, loopback, play_all, register, sign_in, standings, tournament_line, wait_finished,
    Address, Control, Player, PASSWORD, SIGN_INS_EACH,
};
use reversi_tests::Server;

/// The field: 64 players, or as many (even) as REVERSI_BENCH_PLAYERS says, for a smaller
/// run that tries the benchmark out.
fn players() -> u32 {
    let n: u32 = std::env::var("REVERSI_BENCH_PLAYERS").map_or(64, |v| v.parse().unwrap());
    assert!(n >= 4 && n.is_multiple_of(2), "an even field of 4 or more");
    n
}

/// Sign-ins a player needs (one a game, and some to spare), in addresses and tokens.
fn credentials(players: u32) -> u32 {
    (players as usize + 8).div_ceil(SIGN_INS_EACH) as u32
}

/// Registers player `n` from its first address and makes its API tokens, each to be used
/// from an address of its own.
fn enrolled(addr: SocketAddr, n: u32, credentials: u32) -> Player {
    let name = format!("P{n:02}");
    let first = loopback(1 + n * credentials);
    let mut c = register(addr, first, &name);
    assert_eq!(
        answer(&mut c, "GAME TOURNAMENT REGISTER 1"),
        format!("GAME NEWS registered for Bench")
    );
    c.expect("GAME TOURNAMENT 1 open ");
    let credentials = (0..credentials)
        .map(|k| {
            let line = answer(&mut c, &format!("GAME APITOKEN NEW bench {k}"));
            let token = line.split_whitespace().nth(3).expect("a token").to_owned();
            (
                loopback(1 + n * credentials + k),
                format!("GAME SIGNIN {token}"),
            )
        })
        .collect();
    Player {
        credentials,
        ..Player::numbered(n, &name)
    }
}

/// The organiser, signed in again.
fn organiser(addr: SocketAddr) -> TextClient {
    sign_in(addr, loopback(0), &format!("GAME SIGNIN Org {PASSWORD}")).expect("Org signs in")
}

/// The loop's longest recent turn and the turn histogram's cumulative buckets.
#[derive(Debug)]
struct Turns {
    longest: f64,
    longest_cpu: f64,
    buckets: BTreeMap<String, u64>,
}

fn turns(addr: SocketAddr) -> Turns {
    let page = get(addr, "/metrics");
    let mut longest = f64::NAN;
    let mut longest_cpu = f64::NAN;
    let mut buckets = BTreeMap::new();
    for line in page.lines() {
        if let Some(v) = line.strip_prefix("reversid_loop_turn_longest_seconds ") {
            longest = v.trim().parse().unwrap();
        } else if let Some(v) = line.strip_prefix("reversid_loop_turn_cpu_longest_seconds ") {
            longest_cpu = v.trim().parse().unwrap();
        } else if let Some(rest) = line.strip_prefix("reversid_loop_turn_seconds_bucket{le=\"") {
            let (le, count) = rest.split_once("\"} ").unwrap();
            buckets.insert(le.to_owned(), count.trim().parse().unwrap());
        }
    }
    assert!(!longest.is_nan(), "no loop metrics: {page}");
    Turns {
        longest,
        longest_cpu,
        buckets,
    }
}

/// The turns between two readings, by bucket (non-cumulative: each bucket's own count).
fn turns_between(before: &Turns, after: &Turns) -> Vec<(String, u64)> {
    let mut bounds: Vec<(f64, &String)> = after
        .buckets
        .keys()
        .map(|le| (le.parse().unwrap_or(f64::INFINITY), le))
        .collect();
    bounds.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut below = 0;
    let mut out = Vec::new();
    for (_, le) in bounds {
        let cumulative = after.buckets[le] - before.buckets.get(le).copied().unwrap_or(0);
        if cumulative > below {
            out.push((le.clone(), cumulative - below));
        }
        below = cumulative;
    }
    out
}

#[test]
#[ignore = "a benchmark: scripts/bench-tournament.sh runs it on a release build"]
fn a_round_robin_of_sixty_four_plays_its_two_thousand_and_sixteen_games() {
    let n = players();
    let (rounds, boards_a_round) = (n - 1, n / 2);
    let games = (rounds * boards_a_round) as usize;
    // The round held back to start all at once: the middle one.
    let held_round = n / 2;
    let server = Server::start(&["--organisers", "Org", "--grace", "60", "--metrics"]);
    let addr = server.addr();
    let mut org = register(addr, loopback(0), "Org");
    answer(
        &mut org,
        "GAME TOURNAMENT CREATE name=Bench game=tictactoe format=rr time=move:30",
    );
    answer(&mut org, "GAME TOURNAMENT OPEN 1");
    let players: Vec<Player> = (0..n).map(|i| enrolled(addr, i, credentials(n))).collect();
    let address = Address::new(addr);
    let control = Control::new();
    control
        .hold_after
        .store(held_round as usize - 1, Ordering::Relaxed);
    let began = Instant::now();
    assert_eq!(
        answer(&mut org, "GAME TOURNAMENT START 1"),
        format!("GAME TOURNAMENT 1 running 1 {rounds} {n} tictactoe rr move:30 Bench")
    );
    let threads = play_all(&address, &players, 1, &control);

    // Round 32 paired with every player away; paused; the players back; the loop idle past
    // the gauge's window; then resumed.
    let running = format!("GAME TOURNAMENT 1 running {held_round} ");
    while !tournament_line(addr, 1).is_some_and(|l| l.starts_with(&running)) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let paused_at = Instant::now();
    // A connection left idle is closed (the handshake timeout): the organiser comes back.
    let mut org = organiser(addr);
    let paused = answer(&mut org, "GAME TOURNAMENT PAUSE 1");
    assert!(paused.starts_with("GAME TOURNAMENT 1 paused "), "{paused}");
    control.hold_after.store(usize::MAX, Ordering::Relaxed);
    std::thread::sleep(Duration::from_secs(25));
    let before = turns(addr);
    let mut org = organiser(addr);
    let resumed_at = Instant::now();
    answer(&mut org, "GAME TOURNAMENT RESUME 1");
    server.wait_logs(
        &format!("tournament 1 round {held_round} board "),
        boards_a_round as usize,
    );
    let started_in = resumed_at.elapsed();
    let after = turns(addr);
    let held = resumed_at - paused_at;

    let finished = wait_finished(&address, 1, Duration::from_secs(3600));
    let wall = began.elapsed();
    control.done.store(true, Ordering::Relaxed);
    let played: usize = threads.into_iter().map(|t| t.join().unwrap().len()).sum();
    let (table, boards) = standings(addr, 1);
    assert_eq!(
        finished,
        format!("GAME TOURNAMENT 1 finished {rounds} {rounds} {n} tictactoe rr move:30 Bench")
    );
    assert_eq!(boards.len(), games);
    assert_eq!(played, 2 * games, "every game seen by both its players");
    let points: f64 = table[1..]
        .iter()
        .map(|r| r.split_whitespace().nth(2).unwrap().parse::<f64>().unwrap())
        .sum();
    assert_eq!(points, games as f64);

    let playing = wall - held;
    println!(
        "{n}-player round-robin at Tic-Tac-Toe: {games} games in {rounds} rounds of {boards_a_round}"
    );
    println!(
        "wall time {:.1} s from START to finished ({:.1} s of it held in the pause): {:.1} s of play, {:.1} games/s",
        wall.as_secs_f64(),
        held.as_secs_f64(),
        playing.as_secs_f64(),
        games as f64 / playing.as_secs_f64()
    );
    println!(
        "round {held_round}'s {boards_a_round} games started {:.3} s after RESUME",
        started_in.as_secs_f64()
    );
    println!(
        "reversid_loop_turn_longest_seconds: {:.6} before the resume (idle), {:.6} after the {boards_a_round} starts",
        before.longest, after.longest
    );
    println!(
        "reversid_loop_turn_cpu_longest_seconds (the loop thread's own CPU time): {:.6} before, {:.6} after",
        before.longest_cpu, after.longest_cpu
    );
    println!("loop turns from before the resume to after the {boards_a_round} starts, by bucket (le: count):");
    for (le, count) in turns_between(&before, &after) {
        println!("  le={le}: {count}");
    }
}
