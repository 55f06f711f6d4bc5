//! A tournament survives its server stopped in the middle of a round and started again on
//! the same data directory (spec/TOURNAMENTS.md §6): a round-robin of four signed-in text
//! players, slow enough that round 2's games are running when the server is stopped, carries
//! on under the new server to a whole crosstable.
//!
//! SIGTERM drains: the running games play to their end and count, and the new server pairs
//! the next round. SIGKILL leaves the sessions playing on without their supervisor: the new
//! server never hears their results, so it calls those games again and they are replayed.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;
use std::time::Duration;

use reversi_tests::scratch::Scratch;
use reversi_tests::tournament::{
    answer, loopback, play_all, register, standings, wait_finished, Address, Control, Player, Seen,
};
use reversi_tests::{Server, Signal};

const NAMES: [&str; 4] = ["Ann", "Bob", "Cat", "Dan"];

fn server(data: &Scratch) -> Server {
    let dir = data.path().to_str().unwrap();
    Server::start(&["--data-dir", dir, "--organisers", "Org", "--grace", "30"])
}

/// Creates tournament 1 (a single round-robin), registers `players`, starts it.
fn set_up(server: &Server, players: &[Player]) {
    let addr = server.addr();
    let mut org = register(addr, loopback(0), "Org");
    answer(
        &mut org,
        "GAME TOURNAMENT CREATE name=Restart game=tictactoe format=rr time=move:30",
    );
    answer(&mut org, "GAME TOURNAMENT OPEN 1");
    for p in players {
        let mut c = register(addr, p.from(), &p.name);
        assert_eq!(
            answer(&mut c, "GAME TOURNAMENT REGISTER 1"),
            "GAME NEWS registered for Restart"
        );
    }
    assert_eq!(
        answer(&mut org, "GAME TOURNAMENT START 1"),
        "GAME TOURNAMENT 1 running 1 3 4 tictactoe rr move:30 Restart"
    );
}

/// Runs the tournament, stops the first server with `signal` once round 2's games have run a
/// moment, starts a second one on the same data; returns what each player saw, by
/// (round, board), and the final standings.
fn stopped_mid_round(signal: Signal) -> (BTreeMap<(u32, u32), usize>, Vec<String>, usize) {
    let data = Scratch::new("tournament-restart");
    let mut first = server(&data);
    let players: Vec<Player> = (0..4u32)
        .map(|n| Player {
            // A move every 150 ms: a game lasts a second or more.
            think: Duration::from_millis(150),
            ..Player::numbered(n, NAMES[n as usize])
        })
        .collect();
    set_up(&first, &players);
    let address = Address::new(first.addr());
    let control = Control::new();
    let threads = play_all(&address, &players, 1, &control);
    first.wait_log("tournament 1 round 2 board 1: game");
    first.wait_log("tournament 1 round 2 board 2: game");
    std::thread::sleep(Duration::from_millis(300));
    first.signal(signal);
    first.wait_exit();
    let second = server(&data);
    second.wait_log("1 tournaments restored");
    address.set(second.addr());
    let line = wait_finished(&address, 1, Duration::from_secs(60));
    control.done.store(true, Ordering::Relaxed);
    assert_eq!(
        line,
        "GAME TOURNAMENT 1 finished 3 3 4 tictactoe rr move:30 Restart"
    );
    let mut boards: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for seen in threads.into_iter().flat_map(|t| t.join().unwrap()) {
        if let Seen::Game { paired, .. } = seen {
            let words: Vec<u32> = paired
                .split_whitespace()
                .skip(3)
                .take(2)
                .map(|w| w.parse().unwrap())
                .collect();
            *boards.entry((words[0], words[1])).or_default() += 1;
        }
    }
    let (table, games) = standings(second.addr(), 1);
    println!("{}\n{boards:?}\n{games:?}", table.join("\n"));
    whole(&table, &games);
    let restarted_with = second
        .logs()
        .iter()
        .filter(|l| l.contains("tournament 1 round "))
        .count();
    (boards, table, restarted_with)
}

/// Every player has a result in every round (no game still playing, none forfeited), the
/// points add up to one a game, and every board's game ended with an archived record.
fn whole(table: &[String], games: &[Vec<String>]) {
    assert_eq!(table.len(), 5, "a header and four players: {table:?}");
    let mut points = 0.0;
    for row in &table[1..] {
        let words: Vec<&str> = row.split_whitespace().collect();
        points += words[2].parse::<f64>().unwrap();
        for cell in &words[3..6] {
            let result = cell.chars().last().unwrap();
            assert!(
                cell.len() == 3 && "10=".contains(result),
                "{row}: {cell} is not a game played to its end"
            );
        }
    }
    assert_eq!(points, 6.0, "six games: {table:?}");
    let played: BTreeSet<(&str, &str)> = games
        .iter()
        .map(|g| (g[0].as_str(), g[1].as_str()))
        .collect();
    assert_eq!(played.len(), 6, "three rounds of two boards: {games:?}");
    assert!(
        games.iter().all(|g| g[3] == "ended" && g.len() == 5),
        "every game ended with a record: {games:?}"
    );
}

#[test]
fn a_tournament_stopped_by_sigterm_mid_round_carries_on_after_a_restart() {
    let (boards, _, restarted_with) = stopped_mid_round(Signal::SIGTERM);
    // The drained games counted: the new server played round 3 only.
    assert!(
        boards.values().all(|&n| n == 2),
        "each game once, seen by both: {boards:?}"
    );
    assert_eq!(
        restarted_with, 2,
        "round 3's two games under the new server"
    );
}

#[test]
fn a_tournament_killed_mid_round_replays_the_round_s_games_after_a_restart() {
    let (boards, _, restarted_with) = stopped_mid_round(Signal::SIGKILL);
    // Round 2's games ran on without a supervisor; the new server called them again.
    for board in [1, 2] {
        assert_eq!(boards[&(2, board)], 4, "round 2 played twice: {boards:?}");
    }
    assert_eq!(restarted_with, 4, "round 2 replayed, round 3 played");
    for round in [1, 3] {
        for board in [1, 2] {
            assert_eq!(boards[&(round, board)], 2, "{boards:?}");
        }
    }
}
