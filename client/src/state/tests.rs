//! The GameClient machine on its own: every state against every PDU, every
//! user command in every state, and whole games fed through two machines.

use reversi_engine::{Game, IllegalMove, Side, Square};
use reversi_pdu::{Colour, Error as PduError, MsgId, Pdu, Place, Winner};

use super::*;

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

fn update(colour: Colour, squares: &[&str]) -> Event {
    Event::Received(Incoming::UpdateBoard {
        colour,
        squares: squares.iter().map(|s| sq(s)).collect(),
    })
}

/// Steps through `events`, returning the last state and all actions.
fn run(state: State, events: Vec<Event>) -> (State, Vec<Action>) {
    let mut state = state;
    let mut all = Vec::new();
    for event in events {
        let (next, actions) = state.step(event);
        state = next;
        all.extend(actions);
    }
    (state, all)
}

fn connecting() -> State {
    run(
        State::Disconnected,
        vec![Event::User(Command::Connect), Event::Opened(Ok(()))],
    )
    .0
}

fn starting(me: Colour, k: u8) -> State {
    let mut events = vec![Event::Received(Incoming::ConnectOk(me))];
    if k == 1 {
        events.push(update(Colour::White, &["d4", "e5"]));
    }
    run(connecting(), events).0
}

fn waiting(me: Colour) -> State {
    run(
        starting(me, 0),
        vec![
            update(Colour::White, &["d4", "e5"]),
            update(Colour::Black, &["d5", "e4"]),
        ],
    )
    .0
}

fn my_turn() -> State {
    run(
        waiting(Colour::Black),
        vec![Event::Received(Incoming::Turn)],
    )
    .0
}

fn placing() -> State {
    run(my_turn(), vec![Event::User(Command::Place(sq("f5")))]).0
}

fn over() -> State {
    run(my_turn(), vec![Event::User(Command::Quit)]).0
}

/// Every PDU id a client can be sent (the client-to-server ones arrive as
/// the codec's direction error), the three initial and first-move
/// update_boards, a malformed frame and EOF.
fn every_pdu() -> Vec<(&'static str, Event)> {
    vec![
        ("error", Event::from_pdu(&Pdu::Error)),
        ("connect", Event::from_pdu(&Pdu::Connect)),
        (
            "connect_ok",
            Event::from_pdu(&Pdu::ConnectOk {
                colour: Colour::Black,
            }),
        ),
        ("quit", Event::from_pdu(&Pdu::Quit)),
        ("turn", Event::from_pdu(&Pdu::Turn)),
        ("place", Event::from_pdu(&Pdu::Place(Place { x: 3, y: 2 }))),
        ("place_error", Event::from_pdu(&Pdu::PlaceError)),
        ("ub_white_d4e5", update(Colour::White, &["d4", "e5"])),
        ("ub_black_d5e4", update(Colour::Black, &["d5", "e4"])),
        ("ub_black_f5e5", update(Colour::Black, &["f5", "e5"])),
        ("winner", Event::from_pdu(&Pdu::Winner(Winner::Black))),
        ("malformed", Event::Malformed(PduError::UnknownId { id: 8 })),
        ("eof", Event::Eof),
    ]
}

/// A short name for where a step led: the next state's name, `V` for a
/// protocol violation, `Over<code>` for any other end.
fn outcome(state: &State, actions: &[Action]) -> String {
    if actions.contains(&Action::Send(Outgoing::Error)) {
        assert_eq!(state.name(), "Over");
        assert!(actions.contains(&Action::Close));
        assert!(actions.contains(&Action::Exit(exit::PROTOCOL)));
        assert!(actions
            .iter()
            .any(|a| matches!(a, Action::Show(Notice::ProtocolViolation(_)))));
        return "V".to_string();
    }
    match actions.iter().find_map(|a| match a {
        Action::Exit(code) => Some(*code),
        _ => None,
    }) {
        Some(code) => {
            assert_eq!(state.name(), "Over");
            assert!(actions.contains(&Action::Close));
            format!("Over{code}")
        }
        None => state.name().to_string(),
    }
}

#[test]
fn every_state_against_every_pdu() {
    // Columns follow every_pdu(): error connect connect_ok quit turn place
    // place_error ub_white_d4e5 ub_black_d5e4 ub_black_f5e5 winner malformed eof.
    let table: Vec<(&str, State, [&str; 13])> = vec![
        ("Disconnected", State::Disconnected, ["Disconnected"; 13]),
        (
            "Connecting",
            connecting(),
            [
                "Over1", "V", "Starting", "V", "V", "V", "V", "V", "V", "V", "V", "V", "Over1",
            ],
        ),
        (
            "Starting k=0",
            starting(Colour::Black, 0),
            [
                "Over1", "V", "V", "V", "V", "V", "V", "Starting", "V", "V", "Over0", "V", "Over1",
            ],
        ),
        (
            "Starting k=1",
            starting(Colour::Black, 1),
            [
                "Over1", "V", "V", "V", "V", "V", "V", "V", "Waiting", "V", "Over0", "V", "Over1",
            ],
        ),
        (
            // Black to move: turn is expected; black's own update_boards and
            // a white move are not.
            "Waiting (black)",
            waiting(Colour::Black),
            [
                "Over1", "V", "V", "V", "MyTurn", "V", "V", "V", "V", "V", "Over0", "V", "Over1",
            ],
        ),
        (
            // Black to move: black's legal f5 is expected; turn is not (the
            // rules say black moves), d5 is occupied, white is our colour.
            "Waiting (white)",
            waiting(Colour::White),
            [
                "Over1", "V", "V", "V", "V", "V", "V", "V", "V", "Waiting", "Over0", "V", "Over1",
            ],
        ),
        (
            "MyTurn",
            my_turn(),
            [
                "Over1", "V", "V", "V", "V", "V", "V", "V", "V", "V", "Over0", "V", "Over1",
            ],
        ),
        (
            // f5 is pending: only its update_board (or place_error) fits.
            "Placing",
            placing(),
            [
                "Over1", "V", "V", "V", "V", "V", "MyTurn", "V", "V", "Waiting", "Over0", "V",
                "Over1",
            ],
        ),
        ("Over", over(), ["Over"; 13]),
    ];
    for (name, state, expected) in table {
        for ((pdu, event), want) in every_pdu().into_iter().zip(expected) {
            let (next, actions) = state.clone().step(event);
            let got = outcome(&next, &actions);
            assert_eq!(got, want, "{name} + {pdu}: {actions:?}");
            if !state.is_connected() {
                assert!(actions.is_empty(), "{name} + {pdu} must do nothing");
            }
        }
    }
}

#[test]
fn client_to_server_pdus_are_malformed_for_a_client() {
    for pdu in [Pdu::Connect, Pdu::Quit, Pdu::Place(Place { x: 0, y: 0 })] {
        match Event::from_pdu(&pdu) {
            Event::Malformed(PduError::WrongDirection { id, .. }) => assert_eq!(id, pdu.id()),
            other => panic!("{pdu}: {other:?}"),
        }
    }
    let (_, actions) = waiting(Colour::Black).step(Event::from_pdu(&Pdu::Connect));
    assert!(actions.contains(&Action::Show(Notice::ProtocolViolation(
        "malformed PDU: connect does not travel server to client".to_string()
    ))));
}

fn refused(why: Refusal) -> Vec<Action> {
    vec![Action::Show(Notice::Refused(why))]
}

fn quit_actions(paired: bool) -> Vec<Action> {
    vec![
        Action::Send(Outgoing::Quit),
        Action::Close,
        Action::Show(Notice::Quit { paired }),
        Action::Exit(exit::OK),
    ]
}

#[test]
fn every_user_command_in_every_state() {
    let connect = Event::User(Command::Connect);
    let legal = Event::User(Command::Place(sq("f5")));
    let quit = Event::User(Command::Quit);
    let states = [
        ("Disconnected", State::Disconnected),
        ("Connecting", connecting()),
        ("Starting", starting(Colour::Black, 1)),
        ("Waiting", waiting(Colour::Black)),
        ("MyTurn", my_turn()),
        ("Placing", placing()),
        ("Over", over()),
    ];
    for (name, state) in states {
        let (after_connect, connect_actions) = state.clone().step(connect.clone());
        let (after_place, place_actions) = state.clone().step(legal.clone());
        let (after_quit, quit_done) = state.clone().step(quit.clone());
        let (want_connect, want_place, want_quit) = match name {
            "Disconnected" | "Over" => (
                vec![Action::Open],
                refused(Refusal::NotConnected),
                refused(Refusal::NotConnected),
            ),
            "Connecting" => (
                refused(Refusal::AlreadyConnecting),
                refused(Refusal::NoGameYet),
                quit_actions(false),
            ),
            "Starting" | "Waiting" => (
                refused(Refusal::InGame),
                refused(Refusal::NotYourTurn),
                quit_actions(true),
            ),
            "MyTurn" => (
                refused(Refusal::InGame),
                vec![Action::Send(Outgoing::Place(sq("f5")))],
                quit_actions(true),
            ),
            "Placing" => (
                refused(Refusal::InGame),
                refused(Refusal::MovePending),
                quit_actions(true),
            ),
            _ => unreachable!(),
        };
        assert_eq!(connect_actions, want_connect, "{name} + connect");
        assert_eq!(place_actions, want_place, "{name} + place");
        assert_eq!(quit_done, want_quit, "{name} + quit");
        // Refusals and Open leave the state alone.
        assert_eq!(after_connect, state, "{name} + connect");
        if name == "MyTurn" {
            assert_eq!(after_place.name(), "Placing");
        } else {
            assert_eq!(after_place, state, "{name} + place");
        }
        if state.is_connected() {
            assert_eq!(after_quit.name(), "Over", "{name} + quit");
        } else {
            assert_eq!(after_quit, state, "{name} + quit");
        }
    }
}

#[test]
fn illegal_moves_are_refused_locally_with_the_reason() {
    let (state, actions) = my_turn().step(Event::User(Command::Place(sq("a1"))));
    assert_eq!(state.name(), "MyTurn");
    assert_eq!(
        actions,
        refused(Refusal::Illegal(IllegalMove::FlipsNothing(sq("a1"))))
    );
    let (_, actions) = my_turn().step(Event::User(Command::Place(sq("d4"))));
    assert_eq!(
        actions,
        refused(Refusal::Illegal(IllegalMove::Occupied(sq("d4"))))
    );
    assert_eq!(
        Refusal::Illegal(IllegalMove::FlipsNothing(sq("a1"))).to_string(),
        "illegal move: a1 flips nothing"
    );
}

#[test]
fn connection_failure_reports_and_exits_2() {
    let (state, actions) = State::Disconnected.step(Event::Opened(Err("refused".into())));
    assert_eq!(state, State::Disconnected);
    assert_eq!(
        actions,
        vec![
            Action::Show(Notice::ConnectFailed("refused".into())),
            Action::Exit(exit::CONNECT_FAILED)
        ]
    );
    // Over + connect opens a new connection (a new game).
    let (state, actions) = run(
        over(),
        vec![Event::User(Command::Connect), Event::Opened(Ok(()))],
    );
    assert_eq!(state, State::Connecting);
    assert_eq!(
        actions,
        vec![
            Action::Open,
            Action::Send(Outgoing::Connect),
            Action::Show(Notice::Queued)
        ]
    );
}

#[test]
fn place_error_reports_the_square_and_gives_the_turn_back() {
    let (state, actions) = placing().step(Event::Received(Incoming::PlaceError));
    assert_eq!(state.name(), "MyTurn");
    assert_eq!(actions, vec![Action::Show(Notice::MoveRejected(sq("f5")))]);
}

#[test]
fn update_boards_that_break_the_rules_are_violations_that_say_why() {
    let cases = [
        (
            update(Colour::Black, &["f5", "e5", "d5"]),
            "the server sent update_board black f5 e5 d5: black f5 changes e5 f5, but the update lists d5 e5 f5",
        ),
        (
            update(Colour::Black, &["d3", "d4"]),
            "the server sent update_board black d3 d4: we placed f5",
        ),
    ];
    for (event, message) in cases {
        let (state, actions) = placing().step(event);
        assert_eq!(state.name(), "Over");
        assert!(
            actions.contains(&Action::Show(Notice::ProtocolViolation(message.into()))),
            "{actions:?}"
        );
    }
    let (_, actions) = waiting(Colour::White).step(update(Colour::Black, &["a1", "b2"]));
    assert!(actions.contains(&Action::Show(Notice::ProtocolViolation(
        "the server sent update_board black a1 b2: black cannot play a1: a1 flips nothing".into()
    ))));
    let (_, actions) = waiting(Colour::White).step(Event::Received(Incoming::Turn));
    assert!(actions.contains(&Action::Show(Notice::ProtocolViolation(
        "the server sent turn, but black is to move".into()
    ))));
    let (_, actions) = starting(Colour::White, 0).step(update(Colour::Black, &["d5", "e4"]));
    assert!(actions.contains(&Action::Show(Notice::ProtocolViolation(
        "initial update_board 1 was update_board black d5 e4, expected update_board white d4 e5"
            .into()
    ))));
}

#[test]
fn out_of_place_pdus_name_the_pdu_and_the_state() {
    let (_, actions) = connecting().step(Event::Received(Incoming::Turn));
    assert!(actions.contains(&Action::Show(Notice::ProtocolViolation(
        "the server sent turn while we were waiting for an opponent (before connect_ok)".into()
    ))));
    let (_, actions) = my_turn().step(Event::Received(Incoming::Winner(Winner::Draw)));
    assert!(actions
        .iter()
        .any(|a| matches!(a, Action::Show(Notice::GameOver(_)))));
    assert_eq!(MsgId::Winner.name(), "winner");
}

/// A server in miniature: plays `moves` through two machines, one per colour,
/// sending what §8.3 and §8.4 prescribe, and returns every action of each.
fn play_through(moves: &[Square]) -> (Vec<Action>, Vec<Action>, State, State) {
    let mut black = connecting();
    let mut white = connecting();
    let mut seen_black = Vec::new();
    let mut seen_white = Vec::new();
    let feed = |machine: &mut State, seen: &mut Vec<Action>, event: Event| {
        let (next, actions) = std::mem::replace(machine, State::Disconnected).step(event);
        *machine = next;
        seen.extend(actions);
    };
    for (machine, seen, colour) in [
        (&mut black, &mut seen_black, Colour::Black),
        (&mut white, &mut seen_white, Colour::White),
    ] {
        feed(machine, seen, Event::Received(Incoming::ConnectOk(colour)));
        feed(machine, seen, update(Colour::White, &["d4", "e5"]));
        feed(machine, seen, update(Colour::Black, &["d5", "e4"]));
    }
    let mut game = Game::new();
    feed(&mut black, &mut seen_black, Event::Received(Incoming::Turn));
    for &square in moves {
        let side = game.side_to_move().expect("game still running");
        let made = game.play(square).expect("legal move");
        let (mover, mover_seen, other, other_seen) = if side == Side::Black {
            (&mut black, &mut seen_black, &mut white, &mut seen_white)
        } else {
            (&mut white, &mut seen_white, &mut black, &mut seen_black)
        };
        feed(mover, mover_seen, Event::User(Command::Place(square)));
        let squares: Vec<Square> = made.changed().collect();
        let colour = Colour::from(side);
        let ub = Incoming::UpdateBoard { colour, squares };
        feed(mover, mover_seen, Event::Received(ub.clone()));
        feed(other, other_seen, Event::Received(ub));
        match made.next {
            Some(next) if next == side => feed(mover, mover_seen, Event::Received(Incoming::Turn)),
            Some(_) => feed(other, other_seen, Event::Received(Incoming::Turn)),
            None => {
                let winner = match game.outcome() {
                    Some(reversi_engine::Outcome::Win(Side::Black)) => Winner::Black,
                    Some(reversi_engine::Outcome::Win(Side::White)) => Winner::White,
                    _ => Winner::Draw,
                };
                feed(mover, mover_seen, Event::Received(Incoming::Winner(winner)));
                feed(other, other_seen, Event::Received(Incoming::Winner(winner)));
            }
        }
    }
    (seen_black, seen_white, black, white)
}

fn results(actions: &[Action]) -> Vec<GameResult> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Show(Notice::GameOver(result)) => Some(result.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_wipe_out_game_ends_with_the_right_result_on_both_sides() {
    let moves: Vec<Square> = ["e6", "f4", "e3", "f6", "g5", "d6", "e7", "f5", "c5"]
        .iter()
        .map(|s| sq(s))
        .collect();
    let (black, white, black_state, white_state) = play_through(&moves);
    let b = results(&black);
    let w = results(&white);
    assert_eq!(b.len(), 1);
    assert!(b[0].won() && b[0].finished);
    assert_eq!((b[0].mine, b[0].theirs, b[0].moves), (13, 0, 9));
    assert_eq!(b[0].transcript, "e6f4e3f6g5d6e7f5c5");
    assert!(!w[0].won() && !w[0].drawn());
    assert_eq!((w[0].mine, w[0].theirs), (0, 13));
    assert_eq!(black_state.name(), "Over");
    assert_eq!(white_state.name(), "Over");
    for actions in [&black, &white] {
        assert!(
            !actions.contains(&Action::Send(Outgoing::Error)),
            "{actions:?}"
        );
        assert!(actions.contains(&Action::Exit(exit::OK)));
    }
}

/// A deterministic game that contains at least one pass: a small linear
/// congruential generator picks moves until a game with a pass turns up.
fn game_with_a_pass() -> (Vec<Square>, Vec<Side>) {
    let mut seed: u64 = 1;
    loop {
        let mut game = Game::new();
        let mut moves = Vec::new();
        let mut passers = Vec::new();
        while let Some(side) = game.side_to_move() {
            let legal: Vec<Square> = game.legal_moves().collect();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let square = legal[(seed >> 33) as usize % legal.len()];
            let made = game.play(square).unwrap();
            moves.push(square);
            if made.next == Some(side) {
                passers.push(side.opponent());
            }
        }
        if !passers.is_empty() {
            return (moves, passers);
        }
    }
}

#[test]
fn passes_are_reported_to_both_players() {
    let (moves, passers) = game_with_a_pass();
    let (black, white, _, _) = play_through(&moves);
    let passes = |actions: &[Action]| -> Vec<Colour> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Show(Notice::Passed(colour)) => Some(*colour),
                _ => None,
            })
            .collect()
    };
    let want: Vec<Colour> = passers.iter().map(|&s| Colour::from(s)).collect();
    // Every pass is followed by a move of the other side (the mover could
    // move again), so both players see each one, in order.
    assert!(!want.is_empty());
    assert_eq!(passes(&black), want);
    assert_eq!(passes(&white), want);
    let r = results(&black);
    assert!(r[0].finished);
    assert_eq!(r[0].moves, moves.len());
}
