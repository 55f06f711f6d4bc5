//! The text protocol against the real reversid: Tic-Tac-Toe to every end
//! (win, tie, illegal move, timeout, quit, overlong line), a malformed line,
//! what a person at nc types first (a blank line, a leading blank, a number),
//! two games of different kinds on one port, viewers, listing, and Reversi's
//! binary and text clients meeting in one game.

use reversi_pdu::{Colour, Pdu};
use reversi_tests::text::TextClient;
use reversi_tests::{Msg, Server};

/// Two Tic-Tac-Toe players, X (joined first) and O, past the start of the game.
fn tictactoe(server: &Server) -> (TextClient, TextClient) {
    let mut x = TextClient::join(server.addr(), "tictactoe");
    x.next_is("GAME WAITING 1");
    let mut o = TextClient::join(server.addr(), "TicTacToe");
    for (c, team) in [(&mut x, "GAME TEAM 1 X"), (&mut o, "GAME TEAM 2 O")] {
        c.next_is("GAME TYPE TicTacToe");
        c.next_is("GAME BOARD TicTacToeBoard 3 3");
        c.next_is("GAME COLUMNS a b c");
        c.next_is("GAME ROWS 1 2 3");
        c.next_is("GAME TEAMS X O");
        c.next_is(team);
        for _ in 0..9 {
            c.next_is("DRAW SQUARE empty");
        }
        c.next_is("GAME TURN 1");
        c.next_is("GAME CLOCK 1 ");
    }
    x.next_is("READY");
    (x, o)
}

/// Plays `moves` alternately from X, each answered by the move for both and READY for the next.
fn play(x: &mut TextClient, o: &mut TextClient, moves: &[&str]) {
    for (i, m) in moves.iter().enumerate() {
        let (mover, other) = if i % 2 == 0 {
            (&mut *x, &mut *o)
        } else {
            (&mut *o, &mut *x)
        };
        mover.send(&format!("MOVE {m}"));
        let moved = format!("GAME MOVED {} {m}", i % 2 + 1);
        mover.expect(&moved);
        other.expect(&moved);
        if i + 1 < moves.len() {
            other.expect("READY");
        }
    }
}

#[test]
fn a_win_is_announced_to_both_with_the_line() {
    let server = Server::start(&[]);
    let (mut x, mut o) = tictactoe(&server);
    play(&mut x, &mut o, &["a1", "b1", "a2", "b2", "a3"]);
    assert_eq!(
        x.expect("GAME OVER"),
        "GAME OVER 1 three in a line: a1 a2 a3"
    );
    x.next_is("RESULT WIN");
    o.expect("GAME OVER 1");
    o.next_is("RESULT LOSE");
    x.expect_closed(&[]);
    o.expect_closed(&[]);
    let line = server.wait_log("game over:");
    assert!(
        line.contains("end normal") && line.contains("X wins"),
        "{line}"
    );
}

#[test]
fn a_full_board_is_a_tie() {
    let server = Server::start(&[]);
    let (mut x, mut o) = tictactoe(&server);
    play(
        &mut x,
        &mut o,
        &["b2", "a1", "c1", "a3", "a2", "c2", "b1", "b3", "c3"],
    );
    assert_eq!(x.expect("GAME OVER"), "GAME OVER DRAW the board is full");
    x.next_is("RESULT DRAW");
    o.expect("RESULT DRAW");
}

#[test]
fn an_illegal_move_loses_but_a_garbled_line_does_not() {
    let server = Server::start(&[]);
    let (mut x, mut o) = tictactoe(&server);
    // Not a message at all: ERROR, then READY again; the game goes on.
    x.send("PLEASE MOVE");
    x.next_is("ERROR unknown command");
    x.next_is("READY");
    x.send("MOVE 2 1 1");
    x.next_is("ERROR MOVE: x2 is missing");
    x.next_is("READY");
    play(&mut x, &mut o, &["b2"]);
    o.expect("READY");
    // A move to a taken square: seed 004's rule, the mover loses.
    o.send("MOVE 1 2 2");
    o.next_is("ERROR b2 is taken");
    o.next_is("GAME OVER 1 O played an illegal move: b2 is taken");
    o.next_is("RESULT LOSE");
    x.expect("RESULT WIN");
}

#[test]
fn out_of_turn_is_refused_without_a_loss() {
    let server = Server::start(&[]);
    let (mut x, mut o) = tictactoe(&server);
    o.send("MOVE b2");
    o.next_is("ERROR it is not your turn");
    play(&mut x, &mut o, &["b2", "a1", "c3"]);
}

#[test]
fn the_move_clock_makes_the_mover_lose() {
    let server = Server::start(&["--move-timeout", "1"]);
    let (mut x, mut o) = tictactoe(&server);
    assert_eq!(x.expect("GAME OVER"), "GAME OVER 2 X ran out of time");
    x.next_is("RESULT LOSE");
    o.expect("RESULT WIN");
    assert!(server.wait_log("game over:").contains("end timeout by X"));
}

#[test]
fn quitting_resigns_and_both_are_told() {
    let server = Server::start(&[]);
    let (mut x, mut o) = tictactoe(&server);
    x.send("GAME QUIT");
    // Seed 000's transcript: the quitter is told it lost.
    x.next_is("GAME OVER 2 X left the game");
    x.next_is("RESULT LOSE");
    x.expect_closed(&[]);
    o.expect("RESULT WIN");
}

#[test]
fn an_overlong_line_breaks_the_protocol() {
    let server = Server::start(&[]);
    let (mut x, mut o) = tictactoe(&server);
    x.send_raw(&vec![b'M'; 2000]);
    x.next_is("ERROR line longer than 1024 bytes");
    x.next_is("GAME OVER 2 X broke the protocol");
    o.expect("RESULT WIN");
    let line = server.wait_log("game over:");
    assert!(line.contains("end malformed by X"), "{line}");
}

#[test]
fn a_dropped_connection_forfeits() {
    let server = Server::start(&[]);
    let (x, mut o) = tictactoe(&server);
    drop(x);
    assert_eq!(o.expect("GAME OVER"), "GAME OVER 2 X was disconnected");
    o.next_is("RESULT WIN");
}

#[test]
fn before_a_game_mistakes_are_answered_and_the_connection_stays() {
    let server = Server::start(&[]);
    let mut c = TextClient::connect(server.addr());
    c.send("GAME TYPE chess");
    assert!(c
        .next_is("ERROR no game \"chess\" here; games:")
        .contains("tictactoe"));
    c.send("MOVE b2");
    c.next_is("ERROR not in a game");
    c.send("GAME VERSION");
    c.next_is("GAME VERSION 1 reversid");
    c.send("GAME LIST");
    c.next_is("GAME SESSIONS 0");
    c.send("GAME TYPE tictactoe");
    c.next_is("GAME WAITING 1");
    c.send("MOVE b2");
    c.next_is("ERROR the game has not started");
    c.send("GAME QUIT");
    c.expect_closed(&[]);
    server.wait_log("left before being paired");
}

#[test]
fn a_person_at_nc_who_presses_enter_or_a_blank_first_is_answered_in_text() {
    let server = Server::start(&[]);
    for first in ["", " ", "\t", "\r"] {
        let mut c = TextClient::connect(server.addr());
        c.send(first); // ignored, as any blank line is
        c.send(" GAME LIST");
        c.next_is("GAME SESSIONS 0");
    }
    let mut c = TextClient::connect(server.addr());
    c.send("1234");
    c.next_is("ERROR unknown command \"1234\"");
    c.send("  game version  ");
    c.next_is("GAME VERSION 1 reversid");
    c.send("GAME QUIT");
    c.expect_closed(&[]);
    // What no line of text holds is still turned away as binary.
    let mut c = TextClient::connect(server.addr());
    c.send_raw(b" \x16GAME LIST\n");
    let mut refusal = Vec::new();
    std::io::Read::read_to_end(&mut c.stream(), &mut refusal).unwrap();
    assert_eq!(refusal, [0x00, 0x04, 0xff, 0xff]);
    server.wait_log("not a protocol this server speaks (byte 0x16 in a text line)");
}

#[test]
fn games_of_different_kinds_on_one_port_never_meet() {
    let server = Server::start(&["--fixed-colours"]);
    let mut r1 = TextClient::join(server.addr(), "reversi");
    r1.next_is("GAME WAITING 1");
    let (mut x, mut o) = tictactoe(&server);
    let mut r2 = TextClient::join(server.addr(), "Reversi");
    r1.expect("GAME TEAM 1 black");
    r2.expect("GAME TEAM 2 white");
    r1.expect("READY");
    play(&mut x, &mut o, &["a1", "b1", "a2", "b2", "a3"]);
    x.expect("RESULT WIN");
    // Reversi in the game's own notation, and in seed 000's squares: d3 is (4, 6).
    r1.send("MOVE d3");
    r2.expect("GAME MOVED 1 d3");
    r2.expect("READY");
    r2.send("MOVE 1 3 6");
    r1.expect("GAME MOVED 2 c3");
    r1.expect("GAME TURN 1");
    assert_eq!(r1.board[&(3, 6)].1.as_deref(), Some("white/2"));
    assert_eq!(
        r1.board[&(4, 5)].1.as_deref(),
        Some("white/2"),
        "d4 was flipped"
    );
}

#[test]
fn binary_and_text_reversi_clients_play_each_other() {
    let server = Server::start(&["--fixed-colours"]);
    let mut binary = server.join();
    server.wait_log("queued (1 waiting)");
    let mut text = TextClient::join(server.addr(), "reversi");
    assert_eq!(binary.expect_connect_ok(), Colour::Black);
    binary.expect_initial_position();
    binary.expect(Msg::Turn);
    text.expect("GAME TEAM 2 white");
    binary.place(5, 4); // f5
    let f5 = reversi_pdu::Square::new(5, 4).unwrap();
    let e5 = reversi_pdu::Square::new(4, 4).unwrap();
    binary.expect(Msg::UpdateBoard(Colour::Black, vec![f5, e5]));
    text.expect("GAME MOVED 1 f5");
    text.expect("READY");
    text.send("MOVE d6");
    let d6 = reversi_pdu::Square::new(3, 5).unwrap();
    let d5 = reversi_pdu::Square::new(3, 4).unwrap();
    binary.expect(Msg::UpdateBoard(Colour::White, vec![d6, d5]));
    binary.expect(Msg::Turn);
    binary.send(&Pdu::Quit);
    text.expect("GAME OVER 2 black left the game");
    text.next_is("RESULT WIN");
}

#[test]
fn a_viewer_joining_mid_game_sees_the_players_final_board() {
    let server = Server::start(&["--fixed-colours"]);
    let (mut x, mut o) = tictactoe(&server);
    play(&mut x, &mut o, &["b2", "a1"]);
    let mut lister = TextClient::connect(server.addr());
    lister.send("GAME LIST");
    let line = lister.next_is("GAME SESSION ");
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words[3], "TicTacToe", "{line}");
    assert_eq!(words.len(), 7, "two players: {line}");
    lister.next_is("GAME SESSIONS 1");
    let mut viewer = TextClient::connect(server.addr());
    viewer.send(&format!("GAME WATCH {}", words[2]));
    viewer.next_is("GAME TYPE TicTacToe");
    viewer.next_is("GAME BOARD TicTacToeBoard 3 3");
    viewer.next_is("GAME COLUMNS a b c");
    viewer.next_is("GAME ROWS 1 2 3");
    viewer.next_is("GAME TEAMS X O");
    viewer.next_is(&format!("GAME WATCHING {}", words[2]));
    viewer.expect("GAME TURN 1");
    // The move clock's time left, a little under the move limit.
    let clock = viewer.next_is("GAME CLOCK 1 ");
    let ms: u64 = clock["GAME CLOCK 1 ".len()..].parse().unwrap();
    assert!((590_000..=600_000).contains(&ms), "{clock}");
    // A viewer cannot play.
    viewer.send("MOVE c3");
    viewer.next_is("ERROR viewers cannot play");
    x.expect("READY");
    let rest = ["b1", "c1", "a2", "c2", "b3"];
    for (i, m) in rest.iter().enumerate() {
        let (mover, other) = if i % 2 == 0 {
            (&mut x, &mut o)
        } else {
            (&mut o, &mut x)
        };
        mover.send(&format!("MOVE {m}"));
        other.expect("GAME MOVED");
        if i + 1 < rest.len() {
            other.expect("READY");
        }
    }
    viewer.expect("GAME OVER");
    viewer.expect_closed(&["GAME", "DRAW"]);
    x.expect_closed(&["GAME", "DRAW", "RESULT"]);
    assert_eq!(viewer.board, x.board);
    assert_eq!(viewer.board.values().filter(|c| c.1.is_some()).count(), 7);
    assert!(viewer
        .seen
        .contains(&"GAME OVER 1 three in a line: b1 b2 b3".to_owned()));
}

#[test]
fn watching_a_game_that_does_not_exist_is_an_error() {
    let server = Server::start(&[]);
    let mut viewer = TextClient::connect(server.addr());
    viewer.send("GAME WATCH 42");
    viewer.next_is("ERROR no game 42 is running");
}

#[test]
fn a_viewer_that_never_reads_does_not_stall_the_game() {
    let server = Server::start(&["--fixed-colours"]);
    let mut black = TextClient::join(server.addr(), "reversi");
    black.next_is("GAME WAITING 1");
    let mut white = TextClient::join(server.addr(), "reversi");
    black.expect("READY");
    // A viewer with a tiny receive buffer that never reads a byte.
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    socket.set_recv_buffer_size(1024).unwrap();
    socket.connect(&server.addr().into()).unwrap();
    let mut viewer = TextClient::from_stream(socket.into());
    viewer.send("GAME WATCH 1");
    server.wait_log("watches");
    // Play the whole game through the text protocol with the engine choosing.
    let mut game = reversi_engine::Game::new();
    while let Some(side) = game.side_to_move() {
        let (mover, other) = match side {
            reversi_engine::Side::Black => (&mut black, &mut white),
            reversi_engine::Side::White => (&mut white, &mut black),
        };
        let sq = game.legal_moves().next().unwrap();
        game.play(sq).unwrap();
        mover.send(&format!("MOVE {sq}"));
        other.expect("GAME MOVED");
        mover.expect("GAME MOVED");
        if game.side_to_move().is_some() {
            let next = if game.side_to_move() == Some(side) {
                mover
            } else {
                other
            };
            next.expect("READY");
        }
    }
    black.expect("RESULT");
    white.expect("RESULT");
    // The session does not wait on the viewer: it ends within its linger.
    server.wait_log("exited with status 0");
    drop(viewer);
}

#[test]
fn draughts_rematches_with_colours_swapped_and_records_every_game() {
    let dir = std::env::temp_dir().join(format!("reversid-rematch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let server = Server::start(&[
        "--fixed-colours",
        "--move-timeout",
        "1",
        "--record-dir",
        dir.to_str().unwrap(),
    ]);
    let mut first = TextClient::join(server.addr(), "draughts");
    first.next_is("GAME WAITING 1");
    let mut second = TextClient::join(server.addr(), "draughts");
    first.expect("GAME TEAM 1 black");
    second.expect("GAME TEAM 2 white");
    first.expect("READY");
    // Black lets its clock run out; 3 s later the same two play again, colours swapped.
    first.expect("RESULT LOSE");
    second.expect("RESULT WIN");
    first.expect("GAME TYPE Draughts");
    first.expect("GAME TEAM 2 white");
    second.expect("GAME TEAM 1 black");
    second.expect("READY");
    second.send("MOVE 11-15");
    first.expect("GAME MOVED 1 11-15");
    first.expect("READY");
    // Leaving ends the series; both games are recorded as PDN.
    first.send("GAME QUIT");
    second.expect("RESULT WIN");
    server.wait_logs("game over: draughts", 2);
    let deadline = std::time::Instant::now() + reversi_tests::PATIENCE;
    let records = loop {
        let records: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "pdn"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .collect();
        if records.len() == 2 || std::time::Instant::now() > deadline {
            break records;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(records.len(), 2, "{records:?}");
    assert!(
        records.iter().all(|r| r.contains("[GameType \"21\"]")),
        "{records:?}"
    );
    assert!(records.iter().any(|r| r.contains("11-15")), "{records:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
