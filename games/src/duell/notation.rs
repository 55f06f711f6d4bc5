//! Duell's own notation: squares `a1` to `i8` (file letter from column 1,
//! rank from row 1, so `a1` is the text protocol's (1, 1)), a move as its
//! start, corner if any and end joined by `-`, with `x` before the end
//! square of a capture: `a1-a6`, `d1-d3-f3`, `e7xe6` (`Move::notation` writes one).

use crate::game::{Illegal, Labels, Point};

/// The squares' names: `a1` is (1, 1), `i8` the far corner.
pub const LABELS: Labels = Labels {
    columns: &["a", "b", "c", "d", "e", "f", "g", "h", "i"],
    rows: &["1", "2", "3", "4", "5", "6", "7", "8"],
};

/// `a1` for (1, 1).
pub fn square_name(p: Point) -> String {
    LABELS.name(p).unwrap_or_else(|| format!("({p})"))
}

/// The squares of a written move (`-` and `x` both separate squares; any
/// number of squares, as a `MOVE` may give).
pub fn read_squares(text: &str) -> Result<Vec<Point>, Illegal> {
    let text = text.trim();
    let bad = || {
        Illegal::new(format!(
            "{text:?} is not a move: squares a1 to i8 joined by - or x, like a1-a6 or d1-d3-f3"
        ))
    };
    let squares = text
        .split(['-', 'x', 'X'])
        .map(|s| LABELS.read(s).ok_or_else(bad))
        .collect::<Result<Vec<Point>, Illegal>>()?;
    if squares.len() < 2 {
        return Err(bad());
    }
    Ok(squares)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duell::board::Board;

    #[test]
    fn squares_read_back_as_written() {
        for p in Board::points() {
            let name = square_name(p);
            let text = format!("{name}-{name}");
            assert_eq!(read_squares(&text).unwrap(), vec![p, p]);
        }
        assert_eq!(square_name(Point::new(1, 1)), "a1");
        assert_eq!(square_name(Point::new(9, 8)), "i8");
        assert_eq!(
            read_squares(" D1-d3xF3 ").unwrap(),
            vec![Point::new(4, 1), Point::new(4, 3), Point::new(6, 3)]
        );
    }

    #[test]
    fn bad_moves_are_refused() {
        for bad in [
            "", "a1", "a1-", "-a1", "a1-j1", "a1-a9", "a0-a1", "a1a2", "a1--a2", "é1-a1", "a1-b",
        ] {
            assert!(read_squares(bad).is_err(), "{bad}");
        }
    }
}
