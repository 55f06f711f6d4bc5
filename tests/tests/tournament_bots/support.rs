//! What the tournament suites of bots share (tournament_bots.rs, client_tournament.rs):
//! accounts with API tokens made from their own loopback addresses (a server allows 5
//! registrations an address, and counts sign-ins per address), a tournament organised
//! over the text protocol, `reversi bot --tournament` processes, and the crosstable read.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reversi_tests::text::TextClient;

pub const PASSWORD: &str = "correct horse battery";

/// The loopback address of player `n` (127.0.0.2 onwards; 127.0.0.1 is the organiser's).
pub fn loopback(n: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + n as u8))
}

/// A text connection to `addr` from `source`.
pub fn connect_from(addr: SocketAddr, source: IpAddr) -> TextClient {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    socket.bind(&SocketAddr::new(source, 0).into()).unwrap();
    socket.connect(&addr.into()).expect("connect to reversid");
    TextClient::from_stream(socket.into())
}

/// Registers account `name` from `source` and makes it an API token; the token.
pub fn account_with_token(addr: SocketAddr, source: IpAddr, name: &str) -> String {
    let mut c = connect_from(addr, source);
    c.send(&format!("GAME REGISTER {name} {PASSWORD}"));
    c.expect(&format!("GAME SIGNEDIN {name}"));
    c.send("GAME APITOKEN NEW tournament bot");
    let line = c.expect("GAME APITOKEN ");
    line.split_whitespace()
        .nth(3)
        .expect("the token")
        .to_owned()
}

/// One bot of a tournament: its account, where it connects from, how it plays.
pub struct Entrant {
    pub name: &'static str,
    /// `reversi bot` options of its strength (`--player mcts --move-time 50`).
    pub strength: &'static [&'static str],
}

/// Creates and opens tournament 1 as `Org` (an organiser: `--organisers Org`), of `game`
/// in `format` on `time`; registers every entrant with `reversi tournament register`
/// (signed in with its token, from its own address); returns their tokens in order.
pub fn organise(
    addr: SocketAddr,
    game: &str,
    format: &str,
    time: &str,
    entrants: &[Entrant],
) -> Vec<String> {
    let mut org = connect_from(addr, IpAddr::V4(Ipv4Addr::LOCALHOST));
    org.send(&format!("GAME REGISTER Org {PASSWORD}"));
    org.expect("GAME SIGNEDIN Org");
    org.send(&format!(
        "GAME TOURNAMENT CREATE name=Bots game={game} format={format} time={time}"
    ));
    org.expect("GAME TOURNAMENT 1 created ");
    org.send("GAME TOURNAMENT OPEN 1");
    org.expect("GAME TOURNAMENT 1 open ");
    let tokens: Vec<String> = entrants
        .iter()
        .enumerate()
        .map(|(n, e)| account_with_token(addr, loopback(n), e.name))
        .collect();
    for (n, token) in tokens.iter().enumerate() {
        let out = reversi(loopback(n))
            .args(["tournament", "register", "1", "--token", token])
            .args(["--addr", &addr.to_string()])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && said.contains("registered for Bots"),
            "{out:?}"
        );
    }
    org.send("GAME TOURNAMENT START 1");
    org.expect("GAME TOURNAMENT 1 running 1 ");
    tokens
}

/// `reversi --bind source …`, the config file out of the way.
pub fn reversi(source: IpAddr) -> Command {
    let mut command = Command::new(reversi_tests::reversi_binary());
    command
        .args(["--bind", &source.to_string()])
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .stdin(Stdio::null());
    command
}

/// Starts entrant `n`'s bot: `reversi bot --tournament 1` with its token and strength.
pub fn start_bot(addr: SocketAddr, game: &str, n: usize, token: &str, entrant: &Entrant) -> Child {
    reversi(loopback(n))
        .args([
            "bot",
            &addr.to_string(),
            "--game",
            game,
            "--tournament",
            "1",
        ])
        .args(["--token", token, "--seed", &(n + 1).to_string()])
        .args(entrant.strength)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start reversi bot")
}

/// Waits for every bot to end (at most `limit`), each with status 0; their outputs.
pub fn wait_for_bots(bots: Vec<Child>, limit: Duration) -> Vec<String> {
    let deadline = Instant::now() + limit;
    let mut outputs = Vec::new();
    for mut bot in bots {
        loop {
            if let Some(status) = bot.try_wait().unwrap() {
                let out = bot.wait_with_output().unwrap();
                let text = format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                assert!(status.success(), "a bot failed ({status}): {text}");
                outputs.push(text);
                break;
            }
            if Instant::now() > deadline {
                let _ = bot.kill();
                panic!("a bot still plays after {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    outputs
}

/// The crosstable of tournament 1 (`GAME STANDINGS 1`), its text lines, header first.
pub fn crosstable(addr: SocketAddr) -> Vec<String> {
    let mut c = TextClient::connect(addr);
    c.send("GAME STANDINGS 1");
    let mut table = Vec::new();
    loop {
        let line = c.recv().expect("the standings");
        if let Some(row) = line.strip_prefix("GAME CROSSTABLE 1 ") {
            table.push(row.to_owned());
        } else if line.starts_with("GAME STANDINGS 1 ") {
            return table;
        }
    }
}

/// One player's row of a crosstable.
#[derive(Debug)]
pub struct Row {
    pub rank: u32,
    pub name: String,
    /// In half points.
    pub halves: u32,
    /// Each round's cell: the opponent's rank, `f` or `s`, the result.
    pub cells: Vec<String>,
}

/// The rows of a round-robin's crosstable of `rounds` rounds (one tie-break column).
pub fn rows(table: &[String], rounds: usize) -> Vec<Row> {
    table[1..]
        .iter()
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(words.len(), 3 + rounds + 1, "{line}");
            let points: f64 = words[2].parse().unwrap();
            Row {
                rank: words[0].parse().unwrap(),
                name: words[1].to_owned(),
                halves: (points * 2.0) as u32,
                cells: words[3..3 + rounds]
                    .iter()
                    .map(|c| (*c).to_owned())
                    .collect(),
            }
        })
        .collect()
}

/// Checks a double round-robin's crosstable: each player met every other twice, once
/// moving first and once second (counted by rank, as cells name opponents by rank, and
/// players a tie-break cannot separate share one), no game left unplayed or in play, and
/// the points add up to the games played (one a game).
pub fn check_double_round_robin(rows: &[Row]) {
    let n = rows.len();
    for row in rows {
        let mut met: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
        for cell in &row.cells {
            let side = cell
                .find(['f', 's'])
                .unwrap_or_else(|| panic!("{cell}: {row:?}"));
            let (rank, rest) = cell.split_at(side);
            let rank: u32 = rank.parse().unwrap();
            assert!(
                matches!(&rest[1..], "1" | "=" | "0"),
                "{cell}: played to its end: {row:?}"
            );
            let entry = met.entry(rank).or_default();
            if rest.starts_with('f') {
                entry.0 += 1;
            } else {
                entry.1 += 1;
            }
        }
        let mut want: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
        for other in rows.iter().filter(|o| o.name != row.name) {
            let entry = want.entry(other.rank).or_default();
            entry.0 += 1;
            entry.1 += 1;
        }
        assert_eq!(
            met, want,
            "{} met each other player once on each side",
            row.name
        );
    }
    let halves: u32 = rows.iter().map(|r| r.halves).sum();
    assert_eq!(
        halves as usize,
        2 * n * (n - 1),
        "the points add up to n(n-1) games"
    );
}
