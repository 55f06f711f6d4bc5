//! What holds reversid up on the open internet: per-address limits, the
//! first-move clock, the abandonment penalty, and log summaries. Every client
//! of a test comes from 127.0.0.1, one address.

use reversi_pdu::Pdu;
use reversi_tests::text::TextClient;
use reversi_tests::{Client, Msg, Server};

#[test]
fn one_address_cannot_hold_more_than_its_share_of_waiting_connections() {
    let server = Server::start(&["--max-pending-per-address", "3"]);
    let idle: Vec<Client> = (0..3).map(|_| Client::connect(server.addr())).collect();
    let mut fourth = Client::connect(server.addr());
    fourth.expect(Msg::Error);
    fourth.expect_closed();
    server.wait_log("already has 3 connections waiting");
    drop(idle);
    // Once the server has seen them go, the address may wait again.
    let deadline = std::time::Instant::now() + reversi_tests::PATIENCE;
    loop {
        let mut text = TextClient::connect(server.addr());
        text.send("GAME VERSION");
        if text.recv().is_some_and(|l| l.starts_with("GAME VERSION")) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "still refused");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn one_address_cannot_take_every_game() {
    let server = Server::start(&["--max-sessions-per-address", "2"]);
    let (_black, _white) = server.pair();
    server.wait_log("session ");
    // Both seats of that game are this address's: a text client is told why in text.
    let mut third = TextClient::connect(server.addr());
    third.send("GAME TYPE tictactoe");
    third.next_is("ERROR your address already holds 2 seats in running games");
    third.expect_closed(&[]);
}

#[test]
fn a_player_who_never_moves_aborts_the_game_unscored() {
    let server = Server::start(&["--first-move-timeout", "1", "--fixed-colours"]);
    let mut x = TextClient::join(server.addr(), "tictactoe");
    x.next_is("GAME WAITING 1");
    let mut o = TextClient::join(server.addr(), "tictactoe");
    x.expect("READY");
    // X never moves: no winner, for either.
    for c in [&mut x, &mut o] {
        c.expect("GAME ABORTED X did not make its first move in time");
        c.expect_closed(&[]);
    }
    let line = server.wait_log("game over:");
    assert!(line.contains("end never-started by X"), "{line}");
    assert!(line.contains("result aborted"), "{line}");
    // Binary clients get error, as in a fast shutdown.
    let (mut black, mut white) = server.pair();
    black.expect(Msg::Turn);
    for c in [&mut black, &mut white] {
        c.expect(Msg::Error);
        c.expect_closed();
    }
}

#[test]
fn idle_pairs_near_the_session_cap_are_aborted_at_the_handshake_timeout() {
    // A cap of 4: the fourth game starts with three running, three quarters of the cap.
    let server = Server::start(&[
        "--max-sessions",
        "4",
        "--first-move-timeout",
        "60",
        "--handshake-timeout",
        "1",
        "--fixed-colours",
    ]);
    let mut idle = Vec::new();
    for _ in 0..3 {
        let mut x = TextClient::join(server.addr(), "tictactoe");
        x.next_is("GAME WAITING 1");
        let mut o = TextClient::join(server.addr(), "tictactoe");
        x.expect("READY");
        o.expect("GAME TURN 1");
        idle.push((x, o));
    }
    let mut x = TextClient::join(server.addr(), "tictactoe");
    x.next_is("GAME WAITING 1");
    let mut o = TextClient::join(server.addr(), "tictactoe");
    x.expect("READY");
    // The harness's patience is far below the 60 s first-move clock the others have.
    x.expect("GAME ABORTED X did not make its first move in time");
    o.expect("GAME ABORTED X did not make its first move in time");
    let first = &mut idle[0].0;
    first.send("MOVE b2");
    first.expect("GAME MOVED 1 b2");
}

#[test]
fn an_address_that_abandons_games_again_and_again_must_wait() {
    let server = Server::start(&[
        "--first-move-timeout",
        "1",
        "--fixed-colours",
        "--abandon-strikes",
        "2",
        "--abandon-penalty",
        "60",
    ]);
    for round in 1..=2 {
        let (mut black, mut white) = server.pair();
        black.expect(Msg::Turn);
        // Black sits on its first move: the game never starts.
        for c in [&mut black, &mut white] {
            c.expect(Msg::Error);
            c.expect_closed();
        }
        server.wait_logs("(abandoned)", round);
    }
    server.wait_log("abandons games again and again; may not queue for 60 s");
    let mut late = server.join();
    late.expect(Msg::Error);
    late.expect_closed();
    let mut text = TextClient::join(server.addr(), "tictactoe");
    text.next_is("ERROR your address abandoned 2 games lately; wait");
}

#[test]
fn connection_floods_are_summarised_in_the_log() {
    let server = Server::start(&["--log-burst", "3"]);
    for _ in 0..50 {
        let mut c = Client::connect(server.addr());
        c.send(&Pdu::Connect);
        c.send(&Pdu::Quit);
        c.expect_closed();
    }
    // The summary comes at the end of the 10 s period that began with the server.
    std::thread::sleep(std::time::Duration::from_secs(5));
    let summary = server.wait_log("more connection events in the last 10 s");
    // An info line, not a warning: a flood is routine.
    assert!(summary.contains(" INFO "), "{summary}");
    let one_by_one = server
        .logs()
        .iter()
        .filter(|l| l.contains("left before being paired") || l.contains("queued ("))
        .count();
    assert_eq!(one_by_one, 3, "only the burst is logged one by one");
    assert!(summary.contains("127.0.0.1: 97 more"), "{summary}");
}

/// The whole answer to `GET path` from the loopback address `from`.
fn page_from(server: &Server, from: [u8; 4], path: &str) -> String {
    reversi_tests::http::get_from(server.addr(), from.into(), path)
}

#[test]
fn an_address_asking_for_too_many_pages_is_told_to_wait_and_others_are_served() {
    let server = Server::start(&["--store-reads-per-address", "3"]);
    for _ in 0..3 {
        let page = page_from(&server, [127, 0, 0, 1], "/leaderboard/reversi");
        assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page}");
    }
    let refused = page_from(&server, [127, 0, 0, 1], "/leaderboard/reversi");
    assert!(
        refused.starts_with("HTTP/1.1 429 Too Many Requests\r\n")
            && refused.contains("\r\nRetry-After: 1\r\n")
            && refused.contains("try again in 1 s"),
        "{refused}"
    );
    let other = page_from(&server, [127, 0, 0, 2], "/leaderboard/reversi");
    assert!(other.starts_with("HTTP/1.1 200 OK\r\n"), "{other}");
    // A text client's reads of the store count against the same limit.
    let mut text =
        reversi_tests::tournament::connect_from(server.addr(), [127, 0, 0, 1].into()).unwrap();
    text.send("GAME HISTORY nobody1");
    let line = text.next_is("ERROR ");
    assert!(
        line.contains("too many requests from your address"),
        "{line}"
    );
}

/// Clients that ask for a page and then neither read nor close held a page worker each
/// (it waited for their close), so a hundred of them left every other reader a 503: the
/// loop now sends the pages, and a worker is free as soon as its page is made.
#[test]
fn clients_that_never_close_hold_no_page_worker() {
    use std::io::Write;
    let server = Server::start(&[
        "--max-pending-per-address",
        "200",
        "--store-reads-per-address",
        "1000",
    ]);
    let stalled: Vec<std::net::TcpStream> = (0..100)
        .map(|_| {
            let mut stream =
                reversi_tests::http::tcp_from(server.addr(), [127, 0, 0, 1].into()).unwrap();
            write!(
                stream,
                "GET /leaderboard/reversi HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            .unwrap();
            stream
        })
        .collect();
    // The hundred may fill the workers' queue for a moment (a full queue is answered 503
    // at once); another reader is served as soon as their pages are made. On the old code
    // each of them held a worker a second: 50 s of 503s with two workers.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let page = loop {
        let page = page_from(&server, [127, 0, 0, 2], "/leaderboard/reversi");
        let busy =
            page.starts_with("HTTP/1.1 503 Service Unavailable\r\n") && page.contains("busy");
        if !busy || std::time::Instant::now() > deadline {
            break page;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page}");
    drop(stalled);
}
