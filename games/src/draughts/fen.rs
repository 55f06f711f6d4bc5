//! Positions as PDN FEN: `B:W21,22,...,32:B1,2,...,12`, the side to move,
//! then each colour's squares, `K` before a king.
//!
//! Written with White's list first, squares ascending, no ranges; read
//! liberally: the lists in either order, ranges (`B1-12`), spaces, and a
//! closing `.`.

use std::fmt;
use std::str::FromStr;

use super::board::{squares, Color, Kind, Position, Square, Stone};
use super::notation::ParseError;

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(letter(self.to_move()))?;
        for color in [Color::White, Color::Black] {
            write!(f, ":{}", letter(color))?;
            let list: Vec<String> = squares(self.pieces(color))
                .map(|s| match self.at(s).map(|stone| stone.kind) {
                    Some(Kind::King) => format!("K{s}"),
                    _ => s.to_string(),
                })
                .collect();
            f.write_str(&list.join(","))?;
        }
        Ok(())
    }
}

fn letter(color: Color) -> &'static str {
    match color {
        Color::Black => "B",
        Color::White => "W",
    }
}

fn color(letter: &str) -> Option<Color> {
    match letter {
        "B" | "b" => Some(Color::Black),
        "W" | "w" => Some(Color::White),
        _ => None,
    }
}

impl FromStr for Position {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Position, ParseError> {
        let bad = |why: String| ParseError(format!("{text:?} is not a FEN position: {why}"));
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let compact = compact.strip_suffix('.').unwrap_or(&compact);
        let mut parts = compact.split(':');
        let turn = parts.next().unwrap_or_default();
        let to_move = color(turn).ok_or_else(|| bad(format!("{turn:?} is not B or W")))?;
        let mut position = Position::empty(to_move);
        let mut seen = Vec::new();
        for part in parts {
            let (head, list) = part.split_at(part.len().min(1));
            let color =
                color(head).ok_or_else(|| bad(format!("{part:?} does not start with B or W")))?;
            if seen.contains(&color) {
                return Err(bad(format!("{} is listed twice", color.name())));
            }
            seen.push(color);
            for item in list.split(',').filter(|i| !i.is_empty()) {
                place(&mut position, color, item).map_err(bad)?;
            }
        }
        if seen.len() != 2 {
            return Err(bad("it needs a list for each colour".to_owned()));
        }
        Ok(position)
    }
}

/// Puts the pieces of one list item (`12`, `K7`, `1-12`) on the board.
fn place(position: &mut Position, color: Color, item: &str) -> Result<(), String> {
    let (kind, numbers) = match item.strip_prefix(['K', 'k']) {
        Some(rest) => (Kind::King, rest),
        None => (Kind::Man, item),
    };
    let number = |n: &str| -> Result<Square, String> {
        n.parse()
            .ok()
            .and_then(Square::new)
            .ok_or_else(|| format!("{n:?} is not a square (1 to 32)"))
    };
    let (first, last) = match numbers.split_once('-') {
        Some((a, b)) => (number(a)?, number(b)?),
        None => (number(numbers)?, number(numbers)?),
    };
    if first > last {
        return Err(format!("the range {numbers:?} runs backwards"));
    }
    for n in first.number()..=last.number() {
        let square = number(&n.to_string())?;
        if position.at(square).is_some() {
            return Err(format!("square {square} is listed twice"));
        }
        if kind == Kind::Man && square.bit() & color.crown_row() != 0 {
            return Err(format!(
                "a {} man cannot stand on {square}, its crown row",
                color.name()
            ));
        }
        position.put(square, Some(Stone { color, kind }));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";

    #[test]
    fn the_start_position_round_trips() {
        assert_eq!(Position::start().to_string(), START);
        assert_eq!(START.parse::<Position>(), Ok(Position::start()));
        assert_eq!("B:B1-12:W21-32.".parse(), Ok(Position::start()));
    }

    #[test]
    fn kings_and_white_to_move_round_trip() {
        let text = "W:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29";
        let p: Position = text.parse().unwrap();
        assert_eq!(p.to_move(), Color::White);
        let king = |n| p.at(Square::new(n).unwrap()).unwrap().kind == Kind::King;
        assert!(king(10) && king(29) && !king(12));
        // Written back in canonical order: squares ascending.
        assert_eq!(
            p.to_string(),
            "W:WK10,K15,18,24,27,28:B12,16,20,K22,K25,K29"
        );
        assert_eq!(p.to_string().parse(), Ok(p));
    }

    #[test]
    fn every_position_of_a_random_game_round_trips() {
        let mut p = Position::start();
        let mut rng = crate::RandomBot::new(9);
        for _ in 0..200 {
            assert_eq!(p.to_string().parse(), Ok(p), "{p}");
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            p = p.play(&moves[rng.below(moves.len())]);
        }
    }

    #[test]
    fn bad_positions_say_why() {
        for bad in [
            "",
            "X:W21:B2",
            "B:W21",
            "B:W21:W22",
            "B:W21:B21",
            "B:W21:B33",
            "B:W21:B0",
            "B:W21:Bx",
            "B:W21:B30",
            "B:W1:B2",
            "B:W21:B2:B3",
            "B:Q21:B2",
            "B:W21:B2-1x",
            "B:W21:B5-1",
        ] {
            let err = bad.parse::<Position>();
            assert!(err.is_err(), "{bad}");
            assert!(
                err.unwrap_err().0.contains("is not a FEN position"),
                "{bad}"
            );
        }
        assert!("B:WK1:B2".parse::<Position>().is_ok());
        assert!("B:W:B2".parse::<Position>().is_ok());
    }
}
