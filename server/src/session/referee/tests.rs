//! The referee on its own: every game kind driven through inputs at explicit times,
//! checking exactly who is told what, and how each game ends.
//!
//! Deliveries are written one a line as `<to> <what>`: `to` is a seat's number or `v`
//! for the viewers; see [`line`] for the words.

use std::time::{Duration, Instant, UNIX_EPOCH};

use reversi_games::{registry, Action, Outcome, Point, Settings, Standing, Team, Viewer};

use super::*;
use crate::protocols::Rematch;
use crate::session::ABANDONED;
use lag::Lag;

/// The game's id, which viewers are told.
const ID: u64 = 7;
/// Where the tests' wall-clock time starts: 2023.11.14 22:13:20 UTC.
const WALL: u64 = 1_700_000_000;

pub(super) fn rules() -> Rules {
    Rules {
        control: TimeControl::None,
        first_move_timeout: None,
        fixed_teams: true,
        rematch: false,
        lag_allowance: Duration::ZERO,
        rematch_window: None,
    }
}

pub(super) fn clocked(move_ms: u64, first_move_ms: Option<u64>) -> Rules {
    Rules {
        control: TimeControl::PerMove {
            limit: Duration::from_millis(move_ms),
            first: Duration::ZERO,
        },
        first_move_timeout: first_move_ms.map(Duration::from_millis),
        ..rules()
    }
}

/// A referee and the instant its game started (time 0).
pub(super) struct Test {
    pub referee: Referee,
    pub t0: Instant,
}

impl Test {
    /// A referee of `game` for `seats` players (seat 0 gets the first team), started at 0;
    /// returns it with what the start told.
    pub(super) fn new(game: &str, rules: Rules, seats: usize) -> (Test, Vec<String>) {
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
    pub(super) fn at(&self, ms: u64) -> Now {
        Now {
            at: self.t0 + Duration::from_millis(ms),
            wall: UNIX_EPOCH + Duration::from_secs(WALL) + Duration::from_millis(ms),
        }
    }

    pub(super) fn said(
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
    pub(super) fn send(&mut self, seat: usize, input: Input, ms: u64) -> Vec<String> {
        self.said(|r, now| r.input(seat, input, now), ms)
    }

    /// Seat `seat` moves, in the game's notation.
    pub(super) fn play(&mut self, seat: usize, notation: &str, ms: u64) -> Vec<String> {
        self.send(seat, Input::Notation(notation.to_owned()), ms)
    }

    pub(super) fn eof(&mut self, seat: usize, ms: u64) -> Vec<String> {
        self.said(|r, now| r.eof(seat, now), ms)
    }

    pub(super) fn tick(&mut self, ms: u64) -> Vec<String> {
        self.said(|r, now| r.tick(now), ms)
    }

    /// The referee's next deadline, in ms after the start.
    pub(super) fn deadline(&self) -> Option<u64> {
        let deadline = self.referee.deadline()?;
        Some(deadline.duration_since(self.t0).as_millis() as u64)
    }

    /// The summary lines of the games finished since the last call.
    pub(super) fn finished(&mut self) -> Vec<String> {
        let finished = self.referee.take_finished();
        finished.into_iter().map(|f| f.summary).collect()
    }

    /// A legal move of `team` at `ms`, with the notation the game will give it.
    pub(super) fn legal(&self, team: Team, ms: u64) -> (Action, String) {
        let action = self.referee.game.legal_actions(team).remove(0);
        let mut game = self.referee.game.clone_box();
        let update = game.play(team, &action, ms).unwrap();
        (action, update.moved.unwrap().notation)
    }
}

/// One delivery in words.
pub(super) fn line(info: &GameInfo, delivery: &Delivery) -> String {
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
        Event::Token { ms, .. } => format!("token {ms}"),
        Event::Resumed(id) => format!("resumed {id}"),
        Event::Away { team: t, ms } => format!("away {} {ms}", team(*t)),
        Event::Back(t) => format!("back {}", team(*t)),
        Event::OfferedDraw(t) => format!("offered draw {}", team(*t)),
        Event::News(news) => format!("news {news}"),
        Event::Replaced => "replaced".to_owned(),
        Event::Ping(n) => format!("ping {n}"),
        Event::OfferedRematch { team: t, news } => format!("offered rematch {} ({news})", team(*t)),
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
        ["tictactoe X p0 O p1 end normal result X wins (three in a line: b1 b2 b3) control none moves 5 transcript b2 a1 b1 c1 b3"]
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
        ["tictactoe X p0 O p1 end never-started by X result aborted control move:10 moves 0 transcript -"]
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

fn fischer(base_ms: u64, increment_ms: u64) -> Rules {
    Rules {
        control: TimeControl::Fischer {
            base: Duration::from_millis(base_ms),
            increment: Duration::from_millis(increment_ms),
        },
        ..rules()
    }
}

/// What a viewer arriving at `ms` is told.
fn welcome(t: &Test, ms: u64) -> Vec<String> {
    (t.referee.welcome(t.at(ms).at).into_iter())
        .map(|e| deliver_to_viewers(t, e))
        .collect()
}

/// Plays tic-tac-toe to X's win (seat 0 is X), the last move at `ms`.
fn x_wins(t: &mut Test, ms: u64) -> Vec<String> {
    for (seat, square) in [(0, "b2"), (1, "a1"), (0, "b1"), (1, "c1")] {
        t.play(seat, square, ms - 100);
    }
    t.play(0, "b3", ms)
}

#[test]
fn the_start_tells_the_time_control_of_turn_based_games_only() {
    let time = |rules: Rules, game: &str| {
        let module = registry::find(game).unwrap();
        let seating = Seating {
            id: ID,
            peers: vec!["a".into(), "b".into()],
            first_team_seat: 0,
        };
        let mut referee = Referee::new(module, rules, Settings::default(), seating, Instant::now());
        let now = Now {
            at: Instant::now(),
            wall: std::time::SystemTime::now(),
        };
        match &referee.start(now)[0].event {
            Event::Start { time, .. } => *time,
            other => panic!("{other:?}"),
        }
    };
    let s = Duration::from_secs;
    assert_eq!(
        time(fischer(300_000, 3_000), "reversi"),
        Some(TimeControl::Fischer {
            base: s(300),
            increment: s(3)
        })
    );
    let per_move = |first| TimeControl::PerMove {
        limit: s(600),
        first: s(first),
    };
    assert_eq!(
        time(clocked(600_000, Some(30_000)), "reversi"),
        Some(per_move(30))
    );
    assert_eq!(
        time(clocked(600_000, None), "reversi"),
        Some(per_move(600)),
        "F = L"
    );
    assert_eq!(time(rules(), "draughts"), Some(TimeControl::None));
    assert_eq!(time(fischer(300_000, 3_000), "foxes"), None, "real time");
}

#[test]
fn fischer_charges_each_move_adds_the_increment_and_flags_on_the_instant() {
    let (mut t, told) = Test::new("tictactoe", fischer(10_000, 2_000), 2);
    assert_eq!(
        told[3..],
        [
            "0 turn X",
            "1 turn X",
            "v turn X",
            "0 clock X 10000",
            "1 clock X 10000",
            "v clock X 10000",
            "0 clock O 10000",
            "1 clock O 10000",
            "v clock O 10000",
            "0 ready",
        ],
        "every team's clock after the turn, team 1 first"
    );
    assert_eq!(t.deadline(), Some(10_000));
    assert_eq!(
        t.play(0, "b2", 4_000)[3..],
        [
            "0 turn O",
            "1 turn O",
            "v turn O",
            "0 clock X 8000",
            "1 clock X 8000",
            "v clock X 8000",
            "0 clock O 10000",
            "1 clock O 10000",
            "v clock O 10000",
            "1 ready",
        ],
        "X was charged 4 s and given 2 s"
    );
    assert_eq!(t.deadline(), Some(14_000));
    // An ERROR charges nothing and restarts nothing.
    t.send(1, Input::Confused("what?".to_owned()), 6_000);
    assert_eq!(t.deadline(), Some(14_000));
    t.play(1, "a1", 9_000);
    assert_eq!(t.deadline(), Some(17_000), "X's 8 s from 9 s");
    assert_eq!(
        welcome(&t, 12_000),
        [
            "v start watching 7",
            "v turn X",
            "v clock X 5000",
            "v clock O 7000"
        ]
    );
    assert_eq!(t.referee.take_journal(), ["X b2 8000", "O a1 7000"]);
    assert!(t.tick(16_999).is_empty(), "not 1 ms before");
    assert_eq!(
        t.tick(17_000),
        [
            "0 over O wins: X ran out of time, you lose",
            "1 over O wins: X ran out of time, you win",
            "v over O wins: X ran out of time",
        ]
    );
    let summary = &t.finished()[0];
    assert!(summary.contains("end timeout by X"), "{summary}");
    assert!(
        summary.contains("control 10s+2 flag late 0.0 ms moves 2"),
        "{summary}"
    );
    assert_eq!(t.deadline(), None);
}

#[test]
fn a_late_flag_is_measured_and_a_draw_offer_gets_no_increment() {
    let (mut t, _) = Test::new("draughts", fischer(10_000, 2_000), 2);
    t.send(0, Input::Act(Action::OfferDraw), 3_000);
    assert_eq!(
        t.deadline(),
        Some(10_000),
        "7 s left from 3 s: no increment"
    );
    t.tick(10_004);
    let summary = &t.finished()[0];
    assert!(summary.contains("flag late 4.0 ms"), "{summary}");
}

#[test]
fn under_fischer_a_first_move_not_made_in_time_aborts_and_the_countdown_is_told() {
    let first = Rules {
        first_move_timeout: Some(Duration::from_millis(30_000)),
        ..fischer(60_000, 0)
    };
    let (mut t, told) = Test::new("tictactoe", first.clone(), 2);
    assert_eq!(
        told[9..],
        [
            "0 clock O 60000",
            "1 clock O 60000",
            "v clock O 60000",
            "0 timer abort 30000 (the game is aborted unless X moves)",
            "1 timer abort 30000 (the game is aborted unless X moves)",
            "v timer abort 30000 (the game is aborted unless X moves)",
            "0 ready",
        ]
    );
    assert_eq!(t.deadline(), Some(30_000));
    let o_first = t.play(0, "b2", 1_000);
    assert_eq!(
        o_first[12..],
        [
            "0 timer abort 30000 (the game is aborted unless O moves)",
            "1 timer abort 30000 (the game is aborted unless O moves)",
            "v timer abort 30000 (the game is aborted unless O moves)",
            "1 ready",
        ]
    );
    assert_eq!(
        welcome(&t, 11_000)[4..],
        ["v timer abort 20000 (the game is aborted unless O moves)"]
    );
    let both = t.play(1, "a1", 2_000);
    assert_eq!(
        both[12..],
        [
            "0 timer abort 0 (every side has moved)",
            "1 timer abort 0 (every side has moved)",
            "v timer abort 0 (every side has moved)",
            "0 ready",
        ]
    );
    assert_eq!(t.deadline(), Some(61_000), "X's main time from here");
    let later = t.play(0, "b1", 3_000);
    assert!(later.iter().all(|l| !l.contains("timer")), "{later:?}");
    let (mut t, _) = Test::new("tictactoe", first, 2);
    assert_eq!(
        t.tick(30_000)[0],
        "0 aborted X did not make its first move in time"
    );
    assert!(t.finished()[0].contains("end never-started by X"));
}

#[test]
fn the_lag_quota_starts_at_twice_the_allowance_and_sustains_half_of_it() {
    let a = Duration::from_millis(500);
    let ms = Duration::from_millis;
    let mut lag = Lag::new(a, 1);
    assert_eq!(lag.credit(0), Duration::ZERO, "nothing measured yet");
    lag.sample(0, ms(2_000));
    assert_eq!(lag.credit(0), a, "at most the allowance");
    let mut credits = Vec::new();
    for _ in 0..6 {
        let credit = lag.credit(0);
        credits.push(credit.as_millis());
        lag.spent(0, credit, ms(3_000));
    }
    assert_eq!(credits, [500, 500, 500, 250, 250, 250], "then A/2 a move");
    // A move quicker than its credit uses only what it took, and the quota refills.
    lag.spent(0, ms(250), ms(100));
    assert_eq!(lag.credit(0), ms(400));
    for _ in 0..10 {
        lag.spent(0, Duration::ZERO, ms(100));
    }
    assert_eq!(lag.credit(0), a, "the quota is capped at 2A");
    // Samples are capped at 2A and weighted a quarter to the newest.
    let mut lag = Lag::new(a, 1);
    lag.sample(0, ms(100));
    lag.sample(0, ms(5_000));
    assert_eq!(lag.credit(0), ms(325));
}

#[test]
fn pings_go_to_idle_seats_one_at_a_time_and_pongs_credit_the_round_trip() {
    let lagged = Rules {
        lag_allowance: Duration::from_millis(500),
        ..fischer(10_000, 0)
    };
    let (mut t, told) = Test::new("tictactoe", lagged, 2);
    assert_eq!(told[told.len() - 2..], ["1 ping 1", "0 ping 1"]);
    assert!(t.send(1, Input::Pong(2), 50).is_empty(), "not our ping");
    t.send(1, Input::Pong(1), 80);
    t.send(0, Input::Pong(1), 40);
    // X moves: O, idle no more, gets READY with 80 ms of credit; X is pinged.
    let moved = t.play(0, "b2", 1_000);
    assert_eq!(moved[moved.len() - 2..], ["1 ready", "0 ping 2"]);
    assert_eq!(t.deadline(), Some(11_080));
    t.play(1, "a1", 1_580);
    assert_eq!(
        welcome(&t, 1_580)[2..4],
        ["v clock X 9000", "v clock O 9500"],
        "O was charged 580 - 80 ms"
    );
    // Seat 0 never answers: after 10 s its ping is given up, and it is not pinged again.
    let (mut t, _) = Test::new(
        "tictactoe",
        Rules {
            lag_allowance: Duration::from_millis(500),
            ..fischer(60_000, 0)
        },
        2,
    );
    t.send(1, Input::Pong(1), 10);
    let o = t.play(0, "b2", 11_000);
    assert!(o.iter().all(|l| !l.starts_with("0 ping")), "{o:?}");
    let x = t.play(1, "a1", 12_000);
    assert_eq!(x.last().unwrap(), "1 ping 2", "O answers: pinged once idle");
    let o = t.play(0, "b1", 13_000);
    assert!(o.iter().all(|l| !l.starts_with("0 ping")), "{o:?}");
    let summary_lag = t.referee.lag_summary();
    assert_eq!(summary_lag, "X:0 O:10");
}

fn offers(rules: Rules) -> Rules {
    Rules {
        rematch_window: Some(Duration::from_millis(20_000)),
        ..rules
    }
}

#[test]
fn after_a_game_a_rematch_window_opens_and_an_accepted_offer_starts_the_next_game() {
    let (mut t, _) = Test::new("tictactoe", offers(rules()), 2);
    assert_eq!(
        t.send(0, Input::Rematch(Rematch::Offer), 50),
        ["0 confused the game is not over, again"]
    );
    let over = x_wins(&mut t, 500);
    assert_eq!(
        over[over.len() - 3..],
        [
            "0 timer rematch 20000 (a rematch may be offered until then)",
            "1 timer rematch 20000 (a rematch may be offered until then)",
            "v timer rematch 20000 (a rematch may be offered until then)",
        ]
    );
    assert!(!t.referee.is_over(), "the players may still offer");
    assert_eq!(
        welcome(&t, 5_500)[1..],
        [
            "v over X wins: three in a line: b1 b2 b3",
            "v timer rematch 15000 (a rematch may be offered until then)"
        ],
        "a viewer arriving is told the window's time left"
    );
    assert_eq!(t.deadline(), Some(20_500));
    assert_eq!(
        t.send(1, Input::Rematch(Rematch::Accept), 600),
        ["1 confused no rematch was offered"]
    );
    assert_eq!(
        t.send(0, Input::Rematch(Rematch::Offer), 700),
        [
            "1 offered rematch X (X offers a rematch)",
            "v offered rematch X (X offers a rematch)"
        ]
    );
    assert_eq!(
        t.send(0, Input::Rematch(Rematch::Accept), 800),
        ["0 confused you offered already; wait for the answer"]
    );
    let next = t.send(1, Input::Rematch(Rematch::Accept), 900);
    assert_eq!(
        next[..6],
        [
            "0 start as O",
            "1 start as X",
            "v start watching 7",
            "0 turn X",
            "1 turn X",
            "v turn X"
        ],
        "teams turned round"
    );
    assert_eq!(next.last().unwrap(), "1 ready");
    assert_eq!(t.referee.take_journal().last().unwrap(), "round 2");
    assert_eq!(t.finished().len(), 1);
}

#[test]
fn crossing_offers_agree_and_a_decline_closes_the_window() {
    let (mut t, _) = Test::new("tictactoe", offers(rules()), 2);
    x_wins(&mut t, 500);
    t.send(1, Input::Rematch(Rematch::Offer), 600);
    let next = t.send(0, Input::Rematch(Rematch::Offer), 700);
    assert_eq!(next[0], "0 start as O", "a crossing offer accepts");
    let (mut t, _) = Test::new("tictactoe", offers(rules()), 2);
    x_wins(&mut t, 500);
    t.send(0, Input::Rematch(Rematch::Offer), 600);
    assert_eq!(
        t.send(1, Input::Rematch(Rematch::Decline), 700),
        [
            "0 news O declines the rematch",
            "1 news O declines the rematch",
            "v news O declines the rematch",
            "0 timer rematch 0 (no rematch)",
            "1 timer rematch 0 (no rematch)",
            "v timer rematch 0 (no rematch)",
        ]
    );
    assert!(t.referee.is_over());
    assert_eq!(
        t.send(0, Input::Rematch(Rematch::Offer), 800),
        ["0 confused there is no rematch now"]
    );
}

#[test]
fn the_window_closes_when_it_runs_out_or_a_player_leaves() {
    let (mut t, _) = Test::new("tictactoe", offers(rules()), 2);
    x_wins(&mut t, 500);
    assert!(t.tick(20_499).is_empty());
    assert_eq!(t.tick(20_500)[0], "0 timer rematch 0 (no rematch)");
    assert!(t.referee.is_over());
    let (mut t, _) = Test::new("tictactoe", offers(rules()), 2);
    x_wins(&mut t, 500);
    t.send(0, Input::Rematch(Rematch::Offer), 600);
    assert_eq!(
        t.eof(1, 700),
        [
            "0 timer rematch 0 (no rematch)",
            "v timer rematch 0 (no rematch)"
        ]
    );
    assert!(t.referee.is_over());
    // No window after a drop, nor where the rules give none or a series runs.
    let (mut t, _) = Test::new("tictactoe", offers(rules()), 2);
    let dropped = t.eof(1, 100);
    assert!(
        dropped.iter().all(|l| !l.contains("rematch")),
        "{dropped:?}"
    );
    assert!(t.referee.is_over());
    let series = Rules {
        rematch: true,
        ..offers(rules())
    };
    let (mut t, _) = Test::new("tictactoe", series, 2);
    let over = x_wins(&mut t, 500);
    assert!(over.iter().all(|l| !l.contains("rematch")), "{over:?}");
    assert_eq!(
        t.send(0, Input::Rematch(Rematch::Offer), 600),
        ["0 confused tictactoe has automatic rematches"]
    );
}

#[test]
fn a_seat_without_pings_is_credited_the_kernels_round_trip() {
    let lagged = Rules {
        lag_allowance: Duration::from_millis(500),
        ..fischer(10_000, 0)
    };
    let (mut t, _) = Test::new("tictactoe", lagged, 2);
    // The session answers seat 1's ping with the kernel's round trip.
    assert!(t
        .send(1, Input::Rtt(Duration::from_millis(60)), 0)
        .is_empty());
    t.play(0, "b2", 1_000);
    assert_eq!(t.deadline(), Some(11_060));
}

/// Seat 0 is the account Alice (1500?), seat 1 the guest bob.
fn named_seats() -> Vec<crate::terms::SeatPlayer> {
    use crate::terms::{SeatPlayer, ShownRating};
    use reversi_store::{AccountId, Name};
    vec![
        SeatPlayer::Account {
            id: AccountId(1),
            name: Name::new("Alice").unwrap(),
            rating: Some(ShownRating {
                points: 1500,
                provisional: true,
            }),
        },
        SeatPlayer::Guest(Name::new("bob").unwrap()),
    ]
}

/// The players a start event names, as `team kind-or-name`.
fn shown_players(info: &GameInfo, event: &Event) -> Vec<String> {
    use crate::terms::SeatPlayer;
    let Event::Start { players, .. } = event else {
        panic!("not a start: {event:?}");
    };
    let word = |p: &SeatPlayer| match p {
        SeatPlayer::Anonymous => "-".to_owned(),
        SeatPlayer::Guest(name) => format!("{name}~"),
        SeatPlayer::Account { name, .. } => name.to_string(),
    };
    players
        .iter()
        .map(|p| format!("{} {}", info.team_name(p.team), word(&p.player)))
        .collect()
}

#[test]
fn every_start_names_the_players_team_by_team_and_records_and_the_log_too() {
    let module = registry::find("tictactoe").unwrap();
    let seating = Seating {
        id: ID,
        peers: vec!["p0".into(), "p1".into()],
        first_team_seat: 1,
    };
    let t0 = Instant::now();
    let mut referee = Referee::new(module, rules(), Settings::default(), seating, t0);
    referee.name_seats(named_seats());
    let mut t = Test { referee, t0 };
    let now = t.at(0);
    let starts: Vec<Delivery> = t.referee.start(now);
    let info = t.referee.info();
    let expected = ["X bob~", "O Alice"];
    let start_events = starts
        .iter()
        .filter(|d| matches!(d.event, Event::Start { .. }));
    let told: Vec<Vec<String>> = start_events
        .map(|d| shown_players(info, &d.event))
        .collect();
    assert_eq!(
        told, [expected; 3],
        "both seats and the viewers, in team order"
    );
    let welcome = t.referee.welcome(t.at(10).at);
    assert_eq!(shown_players(info, &welcome[0]), expected);
    t.play(1, "b2", 100);
    t.send(0, Input::Quit, 200);
    let finished = t.referee.take_finished();
    let record = &finished[0].record;
    assert!(record.contains("[X \"bob~\"]\n[O \"Alice\"]"), "{record}");
    let summary = &finished[0].summary;
    assert!(
        summary.starts_with("tictactoe X bob~@p1 O Alice@p0 end quit"),
        "{summary}"
    );
}

#[test]
fn anonymous_players_are_shown_as_such_and_recorded_by_address() {
    let (mut t, starts) = Test::new("tictactoe", rules(), 2);
    assert_eq!(starts[0], "0 start as X");
    let info = t.referee.info();
    let welcome = t.referee.welcome(t.at(10).at);
    assert_eq!(shown_players(info, &welcome[0]), ["X -", "O -"]);
    t.play(0, "b2", 100);
    t.send(1, Input::Quit, 200);
    let finished = t.referee.take_finished();
    assert!(finished[0].record.contains("[X \"p0\"]\n[O \"p1\"]"));
    assert!(finished[0].summary.starts_with("tictactoe X p0 O p1 end"));
}

#[test]
fn records_carry_the_time_control_and_each_moves_clock() {
    let (mut t, _) = Test::new("tictactoe", clocked(60_000, None), 2);
    t.play(0, "b2", 1_500);
    t.play(1, "a1", 1_750);
    t.send(0, Input::Quit, 2_000);
    let record = &t.referee.take_finished()[0].record;
    assert!(
        record.contains(
            "[TimeControl \"1/60\"]\n\nX b2 {[%clk 0:00:58.5]}\nO a1 {[%clk 0:00:59.7]}\n"
        ),
        "{record}"
    );

    let fischer = Rules {
        control: TimeControl::Fischer {
            base: Duration::from_secs(300),
            increment: Duration::from_secs(3),
        },
        ..rules()
    };
    let (mut t, _) = Test::new("reversi", fischer, 2);
    t.play(0, "d3", 2_600);
    t.send(1, Input::Quit, 3_000);
    let record = &t.referee.take_finished()[0].record;
    assert!(record.contains("B[d3//2.60]"), "{record}");

    let (mut t, _) = Test::new("tictactoe", rules(), 2);
    t.play(0, "b2", 100);
    t.send(1, Input::Quit, 200);
    let record = &t.referee.take_finished()[0].record;
    assert!(
        record.contains("[TimeControl \"-\"]\n\nX b2\n"),
        "no clock, no comment: {record}"
    );
}

#[test]
fn draughts_records_carry_each_moves_clock() {
    let fischer = Rules {
        control: TimeControl::Fischer {
            base: Duration::from_secs(60),
            increment: Duration::ZERO,
        },
        ..rules()
    };
    let (mut t, _) = Test::new("draughts", fischer, 2);
    for (seat, m, at) in [
        (0, "11-15", 1_000),
        (1, "22-18", 2_000),
        (0, "15x22", 3_000),
    ] {
        t.play(seat, m, at);
    }
    t.send(1, Input::Quit, 4_000);
    let record = t.referee.take_finished()[0].record.replace('\n', " ");
    assert!(
        record.contains(
            "1. 11-15 {[%clk 0:00:59.0]} 1... 22-18 {[%clk 0:00:59.0]} 2. 15x22 {[%clk 0:00:58.0]}"
        ),
        "{record}"
    );
}
