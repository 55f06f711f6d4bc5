//! The board as the text protocol draws it: seed 000's points, square
//! kinds and piece names.
//!
//! The board is drawn as in a standard diagram seen by White: (1, 1) is
//! White's single corner, square 29; x runs along White's back row
//! (29 is (1, 1), 32 is (7, 1)) and y away from White, so square 1 is
//! (2, 8) and square 4 is (8, 8). Turning the board round for Black is the
//! client's business: the server sends each player its colour.

use crate::game::{Cell, Piece, Point, Team};

use super::board::{Color, Kind, Position, Square};

/// The square kind of the 32 playable squares.
pub const DARK: &str = "dark";
/// The square kind of the 32 squares no piece ever stands on.
pub const LIGHT: &str = "light";

/// The team that plays `color`: Black is the first team.
pub fn team(color: Color) -> Team {
    match color {
        Color::Black => Team::FIRST,
        Color::White => Team::SECOND,
    }
}

/// The colour `team` plays, if it is one of the two.
pub fn color(team: Team) -> Option<Color> {
    match team {
        Team::FIRST => Some(Color::Black),
        Team::SECOND => Some(Color::White),
        _ => None,
    }
}

/// The text protocol's point of a square.
pub fn point(square: Square) -> Point {
    Point::new(square.column() + 1, 8 - square.row())
}

/// Why a point names no playable square.
pub fn square(p: Point) -> Result<Square, String> {
    let on_board = (1..=8).contains(&p.x) && (1..=8).contains(&p.y);
    if !on_board {
        return Err(format!("({p}) is not on the board (1 to 8 each way)"));
    }
    Square::at(8 - p.y, p.x - 1)
        .ok_or_else(|| format!("({p}) is a light square; pieces stand on the dark ones"))
}

/// The piece name the text protocol draws (`man` or `king`; the team says the colour).
pub fn piece_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Man => "man",
        Kind::King => "king",
    }
}

/// A playable square and what stands on it.
pub fn cell(position: &Position, square: Square) -> Cell {
    Cell {
        at: point(square),
        square: DARK,
        piece: position.at(square).map(|stone| Piece {
            name: piece_name(stone.kind).to_owned(),
            team: team(stone.color),
        }),
    }
}

/// Every cell of the board, row by row from the top, light squares included.
pub fn board(position: &Position) -> Vec<Cell> {
    (1..=8u8)
        .rev()
        .flat_map(|y| (1..=8u8).map(move |x| Point::new(x, y)))
        .map(|p| match square(p) {
            Ok(s) => cell(position, s),
            Err(_) => Cell {
                at: p,
                square: LIGHT,
                piece: None,
            },
        })
        .collect()
}

/// The cells that differ between two positions: squares emptied first, then
/// squares that gained or changed a piece, so a client drawing them in order
/// never shows a piece twice.
pub fn changes(before: &Position, after: &Position) -> Vec<Cell> {
    let changed: Vec<Square> = Square::all()
        .filter(|&s| before.at(s) != after.at(s))
        .collect();
    let emptied = changed.iter().filter(|&&s| after.at(s).is_none());
    let filled = changed.iter().filter(|&&s| after.at(s).is_some());
    emptied.chain(filled).map(|&s| cell(after, s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_put_white_at_the_bottom() {
        let sq = |n| Square::new(n).unwrap();
        assert_eq!(point(sq(29)), Point::new(1, 1));
        assert_eq!(point(sq(32)), Point::new(7, 1));
        assert_eq!(point(sq(1)), Point::new(2, 8));
        assert_eq!(point(sq(4)), Point::new(8, 8));
        for s in Square::all() {
            assert_eq!(square(point(s)), Ok(s));
            let p = point(s);
            assert_eq!((p.x + p.y) % 2, 0, "dark squares have x + y even");
        }
        assert!(square(Point::new(2, 1))
            .unwrap_err()
            .contains("light square"));
        for off in [
            Point::new(0, 1),
            Point::new(9, 1),
            Point::new(1, 0),
            Point::new(1, 9),
        ] {
            assert!(square(off).unwrap_err().contains("not on the board"));
        }
    }

    #[test]
    fn the_whole_board_has_64_cells_and_24_pieces() {
        let cells = board(&Position::start());
        assert_eq!(cells.len(), 64);
        assert_eq!(cells.iter().filter(|c| c.square == DARK).count(), 32);
        assert_eq!(cells.iter().filter(|c| c.piece.is_some()).count(), 24);
        let black = cells
            .iter()
            .filter(|c| c.piece.as_ref().is_some_and(|p| p.team == Team::FIRST));
        assert!(black.clone().all(|c| c.at.y >= 6));
        assert_eq!(black.count(), 12);
    }
}
