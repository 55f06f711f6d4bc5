//! Square numbers, for games whose notation numbers the squares instead of
//! naming columns and rows: English draughts writes `11-15` with the dark
//! squares numbered 1 to 32, while the board's edges show only x and y.
//!
//! The text protocol does not send a numbering (such a game just sends no
//! `GAME COLUMNS` and `GAME ROWS`, spec/TEXT-PROTOCOL.md §2), and a game
//! module has no general way to say it has one; so the client, which links
//! the game modules, asks the one module that numbers its squares. The
//! numbering itself stays written once, in that module.

use reversi_client::text::Board;
use reversi_games::{draughts, registry, Point};

/// How a game numbers its squares.
#[derive(Clone, Copy, Debug)]
pub struct Numbering(fn(Point) -> Option<u8>);

impl Numbering {
    /// The numbering of the game whose `GAME TYPE` word is `game`, if its
    /// notation numbers squares.
    pub fn of(game: &str) -> Option<Numbering> {
        let module = registry::find(game)?;
        std::ptr::eq(module.info, &draughts::INFO).then_some(Numbering(draughts_number))
    }

    /// The number of the square at (x, y); `None` for a square without one
    /// (draughts' light squares).
    pub fn number(self, x: u8, y: u8) -> Option<u8> {
        (self.0)(Point::new(x, y))
    }

    /// Every row's numbers, from the top as the board is drawn: "row 8: 1-4
    /// at x = 2 4 6 8; row 7: 5-8 at x = 1 3 5 7; ...".
    pub fn describe(self, board: &Board) -> String {
        let rows: Vec<String> = (1..=board.height())
            .rev()
            .filter_map(|y| {
                let numbered: Vec<(u8, u8)> = (1..=board.width())
                    .filter_map(|x| Some((x, self.number(x, y)?)))
                    .collect();
                let (first, last) = (numbered.first()?, numbered.last()?);
                let xs: Vec<String> = numbered.iter().map(|(x, _)| x.to_string()).collect();
                Some(format!(
                    "row {}: {}-{} at x = {}",
                    board.row_name(y),
                    first.1,
                    last.1,
                    xs.join(" ")
                ))
            })
            .collect();
        format!(
            "This game's notation numbers the squares (as in 11-15), left to right: {}.",
            rows.join("; ")
        )
    }
}

fn draughts_number(p: Point) -> Option<u8> {
    draughts::square(p).ok().map(draughts::Square::number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draughts_numbers_its_dark_squares_as_its_module_does() {
        let numbering = Numbering::of("Draughts").expect("draughts numbers its squares");
        // spec/games/draughts.md: square 1 is (2, 8), 4 is (8, 8), 29 is (1, 1).
        assert_eq!(numbering.number(2, 8), Some(1));
        assert_eq!(numbering.number(8, 8), Some(4));
        assert_eq!(numbering.number(1, 1), Some(29));
        assert_eq!(numbering.number(1, 8), None, "a light square");
        let board = Board::new("DraughtsBoard", 8, 8).unwrap();
        let text = numbering.describe(&board);
        assert!(
            text.contains("row 8: 1-4 at x = 2 4 6 8; row 7: 5-8 at x = 1 3 5 7"),
            "{text}"
        );
        assert!(text.ends_with("row 1: 29-32 at x = 1 3 5 7."), "{text}");
    }

    #[test]
    fn games_that_name_squares_have_no_numbering() {
        for game in ["Reversi", "TicTacToe", "no such game"] {
            assert!(Numbering::of(game).is_none(), "{game}");
        }
    }
}
