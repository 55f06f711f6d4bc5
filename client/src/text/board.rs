//! The board as the server draws it: `GAME BOARD` gives its size, each
//! `DRAW SQUARE` replaces a square (and clears what stood on it), and a
//! `DRAW PIECE` puts a piece on the square drawn last (seed 000). Nothing
//! here knows any game: squares and pieces are names.

/// A piece as `DRAW PIECE <name> <team>` describes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// The piece's one-word name (`x`, `black`, `die536`).
    pub name: String,
    /// Its team, from 1.
    pub team: u8,
}

/// One drawn square.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The square's kind (`empty`, `green`, `water`).
    pub square: String,
    pub piece: Option<Piece>,
}

/// A board of `width` × `height` squares; (1, 1) is the lower left corner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    name: String,
    width: u8,
    height: u8,
    /// Row by row from y = 1; `None` until the server draws the square.
    cells: Vec<Option<Cell>>,
    /// The square drawn last: where the next `DRAW PIECE` goes.
    pen: Option<(u8, u8)>,
    /// The columns' and rows' names (`GAME COLUMNS`, `GAME ROWS`), x or y =
    /// 1 first; empty where the server gave none (then they are numbers).
    columns: Vec<String>,
    rows: Vec<String>,
}

impl Board {
    /// An undrawn board, as `GAME BOARD <name> <width> <height>` announces it.
    pub fn new(name: &str, width: u8, height: u8) -> Result<Board, String> {
        if width == 0 || height == 0 {
            return Err(format!("a board of {width}x{height} squares has none"));
        }
        Ok(Board {
            name: name.to_owned(),
            width,
            height,
            cells: vec![None; usize::from(width) * usize::from(height)],
            pen: None,
            columns: Vec::new(),
            rows: Vec::new(),
        })
    }

    /// `GAME COLUMNS`: one name a column.
    pub fn name_columns(&mut self, names: Vec<String>) -> Result<(), String> {
        self.columns = names_for(names, self.width, "GAME COLUMNS", "columns")?;
        Ok(())
    }

    /// `GAME ROWS`: one name a row.
    pub fn name_rows(&mut self, names: Vec<String>) -> Result<(), String> {
        self.rows = names_for(names, self.height, "GAME ROWS", "rows")?;
        Ok(())
    }

    /// Column `x`'s name: the server's, else its number.
    pub fn column_name(&self, x: u8) -> String {
        label(&self.columns, x)
    }

    /// Row `y`'s name: the server's, else its number.
    pub fn row_name(&self, y: u8) -> String {
        label(&self.rows, y)
    }

    /// Square (x, y) as people read it: `d3` where the server named columns
    /// and rows, else its coordinates, `4 6`.
    pub fn square_name(&self, x: u8, y: u8) -> String {
        if self.columns.is_empty() || self.rows.is_empty() {
            format!("{x} {y}")
        } else {
            format!("{}{}", self.column_name(x), self.row_name(y))
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn width(&self) -> u8 {
        self.width
    }

    pub fn height(&self) -> u8 {
        self.height
    }

    fn index(&self, x: u8, y: u8) -> Option<usize> {
        let on_board = (1..=self.width).contains(&x) && (1..=self.height).contains(&y);
        on_board.then(|| usize::from(y - 1) * usize::from(self.width) + usize::from(x - 1))
    }

    /// The square at (x, y): `None` if it is off the board or not drawn yet.
    pub fn cell(&self, x: u8, y: u8) -> Option<&Cell> {
        self.cells[self.index(x, y)?].as_ref()
    }

    /// Whether every square has been drawn.
    pub fn is_complete(&self) -> bool {
        self.cells.iter().all(Option::is_some)
    }

    /// `DRAW SQUARE <kind> <x> <y>`: the square, with no piece on it.
    pub fn draw_square(&mut self, kind: &str, x: u8, y: u8) -> Result<(), String> {
        let i = self.index(x, y).ok_or_else(|| {
            format!(
                "DRAW SQUARE at ({x}, {y}) is off the {}x{} board",
                self.width, self.height
            )
        })?;
        self.cells[i] = Some(Cell {
            square: kind.to_owned(),
            piece: None,
        });
        self.pen = Some((x, y));
        Ok(())
    }

    /// `DRAW PIECE <name> <team>`: on the square drawn last.
    pub fn draw_piece(&mut self, name: &str, team: u8) -> Result<(), String> {
        let (x, y) = self
            .pen
            .ok_or("DRAW PIECE before any DRAW SQUARE: on which square?")?;
        if team == 0 {
            return Err(format!("DRAW PIECE {name} 0: teams count from 1"));
        }
        let i = self.index(x, y).expect("the pen is on the board");
        if let Some(cell) = &mut self.cells[i] {
            cell.piece = Some(Piece {
                name: name.to_owned(),
                team,
            });
        }
        Ok(())
    }

    /// Every drawn piece with its square.
    pub fn pieces(&self) -> impl Iterator<Item = ((u8, u8), &Piece)> + '_ {
        self.cells.iter().enumerate().filter_map(move |(i, cell)| {
            let piece = cell.as_ref()?.piece.as_ref()?;
            let w = usize::from(self.width);
            Some((((i % w) as u8 + 1, (i / w) as u8 + 1), piece))
        })
    }
}

/// `names` if there is one for each of `count` columns or rows.
fn names_for(
    names: Vec<String>,
    count: u8,
    message: &str,
    what: &str,
) -> Result<Vec<String>, String> {
    if names.len() != usize::from(count) {
        return Err(format!(
            "{message} gave {} names for {count} {what}",
            names.len()
        ));
    }
    Ok(names)
}

/// Name `i` (from 1) of `names`, or `i` itself.
fn label(names: &[String], i: u8) -> String {
    usize::from(i)
        .checked_sub(1)
        .and_then(|index| names.get(index))
        .cloned()
        .unwrap_or_else(|| i.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_then_pieces_on_the_last_square() {
        let mut b = Board::new("TicTacToeBoard", 3, 3).unwrap();
        assert!(!b.is_complete());
        for y in 1..=3 {
            for x in 1..=3 {
                b.draw_square("empty", x, y).unwrap();
            }
        }
        assert!(b.is_complete());
        b.draw_square("empty", 2, 2).unwrap();
        b.draw_piece("x", 1).unwrap();
        assert_eq!(b.cell(2, 2).unwrap().piece.as_ref().unwrap().name, "x");
        assert_eq!(b.pieces().count(), 1);
        assert_eq!(b.pieces().next().unwrap().0, (2, 2));
        // Drawing the square again clears its piece.
        b.draw_square("empty", 2, 2).unwrap();
        assert_eq!(b.cell(2, 2).unwrap().piece, None);
    }

    #[test]
    fn bad_draws_say_what_is_wrong() {
        let mut b = Board::new("B", 2, 3).unwrap();
        assert!(b
            .draw_piece("x", 1)
            .unwrap_err()
            .contains("before any DRAW SQUARE"));
        assert!(b
            .draw_square("s", 3, 1)
            .unwrap_err()
            .contains("off the 2x3 board"));
        assert!(b.draw_square("s", 1, 0).is_err());
        b.draw_square("s", 2, 3).unwrap();
        assert!(b.draw_piece("x", 0).unwrap_err().contains("from 1"));
        assert_eq!(b.cell(2, 3).unwrap().square, "s");
        assert_eq!(b.cell(3, 3), None);
        assert!(Board::new("B", 0, 3).is_err());
    }
}
