//! The referee on its own: every game kind driven through inputs at explicit times,
//! checking exactly who is told what, and how each game ends.
//!
//! Deliveries are written one a line as `<to> <what>`: `to` is a seat's number or `v`
//! for the viewers; see [`line`] for the words.

use std::time::{Duration, Instant, UNIX_EPOCH};

use reversi_games::{registry, Action, Outcome, Point, Settings, Standing, Team, Viewer};

use super::*;
use crate::session::ABANDONED;

/// The game's id, which viewers are told.
const ID: u64 = 7;
/// Where the tests' wall-clock time starts: 2023.11.14 22:13:20 UTC.
const WALL: u64 = 1_700_000_000;

fn rules() -> Rules {
    Rules {
        move_timeout: None,
        first_move_timeout: None,
        fixed_teams: true,
        rematch: false,
    }
}

fn clocked(move_ms: u64, first_move_ms: Option<u64>) -> Rules {
    Rules {
        move_timeout: Some(Duration::from_millis(move_ms)),
        first_move_timeout: first_move_ms.map(Duration::from_millis),
        ..rules()
    }
}

/// A referee and the instant its game started (time 0).
struct Test {
    referee: Referee,
    t0: Instant,
}

impl Test {
    /// A referee of `game` for `seats` players (seat 0 gets the first team), started at 0;
    /// returns it with what the start told.
    fn new(game: &str, rules: Rules, seats: usize) -> (Test, Vec<String>) {
        let module = registry::find(game).unwrap();
        let seating = Seating {
            id: ID,
            peers: (0..seats).map(|s| format!("p{s}")).collect(),
            first_team_seat: 0,
        };
        let t0 = Instant::now();
        let settings = Settings {
            seed: 5,
            ..Settings::default()
        };
        let referee = Referee::new(module, rules, settings, seating, t0);
        let mut test = Test { referee, t0 };
        let told = test.said(|r, now| r.start(now), 0);
        (test, told)
    }

    /// The time `ms` after the start.
    fn at(&self, ms: u64) -> Now {
        Now {
            at: self.t0 + Duration::from_millis(ms),
            wall: UNIX_EPOCH + Duration::from_secs(WALL) + Duration::from_millis(ms),
        }
    }

    fn said(
        &mut self,
        call: impl FnOnce(&mut Referee, Now) -> Vec<Delivery>,
        ms: u64,
    ) -> Vec<String> {
        let now = self.at(ms);
        let deliveries = call(&mut self.referee, now);
        let info = self.referee.info();
        deliveries.iter().map(|d| line(info, d)).collect()
    }

    /// Seat `seat` sends `input` at `ms`.
    fn send(&mut self, seat: usize, input: Input, ms: u64) -> Vec<String> {
        self.said(|r, now| r.input(seat, input, now), ms)
    }

    /// Seat `seat` moves, in the game's notation.
    fn play(&mut self, seat: usize, notation: &str, ms: u64) -> Vec<String> {
        self.send(seat, Input::Notation(notation.to_owned()), ms)
    }

    fn eof(&mut self, seat: usize, ms: u64) -> Vec<String> {
        self.said(|r, now| r.eof(seat, now), ms)
    }

    fn tick(&mut self, ms: u64) -> Vec<String> {
        self.said(|r, now| r.tick(now), ms)
    }

    /// The referee's next deadline, in ms after the start.
    fn deadline(&self) -> Option<u64> {
        let deadline = self.referee.deadline()?;
        Some(deadline.duration_since(self.t0).as_millis() as u64)
    }

    /// The summary lines of the games finished since the last call.
    fn finished(&mut self) -> Vec<String> {
        let finished = self.referee.take_finished();
        finished.into_iter().map(|f| f.summary).collect()
    }

    /// A legal move of `team` at `ms`, with the notation the game will give it.
    fn legal(&self, team: Team, ms: u64) -> (Action, String) {
        let action = self.referee.game.legal_actions(team).remove(0);
        let mut game = self.referee.game.clone_box();
        let update = game.play(team, &action, ms).unwrap();
        (action, update.moved.unwrap().notation)
    }
}

/// One delivery in words.
fn line(info: &GameInfo, delivery: &Delivery) -> String {
    let to = match delivery.to {
        Who::Seat(s) => s.to_string(),
        Who::Viewer => "v".to_owned(),
    };
    let team = |t: Team| info.team_name(t);
    let what = match &delivery.event {
        Event::Start { viewer, id, .. } => match viewer {
            Viewer::Team(t) => format!("start as {}", team(*t)),
            Viewer::Spectator => format!("start watching {id}"),
        },
        Event::Update(update) => {
            let mut s = match &update.moved {
                Some(moved) => format!("moved {} {}", team(moved.team), moved.notation),
                None => "update".to_owned(),
            };
            if let Some(news) = &update.news {
                s += &format!(" ({news})");
            }
            s
        }
        Event::Turn(t) => format!("turn {}", team(*t)),
        Event::Clock { team: t, ms } => format!("clock {} {ms}", team(*t)),
        Event::Timer { name, ms, text } => format!("timer {name} {ms} ({text})"),
        Event::Ready => "ready".to_owned(),
        Event::Illegal { why, again } => format!("illegal {why}{}", again_word(*again)),
        Event::Confused { why, again } => format!("confused {why}{}", again_word(*again)),
        Event::Violation(why) => format!("violation {why}"),
        Event::Over { outcome, standing } => {
            let result = match outcome {
                Outcome::Win { team: t, why } => format!("{} wins: {why}", team(*t)),
                Outcome::Draw { why } => format!("draw: {why}"),
            };
            let yours = match standing {
                Some(Standing::Win) => ", you win",
                Some(Standing::Lose) => ", you lose",
                Some(Standing::Draw) => ", you draw",
                None => "",
            };
            format!("over {result}{yours}")
        }
        Event::Aborted(why) => format!("aborted {why}"),
    };
    format!("{to} {what}")
}

fn again_word(again: bool) -> &'static str {
    if again {
        ", again"
    } else {
        ""
    }
}

/// Tic-tac-toe's first turn, X to move.
const TTT_START: [&str; 7] = [
    "0 start as X",
    "1 start as O",
    "v start watching 7",
    "0 turn X",
    "1 turn X",
    "v turn X",
    "0 ready",
];

#[test]
fn every_game_starts_with_the_board_to_everyone_then_the_first_turn() {
    let turn_based = |first: &str| {
        let other = if first == "black" { "white" } else { "north" };
        vec![
            format!("0 start as {first}"),
            format!("1 start as {other}"),
            "v start watching 7".to_owned(),
            format!("0 turn {first}"),
            format!("1 turn {first}"),
            format!("v turn {first}"),
            "0 ready".to_owned(),
        ]
    };
    let table: [(&str, Vec<String>); 5] = [
        ("tictactoe", TTT_START.map(str::to_owned).to_vec()),
        ("reversi", turn_based("black")),
        ("draughts", turn_based("black")),
        ("duell", turn_based("south")),
        // Real time: no turns; both may act at once.
        (
            "foxes",
            [
                "0 start as foxes",
                "1 start as dolphins",
                "v start watching 7",
                "0 timer tide 10000 (the tide turns)",
                "1 timer tide 10000 (the tide turns)",
                "v timer tide 10000 (the tide turns)",
                "0 timer quiet 120000 (the game ends on numbers if nothing is eaten)",
                "1 timer quiet 120000 (the game ends on numbers if nothing is eaten)",
                "v timer quiet 120000 (the game ends on numbers if nothing is eaten)",
                "0 ready",
                "1 ready",
            ]
            .map(str::to_owned)
            .to_vec(),
        ),
    ];
    for (game, expected) in table {
        let (test, told) = Test::new(game, rules(), 2);
        assert_eq!(told, expected, "{game}");
        assert!(!test.referee.is_over(), "{game}");
    }
}

#[test]
fn the_start_shows_each_receiver_the_whole_board() {
    let (mut test, _) = Test::new("reversi", rules(), 2);
    let deliveries = test.referee.start(test.at(0));
    let board = test.referee.game.view(Viewer::Spectator);
    let starts: Vec<_> = deliveries
        .iter()
        .filter_map(|d| match &d.event {
            Event::Start { cells, id, .. } => Some((cells.clone(), *id)),
            _ => None,
        })
        .collect();
    assert_eq!(starts.len(), 3);
    for (cells, id) in starts {
        assert_eq!(cells, board);
        assert_eq!(id, ID);
    }
}

#[test]
fn tictactoe_is_played_to_a_win_with_each_move_to_everyone() {
    let (mut t, _) = Test::new("tictactoe", rules(), 2);
    assert_eq!(
        t.play(0, "b2", 100),
        [
            "0 moved X b2",
            "1 moved X b2",
            "v moved X b2",
            "0 turn O",
            "1 turn O",
            "v turn O",
            "1 ready"
        ]
    );
    t.play(1, "a1", 200);
    t.play(0, "b1", 300);
    t.play(1, "c1", 400);
    assert_eq!(
        t.play(0, "b3", 500),
        [
            "0 moved X b3",
            "1 moved X b3",
            "v moved X b3",
            "0 over X wins: three in a line: b1 b2 b3, you win",
            "1 over X wins: three in a line: b1 b2 b3, you lose",
            "v over X wins: three in a line: b1 b2 b3",
        ]
    );
    assert!(t.referee.is_over());
    assert_eq!(t.referee.exit_code(), 0);
    assert_eq!(t.deadline(), None, "no clock, no rematch");
    assert_eq!(
        t.finished(),
        ["tictactoe X p0 O p1 end normal result X wins (three in a line: b1 b2 b3) moves 5 transcript b2 a1 b1 c1 b3"]
    );
    let journal = t.referee.take_journal();
    assert_eq!(journal[..5], ["X b2", "O a1", "X b1", "O c1", "X b3"]);
    assert!(
        journal[5].starts_with("finished ")
            && journal[5].ends_with(" normal 0,1 win-0 X wins (three in a line: b1 b2 b3)"),
        "the end, for the archive: {journal:?}"
    );
    assert!(
        t.play(1, "a2", 600).is_empty(),
        "nothing is played after the end"
    );
}

#[test]
fn the_record_is_dated_with_the_wall_clock_time_it_is_given() {
    let (mut t, _) = Test::new("tictactoe", rules(), 2);
    t.play(0, "b2", 100);
    t.send(1, Input::Quit, 61_000);
    let finished = t.referee.take_finished();
    assert_eq!(finished.len(), 1);
    let record = &finished[0].record;
    assert!(record.contains("[Date \"2023.11.14\"]"), "{record}");
    assert!(record.contains("[Time \"22:14:21\"]"), "{record}");
    assert!(record.contains("[Termination \"forfeit\"]"), "{record}");
    assert_eq!((finished[0].ext, finished[0].round), ("txt", 1));
}

#[test]
fn an_illegal_move_loses_where_the_game_says_so_and_is_retried_elsewhere() {
    // Tic-tac-toe: the mover's illegal move loses.
    let (mut t, _) = Test::new("tictactoe", rules(), 2);
    t.play(0, "b2", 100);
    assert_eq!(
        t.play(1, "b2", 200),
        [
            "1 illegal b2 is taken",
            "0 over X wins: O played an illegal move: b2 is taken, you win",
            "1 over X wins: O played an illegal move: b2 is taken, you lose",
            "v over X wins: O played an illegal move: b2 is taken",
        ]
    );
    assert_eq!(
        t.referee.exit_code(),
        0,
        "an illegal move is no abandonment"
    );
    assert!(t.finished()[0].contains("end illegal by O (b2 is taken)"));
    // Reversi: the mover is told, and it is still its move; no turn again.
    let (mut t, _) = Test::new("reversi", clocked(10_000, None), 2);
    assert_eq!(t.play(0, "a1", 100), ["0 illegal a1 flips nothing, again"]);
    assert_eq!(t.deadline(), Some(10_000), "the clock goes on");
    assert!(!t.referee.is_over());
}

#[test]
fn a_move_out_of_turn_is_refused_without_losing() {
    let (mut t, _) = Test::new("tictactoe", rules(), 2);
    assert_eq!(t.play(1, "a1", 100), ["1 illegal it is not your turn"]);
    assert!(!t.referee.is_over());
    assert_eq!(t.play(0, "b2", 200)[0], "0 moved X b2");
}

#[test]
fn words_not_understood_are_answered_and_nothing_else_happens() {
    let (mut t, _) = Test::new("tictactoe", rules(), 2);
    assert_eq!(
        t.send(0, Input::Confused("what".to_owned()), 100),
        ["0 confused what, again"]
    );
    assert_eq!(
        t.send(1, Input::Confused("what".to_owned()), 100),
        ["1 confused what"]
    );
    let told = t.play(0, "z9", 100);
    assert_eq!(told.len(), 1);
    assert!(
        told[0].starts_with("0 confused ") && told[0].ends_with(", again"),
        "{told:?}"
    );
    assert_eq!(t.referee.take_journal(), Vec::<String>::new());
}

#[test]
fn a_refresh_shows_the_seat_alone_the_board() {
    let (mut t, _) = Test::new("foxes", rules(), 2);
    assert_eq!(t.send(1, Input::Refresh, 100), ["1 start as dolphins"]);
}

#[test]
fn the_move_clock_runs_out_and_the_mover_loses() {
    let (mut t, _) = Test::new("tictactoe", clocked(10_000, None), 2);
    assert_eq!(t.deadline(), Some(10_000));
    assert!(t.tick(9_999).is_empty(), "not yet");
    t.play(0, "b2", 4_000);
    assert_eq!(
        t.deadline(),
        Some(14_000),
        "each move starts the clock again"
    );
    assert!(t.tick(10_000).is_empty());
    assert_eq!(
        t.tick(14_000),
        [
            "0 over X wins: O ran out of time, you win",
            "1 over X wins: O ran out of time, you lose",
            "v over X wins: O ran out of time",
        ]
    );
    assert_eq!(t.referee.exit_code(), ABANDONED + 1);
    assert_eq!(t.deadline(), None);
    assert!(t.finished()[0].contains("end timeout by O"));
}

#[test]
fn a_seat_that_never_moves_aborts_the_game_unscored() {
    let (mut t, _) = Test::new("tictactoe", clocked(10_000, Some(3_000)), 2);
    assert_eq!(
        t.deadline(),
        Some(3_000),
        "the first move's clock is shorter"
    );
    t.play(0, "b2", 1_000);
    assert_eq!(t.deadline(), Some(4_000), "O's first move too");
    t.play(1, "a1", 2_000);
    assert_eq!(t.deadline(), Some(12_000), "X has moved: the whole clock");
    let (mut t, _) = Test::new("tictactoe", clocked(10_000, Some(3_000)), 2);
    assert_eq!(
        t.tick(3_000),
        [
            "0 aborted X did not make its first move in time",
            "1 aborted X did not make its first move in time",
            "v aborted X did not make its first move in time",
        ]
    );
    assert!(t.referee.is_over());
    assert_eq!(t.referee.exit_code(), ABANDONED);
    assert_eq!(
        t.finished(),
        ["tictactoe X p0 O p1 end never-started by X result aborted moves 0 transcript -"]
    );
    // A viewer arriving now sees the board, and no turn: the game is over (spec §7),
    // though it has no result to show.
    let welcome: Vec<_> = t
        .referee
        .welcome(t.at(4_000).at)
        .into_iter()
        .map(|e| deliver_to_viewers(&t, e))
        .collect();
    assert_eq!(welcome, ["v start watching 7"]);
}

fn deliver_to_viewers(t: &Test, event: Event) -> String {
    line(
        t.referee.info(),
        &Delivery {
            to: Who::Viewer,
            event,
        },
    )
}

#[test]
fn leaving_forfeits_the_game() {
    // A quit: the quitter is told too; it is a resignation, not abandonment.
    let (mut t, _) = Test::new("reversi", rules(), 2);
    assert_eq!(
        t.send(1, Input::Quit, 100),
        [
            "0 over black wins: white left the game, you win",
            "1 over black wins: white left the game, you lose",
            "v over black wins: white left the game",
        ]
    );
    assert_eq!(t.referee.exit_code(), 0);
    // A dropped connection is not told; it abandoned the game.
    let (mut t, _) = Test::new("reversi", rules(), 2);
    assert_eq!(
        t.eof(0, 100),
        [
            "1 over white wins: black was disconnected, you win",
            "v over white wins: black was disconnected",
        ]
    );
    assert_eq!(t.referee.exit_code(), ABANDONED);
    assert!(
        t.eof(1, 200).is_empty(),
        "the other leaving after the end changes nothing"
    );
    assert_eq!(t.referee.exit_code(), ABANDONED);
    // A protocol violation: the culprit's last words, then the end.
    let (mut t, _) = Test::new("reversi", rules(), 2);
    assert_eq!(
        t.send(0, Input::Violation("bad PDU".to_owned()), 100),
        [
            "0 violation bad PDU",
            "0 over white wins: black broke the protocol: bad PDU, you lose",
            "1 over white wins: black broke the protocol: bad PDU, you win",
            "v over white wins: black broke the protocol: bad PDU",
        ]
    );
    assert!(t.finished()[0].contains("end malformed by black (bad PDU)"));
    assert!(
        t.send(1, Input::Quit, 200).is_empty(),
        "nothing after the end"
    );
}

#[test]
fn draughts_draw_offers_are_news_and_an_accepted_one_ends_the_game() {
    let (mut t, _) = Test::new("draughts", rules(), 2);
    assert_eq!(
        t.send(0, Input::Act(Action::OfferDraw), 100),
        [
            "0 update (black offers a draw)",
            "1 update (black offers a draw)",
            "v update (black offers a draw)",
            "0 turn black",
            "1 turn black",
            "v turn black",
            "0 ready",
        ]
    );
    t.play(0, "11-15", 200);
    assert_eq!(
        t.send(1, Input::Act(Action::AcceptDraw), 300),
        [
            "0 update (white accepts the draw)",
            "1 update (white accepts the draw)",
            "v update (white accepts the draw)",
            "0 over draw: agreed, you draw",
            "1 over draw: agreed, you draw",
            "v over draw: agreed",
        ]
    );
    assert!(t.finished()[0].contains("end normal result draw (agreed)"));
    // Declined: the decliner moves on.
    let (mut t, _) = Test::new("draughts", rules(), 2);
    t.send(0, Input::Act(Action::OfferDraw), 100);
    t.play(0, "11-15", 200);
    let told = t.send(1, Input::Act(Action::DeclineDraw), 300);
    assert_eq!(told[0], "0 update (white declines the draw)");
    assert_eq!(
        &told[3..],
        ["0 turn white", "1 turn white", "v turn white", "1 ready"]
    );
    // Nothing to answer: refused, still the mover's turn.
    assert_eq!(
        t.send(1, Input::Act(Action::AcceptDraw), 400),
        ["1 illegal no draw has been offered, again"]
    );
}

#[test]
fn a_rematch_follows_with_the_teams_turned_round_until_someone_leaves() {
    let rematch = Rules {
        rematch: true,
        ..rules()
    };
    let (mut t, _) = Test::new("tictactoe", rematch, 2);
    for (seat, square, ms) in [
        (0, "b2", 100),
        (1, "a1", 200),
        (0, "b1", 300),
        (1, "c1", 400),
    ] {
        t.play(seat, square, ms);
    }
    t.play(0, "b3", 500);
    assert!(!t.referee.is_over(), "a rematch follows");
    assert_eq!(t.deadline(), Some(500 + REMATCH_DELAY.as_millis() as u64));
    assert!(t.play(1, "a2", 600).is_empty(), "no moves between games");
    assert!(t.tick(3_499).is_empty());
    assert_eq!(
        t.tick(3_500),
        [
            "0 start as O",
            "1 start as X",
            "v start watching 7",
            "0 turn X",
            "1 turn X",
            "v turn X",
            "1 ready",
        ]
    );
    assert!(t.finished()[0].starts_with("tictactoe round 1 X p0 O p1 end normal"));
    assert_eq!(t.play(1, "a1", 4_000)[0], "0 moved X a1");
    t.send(0, Input::Quit, 5_000);
    assert!(t.referee.is_over(), "a quit ends the series");
    assert_eq!(t.deadline(), None);
    assert!(t.finished()[0].starts_with("tictactoe round 2 X p1 O p0 end quit by O"));
}

#[test]
fn the_journal_marks_each_round() {
    let (mut t, _) = Test::new(
        "tictactoe",
        Rules {
            rematch: true,
            ..rules()
        },
        2,
    );
    t.send(0, Input::Violation("x".to_owned()), 100);
    assert!(t.referee.is_over(), "a violation ends the series");
    let journal = t.referee.take_journal();
    assert_eq!(journal.len(), 1, "no move, the end only: {journal:?}");
    assert!(journal[0].contains(" malformed 0,1 win-1 "), "{journal:?}");
    let (mut t, _) = Test::new(
        "tictactoe",
        Rules {
            rematch: true,
            ..rules()
        },
        2,
    );
    t.play(0, "b2", 100);
    t.play(1, "b2", 200); // illegal: X wins, and the series goes on
    assert!(!t.referee.is_over());
    t.tick(3_200);
    t.play(1, "c3", 3_300);
    let journal = t.referee.take_journal();
    assert_eq!(
        [&journal[0], &journal[2], &journal[3]],
        ["X b2", "round 2", "X c3"]
    );
    assert!(journal[1].contains(" illegal 0,1 win-0 "), "{journal:?}");
    assert_eq!(
        t.eof(0, 3_400),
        // Turned round: seat 0 plays O now.
        [
            "1 over X wins: O was disconnected, you win",
            "v over X wins: O was disconnected"
        ]
    );
    assert_eq!(t.referee.exit_code(), ABANDONED);
}

#[test]
fn a_player_leaving_between_games_ends_the_series() {
    let (mut t, _) = Test::new(
        "tictactoe",
        Rules {
            rematch: true,
            ..rules()
        },
        2,
    );
    t.play(0, "b2", 100);
    t.play(1, "b2", 200);
    assert_eq!(t.deadline(), Some(3_200));
    assert!(t.eof(1, 1_000).is_empty(), "nothing to tell");
    assert!(t.referee.is_over());
    assert_eq!(t.deadline(), None);
    assert!(t.tick(3_200).is_empty(), "no next game");
    assert_eq!(
        t.referee.exit_code(),
        0,
        "the game it played ended on its own"
    );
}

#[test]
fn team_mates_take_turns_and_a_team_plays_on_while_one_is_left() {
    // Seats 0 and 2 are X, 1 and 3 are O.
    let (mut t, told) = Test::new("tictactoe", rules(), 4);
    assert_eq!(
        told[5..],
        ["0 turn X", "1 turn X", "2 turn X", "3 turn X", "v turn X", "0 ready"]
    );
    assert_eq!(
        t.play(2, "b2", 100),
        ["2 illegal it is your team mate's turn"]
    );
    assert_eq!(t.play(0, "b2", 100).last().unwrap(), "1 ready");
    assert_eq!(
        t.play(1, "a1", 200).last().unwrap(),
        "2 ready",
        "X's other member now"
    );
    // The mover leaves: its team mate is asked instead, and the game goes on.
    assert_eq!(
        t.send(2, Input::Quit, 300),
        ["0 turn X", "1 turn X", "3 turn X", "v turn X", "0 ready"]
    );
    assert!(
        t.play(2, "c3", 350).is_empty(),
        "a seat that left is not heard"
    );
    assert!(!t.referee.is_over());
    // O's member who is not the mover leaves: nothing to say.
    t.play(0, "c3", 400);
    assert!(t.eof(1, 500).is_empty());
    // The last member leaving forfeits.
    assert_eq!(
        t.eof(3, 600),
        [
            "0 over X wins: O was disconnected, you win",
            "v over X wins: O was disconnected"
        ]
    );
    assert_eq!(t.referee.exit_code(), ABANDONED + 3);
}

#[test]
fn a_viewer_arriving_mid_game_sees_the_board_whose_turn_and_the_end() {
    let (mut t, _) = Test::new("reversi", rules(), 2);
    let (action, notation) = t.legal(Team::FIRST, 100);
    assert_eq!(
        t.send(0, Input::Act(action), 100)[0],
        format!("0 moved black {notation}")
    );
    let welcome = t.referee.welcome(t.at(150).at);
    let board = t.referee.game.view(Viewer::Spectator);
    assert!(
        matches!(&welcome[0], Event::Start { cells, viewer: Viewer::Spectator, id: ID, .. } if *cells == board)
    );
    let said: Vec<_> = welcome
        .into_iter()
        .map(|e| deliver_to_viewers(&t, e))
        .collect();
    assert_eq!(said, ["v start watching 7", "v turn white"]);
    t.send(1, Input::Quit, 200);
    let said: Vec<_> = t
        .referee
        .welcome(t.at(250).at)
        .into_iter()
        .map(|e| deliver_to_viewers(&t, e))
        .collect();
    // The board's own turn is not told once a forfeit ended the game: the end is (spec §7).
    assert_eq!(
        said,
        [
            "v start watching 7",
            "v over black wins: white left the game"
        ]
    );
}

#[test]
fn an_abort_stops_the_game_unscored_once() {
    let (mut t, _) = Test::new("duell", clocked(10_000, None), 2);
    assert_eq!(
        t.said(|r, now| r.abort(now), 100),
        [
            "0 aborted the server is shutting down",
            "1 aborted the server is shutting down",
            "v aborted the server is shutting down",
        ]
    );
    assert!(t.referee.is_over());
    assert_eq!(t.deadline(), None);
    assert_eq!(t.referee.exit_code(), 0);
    assert!(t.finished()[0].contains("end aborted result aborted"));
    assert!(t.said(|r, now| r.abort(now), 200).is_empty());
    assert!(t.tick(20_000).is_empty());
}

#[test]
fn duell_turns_pass_from_south_to_north() {
    let (mut t, _) = Test::new("duell", rules(), 2);
    let (action, notation) = t.legal(Team::FIRST, 100);
    assert_eq!(
        t.send(0, Input::Act(action), 100),
        [
            format!("0 moved south {notation}"),
            format!("1 moved south {notation}"),
            format!("v moved south {notation}"),
            "0 turn north".to_owned(),
            "1 turn north".to_owned(),
            "v turn north".to_owned(),
            "1 ready".to_owned(),
        ]
    );
    assert_eq!(t.referee.take_journal(), [format!("south {notation}")]);
}

#[test]
fn foxes_in_real_time_ready_comes_once_each_time_a_cooldown_ends() {
    let (mut t, _) = Test::new("foxes", clocked(1_000, Some(1_000)), 2);
    assert_eq!(t.deadline(), Some(10_000), "no move clock: the first tide");
    let (action, notation) = t.legal(Team::SECOND, 100);
    assert_eq!(
        t.send(1, Input::Act(action), 100),
        [
            format!("0 moved dolphins {notation}"),
            format!("1 moved dolphins {notation}"),
            format!("v moved dolphins {notation}"),
        ],
        "no READY during the cooldown, none again to the foxes"
    );
    assert_eq!(t.deadline(), Some(600));
    assert!(t.tick(599).is_empty());
    assert_eq!(t.tick(600), ["1 ready"]);
    assert!(t.tick(650).is_empty(), "READY once");
    // An attempt during the cooldown: refused, and READY when the cooldown ends.
    let (action, _) = t.legal(Team::SECOND, 700);
    t.send(1, Input::Act(action), 700);
    let step = |from: (u8, u8), to: (u8, u8)| {
        let points = vec![Point::new(from.0, from.1), Point::new(to.0, to.1)];
        Input::Act(Action::Move(points))
    };
    assert_eq!(
        t.send(1, step((1, 1), (1, 2)), 800),
        ["1 illegal wait 400 ms: a player moves at most once every 500 ms"]
    );
    assert!(t.tick(1_199).is_empty());
    assert_eq!(t.tick(1_200), ["1 ready"]);
    // A refused step by a seat that may act costs it the cooldown too.
    assert_eq!(
        t.send(0, step((1, 1), (9, 9)), 2_000),
        ["0 illegal there is no fox on 1 1"]
    );
    assert_eq!(t.deadline(), Some(2_500));
    assert_eq!(t.tick(2_500), ["0 ready"]);
}

#[test]
fn foxes_tides_are_the_games_own_news_to_everyone() {
    let (mut t, _) = Test::new("foxes", clocked(1_000, Some(1_000)), 2);
    assert!(t.tick(9_999).is_empty());
    let news = "update (tide: the water rises (floodstate 1))";
    assert_eq!(
        t.tick(10_000),
        [
            format!("0 {news}"),
            format!("1 {news}"),
            format!("v {news}"),
            "0 timer tide 10000 (the tide turns)".to_owned(),
            "1 timer tide 10000 (the tide turns)".to_owned(),
            "v timer tide 10000 (the tide turns)".to_owned(),
        ],
        "the next tide's timer after the news"
    );
    assert!(t.referee.take_journal().is_empty(), "no move to journal");
    assert_eq!(t.deadline(), Some(20_000));
    assert!(!t.referee.is_over(), "no move clock in real time");
}

#[test]
fn each_turn_tells_everyone_the_time_the_move_has_then_ready() {
    let (mut t, told) = Test::new("tictactoe", clocked(10_000, Some(3_000)), 2);
    assert_eq!(
        told[3..],
        [
            "0 turn X",
            "1 turn X",
            "v turn X",
            "0 clock X 3000",
            "1 clock X 3000",
            "v clock X 3000",
            "0 ready",
        ],
        "a first move has the first-move limit"
    );
    assert_eq!(
        t.play(0, "b2", 1_000)[3..],
        [
            "0 turn O",
            "1 turn O",
            "v turn O",
            "0 clock O 3000",
            "1 clock O 3000",
            "v clock O 3000",
            "1 ready",
        ]
    );
    // An ERROR neither restarts the clock nor tells its time again.
    assert_eq!(
        t.send(1, Input::Confused("what?".to_owned()), 1_500),
        ["1 confused what?, again"]
    );
    assert_eq!(t.deadline(), Some(4_000));
    let after_o = t.play(1, "a1", 2_000);
    assert_eq!(
        after_o[6..9],
        ["0 clock X 10000", "1 clock X 10000", "v clock X 10000"],
        "X has moved: the whole move limit"
    );
    // A viewer arriving is told the time the mover has left; the clock falls at 12 s.
    let welcome: Vec<_> = (t.referee.welcome(t.at(5_500).at).into_iter())
        .map(|e| deliver_to_viewers(&t, e))
        .collect();
    assert_eq!(
        welcome,
        ["v start watching 7", "v turn X", "v clock X 6500"]
    );
    assert_eq!(
        t.tick(12_000),
        [
            "0 over O wins: X ran out of time, you lose",
            "1 over O wins: X ran out of time, you win",
            "v over O wins: X ran out of time",
        ],
        "no clock after the end"
    );
}

#[test]
fn a_team_mate_taking_over_gets_a_fresh_clock_and_no_limit_sends_none() {
    let (mut t, _) = Test::new("tictactoe", clocked(10_000, None), 4);
    t.play(0, "b2", 100);
    t.play(1, "a1", 200);
    // Seat 2 (X) is to move; it quits at 5 s: seat 0 moves with a whole limit.
    assert_eq!(
        t.send(2, Input::Quit, 5_000)[4..],
        [
            "0 clock X 10000",
            "1 clock X 10000",
            "3 clock X 10000",
            "v clock X 10000",
            "0 ready"
        ]
    );
    assert_eq!(t.deadline(), Some(15_000));
    let (mut t, told) = Test::new("reversi", rules(), 2);
    assert!(told.iter().all(|line| !line.contains("clock")));
    let (action, _) = t.legal(Team::FIRST, 100);
    let moved = t.send(0, Input::Act(action), 100);
    assert!(moved.iter().all(|line| !line.contains("clock")));
    let welcome = t.referee.welcome(t.at(200).at);
    assert!(!welcome.iter().any(|e| matches!(e, Event::Clock { .. })));
}

#[test]
fn foxes_timers_are_told_when_set_and_to_a_viewer_with_the_time_left() {
    let (mut t, _) = Test::new("foxes", rules(), 2);
    // A step that eats nothing sets no timer.
    let (action, _) = t.legal(Team::SECOND, 100);
    let stepped = t.send(1, Input::Act(action), 100);
    assert!(stepped.iter().all(|line| !line.contains("timer")));
    let welcome: Vec<_> = (t.referee.welcome(t.at(2_500).at).into_iter())
        .map(|e| deliver_to_viewers(&t, e))
        .collect();
    assert_eq!(
        welcome,
        [
            "v start watching 7",
            "v timer tide 7500 (the tide turns)",
            "v timer quiet 117500 (the game ends on numbers if nothing is eaten)",
        ]
    );
    // Each tide sets the tide's timer alone, a period from the tide.
    t.tick(10_000);
    let second = t.tick(20_003);
    assert_eq!(
        second[3..],
        [
            "0 timer tide 9997 (the tide turns)",
            "1 timer tide 9997 (the tide turns)",
            "v timer tide 9997 (the tide turns)",
        ]
    );
}

#[test]
fn a_rematch_starts_with_the_first_move_clock_again() {
    let rematch = Rules {
        rematch: true,
        ..clocked(10_000, Some(3_000))
    };
    let (mut t, _) = Test::new("tictactoe", rematch, 2);
    for (seat, square, ms) in [(0, "b2", 100), (1, "a1", 200), (0, "b1", 300)] {
        t.play(seat, square, ms);
    }
    t.play(1, "c1", 400);
    t.play(0, "b3", 500);
    assert_eq!(
        t.tick(3_500)[3..],
        [
            "0 turn X",
            "1 turn X",
            "v turn X",
            "0 clock X 3000",
            "1 clock X 3000",
            "v clock X 3000",
            "1 ready",
        ],
        "seat 1 plays X now, and has not moved in this game"
    );
}
