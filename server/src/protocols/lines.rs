//! The input side of the line protocols: bytes cut into lines (at most
//! `reversi_text::MAX_LINE`), each line read by its protocol. A line that is
//! not text is not understood; a line too long breaks the protocol, and
//! nothing after it is read. Also the words every line protocol refuses a
//! connection's first line with.

use log::debug;
use reversi_text::{LineBuffer, LineError, MAX_LINE};

use super::Input;

#[derive(Debug, Default)]
pub struct LineReader {
    lines: LineBuffer,
    /// No more input is taken (after a violation).
    deaf: bool,
}

impl LineReader {
    pub fn new() -> LineReader {
        LineReader::default()
    }

    /// Takes bytes as they arrive; each whole line goes to `read`, whose input, if any,
    /// is appended to `inputs` in the order the lines came.
    pub fn receive(
        &mut self,
        bytes: &[u8],
        inputs: &mut Vec<Input>,
        mut read: impl FnMut(&str) -> Option<Input>,
    ) {
        if self.deaf {
            return;
        }
        self.lines.extend(bytes);
        loop {
            match self.lines.next_line() {
                Ok(None) => return,
                Ok(Some(line)) => {
                    debug!("<- {}", super::text::loggable(&line));
                    inputs.extend(read(&line));
                }
                Err(e @ LineError::NotText) => inputs.push(Input::Confused(e.to_string())),
                Err(e @ LineError::TooLong) => {
                    self.deaf = true;
                    inputs.push(Input::Violation(e.to_string()));
                    return;
                }
            }
        }
    }
}

/// Why a line with `byte` in it is not text.
pub fn not_text(byte: u8) -> String {
    format!("byte {byte:#04x} in a text line")
}

/// Why a line without an end is refused.
pub fn too_long() -> String {
    format!("a line longer than {MAX_LINE} bytes")
}
