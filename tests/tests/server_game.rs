//! Whole games and move handling against the real reversid.

use std::time::Duration;

use reversi_pdu::{Colour, Pdu, Winner};
use reversi_tests::{play_out, Msg, Rng, Server};

#[test]
fn a_full_game_checked_move_by_move() {
    let dir = std::env::temp_dir().join(format!("reversid-records-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let server = Server::start(&["--record-dir", dir.to_str().unwrap()]);
    let (mut black, mut white) = server.pair();
    let played = play_out(&mut black, &mut white, &mut Rng::new(7));
    assert!(played.moves >= 9);
    let line = server.wait_log("game over:");
    assert!(line.contains("end normal"), "{line}");
    assert!(line.contains(&format!("moves {}", played.moves)), "{line}");
    // The GGF record appears once the session has written it.
    server.wait_log("exited with status 0");
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let ggf = std::fs::read_to_string(&files[0]).unwrap();
    assert!(ggf.starts_with("(;GM[Othello]PC[reversid]"), "{ggf}");
    assert!(ggf.trim_end().ends_with(";)"), "{ggf}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fixed_colours_give_black_to_the_first_queued() {
    let server = Server::start(&["--fixed-colours"]);
    let mut first = server.join();
    // Make sure the first is queued before the second connects.
    server.wait_log("queued (1 waiting)");
    let mut second = server.join();
    assert_eq!(first.expect_connect_ok(), Colour::Black);
    assert_eq!(second.expect_connect_ok(), Colour::White);
    first.send(&Pdu::Quit);
    second.expect_initial_position();
    second.expect(Msg::Winner(Winner::White));
    second.expect_closed();
}

#[test]
fn illegal_out_of_range_and_out_of_turn_places_get_place_error() {
    let server = Server::start(&[]);
    let (mut black, mut white) = server.pair();
    black.expect(Msg::Turn);
    // Out of turn: white places while black is to move, even a legal-looking square.
    white.place(3, 2);
    white.expect(Msg::PlaceError);
    for (x, y) in [
        (0, 0),
        (3, 3),
        (8, 0),
        (-1, 4),
        (i16::MAX, i16::MIN),
        (4, 4),
    ] {
        black.place(x, y);
        black.expect(Msg::PlaceError);
    }
    // Nothing changed: black may still play f5, and white gets the turn.
    black.place(5, 4);
    assert!(matches!(black.recv(), Msg::UpdateBoard(Colour::Black, _)));
    assert!(matches!(white.recv(), Msg::UpdateBoard(Colour::Black, _)));
    white.expect(Msg::Turn);
    black.place(2, 3);
    black.expect(Msg::PlaceError);
    white.send(&Pdu::Quit);
    black.expect(Msg::Winner(Winner::Black));
    black.expect_closed();
}

#[test]
fn byte_at_a_time_and_coalesced_pdus() {
    let server = Server::start(&[]);
    // Handshake one byte at a time, with pauses that force separate segments.
    let mut a = reversi_tests::Client::connect(server.addr());
    for b in [0u8, 4, 0, 0] {
        a.send_raw(&[b]);
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut b = server.join();
    let ca = a.expect_connect_ok();
    b.expect_connect_ok();
    a.expect_initial_position();
    b.expect_initial_position();
    let (mut black, mut white) = if ca == Colour::Black { (a, b) } else { (b, a) };
    black.expect(Msg::Turn);
    // Three PDUs in one write: two illegal places and the legal f5.
    let mut bytes = Vec::new();
    for (x, y) in [(0i16, 0i16), (9, 9), (5, 4)] {
        bytes.extend_from_slice(&[0, 8, 0, 4]);
        bytes.extend_from_slice(&x.to_be_bytes());
        bytes.extend_from_slice(&y.to_be_bytes());
    }
    black.send_raw(&bytes);
    black.expect(Msg::PlaceError);
    black.expect(Msg::PlaceError);
    assert!(matches!(black.recv(), Msg::UpdateBoard(Colour::Black, _)));
    assert!(matches!(white.recv(), Msg::UpdateBoard(Colour::Black, _)));
    white.expect(Msg::Turn);
    // White's place d6 (3, 5) one byte at a time.
    for byte in [0u8, 8, 0, 4, 0, 3, 0, 5] {
        white.send_raw(&[byte]);
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(matches!(white.recv(), Msg::UpdateBoard(Colour::White, _)));
    assert!(matches!(black.recv(), Msg::UpdateBoard(Colour::White, _)));
    black.expect(Msg::Turn);
    black.send(&Pdu::Quit);
    white.expect(Msg::Winner(Winner::White));
    white.expect_closed();
}

#[test]
fn connect_and_quit_in_one_segment_leaves_the_queue() {
    // connect and a quit in one segment: the client is queued, then leaves.
    let server = Server::start(&[]);
    let mut c = reversi_tests::Client::connect(server.addr());
    c.send_raw(&[0, 4, 0, 0, 0, 4, 0, 2]);
    c.expect_closed();
    server.wait_log("left before being paired");
}

#[test]
fn ipv4_and_ipv6_listeners_share_one_queue() {
    if std::net::TcpListener::bind("[::1]:0").is_err() {
        reversi_tests::skipped("no IPv6 loopback here");
        return;
    }
    let server = Server::start(&["--listen", "[::1]:0"]);
    let v6: std::net::SocketAddr = server
        .wait_log("listening on [::1]")
        .rsplit("listening on ")
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let mut a = reversi_tests::Client::connect(server.addr());
    a.send(&Pdu::Connect);
    let mut b = reversi_tests::Client::connect(v6);
    b.send(&Pdu::Connect);
    assert_ne!(a.expect_connect_ok(), b.expect_connect_ok());
}

#[test]
fn connect_and_quit_that_complete_a_pair_go_to_the_session() {
    // Spec §9.2: bytes that arrive with the connect that completes a pair belong to the
    // session. The quit ends the game at once and the waiting client wins.
    let server = Server::start(&["--fixed-colours"]);
    let mut first = server.join();
    server.wait_log("queued (1 waiting)");
    let mut c = reversi_tests::Client::connect(server.addr());
    c.send_raw(&[0, 4, 0, 0, 0, 4, 0, 2]);
    assert_eq!(first.expect_connect_ok(), Colour::Black);
    first.expect_initial_position();
    let mut last = None;
    loop {
        match first.recv() {
            Msg::Closed => break,
            msg => last = Some(msg),
        }
    }
    assert_eq!(last, Some(Msg::Winner(reversi_pdu::Winner::Black)));
    server.wait_log("end quit by white");
}

#[test]
fn connect_and_place_that_complete_a_pair_go_to_the_session() {
    // The place is white's, out of turn: place_error from the session, not error from the queue.
    let server = Server::start(&["--fixed-colours"]);
    let mut black = server.join();
    server.wait_log("queued (1 waiting)");
    let mut white = reversi_tests::Client::connect(server.addr());
    white.send_raw(&[0, 4, 0, 0, 0, 8, 0, 4, 0, 5, 0, 4]);
    assert_eq!(white.expect_connect_ok(), Colour::White);
    white.expect_initial_position();
    white.expect(Msg::PlaceError);
    assert_eq!(black.expect_connect_ok(), Colour::Black);
    black.expect_initial_position();
    black.expect(Msg::Turn);
    black.place(5, 4);
    white.expect(Msg::UpdateBoard(
        Colour::Black,
        vec![
            reversi_pdu::Square::new(5, 4).unwrap(),
            reversi_pdu::Square::new(4, 4).unwrap(),
        ],
    ));
    white.expect(Msg::Turn);
}
