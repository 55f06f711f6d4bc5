//! Every rule of Duell with a position that shows it.

use std::time::Duration;

use crate::bot::{Bot, RandomBot};
use crate::game::{Action, Cell, Game, Outcome, Piece, Point, Team, Viewer};

use super::*;

const SOUTH: Team = Team::FIRST;
const NORTH: Team = Team::SECOND;

fn mv(points: &[(u8, u8)]) -> Action {
    Action::Move(points.iter().map(|&(x, y)| Point::new(x, y)).collect())
}

fn key(team: Team) -> Option<Token> {
    Some(Token {
        team,
        kind: Kind::Key,
    })
}

/// A die of `team` as it starts with `top` on top (1, 2, 5 or 6).
fn die(team: Team, top: u8) -> Option<Token> {
    let start = Die::starting(top);
    let die = if team == SOUTH { start } else { start.turned() };
    Some(Token {
        team,
        kind: Kind::Die(die),
    })
}

/// A position: the pieces given, south to move.
fn position(pieces: &[((u8, u8), Option<Token>)]) -> Duell {
    let mut board = Board::empty();
    for &((x, y), token) in pieces {
        board.set(Point::new(x, y), token);
    }
    Duell::with_position(board, SOUTH)
}

fn drawn(cell: &Cell) -> (Point, &str, Option<(&str, u8)>) {
    let piece = cell
        .piece
        .as_ref()
        .map(|p| (p.name.as_str(), p.team.number()));
    (cell.at, cell.square, piece)
}

#[test]
fn the_seeds_session_plays_as_its_transcript_shows() {
    let mut game = Duell::new();
    assert_eq!(game.turn(), Some(SOUTH), "the first to join moves first");
    let short = game.play(SOUTH, &mv(&[(1, 1), (1, 5)]), 0).unwrap_err();
    assert!(short
        .0
        .starts_with("the range does not match the value shown"));
    let update = game.play(SOUTH, &mv(&[(1, 1), (1, 6)]), 0).unwrap();
    let cells: Vec<_> = update.cells.iter().map(drawn).collect();
    assert_eq!(
        cells,
        [
            (Point::new(1, 1), "white", None),
            (Point::new(1, 6), "black", Some(("die326", 1)))
        ]
    );
    assert_eq!(update.moved.unwrap().notation, "a1-a6");
    let update = game.play(NORTH, &mv(&[(5, 8), (5, 7)]), 0).unwrap();
    let cells: Vec<_> = update.cells.iter().map(drawn).collect();
    assert_eq!(
        cells,
        [
            (Point::new(5, 8), "key", None),
            (Point::new(5, 7), "white", Some(("key111", 2)))
        ]
    );
    assert_eq!(game.turn(), Some(SOUTH));
}

#[test]
fn north_reads_its_dice_from_its_own_seat() {
    // North's a8 die is the mirror of south's i1: rolled five squares toward
    // south it reads 326, as south's 536 does rolled five squares north.
    let mut game = Duell::new();
    game.play(SOUTH, &mv(&[(5, 1), (5, 2)]), 0).unwrap();
    let update = game.play(NORTH, &mv(&[(1, 8), (1, 3)]), 0).unwrap();
    assert_eq!(
        update.cells[1].piece,
        Some(Piece {
            name: "die326".into(),
            team: NORTH
        })
    );
}

#[test]
fn only_the_side_to_move_moves_and_only_its_own_pieces() {
    let mut game = Duell::new();
    let early = game.play(NORTH, &mv(&[(5, 8), (5, 7)]), 0);
    assert_eq!(early.unwrap_err().0, "it is not your turn");
    let theirs = game.play(SOUTH, &mv(&[(5, 8), (5, 7)]), 0);
    assert_eq!(theirs.unwrap_err().0, "you do not own that piece");
    let empty = game.play(SOUTH, &mv(&[(3, 3), (3, 4)]), 0);
    assert_eq!(empty.unwrap_err().0, "there is no piece on c3");
    let off = game.play(SOUTH, &mv(&[(1, 1), (1, 9)]), 0);
    assert!(off.unwrap_err().0.contains("not on the board"));
    let one = game.play(SOUTH, &mv(&[(1, 1)]), 0);
    assert!(one.unwrap_err().0.contains("at least two squares"));
    assert!(game.play(SOUTH, &Action::OfferDraw, 0).is_err());
    assert!(game.history().is_empty());
    assert_eq!(game.turn(), Some(SOUTH));
}

#[test]
fn a_die_rolls_exactly_its_pips_with_at_most_one_turn() {
    let game = Duell::new();
    // d1 shows 6: three north, then three east.
    let corner = game.clone().play(SOUTH, &mv(&[(4, 1), (4, 4), (7, 4)]), 0);
    let corner = corner.unwrap();
    assert_eq!(corner.moved.as_ref().unwrap().notation, "d1-d4-g4");
    // Every square listed, and the ends alone (the other corner, g1, is
    // blocked), are the same move.
    let every: Vec<(u8, u8)> = (1..=4)
        .map(|y| (4, y))
        .chain((5..=7).map(|x| (x, 4)))
        .collect();
    assert_eq!(game.clone().play(SOUTH, &mv(&every), 0).unwrap(), corner);
    let ends = game.clone().play(SOUTH, &mv(&[(4, 1), (7, 4)]), 0).unwrap();
    assert_eq!(ends, corner);

    let refuse = |points: &[(u8, u8)]| game.clone().play(SOUTH, &mv(points), 0).unwrap_err().0;
    assert!(refuse(&[(4, 1), (4, 3), (5, 3), (5, 6)]).contains("turns at most once"));
    assert!(refuse(&[(4, 1), (4, 5), (4, 3)]).contains("never turns back"));
    assert!(refuse(&[(4, 1), (4, 6)]).contains("6 squares, not 5"));
    assert!(refuse(&[(4, 1), (4, 8)]).contains("6 squares, not 7"));
    assert!(refuse(&[(4, 1), (4, 1)]).contains("named twice"));
    assert!(refuse(&[(4, 1), (5, 2), (6, 3)]).contains("not along a row or a column"));
}

#[test]
fn a_corner_left_out_is_asked_for_when_both_paths_are_open() {
    let mut game = position(&[
        ((3, 3), die(SOUTH, 2)),
        ((9, 1), key(SOUTH)),
        ((9, 8), key(NORTH)),
    ]);
    let both = game.play(SOUTH, &mv(&[(3, 3), (4, 4)]), 0).unwrap_err();
    assert_eq!(both.0, "two paths lead there: name the corner (d3 or c4)");
    // The two paths leave the die differently turned.
    let east_first = game.clone().play(SOUTH, &mv(&[(3, 3), (4, 3), (4, 4)]), 0);
    let north_first = game.clone().play(SOUTH, &mv(&[(3, 3), (3, 4), (4, 4)]), 0);
    assert_ne!(
        east_first.unwrap().cells[1].piece,
        north_first.unwrap().cells[1].piece
    );
    game.play(SOUTH, &mv(&[(3, 3), (3, 4), (4, 4)]), 0).unwrap();
}

#[test]
fn nothing_rolls_through_a_piece_of_either_side() {
    let mut game = position(&[
        ((1, 1), die(SOUTH, 5)),
        ((1, 3), die(NORTH, 1)),
        ((2, 1), die(SOUTH, 1)),
        ((5, 1), key(SOUTH)),
        ((5, 8), key(NORTH)),
    ]);
    let enemy = game.play(SOUTH, &mv(&[(1, 1), (1, 6)]), 0).unwrap_err();
    assert!(enemy.0.starts_with("the path is blocked at a3"), "{enemy}");
    let own = game.play(SOUTH, &mv(&[(1, 1), (6, 1)]), 0).unwrap_err();
    assert!(own.0.starts_with("the path is blocked at b1"), "{own}");
    let onto_own = game.play(SOUTH, &mv(&[(2, 1), (1, 1)]), 0).unwrap_err();
    assert_eq!(onto_own.0, "your own piece stands on a1");
    let legal = legal_moves(game.board(), SOUTH);
    assert!(legal
        .iter()
        .all(|m| m.from != Point::new(1, 1) || m.to.x > 1));
}

#[test]
fn landing_on_an_enemy_piece_captures_it() {
    let mut game = position(&[
        ((1, 1), die(SOUTH, 2)),
        ((1, 3), die(NORTH, 6)),
        ((5, 1), key(SOUTH)),
        ((5, 8), key(NORTH)),
    ]);
    let update = game.play(SOUTH, &mv(&[(1, 1), (1, 3)]), 0).unwrap();
    assert_eq!(update.moved.unwrap().notation, "a1xa3");
    assert_eq!(game.board().at(Point::new(1, 3)).unwrap().team, SOUTH);
    assert_eq!(game.board().pieces(NORTH).count(), 1);
    assert!(game.outcome().is_none());
}

#[test]
fn capturing_the_enemy_key_wins() {
    let mut game = position(&[
        ((1, 1), die(SOUTH, 2)),
        ((1, 3), key(NORTH)),
        ((5, 1), key(SOUTH)),
    ]);
    game.play(SOUTH, &mv(&[(1, 1), (1, 3)]), 0).unwrap();
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Win {
            team: SOUTH,
            why: "captured the north key on a3".into()
        })
    );
    assert_eq!(game.turn(), None);
    assert!(game.legal_actions(NORTH).is_empty());
    let late = game.play(NORTH, &mv(&[(5, 8), (5, 7)]), 0);
    assert_eq!(late.unwrap_err().0, "the game is over");
}

#[test]
fn the_key_moves_one_square_and_wins_on_the_enemy_key_square() {
    let mut game = position(&[
        ((5, 7), key(SOUTH)),
        ((1, 8), key(NORTH)),
        ((9, 1), die(NORTH, 1)),
    ]);
    let far = game.play(SOUTH, &mv(&[(5, 7), (5, 5)]), 0).unwrap_err();
    assert_eq!(far.0, "the key moves one square, not 2");
    let diagonal = game.play(SOUTH, &mv(&[(5, 7), (6, 8)]), 0).unwrap_err();
    assert_eq!(diagonal.0, "the key moves one square, not 2");
    assert_eq!(game.legal_actions(SOUTH).len(), 4);
    game.play(SOUTH, &mv(&[(5, 7), (5, 8)]), 0).unwrap();
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Win {
            team: SOUTH,
            why: "the south key reached e8".into()
        })
    );
}

#[test]
fn a_die_on_the_enemy_key_square_wins_nothing() {
    let mut game = position(&[
        ((5, 6), die(SOUTH, 2)),
        ((5, 1), key(SOUTH)),
        ((1, 8), key(NORTH)),
    ]);
    game.play(SOUTH, &mv(&[(5, 6), (5, 8)]), 0).unwrap();
    assert!(game.outcome().is_none());
}

#[test]
fn a_hundred_plies_without_a_capture_draw() {
    let mut game = position(&[((1, 3), key(SOUTH)), ((9, 6), key(NORTH))]);
    for ply in 0..QUIET_PLIES {
        assert!(game.outcome().is_none(), "ply {ply}");
        let team = game.turn().unwrap();
        let (x, y) = if team == SOUTH { (1, 3) } else { (9, 6) };
        let there = if ply % 4 < 2 { (x, y) } else { (x, y + 1) };
        let back = if ply % 4 < 2 { (x, y + 1) } else { (x, y) };
        game.play(team, &mv(&[there, back]), 0).unwrap();
    }
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Draw {
            why: "50 moves each without a capture".into()
        })
    );
}

#[test]
fn a_side_left_without_a_move_loses() {
    // North's key in the corner behind its own dice, both hemmed in by
    // south's pieces once south's 1 steps up to i6.
    let mut game = position(&[
        ((9, 8), key(NORTH)),
        ((8, 8), die(NORTH, 5)),
        ((9, 7), die(NORTH, 6)),
        ((7, 8), die(SOUTH, 2)),
        ((8, 7), die(SOUTH, 2)),
        ((9, 5), die(SOUTH, 1)),
        ((1, 1), key(SOUTH)),
    ]);
    game.play(SOUTH, &mv(&[(9, 5), (9, 6)]), 0).unwrap();
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Win {
            team: SOUTH,
            why: "north has no legal move".into()
        })
    );
}

#[test]
fn the_own_notation_reads_back() {
    let game = Duell::new();
    assert_eq!(
        game.parse_action("d1-d4-g4").unwrap(),
        mv(&[(4, 1), (4, 4), (7, 4)])
    );
    assert_eq!(game.parse_action("a1xa6").unwrap(), mv(&[(1, 1), (1, 6)]));
    assert!(game.parse_action("a1").is_err());
}

#[test]
fn every_move_offered_is_accepted_and_random_games_end() {
    for seed in 1..=10 {
        let mut game = Duell::new();
        let mut random = RandomBot::new(seed);
        let mut plies = 0;
        while let Some(team) = game.turn() {
            let legal = game.legal_actions(team);
            assert!(!legal.is_empty());
            for action in &legal {
                game.clone().play(team, action, 0).unwrap();
            }
            let action = random.choose(&game, team, Duration::ZERO).unwrap();
            let notation = game.play(team, &action, 0).unwrap().moved.unwrap().notation;
            // The notation names the same move.
            assert_eq!(game.parse_action(&notation).unwrap(), action);
            plies += 1;
        }
        assert!(game.outcome().is_some());
        assert_eq!(game.history().len(), plies);
        assert_eq!(game.view(Viewer::Spectator).len(), 72);
    }
}
