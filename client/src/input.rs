//! What the user types during `reversi play`: one command per line.

use std::fmt;

use reversi_engine::Square;

/// One parsed input line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// A move: `d3`, `D3` or `d 3`.
    Move(Square),
    /// `hint`: the engine's suggestion.
    Hint,
    /// `moves`: the legal moves.
    Moves,
    /// `board`: show the board again.
    Board,
    /// `quit`: leave the game.
    Quit,
    /// `help`: list the commands.
    Help,
}

/// Why a line is not a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputError {
    /// Looks like a move but names no square.
    BadSquare(String),
    /// Neither a square nor a command.
    Unknown(String),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::BadSquare(text) => write!(
                f,
                "{text:?} is not a square: a column a-h then a row 1-8, such as d3"
            ),
            InputError::Unknown(text) => {
                write!(f, "unknown command {text:?} (type help for the commands)")
            }
        }
    }
}

/// The text `help` prints.
pub const HELP: &str = "\
commands:
  d3      play a move (column a-h, row 1-8; D3 and d 3 work too)
  hint    the engine's suggestion
  moves   your legal moves
  board   show the board again
  quit    leave the game (you lose it)
  help    this list";

/// Parses one line; `Ok(None)` for a blank line, or one that held only
/// keys the terminal passed in as escape sequences (a function key).
pub fn parse(line: &str) -> Result<Option<Input>, InputError> {
    let line = crate::escapes::strip(line);
    let text = line.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let lower = text.to_ascii_lowercase();
    let command = match lower.as_str() {
        "hint" | "h" => Input::Hint,
        "moves" | "m" => Input::Moves,
        "board" | "b" => Input::Board,
        "quit" | "q" | "exit" => Input::Quit,
        "help" | "?" => Input::Help,
        _ => return parse_square(text).map(|sq| Some(Input::Move(sq))),
    };
    Ok(Some(command))
}

/// A square written as `d3`, `D3` or `d 3`.
fn parse_square(text: &str) -> Result<Square, InputError> {
    let squeezed: String = text.split_whitespace().collect();
    let mut chars = squeezed.chars();
    let looks_like_a_move = matches!(
        (chars.next(), chars.next(), chars.next()),
        (Some(c), Some(d), None) if c.is_ascii_alphabetic() && d.is_ascii_digit()
    );
    if !looks_like_a_move {
        return Err(InputError::Unknown(text.to_string()));
    }
    squeezed
        .parse()
        .map_err(|_| InputError::BadSquare(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(name: &str) -> Input {
        Input::Move(name.parse().unwrap())
    }

    #[test]
    fn moves_in_every_accepted_spelling() {
        for (line, want) in [
            ("d3", "d3"),
            ("D3", "d3"),
            ("d 3", "d3"),
            ("  h8 \n", "h8"),
            ("A1", "a1"),
            ("c\t4", "c4"),
        ] {
            assert_eq!(parse(line), Ok(Some(square(want))), "{line:?}");
        }
    }

    #[test]
    fn commands_and_blank_lines() {
        assert_eq!(parse("hint"), Ok(Some(Input::Hint)));
        assert_eq!(parse("MOVES"), Ok(Some(Input::Moves)));
        assert_eq!(parse("board"), Ok(Some(Input::Board)));
        assert_eq!(parse(" quit "), Ok(Some(Input::Quit)));
        assert_eq!(parse("help"), Ok(Some(Input::Help)));
        assert_eq!(parse("?"), Ok(Some(Input::Help)));
        assert_eq!(parse(""), Ok(None));
        assert_eq!(parse("   \r\n"), Ok(None));
    }

    #[test]
    fn stray_function_keys_are_ignored() {
        assert_eq!(parse("\u{1b}OR"), Ok(None));
        assert_eq!(parse("\u{1b}[A\u{1b}[B"), Ok(None));
        assert_eq!(parse("\u{1b}ORd3"), Ok(Some(square("d3"))));
        assert_eq!(parse("hint\u{1b}[15~"), Ok(Some(Input::Hint)));
    }

    #[test]
    fn mistyped_moves_say_what_a_square_is() {
        for bad in ["i1", "d9", "d0", "z 9"] {
            let err = parse(bad).unwrap_err();
            assert_eq!(err, InputError::BadSquare(bad.to_string()));
            assert!(err.to_string().contains("column a-h then a row 1-8"));
        }
    }

    #[test]
    fn unknown_commands_point_to_help() {
        for bad in ["3d", "d33", "play d3", "hello", "é3", "dd"] {
            let err = parse(bad).unwrap_err();
            assert_eq!(err, InputError::Unknown(bad.to_string()), "{bad:?}");
            assert!(err.to_string().contains("type help"));
        }
    }
}
