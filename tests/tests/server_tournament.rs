//! A tournament run by the real reversid (spec/TOURNAMENTS.md §7): an organiser creates a
//! double round-robin of Tic-Tac-Toe, four signed-in text players register, wait with
//! `GAME TOURNAMENT PLAY` and are seated round after round; the crosstable over the text
//! protocol adds up at the end.

use std::collections::{BTreeMap, HashSet};
use std::net::SocketAddr;

use reversi_tests::text::TextClient;
use reversi_tests::tournament::{answer, get, PASSWORD, SQUARES};
use reversi_tests::Server;

/// A connection signed in as `name` (registered first when `new`). Every player signs in
/// again for each game from the same address: past the sign-in limit's burst it waits its turn.
fn signed_in(addr: SocketAddr, name: &str, new: bool) -> TextClient {
    let verb = if new { "REGISTER" } else { "SIGNIN" };
    loop {
        // A fresh connection each try: the handshake timeout runs through refused tries.
        let mut c = TextClient::connect(addr);
        c.send(&format!("GAME {verb} {name} {PASSWORD}"));
        let line = c.recv().expect("an answer to the sign-in");
        if line.starts_with("ERROR too many sign-in attempts") {
            std::thread::sleep(std::time::Duration::from_secs(1));
            continue;
        }
        assert_eq!(line, format!("GAME SIGNEDIN {name}"));
        return c;
    }
}

/// What a player saw of one game: its `GAME PAIRED` line and how it ended.
struct Played {
    paired: String,
    over: String,
}

/// Plays `games` tournament games as `name`, each on a fresh connection: the first free
/// square on every turn.
fn player(addr: SocketAddr, name: &str, games: usize) -> Vec<Played> {
    let mut played = Vec::new();
    while played.len() < games {
        let mut c = signed_in(addr, name, false);
        c.send("GAME TOURNAMENT PLAY 1");
        c.next_is("GAME NEWS waiting for your games of tournament 1");
        let paired = c.expect("GAME PAIRED 1 ");
        let news = c.expect("GAME NEWS ");
        assert!(news.ends_with("your game is starting"), "{news}");
        let mut taken = HashSet::new();
        let over = loop {
            let line = c.recv().expect("the game goes on to its end");
            if let Some(rest) = line.strip_prefix("GAME MOVED ") {
                taken.insert(rest.split_whitespace().nth(1).unwrap().to_owned());
            } else if line == "READY" {
                let free = SQUARES.iter().find(|s| !taken.contains(**s)).unwrap();
                c.send(&format!("MOVE {free}"));
            } else if line.starts_with("GAME OVER") {
                break line;
            }
        };
        played.push(Played { paired, over });
    }
    played
}

#[test]
fn a_double_round_robin_of_four_runs_from_registration_to_final_standings() {
    let server = Server::start(&["--organisers", "Org", "--grace", "30"]);
    let addr = server.addr();
    let mut org = signed_in(addr, "Org", true);
    assert_eq!(
        answer(
            &mut org,
            "GAME TOURNAMENT CREATE name=Evening game=tictactoe format=rr2 time=move:30"
        ),
        "GAME TOURNAMENT 1 created 0 0 0 tictactoe rr2 move:30 Evening"
    );
    assert_eq!(
        answer(&mut org, "GAME TOURNAMENT OPEN 1"),
        "GAME TOURNAMENT 1 open 0 0 0 tictactoe rr2 move:30 Evening"
    );
    let players = ["Ann", "Bob", "Cat", "Dan"];
    for name in players {
        let mut c = signed_in(addr, name, true);
        assert_eq!(
            answer(&mut c, "GAME TOURNAMENT START 1"),
            "ERROR only tournament 1's organiser may do that"
        );
        assert_eq!(
            answer(&mut c, "GAME TOURNAMENT REGISTER 1"),
            "GAME NEWS registered for Evening"
        );
        c.expect("GAME TOURNAMENT 1 open ");
    }
    assert_eq!(
        answer(&mut org, "GAME TOURNAMENT START 1"),
        "GAME TOURNAMENT 1 running 1 6 4 tictactoe rr2 move:30 Evening"
    );
    drop(org);
    let threads: Vec<_> = players
        .iter()
        .map(|&name| std::thread::spawn(move || player(addr, name, 6)))
        .collect();
    let seen: Vec<Played> = threads
        .into_iter()
        .flat_map(|t| t.join().expect("a player played its six games"))
        .collect();

    // Every ordered pair met once: each pair twice, once with each side.
    let mut pairs: BTreeMap<(String, String), usize> = BTreeMap::new();
    for p in &seen {
        let words: Vec<&str> = p.paired.split_whitespace().collect();
        *pairs
            .entry((words[5].to_owned(), words[6].to_owned()))
            .or_default() += 1;
        assert!(p.over.starts_with("GAME OVER "), "{}", p.over);
    }
    assert_eq!(pairs.len(), 12, "{pairs:?}");
    assert!(
        pairs.values().all(|&n| n == 2),
        "each game seen by both players: {pairs:?}"
    );

    let mut watcher = TextClient::connect(addr);
    let line = loop {
        watcher.send("GAME TOURNAMENTS");
        let line = watcher.expect("GAME TOURNAMENT 1 ");
        watcher.expect("GAME TOURNAMENTS 1");
        if line.contains(" finished ") {
            break line;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert_eq!(
        line,
        "GAME TOURNAMENT 1 finished 6 6 4 tictactoe rr2 move:30 Evening"
    );
    watcher.send("GAME STANDINGS 1");
    let mut table = Vec::new();
    let mut records = Vec::new();
    loop {
        let line = watcher.recv().expect("the standings");
        if let Some(row) = line.strip_prefix("GAME CROSSTABLE 1 ") {
            table.push(row.to_owned());
        } else if let Some(board) = line.strip_prefix("GAME BOARD 1 ") {
            let words: Vec<&str> = board.split_whitespace().collect();
            assert_eq!(words[3], "ended", "{line}");
            records.push(words[4].to_owned());
        } else {
            assert_eq!(line, "GAME STANDINGS 1 17");
            break;
        }
    }
    println!("{}", table.join("\n"));
    assert_eq!(records.len(), 12);
    // Each board's record is the archive's game, replayed at /games/ID.
    let mut tries = 0;
    let replay = loop {
        let page = get(addr, &format!("/games/{}.json", records[11]));
        if page.starts_with("HTTP/1.1 200") {
            break page;
        }
        tries += 1;
        assert!(tries < 50, "no page in time: {page}");
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert!(replay.contains("tictactoe"), "{replay}");

    // The pages, from the store: the final standings with every game's record.
    let mut tries = 0;
    let json = loop {
        let page = get(addr, "/tournaments/1.json");
        if page.contains("\"phase\":\"finished\"") {
            break page;
        }
        tries += 1;
        assert!(tries < 50, "no page in time: {page}");
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    for record in &records {
        assert!(
            json.contains(&format!("\"record\":\"{record}\"")),
            "{record}: {json}"
        );
    }
    assert!(get(addr, "/tournaments").contains("<a href=\"/tournaments/1\">Evening</a>"));
    let page = get(addr, "/tournaments/1");
    assert!(
        page.contains(&format!(
            "<a href=\"/games/{0}\">replay {0}</a>",
            records[0]
        )),
        "{page}"
    );
    let csv = get(addr, "/tournaments/1.csv");
    assert!(csv.contains("text/csv") && csv.contains("Ann"), "{csv}");
    assert_eq!(table.len(), 5, "a header and four players");
    // Points add up: 12 games, one point each (Pts is the third column).
    let points: f64 = table[1..]
        .iter()
        .map(|row| {
            row.split_whitespace()
                .nth(2)
                .unwrap()
                .parse::<f64>()
                .unwrap()
        })
        .sum();
    assert_eq!(points, 12.0, "{table:?}");
}

/// The lines a waiting player is sent until its wait ends (`GAME RELEASED`), the end's included.
fn until_released(c: &mut TextClient) -> Vec<String> {
    let mut lines = Vec::new();
    loop {
        let line = c.recv().expect("the wait ends with GAME RELEASED");
        let released = line.starts_with("GAME RELEASED ");
        lines.push(line);
        if released {
            return lines;
        }
    }
}

/// A waiting player is told when its wait ends without a game (spec/TOURNAMENTS.md §7):
/// withdrawn by the organiser, or the tournament over; the connection is back in the
/// lobby, and a wait asked for once the tournament is over ends at once.
#[test]
fn a_wait_ends_with_the_news_when_the_player_is_withdrawn_or_the_tournament_is_over() {
    let server = Server::start(&["--organisers", "Org", "--grace", "30"]);
    let addr = server.addr();
    let mut org = signed_in(addr, "Org", true);
    answer(
        &mut org,
        "GAME TOURNAMENT CREATE name=Short game=tictactoe format=rr time=move:30",
    );
    answer(&mut org, "GAME TOURNAMENT OPEN 1");
    for name in ["Ann", "Bob", "Cat"] {
        let mut c = signed_in(addr, name, true);
        answer(&mut c, "GAME TOURNAMENT REGISTER 1");
    }
    answer(&mut org, "GAME TOURNAMENT START 1");
    let mut cat = signed_in(addr, "Cat", false);
    cat.send("GAME TOURNAMENT PLAY 1");
    cat.next_is("GAME NEWS waiting for your games of tournament 1");
    answer(&mut org, "GAME TOURNAMENT REMOVE 1 Cat");
    let lines = until_released(&mut cat);
    assert_eq!(
        lines[lines.len() - 2..],
        [
            "GAME NEWS withdrawn from Short",
            "GAME RELEASED 1 withdrawn"
        ],
        "{lines:?}"
    );
    // Back in the lobby: the connection answers as any waiting one, and waits no more.
    assert_eq!(
        answer(&mut cat, "GAME TOURNAMENTS").split(' ').nth(2),
        Some("1")
    );
    cat.expect("GAME TOURNAMENTS 1");
    assert_eq!(
        answer(&mut cat, "GAME TOURNAMENT PLAY 1"),
        "ERROR Cat was withdrawn from tournament 1"
    );

    // Ann and Bob play their one game; Cat's are forfeits. Whoever waits next is told the end.
    let threads: Vec<_> = ["Ann", "Bob"]
        .into_iter()
        .map(|name| std::thread::spawn(move || player(addr, name, 1)))
        .collect();
    for t in threads {
        t.join().expect("a player played its game");
    }
    for name in ["Ann", "Bob"] {
        let mut c = signed_in(addr, name, false);
        c.send("GAME TOURNAMENT PLAY 1");
        let lines = until_released(&mut c);
        assert_eq!(
            lines[lines.len() - 2..],
            [
                "GAME TOURNAMENT 1 finished 3 3 3 tictactoe rr move:30 Short",
                "GAME RELEASED 1 finished"
            ],
            "{name}: {lines:?}"
        );
    }
}
