//! The board as rows of glyphs, top row first (y = height at the top, as
//! seed 000 puts (1, 1) at the lower left), with the coordinates that
//! `MOVE n x y` uses along the edges. The full-screen view styles the
//! glyphs; the line mode prints them as plain text, marks in brackets.

use reversi_client::text::{Board, Piece};

use super::legend::Legend;
use super::numbering::Numbering;

/// What a square is marked with, strongest last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    None,
    /// Drawn since the last move was announced: what that move changed.
    Changed,
    /// Picked for the move being built.
    Picked,
    Cursor,
}

impl Mark {
    /// The brackets of plain text: `[X]` cursor, `<X>` picked, `(X)` changed.
    fn brackets(self) -> (char, char) {
        match self {
            Mark::None => (' ', ' '),
            Mark::Changed => ('(', ')'),
            Mark::Picked => ('<', '>'),
            Mark::Cursor => ('[', ']'),
        }
    }
}

/// The marks to show.
#[derive(Clone, Copy, Debug, Default)]
pub struct Marks<'a> {
    pub cursor: Option<(u8, u8)>,
    pub picked: &'a [(u8, u8)],
    pub changed: &'a [(u8, u8)],
    /// The game's square numbers (draughts' 1-32, in which its moves are
    /// written), shown on the empty numbered squares.
    pub numbers: Option<Numbering>,
}

impl Marks<'_> {
    fn at(&self, at: (u8, u8)) -> Mark {
        if self.cursor == Some(at) {
            Mark::Cursor
        } else if self.picked.contains(&at) {
            Mark::Picked
        } else if self.changed.contains(&at) {
            Mark::Changed
        } else {
            Mark::None
        }
    }
}

/// One square as shown.
#[derive(Clone, Debug)]
pub struct Glyph {
    /// The piece's label, or the square's fill, centred in `width - 2`.
    pub text: String,
    pub kind: String,
    pub piece: Option<Piece>,
    pub mark: Mark,
}

/// The widest label (or square number) in use, plus a mark on each side: at least 3.
pub fn cell_width(legend: &Legend, marks: &Marks<'_>) -> usize {
    let numbers = if marks.numbers.is_some() { 2 } else { 1 };
    let widest = legend
        .pieces()
        .iter()
        .map(|(label, _, _)| label.chars().count())
        .max()
        .unwrap_or(1);
    widest.max(numbers) + 2
}

/// The rows of glyphs, the top row (y = height) first.
pub fn glyphs(board: &Board, legend: &Legend, marks: &Marks<'_>) -> Vec<Vec<Glyph>> {
    let inner = cell_width(legend, marks) - 2;
    (1..=board.height())
        .rev()
        .map(|y| {
            (1..=board.width())
                .map(|x| {
                    let cell = board.cell(x, y);
                    let piece = cell.and_then(|c| c.piece.clone());
                    let kind = cell.map_or_else(String::new, |c| c.square.clone());
                    let text = match (&piece, cell) {
                        (Some(piece), _) => legend.label(piece),
                        (None, Some(c)) => match marks.numbers.and_then(|n| n.number(x, y)) {
                            Some(number) => number.to_string(),
                            None => legend.fill(&c.square).to_string(),
                        },
                        // Not drawn yet.
                        (None, None) => " ".to_owned(),
                    };
                    Glyph {
                        text: format!("{text:^inner$}"),
                        kind,
                        piece,
                        mark: marks.at((x, y)),
                    }
                })
                .collect()
        })
        .collect()
}

/// The column names (or numbers) under and over the board, each in a cell's width.
pub fn column_labels(board: &Board, cell: usize, margin: usize) -> String {
    let mut line = " ".repeat(margin);
    for x in 1..=board.width() {
        line.push_str(&format!("{:^cell$}", board.column_name(x)));
    }
    line.trim_end().to_owned()
}

/// The width of the margin that holds the row names (or numbers), and a space.
pub fn margin(board: &Board) -> usize {
    let widest = (1..=board.height())
        .map(|y| board.row_name(y).chars().count())
        .max();
    widest.unwrap_or(0) + 1
}

/// The whole board as plain text with coordinates, marks in brackets.
pub fn plain(board: &Board, legend: &Legend, marks: &Marks<'_>) -> String {
    let cell = cell_width(legend, marks);
    let margin = margin(board);
    let columns = column_labels(board, cell, margin);
    let mut out = format!("{columns}\n");
    for (row, y) in glyphs(board, legend, marks)
        .iter()
        .zip((1..=board.height()).rev())
    {
        let y = board.row_name(y);
        let mut line = format!("{y:>w$} ", w = margin - 1);
        for glyph in row {
            let (open, close) = glyph.mark.brackets();
            line.push(open);
            line.push_str(&glyph.text);
            line.push(close);
        }
        out.push_str(&format!("{line} {y}\n"));
    }
    out.push_str(&columns);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tictactoe_board_in_plain_text() {
        let mut board = Board::new("TicTacToeBoard", 3, 3).unwrap();
        for y in 1..=3 {
            for x in 1..=3 {
                board.draw_square("empty", x, y).unwrap();
            }
        }
        board.draw_square("empty", 2, 2).unwrap();
        board.draw_piece("x", 1).unwrap();
        board.draw_square("empty", 1, 3).unwrap();
        board.draw_piece("o", 2).unwrap();
        let mut legend = Legend::default();
        legend.learn(&board);
        let marks = Marks {
            cursor: Some((3, 1)),
            picked: &[],
            changed: &[(2, 2)],
            numbers: None,
        };
        let want = "   1  2  3
3  O  .  .  3
2  . (X) .  2
1  .  . [.] 1
   1  2  3";
        assert_eq!(plain(&board, &legend, &marks), want);
        // Named columns and rows, as the server names them.
        board
            .name_columns(vec!["a".into(), "b".into(), "c".into()])
            .unwrap();
        board
            .name_rows(vec!["1".into(), "2".into(), "10".into()])
            .unwrap();
        let want = "    a  b  c
10  O  .  .  10
 2  . (X) .  2
 1  .  . [.] 1
    a  b  c";
        assert_eq!(plain(&board, &legend, &marks), want);
    }

    /// Issue 23 item 5: draughts' moves are written in square numbers, so
    /// the board shows them on the empty dark squares.
    #[test]
    fn draughts_shows_its_square_numbers_on_the_empty_dark_squares() {
        let mut board = Board::new("DraughtsBoard", 8, 8).unwrap();
        for y in 1..=8 {
            for x in 1..=8 {
                let kind = if (x + y) % 2 == 0 { "dark" } else { "light" };
                board.draw_square(kind, x, y).unwrap();
            }
        }
        board.draw_square("dark", 2, 8).unwrap();
        board.draw_piece("man", 2).unwrap();
        let mut legend = Legend::default();
        legend.learn(&board);
        let marks = Marks {
            numbers: Numbering::of("Draughts"),
            ..Default::default()
        };
        let text = plain(&board, &legend, &marks);
        let top = text.lines().nth(1).unwrap();
        // The dark squares were drawn first: their fill would be '.', the light ones' blank.
        assert_eq!(top, "8      M       2       3       4   8", "{text}");
        let bottom = text.lines().nth(8).unwrap();
        assert_eq!(bottom, "1  29      30      31      32      1", "{text}");
    }
}
