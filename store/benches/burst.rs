//! Finished games stored per second, through the writer, for a burst of
//! games (10,000 unless a number is given): SQLite, then PostgreSQL (a
//! private server as the tests start one, with fsync on; skipped without
//! PostgreSQL). Every game is rated, between two of 100 accounts, 60 moves.
//!
//! `cargo bench -p reversi-store --bench burst [-- GAMES]`; a quick look in a
//! debug build: `cargo test -p reversi-store --bench burst -- 1000`.

#[path = "../tests/common/postgres.rs"]
#[allow(dead_code)] // the tests' helpers a benchmark does not need
mod postgres;

use std::time::Instant;

use reversi_store::*;

const PLAYERS: usize = 100;
const MOVES: usize = 60;

fn main() {
    let games: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10_000);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sqlite = || -> Box<dyn Store> { Box::new(SqliteStore::open(dir.path()).expect("SQLite")) };
    report("SQLite", games, &sqlite);
    match postgres::Server::start_durable() {
        Ok(server) => {
            server.create_db("bench").expect("createdb");
            let params = server.params("bench");
            let pg = || -> Box<dyn Store> {
                Box::new(PostgresStore::connect(&params).expect("PostgreSQL"))
            };
            report("PostgreSQL", games, &pg);
        }
        Err(why) => eprintln!("PostgreSQL: skipped: {why}"),
    }
}

fn report(backend: &str, games: usize, open: &dyn Fn() -> Box<dyn Store>) {
    let mut store = open();
    let password = Password::new("bench password").expect("a password");
    let accounts: Vec<Account> = (0..PLAYERS)
        .map(|i| {
            let name = Name::new(&format!("player{i}")).expect("a name");
            store
                .register(&name, &password, UnixMillis(0))
                .expect("register")
        })
        .collect();
    let burst: Vec<FinishedGame> = (0..games).map(|i| game(i, &accounts)).collect();
    let writer = Writer::start(open(), games, None);
    let start = Instant::now();
    for game in burst {
        writer
            .submit(game)
            .expect("the queue holds the whole burst");
    }
    let written = writer.finish();
    let seconds = start.elapsed().as_secs_f64();
    assert!(
        written.iter().all(|w| w.result.is_ok()),
        "every game stored"
    );
    println!(
        "{backend}: {games} games in {seconds:.2} s: {:.0} games/s",
        games as f64 / seconds
    );
}

fn game(i: usize, accounts: &[Account]) -> FinishedGame {
    let (a, b) = (i % PLAYERS, (i * 7 + 1) % PLAYERS);
    let b = if a == b { (b + 1) % PLAYERS } else { b };
    FinishedGame {
        id: GameId::new(&format!("bench:{i}")).expect("an id"),
        kind: "reversi".into(),
        mode: Mode::Rated,
        time_control: "5m".into(),
        seed: i as u64,
        seats: vec![
            Seat {
                team: 0,
                player: Player::Account(accounts[a].id),
            },
            Seat {
                team: 1,
                player: Player::Account(accounts[b].id),
            },
        ],
        moves: (0..MOVES)
            .map(|m| MoveRecord {
                team: (m % 2) as u8,
                notation: "d3".into(),
                took_ms: 1500,
            })
            .collect(),
        outcome: Outcome::Win {
            team: (i % 2) as u8,
            ending: Ending::Rules,
        },
        why: "40-24".into(),
        started: UnixMillis(i as i64 * 1000),
        ended: UnixMillis(i as i64 * 1000 + 600_000),
        host: "bench".into(),
    }
}
