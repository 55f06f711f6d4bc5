//! `reversi play` against a fake server: the test listens on a loopback
//! port and writes raw bytes, some malformed, some out of order, and checks
//! the client's exit code, what it tells the user, and what it sends back.

mod client_support;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use client_support::{Finished, Reversi, LIMIT};

const CONNECT: [u8; 4] = [0x00, 0x04, 0x00, 0x00];
const ERROR: [u8; 4] = [0x00, 0x04, 0xff, 0xff];
const QUIT: [u8; 4] = [0x00, 0x04, 0x00, 0x02];
const TURN: [u8; 4] = [0x00, 0x04, 0x00, 0x03];
const CONNECT_OK_BLACK: [u8; 8] = [0x00, 0x08, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00];
const CONNECT_OK_WHITE: [u8; 8] = [0x00, 0x08, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00];
/// update_board(WHITE, d4, e5) then update_board(BLACK, d5, e4), as §11.4.
const INITIAL: [u8; 32] = [
    0x00, 0x10, 0x00, 0x06, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x03, 0x00, 0x04, 0x00,
    0x04, //
    0x00, 0x10, 0x00, 0x06, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x04, 0x00, 0x04, 0x00, 0x03,
];
/// update_board(BLACK, f5, e5): black's opening move f5.
const BLACK_F5: [u8; 16] = [
    0x00, 0x10, 0x00, 0x06, 0x00, 0x02, 0x00, 0x00, 0x00, 0x05, 0x00, 0x04, 0x00, 0x04, 0x00, 0x04,
];
const WINNER_BLACK: [u8; 8] = [0x00, 0x08, 0x00, 0x07, 0x00, 0x02, 0x00, 0x00];

/// What the client did in one scripted exchange.
struct Exchange {
    client: Finished,
    /// Everything the client sent after its connect.
    sent: Vec<u8>,
}

/// Runs `reversi play` against a listener that answers its connect with
/// `chunks` (written one after another, with a short pause between them),
/// then closes if `close` is set, else waits for the client to close.
fn exchange(chunks: &[&[u8]], close: bool) -> Exchange {
    // stdin stays open and silent: the client acts only on what it receives.
    let (client, mut stream) = connected(None);
    for chunk in chunks {
        // A client that already gave up may have closed: ignore write errors.
        let _ = stream.write_all(chunk);
        std::thread::sleep(Duration::from_millis(20));
    }
    if close {
        drop(stream);
        return Exchange {
            client: client.finish(),
            sent: Vec::new(),
        };
    }
    let mut sent = Vec::new();
    let _ = stream.read_to_end(&mut sent);
    Exchange {
        client: client.finish(),
        sent,
    }
}

/// Starts `reversi play` against a new listener, with `script` on stdin
/// (or stdin held open), and accepts its connection and its connect.
fn connected(script: Option<&str>) -> (Reversi, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let client = match script {
        Some(script) => Reversi::scripted(&["play", &addr], script),
        None => Reversi::start(&["play", &addr]),
    };
    listener.set_nonblocking(true).unwrap();
    let deadline = Instant::now() + LIMIT;
    let mut stream = loop {
        match listener.accept() {
            Ok((stream, _)) => break stream,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Err(err) => panic!("reversi never connected: {err}"),
        }
    };
    stream.set_nonblocking(false).unwrap();
    stream.set_read_timeout(Some(LIMIT)).unwrap();
    let mut connect = [0u8; 4];
    stream.read_exact(&mut connect).unwrap();
    assert_eq!(connect, CONNECT, "the first PDU is connect");
    (client, stream)
}

/// Asserts a protocol error: exit 3, `error` sent, and the message.
fn assert_protocol_error(done: &Exchange, message: &str) {
    let c = &done.client;
    assert_eq!(c.code, Some(3), "{c:?}");
    assert_eq!(
        done.sent, ERROR,
        "the client answers error and closes: {c:?}"
    );
    assert!(
        c.stderr.contains("protocol error from the server: ") && c.stderr.contains(message),
        "wanted {message:?} in {:?}",
        c.stderr
    );
}

#[test]
fn malformed_winner_is_reported_with_the_codecs_reason() {
    let bad_winner = [0x00, 0x08, 0x00, 0x07, 0x00, 0x03, 0x00, 0x00];
    let done = exchange(&[&CONNECT_OK_BLACK, &INITIAL, &TURN, &bad_winner], false);
    assert_protocol_error(
        &done,
        "malformed PDU: winner with player 3: must be 0 (draw), 1 (white) or 2 (black)",
    );
    assert!(done.client.stdout.contains("you play black"));
}

#[test]
fn malformed_headers_are_refused_at_once() {
    // Unknown id 8; msg_size 265 (announces more bytes that never come).
    for (bytes, message) in [
        (&[0x00, 0x04, 0x00, 0x08][..], "unknown PDU id 8"),
        (
            &[0x01, 0x09, 0x00, 0x06][..],
            "update_board with msg_size 265: outside 4..=264",
        ),
        (
            &[0x00, 0x0a, 0x00, 0x06, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03][..],
            "update_board with msg_size 10",
        ),
    ] {
        let done = exchange(&[&CONNECT_OK_BLACK, bytes], false);
        assert_protocol_error(&done, message);
    }
}

#[test]
fn client_to_server_pdus_are_malformed() {
    let place_d3 = [0x00, 0x08, 0x00, 0x04, 0x00, 0x03, 0x00, 0x02];
    let done = exchange(&[&CONNECT_OK_BLACK, &INITIAL, &place_d3], false);
    assert_protocol_error(&done, "place does not travel server to client");
}

#[test]
fn out_of_order_pdus_name_what_the_server_did_wrong() {
    let done = exchange(&[&TURN], false);
    assert_protocol_error(
        &done,
        "the server sent turn while we were waiting for an opponent (before connect_ok)",
    );
    let done = exchange(&[&CONNECT_OK_BLACK, &TURN], false);
    assert_protocol_error(
        &done,
        "the server sent turn while we were receiving the initial position",
    );
    let done = exchange(&[&CONNECT_OK_BLACK, &CONNECT_OK_WHITE], false);
    assert_protocol_error(&done, "the server sent connect_ok white while");
    let done = exchange(&[&CONNECT_OK_BLACK, &INITIAL, &TURN, &TURN], false);
    assert_protocol_error(&done, "the server sent turn while it was our turn");
}

#[test]
fn moves_that_break_the_rules_are_protocol_errors() {
    // White is told black played a1 (which flips nothing).
    let a1 = [
        0x00, 0x10, 0x00, 0x06, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
        0x01,
    ];
    let done = exchange(&[&CONNECT_OK_WHITE, &INITIAL, &a1], false);
    assert_protocol_error(&done, "black cannot play a1: a1 flips nothing");
    // Black, not white, is to move first: turn to white breaks the rules.
    let done = exchange(&[&CONNECT_OK_WHITE, &INITIAL, &TURN], false);
    assert_protocol_error(&done, "the server sent turn, but black is to move");
}

#[test]
fn server_closing_mid_game_is_reported() {
    let done = exchange(&[&CONNECT_OK_BLACK, &INITIAL, &TURN], true);
    assert_eq!(done.client.code, Some(1), "{:?}", done.client);
    assert!(done
        .client
        .stderr
        .contains("the server closed the connection before the game ended"));
    // EOF inside a PDU is EOF, not a malformed PDU (§3.4).
    let done = exchange(&[&CONNECT_OK_BLACK, &INITIAL[..6]], true);
    assert_eq!(done.client.code, Some(1), "{:?}", done.client);
    assert!(done.client.stderr.contains("closed the connection"));
}

#[test]
fn error_while_queued_means_the_server_refused() {
    let done = exchange(&[&ERROR], false);
    assert_eq!(done.client.code, Some(1), "{:?}", done.client);
    assert!(done.sent.is_empty(), "nothing is sent after error");
    assert!(done.client.stderr.contains("it refused the game"));
    assert!(done.client.stdout.contains("waiting for 1 more player"));
}

#[test]
fn pdus_split_byte_by_byte_are_put_together() {
    let mut chunks: Vec<&[u8]> = Vec::new();
    let stream: Vec<u8> = [&CONNECT_OK_WHITE[..], &INITIAL, &BLACK_F5, &WINNER_BLACK].concat();
    chunks.extend(stream.chunks(1));
    let done = exchange(&chunks, false);
    let c = &done.client;
    assert_eq!(c.code, Some(0), "{c:?}");
    assert!(done.sent.is_empty(), "{:?}", done.sent);
    assert!(c.stdout.contains("you play white"), "{c:?}");
    assert!(c.stdout.contains("5  .  .  .  B (B)(B) .  .  5"), "{c:?}");
    assert!(
        c.stdout.contains(
            "YOU LOSE: Your team has lost: the server ended the game early, with the board at 1-4"
        ),
        "{c:?}"
    );
}

#[test]
fn quit_is_sent_when_the_user_quits() {
    let (mut client, mut stream) = connected(None);
    let _ = stream.write_all(&[&CONNECT_OK_BLACK[..], &INITIAL, &TURN].concat());
    client.wait_stdout("your move");
    client.end_script("quit\n");
    let mut sent = Vec::new();
    let _ = stream.read_to_end(&mut sent);
    let c = client.finish();
    assert_eq!(c.code, Some(0), "{c:?}");
    assert_eq!(sent, QUIT);
    assert!(c.stdout.contains("you left the game"));
}

#[test]
fn quit_or_stdin_eof_in_the_queue_leaves_it_at_once() {
    // The server never pairs: the client must not wait for it to.
    for script in ["quit\n", ""] {
        let (client, mut stream) = connected(Some(script));
        let mut sent = Vec::new();
        let _ = stream.read_to_end(&mut sent);
        let c = client.finish();
        assert_eq!(c.code, Some(0), "{script:?}: {c:?}");
        assert_eq!(sent, QUIT, "{script:?}: {c:?}");
        assert!(c.stdout.contains("you left the queue"), "{c:?}");
    }
}

#[test]
fn place_error_is_shown_and_the_turn_comes_back() {
    // One move, then EOF: the client quits when its turn comes back.
    let (client, mut stream) = connected(Some("f5\n"));
    let _ = stream.write_all(&[&CONNECT_OK_BLACK[..], &INITIAL, &TURN].concat());
    let mut place = [0u8; 8];
    stream.read_exact(&mut place).unwrap();
    assert_eq!(
        place,
        [0x00, 0x08, 0x00, 0x04, 0x00, 0x05, 0x00, 0x04],
        "place f5"
    );
    let _ = stream.write_all(&[0x00, 0x04, 0x00, 0x05]);
    let mut sent = Vec::new();
    let _ = stream.read_to_end(&mut sent);
    let c = client.finish();
    assert_eq!(c.code, Some(0), "{c:?}");
    assert_eq!(sent, QUIT, "{c:?}");
    assert!(
        c.stdout
            .contains("the server refused: f5 (place_error): try another move"),
        "{c:?}"
    );
}
