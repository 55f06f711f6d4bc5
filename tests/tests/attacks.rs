//! The attack suite's short versions, run with every `cargo test`: flooders that
//! never read their replies, and requests past one turn's budget. Every figure is
//! loose enough for a debug build on a busy machine; `reversi-attack`
//! (tests/src/bin/reversi-attack.rs) measures the real ones on a release build.

mod attacks_support;

use std::io::{BufRead, BufReader, Write};
use std::time::Duration;

use attacks_support::{honest_pair, instant_game, loopback, resident, Flood, InstantGame, Kind};
use reversi_tests::Server;

/// Requests sent at once beyond what one turn judges (32) and reads (16 KiB) are all
/// answered: the connection is put on the ready list and served again (mio is
/// edge-triggered: no new event would come for bytes already there).
#[test]
fn requests_past_one_turns_budget_are_answered_in_later_turns() {
    let server = Server::start(&[]);
    let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
    let many = 500;
    let mut burst = b"\n".repeat(20_000);
    burst.extend(b"GAME VERSION\n".repeat(many));
    stream.write_all(&burst).unwrap();
    stream
        .set_read_timeout(Some(reversi_tests::PATIENCE))
        .unwrap();
    let mut lines = BufReader::new(stream).lines();
    for i in 0..many {
        let line = lines.next().expect("a reply").expect("no timeout");
        assert!(line.starts_with("GAME VERSION"), "reply {i}: {line}");
    }
}

/// Flooders of every kind the supervisor holds (each joined to a game nobody else
/// plays, or before a game, or on a WebSocket, or on the Duell listener) do not hold
/// up the start of honest games, and the supervisor does not grow with them.
#[test]
fn flooders_that_never_read_do_not_hold_up_honest_games() {
    let server = Server::start(&["--listen-seed", "duell=127.0.0.1:0"]);
    let duell = server.seed_addr("duell");
    let floods: Vec<Flood> = Kind::ALL
        .into_iter()
        .map(|kind| {
            let at = if kind == Kind::Duell {
                duell
            } else {
                server.addr()
            };
            // One of each: a second Moves or Duell flooder would be paired with the first.
            Flood::start(kind, at, 1)
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    for i in 0..5 {
        let took = honest_pair(server.addr(), loopback(i), Duration::from_secs(10))
            .expect("an honest game starts");
        assert!(took < Duration::from_secs(2), "game {i} took {took:?}");
    }
    let rss = resident(server.pid());
    let sent: u64 = floods.into_iter().map(Flood::stop).sum();
    assert!(sent > 0, "the flooders sent nothing");
    assert!(rss < 64 << 20, "the supervisor grew to {rss} bytes");
}

/// Idle connections from many addresses, each under the per-address limit, fill the
/// pending pool: the oldest still in handshake make room for newcomers, so honest
/// games start, and the log says little about it.
#[test]
fn an_idle_crowd_from_many_addresses_does_not_keep_games_from_starting() {
    let server = Server::start(&["--max-pending", "100", "--log-burst", "2"]);
    let crowd = attacks_support::idle_crowd(server.addr(), 60, 5);
    assert!(crowd.len() > 200, "only {} idle connections", crowd.len());
    for i in 0..5 {
        let took = honest_pair(server.addr(), loopback(1000 + i), Duration::from_secs(10))
            .expect("an honest game starts");
        assert!(took < Duration::from_secs(2), "game {i} took {took:?}");
    }
    server.wait_log("closed to make room");
    let logged: usize = server.logs().iter().map(String::len).sum();
    // 2 per address and 40 in all per 10 s, plus a few summary and session lines.
    assert!(logged < 16 * 1024, "{logged} bytes of log");
    drop(crowd);
}

/// Addresses of one /24 share its limit.
#[test]
fn a_network_cannot_hold_more_than_its_share_of_waiting_connections() {
    let server = Server::start(&[
        "--max-pending-per-address",
        "2",
        "--max-pending-per-network",
        "3",
    ]);
    let idle: Vec<_> = (0..3)
        .map(|i| attacks_support::connect_from(loopback(i), server.addr()).unwrap())
        .collect();
    let mut fourth = reversi_tests::Client::from_stream(
        attacks_support::connect_from(loopback(3), server.addr()).unwrap(),
    );
    fourth.expect(reversi_tests::Msg::Error);
    server.wait_log("your network already has 3 connections waiting");
    drop(idle);
}

/// Pairs that never move fill the session cap: a text client that queues is told
/// why it waits and where it stands, and again when its place changes.
#[test]
fn a_client_queued_at_the_session_cap_is_told_why_and_its_place() {
    let server = Server::start(&["--max-sessions", "1"]);
    let idle = server.pair();
    let mut first = reversi_tests::text::TextClient::join(server.addr(), "tictactoe");
    first.next_is("GAME WAITING 1");
    first.next_is(
        "GAME NEWS server full: 1 games running; you are number 1 in the queue for tictactoe",
    );
    let mut second = reversi_tests::text::TextClient::join(server.addr(), "tictactoe");
    second.next_is(
        "GAME NEWS server full: 1 games running; you are number 2 in the queue for tictactoe",
    );
    let mut third = reversi_tests::text::TextClient::join(server.addr(), "tictactoe");
    third.next_is(
        "GAME NEWS server full: 1 games running; you are number 3 in the queue for tictactoe",
    );
    first.send("GAME QUIT");
    second.next_is(
        "GAME NEWS server full: 1 games running; you are number 1 in the queue for tictactoe",
    );
    third.next_is(
        "GAME NEWS server full: 1 games running; you are number 2 in the queue for tictactoe",
    );
    // The idle game ends: the two that wait play.
    drop(idle);
    second.expect("GAME TYPE");
    third.expect("GAME TYPE");
}

/// Item 5's instant games: one address joins Tic-Tac-Toe twice, loses at once by an
/// illegal move, and again. Each game costs its two starts and, lost within seconds, 4
/// more: with a budget of 12 (and no refill to speak of), two games start, the next
/// attempts are refused with when to try again, and only two records are written.
/// Another network plays on.
#[test]
fn instant_games_from_one_address_spend_its_game_start_budget() {
    let records = reversi_tests::scratch::Scratch::new("attack-records");
    let dir = records.path().to_str().unwrap();
    let server = Server::start(&[
        "--fixed-colours",
        "--record-dir",
        dir,
        "--game-starts-per-address",
        "12",
        "--game-start-rate",
        "1",
    ]);
    let mut seen = Vec::new();
    for _ in 0..5 {
        let game = instant_game(server.addr(), loopback(0));
        if game == InstantGame::Lost {
            // The fast loss is charged when the session's exit is learned.
            let lost = seen.iter().filter(|g| **g == InstantGame::Lost).count() + 1;
            server.wait_logs("(forfeited)", lost);
        }
        seen.push(game);
    }
    assert_eq!(
        seen[..2],
        [InstantGame::Lost, InstantGame::Lost],
        "{seen:?}"
    );
    for game in &seen[2..] {
        let InstantGame::Refused(why) = game else {
            panic!("paired past its budget: {seen:?}");
        };
        assert!(
            why.starts_with(
                "your address started too many games lately; you may start one again in "
            ),
            "{why}"
        );
    }
    assert_eq!(records.entries().len(), 2, "{:?}", records.entries());
    honest_pair(server.addr(), loopback(1000), Duration::from_secs(10))
        .expect("another network's game starts");
}
