//! The translator's state x event tests: every PDU in the phase it belongs
//! to, and the out-of-place and rule-breaking ones that name the PDU.

use super::*;

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

fn update(colour: Colour, squares: &[&str]) -> Result<Incoming, String> {
    Ok(Incoming::UpdateBoard {
        colour,
        squares: squares.iter().map(|s| sq(s)).collect(),
    })
}

fn messages(heard: Heard) -> Vec<String> {
    match heard {
        Heard::Messages(messages) => messages.iter().map(ToString::to_string).collect(),
        Heard::Broken(why) => panic!("broken: {why}"),
    }
}

fn broken(heard: Heard) -> String {
    match heard {
        Heard::Broken(why) => why,
        Heard::Messages(messages) => panic!("not broken: {messages:?}"),
    }
}

fn join() -> ClientMessage {
    ClientMessage::Join {
        game: "reversi".into(),
    }
}

/// A translator whose game has started, this client playing `colour`.
fn playing(colour: Colour) -> Translator {
    let mut t = Translator::new();
    t.send(&join());
    messages(t.hear(Ok(Incoming::ConnectOk(colour))));
    messages(t.hear(update(Colour::White, &["d4", "e5"])));
    messages(t.hear(update(Colour::Black, &["d5", "e4"])));
    t
}

#[test]
fn joining_sends_connect_and_says_one_more_player_is_wanted() {
    let mut t = Translator::new();
    let sent = t.send(&join());
    assert_eq!(sent.pdu, Some(Outgoing::Connect));
    assert_eq!(sent.answer, vec![ServerMessage::Waiting { more: 1 }]);
}

#[test]
fn another_game_is_refused_without_a_word_to_the_server() {
    let mut t = Translator::new();
    let sent = t.send(&ClientMessage::Join {
        game: "tictactoe".into(),
    });
    assert_eq!(sent.pdu, None);
    assert!(
        matches!(&sent.answer[..], [ServerMessage::Error { why }] if why.contains("Reversi only"))
    );
}

#[test]
fn connect_ok_starts_the_game_and_the_initial_updates_draw_the_board() {
    let mut t = Translator::new();
    t.send(&join());
    assert!(messages(t.hear(Ok(Incoming::ConnectOk(Colour::White)))).is_empty());
    assert!(messages(t.hear(update(Colour::White, &["d4", "e5"]))).is_empty());
    let board = messages(t.hear(update(Colour::Black, &["e4", "d5"])));
    assert_eq!(
        board[..6],
        [
            "GAME TYPE Reversi",
            "GAME BOARD ReversiBoard 8 8",
            "GAME COLUMNS a b c d e f g h",
            "GAME ROWS 8 7 6 5 4 3 2 1",
            "GAME TEAMS black white",
            "GAME TEAM 2 white",
        ]
    );
    assert_eq!(
        board
            .iter()
            .filter(|l| l.starts_with("DRAW SQUARE"))
            .count(),
        64
    );
    assert_eq!(
        board.iter().filter(|l| l.starts_with("DRAW PIECE")).count(),
        4
    );
    assert_eq!(board.last().unwrap(), "GAME TURN 1");
}

#[test]
fn a_wrong_initial_update_names_the_pdu() {
    let mut t = Translator::new();
    t.send(&join());
    t.hear(Ok(Incoming::ConnectOk(Colour::Black)));
    let why = broken(t.hear(update(Colour::Black, &["d4", "e5"])));
    assert!(
        why.contains("initial update_board 1 was update_board black d4 e5"),
        "{why}"
    );
}

#[test]
fn turn_is_ready_and_a_legal_move_is_placed() {
    let mut t = playing(Colour::Black);
    assert_eq!(messages(t.hear(Ok(Incoming::Turn))), ["READY"]);
    let sent = t.send(&ClientMessage::MoveText("d3".into()));
    assert_eq!(sent.pdu, Some(Outgoing::Place(sq("d3"))));
    let moved = messages(t.hear(update(Colour::Black, &["d3", "d4"])));
    assert_eq!(moved[0], "GAME MOVED 1 d3");
    assert!(moved.contains(&"DRAW PIECE black 1".to_owned()));
    assert_eq!(moved.last().unwrap(), "GAME TURN 2");
}

#[test]
fn an_illegal_move_is_refused_here_with_the_reason() {
    let mut t = playing(Colour::Black);
    t.hear(Ok(Incoming::Turn));
    let sent = t.send(&ClientMessage::MoveText("a1".into()));
    assert_eq!(sent.pdu, None);
    assert_eq!(
        sent.refused.as_deref(),
        Some("illegal move: a1 flips nothing")
    );
    let sent = t.send(&ClientMessage::MoveText("z9".into()));
    assert!(sent.refused.unwrap().contains("\"z9\" is not a square"));
    // Squares as numbers too: (4, 6) is d3.
    let sent = t.send(&ClientMessage::Move(vec![(4, 6)]));
    assert_eq!(sent.pdu, Some(Outgoing::Place(sq("d3"))));
}

#[test]
fn place_error_gives_the_move_back() {
    let mut t = playing(Colour::Black);
    t.hear(Ok(Incoming::Turn));
    t.send(&ClientMessage::MoveText("d3".into()));
    let heard = messages(t.hear(Ok(Incoming::PlaceError)));
    assert_eq!(heard, ["ERROR d3 (place_error): try another move", "READY"]);
}

#[test]
fn place_error_with_nothing_placed_breaks_the_protocol() {
    let mut t = playing(Colour::Black);
    let why = broken(t.hear(Ok(Incoming::PlaceError)));
    assert_eq!(why, "the server sent place_error while a game was on");
}

#[test]
fn turn_twice_breaks_the_protocol() {
    let mut t = playing(Colour::Black);
    t.hear(Ok(Incoming::Turn));
    let why = broken(t.hear(Ok(Incoming::Turn)));
    assert_eq!(why, "the server sent turn while it was our turn");
}

#[test]
fn error_in_the_queue_is_the_server_refusing_the_game() {
    let mut t = Translator::new();
    t.send(&join());
    let heard = messages(t.hear(Ok(Incoming::Error)));
    assert_eq!(
        heard,
        ["GAME ABORTED the server sent error: it refused the game"]
    );
}

#[test]
fn a_turn_for_the_other_side_breaks_the_protocol() {
    let mut t = playing(Colour::White);
    let why = broken(t.hear(Ok(Incoming::Turn)));
    assert_eq!(why, "the server sent turn, but black is to move");
}

#[test]
fn an_update_that_breaks_the_rules_names_the_pdu() {
    let mut t = playing(Colour::White);
    let why = broken(t.hear(update(Colour::Black, &["d3"])));
    assert!(
        why.starts_with("the server sent update_board black d3: black d3 changes d3 d4"),
        "{why}"
    );
    let mut t = playing(Colour::White);
    let why = broken(t.hear(update(Colour::White, &["c4", "d4"])));
    assert!(why.contains("white moved, but black was to move"), "{why}");
}

#[test]
fn our_update_must_be_the_square_we_placed() {
    let mut t = playing(Colour::Black);
    t.hear(Ok(Incoming::Turn));
    t.send(&ClientMessage::MoveText("d3".into()));
    let why = broken(t.hear(update(Colour::Black, &["c4", "d4"])));
    assert!(why.ends_with("we placed d3"), "{why}");
}

#[test]
fn a_malformed_frame_breaks_the_protocol() {
    let mut t = playing(Colour::Black);
    let why = broken(t.hear(Err("unknown message id 99".into())));
    assert_eq!(why, "malformed PDU: unknown message id 99");
}

#[test]
fn connect_ok_twice_is_out_of_place() {
    let mut t = playing(Colour::Black);
    let why = broken(t.hear(Ok(Incoming::ConnectOk(Colour::Black))));
    assert_eq!(why, "the server sent connect_ok black while a game was on");
}

#[test]
fn winner_early_is_the_opponent_leaving_with_the_board_as_it_stood() {
    let mut t = playing(Colour::White);
    t.hear(update(Colour::Black, &["f5", "e5"]));
    let over = messages(t.hear(Ok(Incoming::Winner(Winner::White))));
    assert_eq!(
        over,
        [
            "GAME OVER 2 the opponent left or ran out of time, with the board at 1-4",
            "RESULT WIN Your team has won: the opponent left or ran out of time, with the board at 1-4",
        ]
    );
}

#[test]
fn error_aborts_the_game() {
    let mut t = playing(Colour::Black);
    let heard = messages(t.hear(Ok(Incoming::Error)));
    assert_eq!(heard, ["GAME ABORTED the server sent error"]);
}

#[test]
fn quit_sends_quit_until_the_game_is_over() {
    let mut t = Translator::new();
    t.send(&join());
    assert_eq!(t.send(&ClientMessage::Quit).pdu, Some(Outgoing::Quit));
    let mut t = playing(Colour::Black);
    assert_eq!(t.send(&ClientMessage::Quit).pdu, Some(Outgoing::Quit));
    // After the game (winner) there is nothing left to leave.
    let mut t = playing(Colour::Black);
    t.hear(Ok(Incoming::Winner(Winner::Black)));
    assert_eq!(t.send(&ClientMessage::Quit), Sent::default());
}

#[test]
fn winner_before_the_board_still_shows_the_game_it_ends() {
    let mut t = Translator::new();
    t.send(&join());
    t.hear(Ok(Incoming::ConnectOk(Colour::Black)));
    let heard = messages(t.hear(Ok(Incoming::Winner(Winner::Black))));
    assert_eq!(heard[0], "GAME TYPE Reversi");
    assert_eq!(
        heard[heard.len() - 2..],
        [
            "GAME OVER 1 the opponent left or ran out of time, with the board at 2-2",
            "RESULT WIN Your team has won: the opponent left or ran out of time, with the board at 2-2",
        ]
    );
}

#[test]
fn a_loss_before_the_end_is_the_server_ending_the_game() {
    let mut t = playing(Colour::White);
    t.hear(update(Colour::Black, &["f5", "e5"]));
    let over = messages(t.hear(Ok(Incoming::Winner(Winner::Black))));
    assert_eq!(
        over[1],
        "RESULT LOSE Your team has lost: the server ended the game early, with the board at 1-4"
    );
}

#[test]
fn the_legal_moves_are_known_on_our_turn_only() {
    let mut t = playing(Colour::Black);
    assert_eq!(t.legal(), None, "before turn");
    t.hear(Ok(Incoming::Turn));
    assert_eq!(t.legal().unwrap(), ["d3", "c4", "f5", "e6"]);
    t.send(&ClientMessage::MoveText("a1".into()));
    assert_eq!(
        t.legal().unwrap().len(),
        4,
        "a refused move leaves the turn"
    );
    t.send(&ClientMessage::MoveText("d3".into()));
    assert_eq!(t.legal(), None, "placed");
}
