//! The input side of the line protocols: bytes cut into lines (at most
//! `reversi_text::MAX_LINE`), each line read by its protocol. A line that is
//! not text is not understood; a line too long breaks the protocol, and
//! nothing after it is read.

use log::debug;
use reversi_text::{LineBuffer, LineError};

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
                    debug!("<- {line}");
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
