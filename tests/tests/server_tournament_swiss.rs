//! A Swiss of nine signed-in text players over five rounds at Tic-Tac-Toe, run by the real
//! reversid from registration to final standings (spec/TOURNAMENTS.md §1.2, §3, §7): no pair
//! meets twice, one bye a round and never two to one player, sides balanced, points adding
//! up, and the Buchholz tie-breaks of the crosstable as C.07 computes them from the games.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;
use std::time::Duration;

use reversi_tests::tournament::{
    answer, loopback, play, register, standings, wait_finished, Address, Control, Player, Seen,
};
use reversi_tests::Server;

const NAMES: [&str; 9] = [
    "Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy",
];
const ROUNDS: usize = 5;

/// One game as both its players saw it: round, first, second, and the first's score in
/// half points (2 won, 1 drawn, 0 lost).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Game {
    round: u32,
    first: String,
    second: String,
    first_halves: u32,
}

fn game_of(paired: &str, over: &str) -> Game {
    let words: Vec<&str> = paired.split_whitespace().collect();
    let first_halves = match over.split_whitespace().nth(2) {
        Some("1") => 2,
        Some("2") => 0,
        Some("DRAW") => 1,
        other => panic!("{over}: {other:?}"),
    };
    Game {
        round: words[3].parse().unwrap(),
        first: words[5].to_owned(),
        second: words[6].to_owned(),
        first_halves,
    }
}

/// A crosstable row: name, points, the round cells, the tie-breaks (BH-C1, BH, BH-M1).
struct Row {
    name: String,
    points: f64,
    cells: Vec<String>,
    tie_breaks: Vec<f64>,
}

fn rows(table: &[String]) -> Vec<Row> {
    let header: Vec<&str> = table[0].split_whitespace().collect();
    assert_eq!(
        header,
        ["#", "Name", "Pts", "R1", "R2", "R3", "R4", "R5", "BH-C1", "BH", "BH-M1"]
    );
    table[1..]
        .iter()
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            Row {
                name: words[1].to_owned(),
                points: words[2].parse().unwrap(),
                cells: words[3..3 + ROUNDS].iter().map(|w| w.to_string()).collect(),
                tie_breaks: words[3 + ROUNDS..]
                    .iter()
                    .map(|w| w.parse().unwrap())
                    .collect(),
            }
        })
        .collect()
}

/// Creates tournament 1 (a Swiss of five rounds), registers `players`, starts it.
fn set_up(server: &Server, players: &[Player]) {
    let addr = server.addr();
    let mut org = register(addr, loopback(0), "Org");
    assert_eq!(
        answer(
            &mut org,
            "GAME TOURNAMENT CREATE name=Swiss_Nine game=tictactoe format=swiss:5 time=move:30"
        ),
        "GAME TOURNAMENT 1 created 0 5 0 tictactoe swiss:5 move:30 Swiss Nine"
    );
    answer(&mut org, "GAME TOURNAMENT OPEN 1");
    for p in players {
        let mut c = register(addr, p.from(), &p.name);
        assert_eq!(
            answer(&mut c, "GAME TOURNAMENT REGISTER 1"),
            "GAME NEWS registered for Swiss Nine"
        );
    }
    assert_eq!(
        answer(&mut org, "GAME TOURNAMENT START 1"),
        "GAME TOURNAMENT 1 running 1 5 9 tictactoe swiss:5 move:30 Swiss Nine"
    );
}

#[test]
fn a_swiss_of_nine_over_five_rounds_keeps_its_rules_end_to_end() {
    let server = Server::start(&["--organisers", "Org", "--grace", "30"]);
    let players: Vec<Player> = (0..9u32)
        .map(|n| Player::numbered(n, NAMES[n as usize]))
        .collect();
    set_up(&server, &players);
    let address = Address::new(server.addr());
    let control = Control::new();
    let threads: Vec<_> = players
        .iter()
        .map(|p| {
            let (address, p, control) = (address.clone(), p.clone(), control.clone());
            std::thread::spawn(move || (p.name.clone(), play(&address, &p, 1, &control)))
        })
        .collect();
    let line = wait_finished(&address, 1, Duration::from_secs(120));
    control.done.store(true, Ordering::Relaxed);
    assert_eq!(
        line,
        "GAME TOURNAMENT 1 finished 5 5 9 tictactoe swiss:5 move:30 Swiss Nine"
    );
    let seen: BTreeMap<String, Vec<Seen>> =
        threads.into_iter().map(|t| t.join().unwrap()).collect();
    let (table, boards) = standings(server.addr(), 1);
    println!("{}", table.join("\n"));
    check(&seen, &rows(&table));
    assert_eq!(boards.len(), 20, "four boards a round: {boards:?}");
    assert!(boards.iter().all(|b| b[3] == "ended"), "{boards:?}");
}

/// Every rule the test checks, on what the players saw and the final crosstable.
fn check(seen: &BTreeMap<String, Vec<Seen>>, rows: &[Row]) {
    let games = games(seen);
    assert_eq!(games.len(), 4 * ROUNDS, "four games a round: {games:?}");
    no_pair_meets_twice(&games);
    let byes = one_bye_a_round(rows);
    sides_balanced(&games);
    let points = points_add_up(&games, &byes, rows);
    buchholz_as_published(&games, &byes, &points, rows);
}

/// The games, each seen by both its players alike.
fn games(seen: &BTreeMap<String, Vec<Seen>>) -> Vec<Game> {
    let mut count: BTreeMap<Game, usize> = BTreeMap::new();
    for (name, things) in seen {
        for thing in things {
            if let Seen::Game { paired, over } = thing {
                let game = game_of(paired, over);
                assert!(
                    game.first == *name || game.second == *name,
                    "{name}: {paired}"
                );
                *count.entry(game).or_default() += 1;
            }
        }
    }
    assert!(
        count.values().all(|&n| n == 2),
        "each game seen by both players: {count:?}"
    );
    count.into_keys().collect()
}

fn no_pair_meets_twice(games: &[Game]) {
    let pairs: BTreeSet<BTreeSet<&str>> = games
        .iter()
        .map(|g| [g.first.as_str(), g.second.as_str()].into())
        .collect();
    assert_eq!(pairs.len(), games.len(), "a pair met twice: {games:?}");
}

/// One bye in each round's column, never two in one player's row; returns (round, name).
fn one_bye_a_round(rows: &[Row]) -> Vec<(usize, String)> {
    let mut byes = Vec::new();
    for round in 0..ROUNDS {
        let had: Vec<&str> = rows
            .iter()
            .filter(|r| r.cells[round] == "bye")
            .map(|r| r.name.as_str())
            .collect();
        assert_eq!(had.len(), 1, "round {}: byes to {had:?}", round + 1);
        byes.push((round + 1, had[0].to_owned()));
    }
    let players: BTreeSet<&String> = byes.iter().map(|(_, name)| name).collect();
    assert_eq!(
        players.len(),
        ROUNDS,
        "a second bye to one player: {byes:?}"
    );
    byes
}

/// Sides as balanced as the rules allow (C.04.3 A.6, C.3, E.1-E.5): never the same side three
/// times running; a player's difference (games first minus games second) never beyond ±2, and
/// once at ±2 (an absolute preference, always granted) its next game brings it back. A ±2 can
/// stand at the end only when the last game made it: two players with the same strong
/// preference (±1) met, and E.3/E.4 gave it to one of them. (Parity: the five players with a
/// bye play four games, so they end at 0 or ±2, the four others at ±1.)
fn sides_balanced(games: &[Game]) {
    let mut sides: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for g in games {
        sides.entry(&g.first).or_default().push(1);
        sides.entry(&g.second).or_default().push(-1);
    }
    for (name, list) in &sides {
        let running: Vec<i32> = list
            .iter()
            .scan(0, |d, s| {
                *d += s;
                Some(*d)
            })
            .collect();
        println!("{name}: sides {list:?}, differences {running:?}");
        assert!(running.iter().all(|d| d.abs() <= 2), "{name}: {running:?}");
        assert!(
            running.windows(2).all(|w| w[0].abs() < 2 || w[1].abs() < 2),
            "{name}: an absolute preference not granted: {running:?}"
        );
        assert!(
            !list.windows(3).any(|w| w[0] == w[1] && w[1] == w[2]),
            "{name}: the same side three times running: {list:?}"
        );
    }
}

/// Each player's points from its games and bye (a bye scores a win, §2) match its row, and
/// they add up to one point a game and a bye.
fn points_add_up(games: &[Game], byes: &[(usize, String)], rows: &[Row]) -> BTreeMap<String, f64> {
    let mut halves: BTreeMap<String, u32> = rows.iter().map(|r| (r.name.clone(), 0)).collect();
    for g in games {
        *halves.get_mut(&g.first).unwrap() += g.first_halves;
        *halves.get_mut(&g.second).unwrap() += 2 - g.first_halves;
    }
    for (_, name) in byes {
        *halves.get_mut(name).unwrap() += 2;
    }
    let points: BTreeMap<String, f64> = halves
        .into_iter()
        .map(|(name, h)| (name, f64::from(h) / 2.0))
        .collect();
    for row in rows {
        assert_eq!(row.points, points[&row.name], "{}'s points", row.name);
    }
    let total: f64 = rows.iter().map(|r| r.points).sum();
    assert_eq!(total, (4 * ROUNDS + ROUNDS) as f64, "20 games and 5 byes");
    points
}

/// Buchholz (FIDE Tie-Break Regulations, Handbook C.07 art. 8.1: "the sum of the scores of
/// each of the opponents of a participant"), a bye counting the player's own score (art.
/// 16.4's dummy opponent, as spec/TOURNAMENTS.md §3 simplifies it); Cut-1 drops the lowest
/// contribution, Median-1 the lowest and the highest (art. 14). Rows are ranked by points,
/// then these.
fn buchholz_as_published(
    games: &[Game],
    byes: &[(usize, String)],
    points: &BTreeMap<String, f64>,
    rows: &[Row],
) {
    for row in rows {
        let mut parts: Vec<f64> = games
            .iter()
            .filter_map(|g| {
                let opponent = match row.name.as_str() {
                    n if n == g.first => &g.second,
                    n if n == g.second => &g.first,
                    _ => return None,
                };
                Some(points[opponent])
            })
            .collect();
        let own = points[&row.name];
        parts.extend(byes.iter().filter(|(_, n)| *n == row.name).map(|_| own));
        parts.sort_by(f64::total_cmp);
        let bh: f64 = parts.iter().sum();
        let cut1 = bh - parts[0];
        let median1 = cut1 - parts[parts.len() - 1];
        assert_eq!(
            row.tie_breaks,
            [cut1, bh, median1],
            "{}: {parts:?}",
            row.name
        );
    }
    let keys: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| [vec![r.points], r.tie_breaks.clone()].concat())
        .collect();
    assert!(
        keys.windows(2).all(|w| w[0] >= w[1]),
        "ranked by points then tie-breaks: {keys:?}"
    );
}
