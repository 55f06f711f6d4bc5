//! Every rule of the module shown on a position, through the game trait.

use std::time::{Duration, UNIX_EPOCH};

use crate::game::{Action, CloneGame, Game, Illegal, Outcome, Team, Update, Viewer};
use crate::record::{How, RecordMeta};

use super::board::{Kind, Square};
use super::game::Draughts;
use super::view;

const BLACK: Team = Team::FIRST;
const WHITE: Team = Team::SECOND;

fn game(fen: &str) -> Draughts {
    Draughts::from_position(fen.parse().unwrap())
}

/// Plays `text` (PDN) for the side to move.
fn play(g: &mut Draughts, text: &str) -> Result<Update, Illegal> {
    let team = g.turn().ok_or_else(|| Illegal::new("over"))?;
    let action = g.parse_action(text)?;
    g.play(team, &action, 0)
}

fn play_all(g: &mut Draughts, texts: &[&str]) {
    for text in texts {
        play(g, text).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
}

fn legal(g: &Draughts) -> Vec<String> {
    g.position()
        .legal_moves()
        .iter()
        .map(|m| m.to_string())
        .collect()
}

/// The legal actions as square numbers.
fn actions(g: &Draughts, team: Team) -> Vec<Vec<u8>> {
    g.legal_actions(team)
        .into_iter()
        .map(|a| match a {
            Action::Move(points) => points
                .into_iter()
                .map(|p| view::square(p).unwrap().number())
                .collect(),
            other => panic!("{other:?} is not a move"),
        })
        .collect()
}

fn kind_on(g: &Draughts, number: u32) -> Option<Kind> {
    g.shown().at(Square::new(number).unwrap()).map(|s| s.kind)
}

fn winner(g: &Draughts) -> (Option<Team>, String) {
    let outcome = g.outcome().expect("the game is over");
    (outcome.winner(), outcome.why().to_owned())
}

#[test]
fn capturing_is_compulsory() {
    let mut g = game("B:W18,32:B1,14");
    assert_eq!(legal(&g), ["14x23"]);
    let refused = play(&mut g, "1-6").unwrap_err();
    assert_eq!(
        refused.0,
        "1-6: you must capture, and the piece on 1 cannot"
    );
    assert!(g.history().is_empty());
    play(&mut g, "14x23").unwrap();
    assert_eq!(g.turn(), Some(WHITE));
}

#[test]
fn any_capture_may_be_chosen_not_only_the_longest() {
    let mut g = game("B:W10,14,19:B6,9");
    assert_eq!(legal(&g), ["6x15x24", "9x18"]);
    play(&mut g, "9x18").unwrap();
    assert_eq!(g.history()[0].notation, "9x18");
    assert_eq!(g.turn(), Some(WHITE));
}

#[test]
fn a_multi_jump_goes_on_and_may_be_entered_jump_by_jump() {
    let fen = "B:W10,18,19:B1,6";
    let mut g = game(fen);
    assert_eq!(legal(&g), ["6x15x22", "6x15x24"]);
    // The first jump alone: the same side keeps the turn, only that piece may go on.
    let update = play(&mut g, "6x15").unwrap();
    assert_eq!(update.moved, None);
    assert!(update
        .news
        .unwrap()
        .contains("the piece on 15 must capture again"));
    let drawn: Vec<(u8, bool)> = update
        .cells
        .iter()
        .map(|c| (view::square(c.at).unwrap().number(), c.piece.is_some()))
        .collect();
    assert_eq!(drawn, [(6, false), (10, false), (15, true)]);
    assert_eq!(g.turn(), Some(BLACK));
    assert!(g.history().is_empty());
    assert_eq!(actions(&g, BLACK), [vec![15, 22], vec![15, 24]]);
    assert!(actions(&g, WHITE).is_empty());
    let other_piece = play(&mut g, "1-5").unwrap_err();
    assert_eq!(
        other_piece.0,
        "your capture goes on: move the piece on 15 again"
    );
    assert!(g.play(WHITE, &g.parse_action("18-14").unwrap(), 0).is_err());
    assert!(g.play(BLACK, &Action::AcceptDraw, 0).is_err());
    let update = play(&mut g, "15x24").unwrap();
    assert_eq!(update.moved.unwrap().notation, "6x15x24");
    assert_eq!(g.history().len(), 1);
    assert_eq!(g.turn(), Some(WHITE));
    assert_eq!(kind_on(&g, 19), None);

    // The same move in one go, and never a capture that stops early.
    let mut whole = game(fen);
    play(&mut whole, "6x15x22").unwrap();
    assert_eq!(whole.history()[0].notation, "6x15x22");
    assert!(legal(&game(fen))
        .iter()
        .all(|m| m.matches('x').count() == 2));
}

#[test]
fn crowning_ends_the_move() {
    // As a king on 30 the piece could jump 25 next; a man crowned there stops.
    let mut g = game("B:W25,26:B23");
    assert_eq!(legal(&g), ["23x30"]);
    play(&mut g, "23x30").unwrap();
    assert_eq!(kind_on(&g, 30), Some(Kind::King));
    assert_eq!(kind_on(&g, 25), Some(Kind::Man));
    assert_eq!(g.turn(), Some(WHITE));
}

#[test]
fn kings_move_and_capture_backwards_and_men_do_not() {
    assert_eq!(legal(&game("B:W10:BK14")), ["14x7"]);
    assert_eq!(legal(&game("B:W10:B14")), ["14-17", "14-18"]);
    assert_eq!(
        legal(&game("B:W32:BK14")),
        ["14-9", "14-10", "14-17", "14-18"]
    );
    assert_eq!(
        legal(&game("W:WK19:B10")),
        ["19-15", "19-16", "19-23", "19-24"]
    );
    assert_eq!(legal(&game("W:W19:B10,23")), ["19-15", "19-16"]);
}

#[test]
fn different_routes_to_one_square_are_different_moves() {
    let mut g = game("B:W14,15,22,23:BK26");
    assert_eq!(legal(&g), ["26x17x10x19x26", "26x19x10x17x26"]);
    let short = play(&mut g, "26x26").unwrap_err();
    assert!(short.0.contains("ambiguous"), "{short}");
    play(&mut g, "26x19x10x17x26").unwrap();
    assert_eq!(winner(&g), (Some(BLACK), "white has no pieces left".into()));
}

#[test]
fn a_capture_may_be_shortened_to_its_ends_when_one_route_joins_them() {
    let mut g = game("B:W10,18,19:B6");
    play(&mut g, "6x24").unwrap();
    assert_eq!(g.history()[0].notation, "6x15x24");
}

#[test]
fn a_player_who_cannot_move_loses() {
    let mut blocked = game("B:W5:BK6");
    play(&mut blocked, "6-1").unwrap();
    assert_eq!(winner(&blocked), (Some(BLACK), "white cannot move".into()));
    assert_eq!(blocked.turn(), None);
    assert_eq!(play(&mut blocked, "5-1").unwrap_err().0, "over");
    let refused = blocked.play(WHITE, &Action::OfferDraw, 0).unwrap_err();
    assert_eq!(refused.0, "the game is over");

    let mut taken = game("B:W15:B11");
    play(&mut taken, "11x18").unwrap();
    assert_eq!(
        winner(&taken),
        (Some(BLACK), "white has no pieces left".into())
    );

    // A position where the side to move is stuck is over from the start.
    assert_eq!(
        winner(&game("W:W5:B1")),
        (Some(BLACK), "white cannot move".into())
    );
}

#[test]
fn the_third_repetition_draws() {
    let mut g = game("B:WK32:BK1");
    let round = ["1-5", "32-28", "5-1", "28-32"];
    play_all(&mut g, &round);
    play_all(&mut g, &round[..3]);
    assert!(
        g.outcome().is_none(),
        "the position has been seen twice only"
    );
    play(&mut g, round[3]).unwrap();
    let outcome = g.outcome().unwrap();
    assert_eq!(outcome.winner(), None);
    assert!(outcome.why().contains("3 times"), "{}", outcome.why());
}

#[test]
fn forty_moves_each_without_capture_or_man_move_draw() {
    // Black's king goes round 8 squares, White's round 6: the pair of
    // squares comes back every 24 moves, so no position is seen 3 times
    // in 40 moves each.
    let black = [21, 17, 14, 18, 23, 26, 30, 25];
    let white = [7, 11, 16, 12, 8, 3];
    let mut g = game("B:WK7:BK21");
    for n in 0..40 {
        let b = format!("{}-{}", black[n % 8], black[(n + 1) % 8]);
        play(&mut g, &b).unwrap();
        assert!(g.outcome().is_none(), "after {b}");
        let w = format!("{}-{}", white[n % 6], white[(n + 1) % 6]);
        play(&mut g, &w).unwrap();
        assert_eq!(g.outcome().is_some(), n == 39, "after move {}", n + 1);
    }
    let why = winner(&g).1;
    assert_eq!(why, "40 moves each without a capture or a man moving");
}

#[test]
fn a_draw_offer_can_be_accepted() {
    let mut g = Draughts::new();
    let offered = g.play(BLACK, &Action::OfferDraw, 0).unwrap();
    assert_eq!(offered.news.as_deref(), Some("black offers a draw"));
    assert_eq!(g.turn(), Some(BLACK), "offering does not end the turn");
    assert!(
        g.play(WHITE, &Action::AcceptDraw, 0).is_err(),
        "not White's turn yet"
    );
    play(&mut g, "11-15").unwrap();
    let accepted = g.play(WHITE, &Action::AcceptDraw, 0).unwrap();
    assert_eq!(accepted.news.as_deref(), Some("white accepts the draw"));
    assert_eq!(winner(&g), (None, "agreed".into()));
}

#[test]
fn a_declined_offer_leaves_the_decliner_to_move() {
    let mut g = Draughts::new();
    g.play(BLACK, &Action::OfferDraw, 0).unwrap();
    play(&mut g, "11-15").unwrap();
    g.play(WHITE, &Action::DeclineDraw, 0).unwrap();
    assert_eq!(g.turn(), Some(WHITE));
    assert!(g.play(WHITE, &Action::AcceptDraw, 0).is_err());
    assert_eq!(g.draw_offer(), None);
    play(&mut g, "23-19").unwrap();
    assert!(g.outcome().is_none());
}

#[test]
fn an_offer_lapses_when_the_opponent_moves_instead() {
    let mut g = Draughts::new();
    g.play(BLACK, &Action::OfferDraw, 0).unwrap();
    play(&mut g, "11-15").unwrap();
    let moved = play(&mut g, "23-19").unwrap();
    assert_eq!(
        moved.news.as_deref(),
        Some("white moved: the draw offer lapsed")
    );
    assert_eq!(g.draw_offer(), None);
    let late = g.play(BLACK, &Action::DeclineDraw, 0).unwrap_err();
    assert_eq!(late.0, "no draw has been offered");
    // The same player may offer again on a later turn.
    g.play(BLACK, &Action::OfferDraw, 0).unwrap();
    assert!(g.play(BLACK, &Action::OfferDraw, 0).is_err());
}

#[test]
fn moves_off_the_board_or_on_light_squares_are_refused() {
    let mut g = Draughts::new();
    let mut refuse = |points: Vec<(u8, u8)>| {
        let points = points
            .into_iter()
            .map(|(x, y)| crate::game::Point::new(x, y))
            .collect();
        g.play(BLACK, &Action::Move(points), 0).unwrap_err().0
    };
    assert!(refuse(vec![(1, 6), (2, 6)]).contains("light square"));
    assert!(refuse(vec![(9, 6), (8, 5)]).contains("not on the board"));
    assert!(refuse(vec![(2, 6)]).contains("every square it lands on"));
    assert!(refuse(vec![]).contains("every square it lands on"));
    // 11-15 as points: 11 is (6, 6), 15 is (5, 5).
    assert!(g
        .play(
            BLACK,
            &Action::Move(vec![
                crate::game::Point::new(6, 6),
                crate::game::Point::new(5, 5)
            ]),
            0
        )
        .is_ok());
    assert_eq!(g.history()[0].notation, "11-15");
}

#[test]
fn the_view_follows_jumps_entered_one_by_one() {
    let mut g = game("B:W10,18,19:B6");
    play(&mut g, "6x15").unwrap();
    let view = g.view(Viewer::Spectator);
    assert_eq!(view.len(), 64);
    assert_eq!(view.iter().filter(|c| c.piece.is_some()).count(), 3);
    let mut copy = g.clone_box();
    let rest = copy.legal_actions(BLACK).remove(0);
    copy.play(BLACK, &rest, 0).unwrap();
    assert_eq!(copy.history().len(), 1);
}

fn meta(outcome: Option<Outcome>, how: How) -> RecordMeta {
    RecordMeta {
        players: vec!["127.0.0.1:1".into(), "bot \"x\"".into()],
        finished: UNIX_EPOCH + Duration::from_secs(86_400),
        outcome,
        how,
        time_control: None,
        times: Vec::new(),
    }
}

#[test]
fn records_are_pdn_with_the_tags_moves_and_result() {
    let mut g = Draughts::new();
    play_all(&mut g, &["11-15", "22-18", "15x22", "25x18"]);
    let resigned = Outcome::Win {
        team: WHITE,
        why: "black left".into(),
    };
    let pdn = g.record(&meta(Some(resigned), How::Forfeit));
    assert_eq!(
        pdn,
        "[Event \"reversid\"]\n[Date \"1970.01.02\"]\n[Black \"127.0.0.1:1\"]\n\
         [White \"bot x\"]\n[Result \"0-1\"]\n[GameType \"21\"]\n\n\
         1. 11-15 22-18 2. 15x22 25x18 {white wins (black left)} 0-1\n"
    );
    let aborted = g.record(&meta(None, How::Aborted));
    assert!(aborted.contains("[Result \"*\"]") && aborted.ends_with("{aborted} *\n"));
}

#[test]
fn records_carry_the_time_control_and_each_moves_clock() {
    use crate::record::MoveTime;
    let mut g = Draughts::new();
    play_all(&mut g, &["11-15", "22-18", "15x22"]);
    let clock = |ms| {
        Some(MoveTime {
            took: 1_000,
            clock: Some(ms),
        })
    };
    let meta = RecordMeta {
        time_control: Some("300+3".into()),
        times: vec![clock(297_412), clock(300_000), None],
        ..meta(None, How::Aborted)
    };
    let pdn = g.record(&meta);
    assert!(
        pdn.contains("[GameType \"21\"]\n[TimeControl \"300+3\"]\n\n"),
        "{pdn}"
    );
    assert!(
        pdn.contains(
            "1. 11-15 {[%clk 0:04:57.4]} 1... 22-18 {[%clk 0:05:00.0]} 2. 15x22 {aborted} *"
        ),
        "{pdn}"
    );
    let read = super::replay::read(&pdn).expect("a timed record reads back");
    assert_eq!(read.history().len(), 3, "the comments read back as nothing");
}

#[test]
fn records_of_set_up_positions_carry_the_fen() {
    let mut g = game("W:WK19:B10");
    play_all(&mut g, &["19-24", "10-14"]);
    let pdn = g.record(&meta(None, How::Aborted));
    assert!(
        pdn.contains("[SetUp \"1\"]\n[FEN \"W:WK19:B10\"]\n"),
        "{pdn}"
    );
    assert!(pdn.contains("\n1... 19-24 2. 10-14 {aborted} *\n"), "{pdn}");
}

#[test]
fn long_records_wrap_their_movetext() {
    let mut g = game("B:WK7:BK21");
    let black = [21, 17, 14, 18, 23, 26, 30, 25];
    let white = [7, 11, 16, 12, 8, 3];
    for n in 0..20 {
        play(&mut g, &format!("{}-{}", black[n % 8], black[(n + 1) % 8])).unwrap();
        play(&mut g, &format!("{}-{}", white[n % 6], white[(n + 1) % 6])).unwrap();
    }
    let pdn = g.record(&meta(None, How::Aborted));
    assert!(pdn.lines().all(|l| l.len() <= 79));
    assert!(pdn.lines().count() > 10);
}
