//! Text formats: transcripts (`"f5d6c3"`) and 64-character board strings
//! followed by the side to move (the FFO test-file format).

use std::fmt;

use crate::{Game, IllegalMove};
use crate::{Side, Square};

/// Why a transcript or board string did not parse.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ParseError {
    /// The board part is not 64 squares long.
    BoardLength(usize),
    /// A board character is not `X`, `O` or `-`.
    BoardChar {
        /// 0-based position in the board part.
        index: usize,
        /// The character found.
        found: char,
    },
    /// The side to move is missing or is not `X`/`O`.
    Side(String),
    /// Text after the side to move.
    Trailing(String),
    /// An OBF move annotation is not a square, a colon and a score.
    ScoredMove(String),
    /// A transcript move is not a square name.
    MoveName {
        /// 0-based move number.
        ply: usize,
        /// The text found.
        found: String,
    },
    /// A transcript move is not legal in its position.
    IllegalMove {
        /// 0-based move number.
        ply: usize,
        /// Why it is illegal.
        why: IllegalMove,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::BoardLength(n) => {
                write!(f, "board has {n} squares, expected 64")
            }
            ParseError::BoardChar { index, found } => write!(
                f,
                "board square {index} is {found:?}, expected 'X', 'O' or '-'"
            ),
            ParseError::Side(s) => {
                write!(f, "side to move is {s:?}, expected \"X\" or \"O\"")
            }
            ParseError::Trailing(s) => write!(f, "unexpected text after the side to move: {s:?}"),
            ParseError::ScoredMove(s) => {
                write!(f, "{s:?} is not a move and its score, like \"A2:+38\"")
            }
            ParseError::MoveName { ply, found } => {
                write!(f, "move {} is {found:?}, not a square name", ply + 1)
            }
            ParseError::IllegalMove { ply, why } => {
                write!(f, "move {} is illegal: {why}", ply + 1)
            }
        }
    }
}

impl std::error::Error for ParseError {}

impl Game {
    /// A game from a board string: 64 characters (`X` or `*` black, `O`
    /// white, `-` or `.` empty; a1..h1 first, then a2..h2, ...), whitespace,
    /// then the side to move (`X` or `O`), optionally followed by a `;`
    /// comment. Letters are case-insensitive. If the side to move has no
    /// legal move it passes; the history starts empty.
    pub fn from_position(s: &str) -> Result<Game, ParseError> {
        let s = s.trim();
        let board_len = s
            .char_indices()
            .find(|(_, c)| c.is_whitespace())
            .map_or(s.len(), |(i, _)| i);
        let (board, rest) = s.split_at(board_len);
        let n = board.chars().count();
        if n != 64 {
            return Err(ParseError::BoardLength(n));
        }
        let (mut black, mut white) = (0u64, 0u64);
        for (index, c) in board.chars().enumerate() {
            match c.to_ascii_uppercase() {
                'X' | '*' => black |= 1 << index,
                'O' | '0' => white |= 1 << index,
                '-' | '.' => {}
                found => return Err(ParseError::BoardChar { index, found }),
            }
        }
        let rest = rest.trim_start();
        let side_len = rest.chars().next().map_or(0, char::len_utf8);
        let (side, tail) = rest.split_at(side_len);
        let side = match side {
            "X" | "x" | "*" => Side::Black,
            "O" | "o" | "0" => Side::White,
            other => return Err(ParseError::Side(other.to_owned())),
        };
        let tail = tail.trim();
        if !(tail.is_empty() || tail.starts_with(';')) {
            return Err(ParseError::Trailing(tail.to_owned()));
        }
        Ok(Game::from_discs(black, white, side))
    }

    /// A game from the start position after the moves of a transcript such as
    /// `"f5d6c3d3c4"` (case-insensitive; whitespace between moves is
    /// ignored; passes are implicit).
    pub fn from_transcript(s: &str) -> Result<Game, ParseError> {
        let mut game = Game::new();
        let chars: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
        for (ply, pair) in chars.chunks(2).enumerate() {
            let name: String = pair.iter().collect();
            let sq: Square = name
                .parse()
                .map_err(|_| ParseError::MoveName { ply, found: name })?;
            game.play(sq)
                .map_err(|why| ParseError::IllegalMove { ply, why })?;
        }
        Ok(game)
    }

    /// The board string of this position: 64 characters, a space, and `X` or
    /// `O` for the side to move (once over, the side that would have moved).
    pub fn position(&self) -> String {
        let mut s: String = Square::all()
            .map(|sq| match self.disc(sq) {
                Some(Side::Black) => 'X',
                Some(Side::White) => 'O',
                None => '-',
            })
            .collect();
        s.push(' ');
        s.push(match self.to_move.unwrap_or(self.last_turn) {
            Side::Black => 'X',
            Side::White => 'O',
        });
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Side;

    #[test]
    fn start_position_round_trips() {
        let start = Game::new().position();
        assert_eq!(Game::from_position(&start).unwrap(), Game::new());
        assert!(start.ends_with(" X"), "{start}");
        let d4 = Square::new(3, 3).unwrap();
        assert_eq!(start.as_bytes()[d4.index() as usize], b'O', "{start}");
    }

    #[test]
    fn transcript_round_trips() {
        let g = Game::from_transcript("f5D6c3d3C4 f4").unwrap();
        assert_eq!(g.transcript(), "f5d6c3d3c4f4");
        assert_eq!(g.moves().len(), 6);
        assert_eq!(g.side_to_move(), Some(Side::Black));
        assert_eq!(Game::from_transcript("").unwrap(), Game::new());
    }

    #[test]
    fn bad_input_is_reported() {
        let start = Game::new().position();
        let e = |s: &str| Game::from_position(s).unwrap_err().to_string();
        assert!(e("").contains("0 squares"));
        assert!(e(&start.replace('X', "Q")).contains("'Q'"));
        assert!(e(&start[..64]).contains("side to move"));
        assert!(e(&format!("{} Z", &start[..64])).contains("\"Z\""));
        assert!(e(&format!("{} X junk", &start[..64])).contains("junk"));
        assert!(Game::from_position(&format!("{} x ; comment", &start[..64])).is_ok());
        let t = |s: &str| Game::from_transcript(s).unwrap_err().to_string();
        assert_eq!(t("f5e3"), "move 2 is illegal: e3 flips nothing");
        assert!(t("f5z9").contains("not a square"));
        assert!(t("f5d").contains("move 2"));
        assert_eq!(t("f5f5"), "move 2 is illegal: f5 is occupied");
        assert!(t("éé").contains("move 1"));
    }

    #[test]
    fn side_without_moves_passes() {
        // Only black discs: nobody can move.
        let s = format!("XX{} O", "-".repeat(62));
        let g = Game::from_position(&s).unwrap();
        assert_eq!(g.side_to_move(), None);
        // White cannot move, black can (c1): white passes at once.
        let s = format!("XO-{} O", "-".repeat(61));
        let g = Game::from_position(&s).unwrap();
        assert_eq!(g.side_to_move(), Some(Side::Black));
    }
}
