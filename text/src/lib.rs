//! The line codec of reversid's text protocol (`spec/TEXT-PROTOCOL.md`),
//! built on the board-game protocol of seed 000: one message a line, a
//! command word and its arguments, any case.
//!
//! [`LineBuffer`] cuts a byte stream into lines (at most [`MAX_LINE`] bytes);
//! [`ClientMessage`] and [`ServerMessage`] parse a line and print themselves
//! as one (without the line end). Nothing here knows any game.
//!
//! ```
//! use reversi_text::{ClientMessage, ServerMessage, LineBuffer};
//!
//! let mut lines = LineBuffer::new();
//! lines.extend(b"game type TicTacToe\r\nMOVE 1 2 2\n");
//! let first = lines.next_line().unwrap().unwrap();
//! assert_eq!(ClientMessage::parse(&first).unwrap(), ClientMessage::Join { game: "TicTacToe".into() });
//! let second = lines.next_line().unwrap().unwrap();
//! assert_eq!(ClientMessage::parse(&second).unwrap(), ClientMessage::Move(vec![(2, 2)]));
//! assert_eq!(ServerMessage::Ready.to_string(), "READY");
//! ```

mod client;
mod line;
mod server;
mod together;

pub use client::ClientMessage;
pub use line::{is_opening_text, opening_line, LineBuffer, LineError, Opening, MAX_LINE};
pub use server::{ServerMessage, Standing};
pub use together::{read_code, Terms, TimeControl, CODE_DIGITS};

use std::fmt;

/// The protocol version this crate speaks (`GAME VERSION`).
pub const VERSION: u32 = 1;

/// Why a line is not a message.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ParseError {
    /// Nothing but blanks.
    Empty,
    /// The first word names no message.
    UnknownCommand(String),
    /// The command is known; its arguments are not right. The string says how.
    BadArguments(&'static str, String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Empty => f.write_str("empty line"),
            ParseError::UnknownCommand(word) => write!(f, "unknown command {word:?}"),
            ParseError::BadArguments(command, why) => write!(f, "{command}: {why}"),
        }
    }
}

impl std::error::Error for ParseError {}

/// The words of a line and where the rest of the line starts, for free text.
struct Words<'a> {
    rest: &'a str,
}

impl<'a> Words<'a> {
    fn new(line: &'a str) -> Words<'a> {
        Words { rest: line }
    }

    fn next_word(&mut self) -> Option<&'a str> {
        let trimmed = self.rest.trim_start_matches([' ', '\t']);
        if trimmed.is_empty() {
            self.rest = trimmed;
            return None;
        }
        let end = trimmed.find([' ', '\t']).unwrap_or(trimmed.len());
        let (word, rest) = trimmed.split_at(end);
        self.rest = rest;
        Some(word)
    }

    /// Everything after the words taken so far, blanks at both ends removed.
    fn text(&self) -> &'a str {
        self.rest.trim_matches([' ', '\t'])
    }

    /// The rest of the line as free text, taken.
    fn take_text(&mut self) -> &'a str {
        let text = self.text();
        self.rest = "";
        text
    }

    fn is_done(&self) -> bool {
        self.text().is_empty()
    }

    /// The next word, which must be a number.
    fn number<T: std::str::FromStr>(
        &mut self,
        command: &'static str,
        what: &str,
    ) -> Result<T, ParseError> {
        let word = self
            .next_word()
            .ok_or_else(|| ParseError::BadArguments(command, format!("{what} is missing")))?;
        word.parse().map_err(|_| {
            ParseError::BadArguments(command, format!("{what} {word:?} is not a number in range"))
        })
    }

    fn end(&self, command: &'static str) -> Result<(), ParseError> {
        if self.is_done() {
            Ok(())
        } else {
            Err(ParseError::BadArguments(
                command,
                format!("unexpected {:?}", self.text()),
            ))
        }
    }
}

/// Whether `word` is `keyword`, in any case.
fn is(word: &str, keyword: &str) -> bool {
    word.eq_ignore_ascii_case(keyword)
}
