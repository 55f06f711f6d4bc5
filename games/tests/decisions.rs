//! Issue 24's decisions that a client cannot observe from outside (a server
//! always starts from the opening), each named after the section of the
//! game's spec that states it: spec/games/draughts.md and TEXT-PROTOCOL.md
//! §10.1. The conformance kit (conformance/) checks the rest over the wire.

use reversi_games::draughts::{self, Draughts, Kind, Square};
use reversi_games::{Action, Game, Illegal, Team, Update};

const BLACK: Team = Team::FIRST;
const WHITE: Team = Team::SECOND;

fn game(fen: &str) -> Draughts {
    Draughts::from_position(fen.parse().expect("a FEN position"))
}

fn sq(n: u32) -> Square {
    Square::new(n).expect("a square 1 to 32")
}

/// Plays `text` (PDN) for the side to move.
fn play(g: &mut Draughts, text: &str) -> Result<Update, Illegal> {
    let team = g.turn().ok_or_else(|| Illegal::new("the game is over"))?;
    let action = g.parse_action(text)?;
    g.play(team, &action, 0)
}

fn legal(g: &Draughts) -> Vec<String> {
    let mut moves: Vec<String> = g
        .position()
        .legal_moves()
        .iter()
        .map(|m| m.to_string())
        .collect();
    moves.sort();
    moves
}

/// The squares (by number) an update draws, in order, and whether each holds a piece.
fn drawn(update: &Update) -> Vec<(u8, bool)> {
    update
        .cells
        .iter()
        .map(|c| {
            let square = draughts::square(c.at).expect("a dark square");
            (square.number(), c.piece.is_some())
        })
        .collect()
}

fn kind_on(g: &Draughts, n: u32) -> Option<Kind> {
    g.shown().at(sq(n)).map(|stone| stone.kind)
}

#[test]
fn draughts_rules_a_kings_capture_may_end_where_it_started() {
    let mut g = game("B:W6,7,14,15,32:BK2");
    assert_eq!(legal(&g), ["2x11x18x9x2", "2x9x18x11x2"]);
    let ambiguous = play(&mut g, "2x2").expect_err("its ends name two circuits");
    assert!(ambiguous.0.contains("ambiguous"), "{ambiguous}");

    let update = play(&mut g, "2x11x18x9x2").expect("legal");
    let moved = update.moved.as_ref().expect("a whole move");
    assert_eq!(moved.notation, "2x11x18x9x2");
    // The king's square did not change: only the captured pieces are drawn.
    assert_eq!(
        drawn(&update),
        [(6, false), (7, false), (14, false), (15, false)]
    );
    assert_eq!(kind_on(&g, 2), Some(Kind::King));
    assert_eq!(g.turn(), Some(WHITE));
}

#[test]
fn draughts_the_board_a_circuit_entered_jump_by_jump_draws_the_king_back_last() {
    let mut g = game("B:W6,7,14,15,32:BK2");
    for jump in ["2x11", "11x18", "18x9"] {
        let update = play(&mut g, jump).expect(jump);
        assert_eq!(update.moved, None, "{jump} does not finish the capture");
        assert_eq!(g.turn(), Some(BLACK), "{jump}: the capture goes on");
    }
    let last = play(&mut g, "9x2").expect("the last jump");
    // The squares emptied (the jump's start, the piece it took), then the king's.
    let mut cells = drawn(&last);
    assert_eq!(cells.pop(), Some((2, true)));
    cells.sort();
    assert_eq!(cells, [(6, false), (9, false)]);
    let moved = last.moved.as_ref().expect("now a whole move");
    assert_eq!(moved.notation, "2x11x18x9x2");
}

#[test]
fn draughts_moves_a_capture_by_its_ends_in_either_form() {
    let g = game("B:W10,18,19:B1,6");
    assert_eq!(legal(&g), ["6x15x22", "6x15x24"]);
    let ends = |a: u32, b: u32| Action::Move(vec![draughts::point(sq(a)), draughts::point(sq(b))]);

    let mut coordinates = g.clone();
    let update = coordinates
        .play(BLACK, &ends(6, 24), 0)
        .expect("one route joins 6 and 24");
    assert_eq!(update.moved.expect("a whole move").notation, "6x15x24");

    let mut notation = g.clone();
    let update = play(&mut notation, "6x24").expect("the same in notation");
    assert_eq!(update.moved.expect("a whole move").notation, "6x15x24");

    // Two squares that are the first jump are read as that jump: the capture goes on.
    let mut first_jump = g.clone();
    let update = first_jump
        .play(BLACK, &ends(6, 15), 0)
        .expect("the first jump");
    assert_eq!(update.moved, None);
    assert_eq!(first_jump.turn(), Some(BLACK));
}

#[test]
fn draughts_rules_forty_moves_count_from_the_last_man_move() {
    // The king cycles of the 40-move test, with a black man on 1 that moves
    // once, as black's 20th move: the count starts again there.
    let black = [21, 17, 14, 18, 23, 26, 30, 25];
    let white = [7, 11, 16, 12, 8, 3];
    let mut g = game("B:WK7:BK21,1");
    let mut king_steps = 0;
    for n in 0..60 {
        let b = if n == 19 {
            "1-5".to_owned()
        } else {
            let step = format!("{}-{}", black[king_steps % 8], black[(king_steps + 1) % 8]);
            king_steps += 1;
            step
        };
        play(&mut g, &b).unwrap_or_else(|e| panic!("black's {b}: {e}"));
        if n == 59 {
            let why = g
                .outcome()
                .expect("a draw 80 turns after 1-5")
                .why()
                .to_owned();
            assert_eq!(why, "40 moves each without a capture or a man moving");
            return;
        }
        assert!(g.outcome().is_none(), "after black's move {}: {b}", n + 1);
        let w = format!("{}-{}", white[n % 6], white[(n + 1) % 6]);
        play(&mut g, &w).unwrap_or_else(|e| panic!("white's {w}: {e}"));
        assert!(g.outcome().is_none(), "after white's move {}: {w}", n + 1);
    }
}

#[test]
fn draughts_rules_repetition_is_named_when_both_draws_fall_on_one_move() {
    // Cycles of 4 and 10 squares: the start position comes back every 20
    // moves each, for the third time after 40 moves each, when the 40-move
    // rule falls due as well.
    let black = [1, 6, 9, 5];
    let white = [3, 8, 12, 16, 20, 24, 19, 15, 11, 7];
    let mut g = game("B:WK3:BK1");
    for n in 0..40 {
        let b = format!("{}-{}", black[n % 4], black[(n + 1) % 4]);
        play(&mut g, &b).unwrap_or_else(|e| panic!("black's {b}: {e}"));
        assert!(g.outcome().is_none(), "after black's move {}", n + 1);
        let w = format!("{}-{}", white[n % 10], white[(n + 1) % 10]);
        play(&mut g, &w).unwrap_or_else(|e| panic!("white's {w}: {e}"));
        assert_eq!(
            g.outcome().is_some(),
            n == 39,
            "after white's move {}",
            n + 1
        );
    }
    let why = g.outcome().expect("drawn").why().to_owned();
    assert_eq!(why, "the same position with the same side to move 3 times");
}

#[test]
fn text_10_1_every_line_is_named_from_the_lowest_row_up() {
    // X completes each line with its last square; O plays where it cannot
    // complete anything or block.
    let lines: [[&str; 3]; 8] = [
        ["a1", "b1", "c1"],
        ["a2", "b2", "c2"],
        ["a3", "b3", "c3"],
        ["a1", "a2", "a3"],
        ["b1", "b2", "b3"],
        ["c1", "c2", "c3"],
        ["a1", "b2", "c3"],
        ["c1", "b2", "a3"],
    ];
    let all = ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"];
    for line in lines {
        let module = reversi_games::registry::find("tictactoe").expect("built in");
        let mut g = (module.new_game)(&Default::default());
        let mut others = all.iter().filter(|s| !line.contains(s));
        // X plays the line in reverse, so the order of play is not the order named.
        for (i, square) in line.iter().rev().enumerate() {
            let x = g.parse_action(square).expect("a square");
            g.play(Team::FIRST, &x, 0).expect("X's move");
            if i < 2 {
                let o = g
                    .parse_action(others.next().expect("a square"))
                    .expect("a square");
                g.play(Team::SECOND, &o, 0).expect("O's move");
            }
        }
        let why = g.outcome().expect("X completed a line").why().to_owned();
        assert_eq!(why, format!("three in a line: {}", line.join(" ")));
    }
}
