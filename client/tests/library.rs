//! The library as another program uses it, through its public API only:
//! a text-protocol game played with `transport::Driver` against a small server
//! written here, the binary translator stepped by hand, and a bot for a game.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::thread;
use std::time::Duration;

use reversi_client::bots::{self, Strength};
use reversi_client::text::{ClientMessage, Event, Notice, Request, ServerMessage, Standing};
use reversi_client::transport::translate::{Heard, Incoming, Outgoing, Translator};
use reversi_client::transport::{Driver, Protocol};
use reversi_games::registry;

/// A server for one Tic-Tac-Toe game: it answers the client's lines as
/// reversid would, and returns what it read.
fn one_game_server() -> (String, thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let server = thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut out = stream.try_clone().unwrap();
        let mut lines = BufReader::new(stream).lines();
        let mut read = Vec::new();
        let mut say = |text: &str| out.write_all(format!("{text}\n").as_bytes()).unwrap();
        read.push(lines.next().unwrap().unwrap());
        say("GAME TYPE TicTacToe\nGAME BOARD TicTacToeBoard 3 3\nGAME TEAM 1 X");
        for y in 1..=3 {
            for x in 1..=3 {
                say(&format!("DRAW SQUARE empty {x} {y}"));
            }
        }
        say("GAME TURN 1\nREADY");
        read.push(lines.next().unwrap().unwrap());
        say("GAME MOVED 1 b2\nDRAW SQUARE empty 2 2\nDRAW PIECE x 1");
        say("GAME OVER 1 O left the game\nRESULT WIN Your team has won: O left the game");
        read
    });
    (addr, server)
}

#[test]
fn a_text_game_through_the_driver() {
    let (addr, server) = one_game_server();
    let mut driver = Driver::new(&addr, Protocol::Text);
    let mut seen = Vec::new();
    let mut event = Event::User(Request::Join("tictactoe".into()));
    let code = loop {
        if let Some(code) = driver.handle(event, &mut |n: &Notice| seen.push(n.clone())) {
            break code;
        }
        event = if driver.client().may_move() {
            Event::User(Request::Move(vec![(2, 2)]))
        } else {
            driver.next_event()
        };
    };
    assert_eq!(code, reversi_client::exit::OK);
    assert_eq!(
        server.join().unwrap(),
        ["GAME TYPE tictactoe", "MOVE 1 2 2"]
    );
    let game = driver.client().game().unwrap();
    assert_eq!(game.board.pieces().count(), 1);
    assert_eq!(game.moves[0].notation, "b2");
    let result = game.over.as_ref().unwrap().result.as_ref().unwrap();
    assert_eq!(result.0, Standing::Win);
    assert!(seen.contains(&Notice::YourMove));
    assert!(seen.contains(&Notice::Closed { finished: true }));
}

#[test]
fn the_binary_translator_stepped_by_hand() {
    let mut translator = Translator::new();
    let join = ClientMessage::Join {
        game: "reversi".into(),
    };
    assert_eq!(translator.send(&join).pdu, Some(Outgoing::Connect));
    assert_eq!(
        translator.hear(Ok(Incoming::Error)),
        Heard::Messages(vec![ServerMessage::Aborted {
            why: "the server sent error: it refused the game".into()
        }])
    );
}

#[test]
fn a_bot_for_a_game_found_by_name() {
    let module = registry::find("TicTacToe").unwrap();
    let strength = Strength {
        move_time: Some(Duration::from_millis(20)),
        ..Strength::default()
    };
    let mut bot = bots::for_game(module, &strength);
    let mut game = (module.new_game)(&Default::default());
    while let Some(team) = game.turn() {
        let action = bot.choose(&*game, team, strength.budget()).unwrap();
        game.play(team, &action, 0).unwrap();
    }
    assert!(game.outcome().is_some());
    assert!(game.history().len() >= 5, "a win takes five moves at least");
}
