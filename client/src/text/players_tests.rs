//! The client's rows for the players' lines: saying who it is before its first
//! request, the seats' players, and the moves told again after a resume.

use super::players::{self, Identity};
use super::*;

/// Feeds `lines`, each read as the transport reads it: a players' line or a message.
fn feed(client: &mut Client, lines: &str) -> Vec<Action> {
    let mut all = Vec::new();
    for line in lines.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let event = match players::parse(line) {
            Some(players) => Event::Players(players),
            None => Event::Received(ServerMessage::parse(line).unwrap()),
        };
        all.extend(client.handle(event));
    }
    all
}

const START: &str = "GAME TYPE TicTacToe
    GAME BOARD TicTacToeBoard 3 3
    GAME TEAMS X O
    GAME TEAM 2 O
    GAME PLAYER 1 account Alice 1500?
    GAME PLAYER 2 guest bob -
    DRAW SQUARE empty 1 1
    GAME TURN 1";

#[test]
fn the_identity_is_said_first_and_the_request_waits_for_its_answer() {
    let token = Identity::Token("rvt_secret".into());
    let mut c = Client::new().with_identity(Some(token.clone()));
    assert_eq!(
        c.handle(Event::User(Request::Join("tictactoe".into()))),
        vec![Action::Open]
    );
    assert_eq!(
        c.handle(Event::Opened(Ok(()))),
        vec![Action::Identify(token)]
    );
    let actions = feed(&mut c, "GAME SIGNEDIN Alice tictactoe=1500?");
    assert_eq!(
        actions,
        vec![
            Action::Show(Notice::Identified("Alice".into())),
            Action::Send(ClientMessage::Join {
                game: "tictactoe".into()
            }),
        ]
    );
    assert!(c.is_joining());
}

#[test]
fn a_refused_identity_ends_the_connection_with_the_reason() {
    let mut c = Client::new().with_identity(Some(Identity::Guest("GAME".into())));
    c.handle(Event::User(Request::Join("tictactoe".into())));
    c.handle(Event::Opened(Ok(())));
    let actions = feed(&mut c, "ERROR \"GAME\" is not a name: a protocol word");
    assert!(actions.contains(&Action::Show(Notice::Denied(
        "\"GAME\" is not a name: a protocol word".into()
    ))));
    assert!(!c.is_connected());
}

#[test]
fn a_guest_is_told_with_its_tilde_and_an_anonymous_client_says_nothing() {
    let mut c = Client::new().with_identity(Some(Identity::Guest("bob".into())));
    c.handle(Event::User(Request::Lobby));
    c.handle(Event::Opened(Ok(())));
    let actions = feed(&mut c, "GAME GUEST bob");
    assert_eq!(actions[0], Action::Show(Notice::Identified("bob~".into())));
    assert_eq!(actions[1], Action::Send(ClientMessage::Lobby));

    let mut c = Client::new();
    c.handle(Event::User(Request::Lobby));
    assert_eq!(
        c.handle(Event::Opened(Ok(()))),
        vec![Action::Send(ClientMessage::Lobby)]
    );
}

#[test]
fn the_seats_players_are_kept_by_team_with_their_ratings() {
    let mut c = Client::new();
    c.handle(Event::User(Request::Join("tictactoe".into())));
    c.handle(Event::Opened(Ok(())));
    feed(&mut c, START);
    let game = c.game().unwrap();
    assert_eq!(game.player_names(1).as_deref(), Some("Alice (1500?)"));
    assert_eq!(game.player_names(2).as_deref(), Some("bob~"));
    assert_eq!(game.player_names(3), None);
}

#[test]
fn after_a_resume_the_moves_told_again_make_the_list_and_are_no_news() {
    let mut c = Client::new();
    c.handle(Event::User(Request::Join("tictactoe".into())));
    c.handle(Event::Opened(Ok(())));
    feed(
        &mut c,
        "GAME TYPE TicTacToe\nGAME BOARD TicTacToeBoard 3 3\nGAME TEAM 1 X",
    );
    feed(
        &mut c,
        "GAME TOKEN 0P9QK3M2X9AV0C4TZP8RWD5NHJ6 2000\nDRAW SQUARE empty 1 1\nGAME TURN 1",
    );
    feed(
        &mut c,
        "GAME MOVED 1 a1\nGAME TURN 2\nDRAW SQUARE empty 2 2",
    );
    c.handle(Event::Eof);
    c.handle(Event::Redial);
    c.handle(Event::Opened(Ok(())));
    let actions = feed(
        &mut c,
        "GAME TYPE TicTacToe
         GAME BOARD TicTacToeBoard 3 3
         GAME TEAM 1 X
         GAME PLAYER 1 anonymous - -
         GAME PLAYER 2 anonymous - -
         GAME RESUMED 7
         GAME TOKEN 0P9QK3M2X9AV0C4TZP8RWD5NHJ6 2000
         GAME MOVED 1 a1
         GAME MOVED 2 b2
         DRAW SQUARE empty 3 3
         GAME TURN 1
         READY",
    );
    let told: Vec<&Notice> = (actions.iter())
        .filter_map(|a| match a {
            Action::Show(n) => Some(n),
            _ => None,
        })
        .collect();
    assert!(
        told.iter().all(|n| !matches!(n, Notice::Moved { .. })),
        "{told:?}"
    );
    assert!(told.contains(&&Notice::Replayed {
        team: 2,
        notation: "b2".into()
    }));
    let game = c.game().unwrap();
    let moves: Vec<&str> = game.moves.iter().map(|m| m.notation.as_str()).collect();
    assert_eq!(
        moves,
        ["a1", "b2"],
        "told afresh, not added to the carried one"
    );
    assert!(
        game.changed.is_empty(),
        "the board drawn again is no change"
    );
    assert!(c.may_move());
}

#[test]
fn while_reconnecting_the_server_does_not_wait_for_a_move() {
    let mut c = Client::new();
    c.handle(Event::User(Request::Join("tictactoe".into())));
    c.handle(Event::Opened(Ok(())));
    feed(
        &mut c,
        "GAME TYPE TicTacToe\nGAME BOARD TicTacToeBoard 3 3\nGAME TEAM 1 X
         GAME TOKEN 0P9QK3M2X9AV0C4TZP8RWD5NHJ6 2000\nDRAW SQUARE empty 1 1\nGAME TURN 1\nREADY",
    );
    assert!(c.game().unwrap().ready);
    c.handle(Event::Eof);
    assert!(c.is_reconnecting());
    assert!(
        !c.game().unwrap().ready,
        "no \"Your move.\" while reconnecting"
    );
}

/// Feeds `lines` as the transport reads them, tournament lines too.
fn feed_all(client: &mut Client, lines: &str) -> Vec<Action> {
    let mut all = Vec::new();
    for line in lines.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match super::tournament::parse(line) {
            Some(told) => all.extend(client.handle(Event::Tournament(told))),
            None => all.extend(feed(client, line)),
        }
    }
    all
}

#[test]
fn a_tournament_player_signs_in_waits_is_called_and_its_game_starts() {
    use super::tournament::TournamentLine;
    let token = Identity::Token("rvt_secret".into());
    let mut c = Client::new().with_identity(Some(token.clone()));
    assert_eq!(
        c.handle(Event::User(Request::Tournament(3))),
        vec![Action::Open]
    );
    assert_eq!(
        c.handle(Event::Opened(Ok(()))),
        vec![Action::Identify(token)]
    );
    let actions = feed_all(&mut c, "GAME SIGNEDIN Bob");
    assert_eq!(
        actions[1],
        Action::SendLine("GAME TOURNAMENT PLAY 3".into())
    );
    // Waiting: the news, a bye, another tournament's call (not this one's: nothing), the call.
    let waiting = feed_all(
        &mut c,
        "GAME NEWS waiting for your games of tournament 3
         GAME BYE 3 1 1
         GAME PAIRED 4 2 1 Ann Bob
         GAME PAIRED 3 2 1 Ann Bob
         GAME NEWS Club round 2 board 1: your game is starting",
    );
    let bye = TournamentLine::Bye {
        id: 3,
        round: 1,
        points: "1".into(),
    };
    let paired = TournamentLine::Paired {
        id: 3,
        round: 2,
        board: 1,
        first: "Ann".into(),
        second: "Bob".into(),
    };
    assert_eq!(
        waiting,
        vec![
            Action::Show(Notice::News(
                "waiting for your games of tournament 3".into()
            )),
            Action::Show(Notice::Called(bye)),
            Action::Show(Notice::Called(paired)),
            Action::Show(Notice::News(
                "Club round 2 board 1: your game is starting".into()
            )),
        ]
    );
    assert!(c.game().is_none());
    // The game starts as any game does.
    let start = feed_all(&mut c, START);
    assert!(start.contains(&Action::Show(Notice::Started)), "{start:?}");
    assert_eq!(c.game().unwrap().team(), Some(2));
    // Tournament lines in a game are not calls.
    assert_eq!(feed_all(&mut c, "GAME PAIRED 3 3 1 Bob Ann"), vec![]);
}

#[test]
fn a_tournament_wait_refused_ends_the_connection_with_the_reason() {
    let mut c = Client::new().with_identity(Some(Identity::Token("rvt_x".into())));
    c.handle(Event::User(Request::Tournament(9)));
    c.handle(Event::Opened(Ok(())));
    feed_all(&mut c, "GAME SIGNEDIN Bob");
    let actions = feed_all(&mut c, "ERROR Bob is not registered in tournament 9");
    assert!(actions.contains(&Action::Show(Notice::Denied(
        "Bob is not registered in tournament 9".into()
    ))));
    assert!(!c.is_connected());
    // Closed while waiting: not a finished game.
    let mut c = Client::new().with_identity(Some(Identity::Token("rvt_x".into())));
    c.handle(Event::User(Request::Tournament(9)));
    c.handle(Event::Opened(Ok(())));
    feed_all(&mut c, "GAME SIGNEDIN Bob");
    let actions = c.handle(Event::Eof);
    assert!(actions.contains(&Action::Show(Notice::Closed { finished: false })));
}

#[test]
fn a_tournament_wait_the_server_releases_ends_the_connection_without_a_game() {
    use super::tournament::TournamentLine;
    for (word, withdrawn, code) in [
        ("finished", false, crate::exit::OK),
        ("withdrawn", true, crate::exit::SERVER_GONE),
    ] {
        let mut c = Client::new().with_identity(Some(Identity::Token("rvt_x".into())));
        c.handle(Event::User(Request::Tournament(9)));
        c.handle(Event::Opened(Ok(())));
        feed_all(&mut c, "GAME SIGNEDIN Bob");
        // Another tournament's end is not this wait's.
        assert_eq!(feed_all(&mut c, &format!("GAME RELEASED 8 {word}")), vec![]);
        assert!(c.is_connected());
        let actions = feed_all(&mut c, &format!("GAME RELEASED 9 {word}"));
        let released = TournamentLine::Released { id: 9, withdrawn };
        assert_eq!(
            actions,
            vec![
                Action::Close,
                Action::Show(Notice::Called(released)),
                Action::Exit(code)
            ]
        );
        assert!(!c.is_connected());
    }
}
