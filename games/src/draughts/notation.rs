//! PDN move notation: `11-15` for a simple move, `15x24` for a capture and
//! `15x24x31` for a multi-jump with every landing square.
//!
//! Reading is liberal, as PDN 3.0 recommends: either separator may be used,
//! and a capture may be shortened to its start and end squares (`15x31`)
//! when only one legal route joins them.

use std::fmt;

use super::board::{Position, Square};
use super::moves::Move;

/// Why a move or a position could not be read, in words for the player.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let separator = if self.is_capture() { 'x' } else { '-' };
        write!(f, "{}", self.from())?;
        for s in self.landings() {
            write!(f, "{separator}{s}")?;
        }
        Ok(())
    }
}

/// The squares of a move's text, in order (`15x24x31` gives 15, 24, 31).
pub fn parse_squares(text: &str) -> Result<Vec<Square>, ParseError> {
    let text = text.trim();
    let bad = |why: &str| {
        ParseError(format!(
            "{text:?} is not a move ({why}); write 11-15 or 15x24x31"
        ))
    };
    if text.is_empty() {
        return Err(bad("it is empty"));
    }
    let squares = text
        .split(['-', 'x', 'X'])
        .map(|part| {
            let number: u32 = part
                .parse()
                .map_err(|_| bad(&format!("{part:?} is not a square number")))?;
            Square::new(number).ok_or_else(|| bad(&format!("there is no square {number}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if squares.len() < 2 {
        return Err(bad("it names one square"));
    }
    Ok(squares)
}

impl Position {
    /// The legal move whose route is exactly `path` (start square, then
    /// every landing square), or the one capture from `path[0]` to `path[1]`
    /// when `path` has two squares and names no route of its own.
    pub fn find_move(&self, path: &[Square]) -> Result<Move, ParseError> {
        let moves = self.legal_moves();
        if let Some(m) = moves.iter().find(|m| m.path().eq(path.iter().copied())) {
            return Ok(*m);
        }
        let named = path
            .iter()
            .map(Square::to_string)
            .collect::<Vec<_>>()
            .join("-");
        if let &[from, to] = path {
            let routes: Vec<&Move> = moves
                .iter()
                .filter(|m| m.from() == from && m.to() == to && m.is_capture())
                .collect();
            match routes.as_slice() {
                [one] => return Ok(**one),
                [] => {}
                several => {
                    let list: Vec<String> = several.iter().map(|m| m.to_string()).collect();
                    return Err(ParseError(format!(
                        "{from}x{to} is ambiguous: name every landing square ({})",
                        list.join(" or ")
                    )));
                }
            }
        }
        Err(ParseError(self.why_illegal(path, &named, &moves)))
    }

    /// Why `path` is no legal move, as precisely as can be said.
    fn why_illegal(&self, path: &[Square], named: &str, moves: &[Move]) -> String {
        let from = path[0];
        match self.at(from) {
            None => return format!("{named}: there is no piece on {from}"),
            Some(stone) if stone.color != self.to_move() => {
                return format!("{named}: the piece on {from} is not yours")
            }
            Some(_) => {}
        }
        if moves.iter().all(|m| m.from() != from) {
            return if moves.first().is_some_and(Move::is_capture) {
                format!("{named}: you must capture, and the piece on {from} cannot")
            } else {
                format!("{named}: the piece on {from} cannot move")
            };
        }
        let prefix = moves
            .iter()
            .any(|m| m.path().take(path.len()).eq(path.iter().copied()));
        if prefix {
            format!("{named}: the capture must go on")
        } else if moves.first().is_some_and(Move::is_capture) {
            format!("{named} is not a legal capture: you must capture")
        } else {
            format!("{named} is not a legal move")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squares(numbers: &[u32]) -> Vec<Square> {
        numbers.iter().map(|&n| Square::new(n).unwrap()).collect()
    }

    #[test]
    fn moves_are_written_with_every_landing_square() {
        let p = Position::start();
        let texts: Vec<String> = p.legal_moves().iter().map(Move::to_string).collect();
        assert_eq!(
            texts,
            ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
        );
        for m in p.legal_moves() {
            let read = parse_squares(&m.to_string()).unwrap();
            assert_eq!(p.find_move(&read), Ok(m));
        }
    }

    #[test]
    fn reading_accepts_either_separator_and_refuses_nonsense() {
        assert_eq!(parse_squares(" 15x24X31 ").unwrap(), squares(&[15, 24, 31]));
        assert_eq!(parse_squares("11-15").unwrap(), squares(&[11, 15]));
        for bad in [
            "", "11", "11-", "0-4", "11-33", "a-b", "11--15", "11 15", "-11-15",
        ] {
            assert!(parse_squares(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn illegal_moves_say_why() {
        let p = Position::start();
        let why = |n: &[u32]| p.find_move(&squares(n)).unwrap_err().0;
        assert_eq!(why(&[13, 17]), "13-17: there is no piece on 13");
        assert_eq!(why(&[21, 17]), "21-17: the piece on 21 is not yours");
        assert_eq!(why(&[1, 5]), "1-5: the piece on 1 cannot move");
        assert_eq!(why(&[11, 14]), "11-14 is not a legal move");
    }
}
