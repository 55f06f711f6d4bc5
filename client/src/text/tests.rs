//! The text-protocol machine on its own: a whole game, a viewer, a rematch,
//! the listing, local refusals, and every way a server can break the protocol.

use super::*;
use crate::exit;

fn received(client: &mut Client, lines: &str) -> Vec<Action> {
    let mut all = Vec::new();
    for line in lines.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let message = ServerMessage::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        all.extend(client.handle(Event::Received(message)));
    }
    all
}

fn notices(actions: &[Action]) -> Vec<Notice> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Show(n) => Some(n.clone()),
            _ => None,
        })
        .collect()
}

fn send(line: &str) -> Action {
    Action::Send(ClientMessage::parse(line).unwrap())
}

/// A client that asked for `request` and is connected.
fn connected(request: Request) -> (Client, Vec<Action>) {
    let mut client = Client::new();
    assert_eq!(client.handle(Event::User(request)), vec![Action::Open]);
    let actions = client.handle(Event::Opened(Ok(())));
    (client, actions)
}

const START: &str = "GAME TYPE TicTacToe
    GAME BOARD TicTacToeBoard 3 3
    GAME TEAM 1 X
    DRAW SQUARE empty 1 1
    DRAW SQUARE empty 2 2
    DRAW SQUARE empty 3 3
    GAME TURN 1
    READY";

#[test]
fn a_whole_game_as_a_player() {
    let (mut c, actions) = connected(Request::Join("tictactoe".into()));
    assert_eq!(actions, vec![send("GAME TYPE tictactoe")]);
    assert!(c.is_joining());
    let waiting = received(&mut c, "GAME WAITING 1");
    assert_eq!(notices(&waiting), vec![Notice::Waiting { more: 1 }]);
    assert_eq!(c.waiting_for(), Some(1));
    assert!(c.is_joining());
    let start = notices(&received(&mut c, START));
    assert!(!c.is_joining(), "the game has started");
    assert_eq!(
        start,
        vec![
            Notice::Started,
            Notice::BoardChanged,
            Notice::Turn(1),
            Notice::YourMove
        ]
    );
    let game = c.game().unwrap();
    assert_eq!(game.team(), Some(1));
    assert!(game.changed.is_empty(), "the first drawing is no change");
    assert!(c.may_move());
    assert_eq!(
        c.handle(Event::User(Request::Move(vec![(2, 2)]))),
        vec![send("MOVE 1 2 2")]
    );
    assert!(!c.may_move());
    let after = received(
        &mut c,
        "GAME MOVED 1 b2
         DRAW SQUARE empty 2 2
         DRAW PIECE x 1
         GAME TURN 2",
    );
    assert_eq!(
        notices(&after),
        vec![
            Notice::Moved {
                team: 1,
                notation: "b2".into()
            },
            Notice::BoardChanged,
            Notice::Turn(2)
        ]
    );
    let game = c.game().unwrap();
    assert_eq!(game.changed, vec![(2, 2)]);
    assert_eq!(
        game.board.cell(2, 2).unwrap().piece.as_ref().unwrap().name,
        "x"
    );
    let end = received(
        &mut c,
        "GAME OVER 2 X left the game
         RESULT LOSE Your team has lost: X left the game",
    );
    assert_eq!(notices(&end).len(), 2);
    let over = c.game().unwrap().over.clone().unwrap();
    assert_eq!(over.winner, Some(2));
    assert_eq!(over.result.unwrap().0, Standing::Lose);
    // After the end, the server closing is expected.
    let closed = c.handle(Event::Eof);
    assert!(closed.contains(&Action::Exit(exit::OK)));
    assert!(closed.contains(&Action::Show(Notice::Closed { finished: true })));
}

#[test]
fn moves_are_refused_here_until_ready() {
    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    let refused = |c: &mut Client, r: Request| notices(&c.handle(Event::User(r)));
    assert_eq!(
        refused(&mut c, Request::Move(vec![(1, 1)])),
        vec![Notice::Refused(Refusal::NoGame)]
    );
    received(&mut c, START);
    assert_eq!(
        refused(&mut c, Request::Move(vec![])),
        vec![Notice::Refused(Refusal::EmptyMove)]
    );
    assert_eq!(
        c.handle(Event::User(Request::Notation(" a1 ".into()))),
        vec![send("MOVE a1")]
    );
    assert_eq!(
        refused(&mut c, Request::Notation("b2".into())),
        vec![Notice::Refused(Refusal::NotYourMove)]
    );
    // ERROR, then READY again: the move is still ours.
    let again = notices(&received(&mut c, "ERROR a1 is taken\nREADY"));
    assert_eq!(
        again,
        vec![
            Notice::ServerRefused("a1 is taken".into()),
            Notice::YourMove
        ]
    );
    assert!(c.may_move());
    assert_eq!(
        refused(&mut c, Request::Join("reversi".into())),
        vec![Notice::Refused(Refusal::Busy)]
    );
    let quit = c.handle(Event::User(Request::Quit));
    assert_eq!(quit[0], send("GAME QUIT"));
    assert!(quit.contains(&Action::Exit(exit::OK)));
    assert!(!c.is_connected());
}

#[test]
fn quitting_says_whether_a_game_had_started() {
    // Queued: nothing to resign.
    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    let quit = c.handle(Event::User(Request::Quit));
    assert_eq!(notices(&quit), vec![Notice::Quit { paired: false }]);
    // `GAME TYPE` came: the seat is ours even before the board, and quitting resigns.
    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    received(&mut c, "GAME TYPE TicTacToe");
    let quit = c.handle(Event::User(Request::Quit));
    assert_eq!(notices(&quit), vec![Notice::Quit { paired: true }]);
}

#[test]
fn a_viewer_sees_the_game_and_cannot_play() {
    let (mut c, actions) = connected(Request::Watch(4));
    assert_eq!(actions, vec![send("GAME WATCH 4")]);
    received(
        &mut c,
        "GAME TYPE Reversi
         GAME BOARD ReversiBoard 8 8
         GAME WATCHING 4
         DRAW SQUARE green 4 4
         DRAW PIECE white 2
         GAME TURN 1",
    );
    let game = c.game().unwrap();
    assert_eq!(game.seat, Seat::Viewer { id: 4 });
    assert_eq!(game.turn, Some(1));
    assert_eq!(
        notices(&c.handle(Event::User(Request::Move(vec![(3, 4)])))),
        vec![Notice::Refused(Refusal::Watching)]
    );
    let bad = c.handle(Event::Received(ServerMessage::Ready));
    assert!(bad.contains(&Action::Exit(exit::PROTOCOL)), "{bad:?}");
}

#[test]
fn columns_rows_and_teams_are_named_when_the_server_names_them() {
    let (mut c, _) = connected(Request::Join("reversi".into()));
    received(
        &mut c,
        "GAME TYPE Reversi
         GAME BOARD ReversiBoard 8 8
         GAME COLUMNS a b c d e f g h
         GAME ROWS 8 7 6 5 4 3 2 1
         GAME TEAMS black white
         GAME TEAM 1 black",
    );
    let game = c.game().unwrap();
    assert_eq!(game.board.square_name(4, 6), "d3");
    assert_eq!(
        (game.board.column_name(8), game.board.row_name(1)),
        ("h".into(), "8".into())
    );
    assert_eq!(
        (game.team_name(2), game.team_name(3)),
        (Some("white"), None)
    );
    // Without them, squares are their coordinates and teams their numbers.
    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    received(&mut c, START);
    let game = c.game().unwrap();
    assert_eq!(game.board.square_name(2, 3), "2 3");
    assert_eq!(game.team_name(1), None);
}

#[test]
fn a_rematch_starts_a_new_round() {
    let (mut c, _) = connected(Request::Join("draughts".into()));
    received(&mut c, START);
    received(
        &mut c,
        "GAME OVER DRAW agreed\nRESULT DRAW The game is drawn: agreed",
    );
    let next = received(
        &mut c,
        "GAME TYPE TicTacToe
         GAME BOARD TicTacToeBoard 3 3
         GAME TEAM 2 O",
    );
    assert_eq!(notices(&next), vec![Notice::Started]);
    let game = c.game().unwrap();
    assert_eq!(
        (game.round, game.team(), game.over.is_none()),
        (2, Some(2), true)
    );
    // What the last game's start named is not carried into the next.
    let (mut c, _) = connected(Request::Join("reversi".into()));
    received(
        &mut c,
        "GAME TYPE Reversi\nGAME BOARD ReversiBoard 8 8\nGAME TEAMS black white\nGAME TEAM 1 black",
    );
    received(&mut c, "GAME OVER 1 33-31\nRESULT WIN 33-31");
    received(
        &mut c,
        "GAME TYPE Reversi\nGAME BOARD ReversiBoard 8 8\nGAME TEAM 2 white",
    );
    assert_eq!(c.game().unwrap().team_name(1), None);
}

#[test]
fn the_listing() {
    let (mut c, actions) = connected(Request::List);
    assert_eq!(actions, vec![send("GAME LIST")]);
    let listed = received(
        &mut c,
        "GAME SESSION 3 Reversi 12 127.0.0.1:5 127.0.0.1:6
         GAME SESSIONS 1",
    );
    let Notice::Listed(sessions) = &notices(&listed)[0] else {
        panic!("{listed:?}");
    };
    assert_eq!(sessions[0].id, 3);
    assert_eq!(sessions[0].players.len(), 2);
    // Idle again: another request may follow on the same connection.
    assert_eq!(
        c.handle(Event::User(Request::Watch(3))),
        vec![send("GAME WATCH 3")]
    );
}

#[test]
fn refusals_and_failures_end_the_connection() {
    let (mut c, _) = connected(Request::Join("chess".into()));
    let denied = received(&mut c, "ERROR no game \"chess\" here; games: reversi");
    assert!(denied.contains(&Action::Show(Notice::Denied(
        "no game \"chess\" here; games: reversi".into()
    ))));
    assert!(denied.contains(&Action::Exit(exit::SERVER_GONE)));
    let mut c = Client::new();
    c.handle(Event::User(Request::List));
    let failed = c.handle(Event::Opened(Err("could not connect to x: no".into())));
    assert_eq!(
        failed,
        vec![
            Action::Show(Notice::ConnectFailed("could not connect to x: no".into())),
            Action::Exit(exit::CONNECT_FAILED)
        ]
    );
    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    received(&mut c, START);
    let gone = c.handle(Event::Eof);
    assert!(gone.contains(&Action::Show(Notice::Closed { finished: false })));
    assert!(gone.contains(&Action::Exit(exit::SERVER_GONE)));
    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    let aborted = received(&mut c, "GAME ABORTED the server is shutting down");
    assert!(aborted.contains(&Action::Exit(exit::SERVER_GONE)));
}

#[test]
fn every_break_of_the_protocol_is_named() {
    let cases = [
        ("READY", "while waiting for the game"),
        ("GAME TYPE X\nGAME TEAM 1 X", "before GAME BOARD"),
        ("GAME TYPE X\nGAME BOARD B 0 3", "has none"),
        (
            "GAME TYPE X\nGAME BOARD B 2 2\nGAME BOARD B 2 2",
            "a second GAME BOARD",
        ),
        (
            "GAME TYPE X\nGAME BOARD B 2 2\nGAME TEAM 1 X\nDRAW PIECE x 1",
            "before any DRAW SQUARE",
        ),
        (
            "GAME TYPE X\nGAME BOARD B 2 2\nGAME TEAM 1 X\nDRAW SQUARE s 3 1",
            "off the 2x2 board",
        ),
        (
            "GAME TYPE X\nGAME BOARD B 2 2\nGAME TEAM 1 X\nGAME TURN 0",
            "teams count from 1",
        ),
        (
            "GAME TYPE X\nGAME BOARD B 2 2\nGAME TEAM 1 X\nRESULT WIN yes",
            "RESULT before GAME OVER",
        ),
        (
            "GAME TYPE X\nGAME BOARD B 2 2\nGAME TEAM 1 X\nGAME TYPE Y",
            "during a game",
        ),
        ("GAME SESSIONS 0", "while waiting for the game"),
        (
            "GAME TYPE X\nGAME COLUMNS a b",
            "GAME COLUMNS before GAME BOARD",
        ),
        (
            "GAME TYPE X\nGAME BOARD B 2 2\nGAME ROWS 1 2 3",
            "GAME ROWS gave 3 names for 2 rows",
        ),
    ];
    for (lines, why) in cases {
        let (mut c, _) = connected(Request::Join("x".into()));
        let actions = received(&mut c, lines);
        let violation = notices(&actions).into_iter().find_map(|n| match n {
            Notice::Violation(text) => Some(text),
            _ => None,
        });
        let text = violation.unwrap_or_else(|| panic!("{lines:?}: no violation in {actions:?}"));
        assert!(text.contains(why), "{lines:?}: {text}");
        assert!(actions.contains(&Action::Exit(exit::PROTOCOL)));
        assert!(!c.is_connected());
    }
    let (mut c, _) = connected(Request::List);
    let bad = c.handle(Event::BadLine("\"HELLO\": unknown command".into()));
    assert!(bad.contains(&Action::Exit(exit::PROTOCOL)));
    let (mut c, _) = connected(Request::List);
    let miscount = received(&mut c, "GAME SESSIONS 2");
    assert!(miscount.contains(&Action::Exit(exit::PROTOCOL)));
}

#[test]
fn a_move_the_transport_refused_is_the_players_again() {
    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    received(&mut c, START);
    let sent = c.handle(Event::User(Request::Move(vec![(1, 1)])));
    assert_eq!(sent, vec![send("MOVE 1 1 1")]);
    assert!(!c.may_move());
    let refused = c.handle(Event::Refused("illegal move: a1 flips nothing".into()));
    assert_eq!(
        notices(&refused),
        vec![Notice::Illegal("illegal move: a1 flips nothing".into())]
    );
    assert!(c.may_move(), "the move never left: the server still waits");
}

#[test]
fn legal_moves_are_kept_while_the_move_is_ours() {
    let (mut c, _) = connected(Request::Join("reversi".into()));
    received(&mut c, START);
    c.handle(Event::Legal(vec!["d3".into(), "c4".into()]));
    assert_eq!(
        c.game().unwrap().legal,
        Some(vec!["d3".into(), "c4".into()])
    );
    c.handle(Event::User(Request::Notation("d3".into())));
    assert_eq!(c.game().unwrap().legal, None, "sent: no longer ours");
    // Told while not ready (a late event): not kept.
    c.handle(Event::Legal(vec!["e6".into()]));
    assert_eq!(c.game().unwrap().legal, None);
}

#[test]
fn a_break_the_transport_found_ends_the_connection_with_its_words() {
    let (mut c, _) = connected(Request::Join("reversi".into()));
    let broken = c.handle(Event::Broken(
        "the server sent turn while a game was on".into(),
    ));
    assert_eq!(
        broken,
        vec![
            Action::Close,
            Action::Show(Notice::Violation(
                "the server sent turn while a game was on".into()
            )),
            Action::Exit(exit::PROTOCOL),
        ]
    );
    // Closed: nothing more comes of it.
    assert!(c.handle(Event::Broken("again".into())).is_empty());
}

fn timing(line: &str, at: std::time::Instant) -> Event {
    Event::Timing {
        timing: clock::Timing::of(&ServerMessage::parse(line).unwrap()).unwrap(),
        at,
    }
}

#[test]
fn clocks_and_timers_are_kept_while_a_game_is_on() {
    use std::time::{Duration, Instant};
    let at = Instant::now();
    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    // Before a game: nothing to keep.
    assert_eq!(c.handle(timing("GAME CLOCK 1 30000", at)), vec![]);
    received(&mut c, START);
    let told = c.handle(timing("GAME CLOCK 1 30000", at));
    assert_eq!(notices(&told), vec![Notice::Clock { team: 1, ms: 30000 }]);
    c.handle(timing("GAME TIMER tide 10000 the tide turns", at));
    c.handle(timing("GAME TIMER quiet 120000 nothing eaten", at));
    let game = c.game().unwrap();
    assert_eq!(game.running_clock(), Some(1));
    let later = at + Duration::from_secs(25);
    assert_eq!(
        game.clocks[0].time.left(later, true),
        Duration::from_secs(5)
    );
    assert_eq!(game.timers.len(), 2);
    // A timer told again replaces itself; 0 stops it.
    c.handle(timing("GAME TIMER tide 0 the tide turns", later));
    c.handle(timing("GAME CLOCK 2 20000", later));
    c.handle(timing("GAME CLOCK 1 29000", later));
    let game = c.game().unwrap();
    assert_eq!(game.timers.len(), 1);
    assert_eq!(game.timers[0].name, "quiet");
    let teams: Vec<u8> = game.clocks.iter().map(|c| c.team).collect();
    assert_eq!(teams, [1, 2]);
    assert_eq!(game.clocks[0].time.ms, 29000);
    // Once over, no clock runs and none is taken.
    received(&mut c, "GAME OVER 2 time ran out");
    assert_eq!(c.game().unwrap().running_clock(), None);
    assert_eq!(c.handle(timing("GAME CLOCK 1 5", later)), vec![]);
}

// Playing together (docs/design/play-together.md §7.4): state x event.

const TOKEN_START: &str = "GAME TYPE TicTacToe
    GAME BOARD TicTacToeBoard 3 3
    GAME TEAM 1 X
    GAME TOKEN 0P9QK3M2X9AV0C4TZP8RWD5NHJ6 2000
    GAME TIME fischer 60000 0
    DRAW SQUARE empty 1 1
    GAME TURN 1
    READY";

#[test]
fn an_invitation_shows_its_code_and_link_then_starts_the_game() {
    let terms = Terms {
        time: Some("1+0".into()),
        ..Terms::default()
    };
    let (mut c, actions) = connected(Request::Invite {
        game: "tictactoe".into(),
        terms,
    });
    assert_eq!(
        actions,
        vec![send("GAME INVITE tictactoe time=1+0 private")]
    );
    assert!(c.is_inviting());
    let told = notices(&received(
        &mut c,
        "GAME CODE 4821-0937-5562 900 tictactoe time=1+0 side=random private
         GAME LINK http://127.0.0.1:8765/#join=4821-0937-5562
         GAME WAITING 1",
    ));
    assert!(
        matches!(&told[0], Notice::Invited { code, seconds: 900, .. } if code == "4821-0937-5562")
    );
    assert_eq!(
        told[1],
        Notice::Link("http://127.0.0.1:8765/#join=4821-0937-5562".into())
    );
    assert_eq!(told[2], Notice::Waiting { more: 1 });
    received(&mut c, TOKEN_START);
    assert!(c.may_move());
    let game = c.game().unwrap();
    assert_eq!(
        game.control,
        Some(TimeControl::Fischer {
            base: 60_000,
            increment: 0
        })
    );
    assert_eq!(c.resume().unwrap().grace.as_millis(), 2000);
}

#[test]
fn an_invitation_that_expires_or_is_refused_ends_the_connection() {
    let invite = || Request::Invite {
        game: "tictactoe".into(),
        terms: Terms::default(),
    };
    let (mut c, _) = connected(invite());
    let actions = received(&mut c, "GAME EXPIRED 4821-0937-5562");
    assert_eq!(
        notices(&actions),
        vec![Notice::Expired("4821-0937-5562".into())]
    );
    assert_eq!(actions.last(), Some(&Action::Exit(exit::SERVER_GONE)));
    let (mut c, _) = connected(invite());
    let actions = received(&mut c, "ERROR bad time \"5:3\"");
    assert_eq!(
        notices(&actions),
        vec![Notice::Denied("bad time \"5:3\"".into())]
    );
}

#[test]
fn a_join_code_is_sent_and_the_game_starts_as_from_the_queue() {
    let (mut c, actions) = connected(Request::JoinCode("4821-0937-5562".into()));
    assert_eq!(actions, vec![send("GAME JOIN 4821-0937-5562")]);
    assert!(c.is_joining());
    received(&mut c, START);
    assert_eq!(c.game().unwrap().team(), Some(1));
    let (mut c, _) = connected(Request::JoinCode("0000-0000-0000".into()));
    let actions = received(&mut c, "ERROR no challenge 0000-0000-0000 (check the code)");
    assert_eq!(actions.last(), Some(&Action::Exit(exit::SERVER_GONE)));
}

#[test]
fn the_lobby_lists_the_challenges_then_the_client_is_idle() {
    let (mut c, actions) = connected(Request::Lobby);
    assert_eq!(actions, vec![send("GAME LOBBY")]);
    let told = notices(&received(
        &mut c,
        "GAME CHALLENGE 1111-2222-3333 600 reversi time=5+3 side=black public
         GAME CHALLENGES 1",
    ));
    let [Notice::Lobby(list)] = told.as_slice() else {
        panic!("{told:?}")
    };
    assert_eq!(list[0].code, "1111-2222-3333");
    assert_eq!(list[0].terms.side.as_deref(), Some("black"));
    // Idle again: a join goes out at once.
    let actions = c.handle(Event::User(Request::JoinCode("1111-2222-3333".into())));
    assert_eq!(actions, vec![send("GAME JOIN 1111-2222-3333")]);
    let (mut c, _) = connected(Request::Lobby);
    let actions = received(&mut c, "GAME CHALLENGES 2");
    assert!(matches!(notices(&actions)[0], Notice::Violation(_)));
}

#[test]
fn a_ping_is_answered_at_once_in_every_phase() {
    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    assert_eq!(received(&mut c, "GAME PING 1"), vec![send("GAME PONG 1")]);
    received(&mut c, START);
    assert_eq!(received(&mut c, "GAME PING 2"), vec![send("GAME PONG 2")]);
    assert!(c.may_move(), "a ping does not touch the turn");
}

#[test]
fn a_dropped_connection_mid_game_is_taken_back_with_the_token() {
    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    received(&mut c, TOKEN_START);
    c.handle(Event::User(Request::Move(vec![(1, 1)])));
    received(&mut c, "GAME MOVED 1 a1\nGAME TURN 2");
    let actions = c.handle(Event::Eof);
    assert_eq!(
        actions,
        vec![
            Action::Close,
            Action::Show(Notice::Reconnecting {
                left: std::time::Duration::from_secs(2)
            }),
            Action::Redial(backoff(0)),
        ]
    );
    assert!(c.is_reconnecting());
    assert!(c.game().is_some(), "the board stays on screen");
    assert_eq!(c.handle(Event::Redial), vec![Action::Open]);
    // The server cannot be reached: wait longer.
    let actions = c.handle(Event::Opened(Err("refused".into())));
    assert_eq!(actions.last(), Some(&Action::Redial(backoff(1))));
    c.handle(Event::Redial);
    let actions = c.handle(Event::Opened(Ok(())));
    assert_eq!(
        actions,
        vec![send("GAME RESUME 0P9QK3M2X9AV0C4TZP8RWD5NHJ6")]
    );
    let told = notices(&received(
        &mut c,
        "GAME TYPE TicTacToe
         GAME BOARD TicTacToeBoard 3 3
         GAME TEAM 1 X
         GAME RESUMED 7
         GAME TOKEN 0P9QK3M2X9AV0C4TZP8RWD5NHJ6 2000
         GAME TIME fischer 60000 0
         DRAW SQUARE empty 1 1
         GAME TURN 1
         READY",
    ));
    assert!(told.contains(&Notice::Resumed(7)));
    assert!(!c.is_reconnecting());
    assert!(c.may_move());
    // The moves before the drop are kept, and the board drawn again is no change.
    let game = c.game().unwrap();
    assert_eq!(game.moves.len(), 1);
    assert!(game.changed.is_empty());
}

#[test]
fn reconnecting_gives_up_when_the_grace_is_spent_or_the_token_is_refused() {
    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    received(&mut c, TOKEN_START);
    // Grace 2 s: waits of 0.5 s and 1 s fit, 2 s more does not.
    c.handle(Event::Eof);
    c.handle(Event::Redial);
    c.handle(Event::Opened(Err("refused".into())));
    c.handle(Event::Redial);
    let actions = c.handle(Event::Opened(Err("refused".into())));
    assert_eq!(actions.last(), Some(&Action::Exit(exit::SERVER_GONE)));
    assert!(!c.is_reconnecting());

    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    received(&mut c, TOKEN_START);
    c.handle(Event::Eof);
    c.handle(Event::Redial);
    c.handle(Event::Opened(Ok(())));
    let actions = received(
        &mut c,
        "ERROR no running game has this token (the game may have ended)",
    );
    assert_eq!(actions.last(), Some(&Action::Exit(exit::SERVER_GONE)));
    assert!(c.resume().is_none(), "the token is forgotten");
}

#[test]
fn without_a_token_or_after_the_game_a_drop_ends_as_before() {
    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    received(&mut c, START);
    let actions = c.handle(Event::Eof);
    assert_eq!(actions.last(), Some(&Action::Exit(exit::SERVER_GONE)));
    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    received(&mut c, TOKEN_START);
    received(
        &mut c,
        "GAME OVER 1 three in a row\nRESULT WIN three in a row",
    );
    let actions = c.handle(Event::Eof);
    assert_eq!(actions.last(), Some(&Action::Exit(exit::OK)));
}

#[test]
fn an_opponent_away_then_held_can_be_claimed_against() {
    use std::time::Instant;
    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    received(&mut c, TOKEN_START);
    let at = Instant::now();
    let away = |ms| Event::Timing {
        timing: clock::Timing::Away { team: 2, ms },
        at,
    };
    assert_eq!(
        notices(&c.handle(away(60_000))),
        vec![Notice::Away {
            team: 2,
            ms: 60_000
        }]
    );
    c.handle(away(0));
    let game = c.game().unwrap();
    assert_eq!(game.away.len(), 1);
    assert_eq!(game.away[0].time.ms, 0);
    // A claim does not spend the turn.
    assert_eq!(
        c.handle(Event::User(Request::ClaimWin)),
        vec![send("GAME CLAIM WIN")]
    );
    assert!(c.may_move());
    received(&mut c, "GAME BACK 2");
    assert!(c.game().unwrap().away.is_empty());
}

#[test]
fn rematches_are_offered_accepted_and_declined_after_the_game_only() {
    let (mut c, _) = connected(Request::Join("tictactoe".into()));
    received(&mut c, START);
    let early = c.handle(Event::User(Request::OfferRematch));
    assert_eq!(notices(&early), vec![Notice::Refused(Refusal::NotOver)]);
    received(
        &mut c,
        "GAME OVER 1 three in a row\nRESULT WIN three in a row",
    );
    assert_eq!(
        c.handle(Event::User(Request::OfferRematch)),
        vec![send("GAME OFFER REMATCH")]
    );
    received(&mut c, "GAME OFFERED REMATCH 2");
    assert_eq!(c.game().unwrap().rematch_offer, Some(2));
    // The other's offer stands: taking it is an acceptance.
    assert_eq!(
        c.handle(Event::User(Request::OfferRematch)),
        vec![send("GAME ACCEPT REMATCH")]
    );
    assert_eq!(
        c.handle(Event::User(Request::DeclineRematch)),
        vec![send("GAME DECLINE REMATCH")]
    );
    // The rematch window's timer runs after the game; clocks do not.
    let at = std::time::Instant::now();
    let timer = clock::Timing::Timer {
        name: "rematch".into(),
        ms: 20_000,
        text: "a rematch may be offered until then".into(),
    };
    assert_eq!(c.handle(Event::Timing { timing: timer, at }).len(), 1);
    assert_eq!(c.game().unwrap().timers.len(), 1);
}
