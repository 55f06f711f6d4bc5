//! HTTP and WebSocket on reversid's one port (spec/TEXT-PROTOCOL.md §15), without
//! a browser: the page and its errors, and the text protocol in WebSocket messages
//! through the supervisor's screening and into a game's process.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use reversi_tests::text::TextClient;
use reversi_tests::Server;
use tungstenite::{Message, WebSocket};

/// Sends `request` and reads the whole answer (the server closes after it).
fn http(server: &Server, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream.write_all(request).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

fn socket(server: &Server) -> WebSocket<TcpStream> {
    let stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let url = format!("ws://{}/ws", server.addr());
    tungstenite::client(url.as_str(), stream).unwrap().0
}

/// The next text message.
fn next(ws: &mut WebSocket<TcpStream>) -> String {
    loop {
        match ws.read().unwrap() {
            Message::Text(text) => return text.to_string(),
            Message::Ping(_) | Message::Pong(_) => {}
            other => panic!("expected a text message, got {other:?}"),
        }
    }
}

/// Reads messages until one starts with `prefix`.
fn until(ws: &mut WebSocket<TcpStream>, prefix: &str) -> String {
    loop {
        let line = next(ws);
        if line.starts_with(prefix) {
            return line;
        }
    }
}

#[test]
fn the_page_is_served_and_everything_else_is_refused_with_a_reason() {
    let server = Server::start(&[]);
    let page = http(&server, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page}");
    assert!(page.contains("<svg id=\"board\""));
    let games = http(&server, b"GET /games HTTP/1.1\r\n\r\n");
    assert!(
        games.contains("\ntictactoe\tTicTacToe\tX,O\tTic-Tac-Toe\n"),
        "{games}"
    );
    let missing = http(&server, b"GET /nothing HTTP/1.1\r\n\r\n");
    assert!(
        missing.starts_with("HTTP/1.1 404 Not Found\r\n"),
        "{missing}"
    );
    let long = format!("GET /{} HTTP/1.1\r\n", "a".repeat(5000));
    let refused = http(&server, long.as_bytes());
    assert!(
        refused.starts_with("HTTP/1.1 400 Bad Request\r\n"),
        "{refused}"
    );
    assert!(refused.ends_with("the request head is longer than 4096 bytes\n"));
    // A text client is still a text client.
    let mut text = TextClient::connect(server.addr());
    text.send("GAME LIST");
    text.next_is("GAME SESSIONS 0");
}

#[test]
fn a_websocket_lists_plays_a_text_client_and_is_watched_by_another() {
    let server = Server::start(&[]);
    let mut ws = socket(&server);
    ws.send(Message::Ping(b"hi".to_vec().into())).unwrap();
    ws.send(Message::text("GAME LIST")).unwrap();
    match ws.read().unwrap() {
        Message::Pong(payload) => assert_eq!(&payload[..], b"hi"),
        other => panic!("expected the pong first, got {other:?}"),
    }
    assert_eq!(next(&mut ws), "GAME SESSIONS 0");
    ws.send(Message::text("GAME TYPE tictactoe\n")).unwrap();
    assert_eq!(next(&mut ws), "GAME WAITING 1");
    let mut o = TextClient::join(server.addr(), "tictactoe");
    assert_eq!(next(&mut ws), "GAME TYPE TicTacToe");
    assert_eq!(until(&mut ws, "GAME TEAMS"), "GAME TEAMS X O");
    assert_eq!(next(&mut ws), "GAME TEAM 1 X");
    assert_eq!(next(&mut ws), "GAME PLAYER 1 anonymous - -");
    assert_eq!(next(&mut ws), "GAME PLAYER 2 anonymous - -");
    until(&mut ws, "READY");
    // A viewer over WebSocket too, handed to the game's process.
    let mut viewer = socket(&server);
    viewer.send(Message::text("GAME WATCH 1")).unwrap();
    until(&mut viewer, "GAME WATCHING 1");
    for (x, o_move) in [("a1", "b1"), ("a2", "b2")] {
        ws.send(Message::text(format!("MOVE {x}"))).unwrap();
        o.expect("READY");
        o.send(&format!("MOVE {o_move}"));
        until(&mut ws, "READY");
    }
    ws.send(Message::text("MOVE 1 1 3")).unwrap();
    assert_eq!(
        until(&mut ws, "GAME OVER"),
        "GAME OVER 1 three in a line: a1 a2 a3"
    );
    assert!(next(&mut ws).starts_with("RESULT WIN"));
    assert_eq!(
        until(&mut viewer, "GAME OVER"),
        "GAME OVER 1 three in a line: a1 a2 a3"
    );
    // Then the server closes with a close frame (status 1000).
    for socket in [&mut ws, &mut viewer] {
        match socket.read() {
            Ok(Message::Close(Some(frame))) => assert_eq!(u16::from(frame.code), 1000),
            other => panic!("expected a close, got {other:?}"),
        }
    }
}

#[test]
fn an_unmasked_frame_is_refused_with_an_error_and_a_protocol_close() {
    let server = Server::start(&[]);
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream
        .write_all(
            b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
              Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
        )
        .unwrap();
    stream.write_all(&[0x81, 9]).unwrap();
    stream.write_all(b"GAME LIST").unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let text = String::from_utf8_lossy(&answer);
    assert!(
        text.starts_with("HTTP/1.1 101 Switching Protocols\r\n"),
        "{text}"
    );
    assert!(
        text.contains("ERROR bad frame") || text.contains("ERROR an unmasked frame"),
        "{text}"
    );
    assert!(
        answer.ends_with(&[0x88, 2, 0x03, 0xea]),
        "close 1002: {answer:?}"
    );
}
