//! Cutting a byte stream into lines.

use std::fmt;

/// The longest line either side may send, line end included. A receiver
/// that has this many bytes and no line end treats the stream as broken.
pub const MAX_LINE: usize = 1024;

/// Why the stream holds no usable line.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LineError {
    /// [`MAX_LINE`] bytes without a line end.
    TooLong,
    /// A complete line that is not UTF-8 text, or holds a control character.
    NotText,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::TooLong => write!(f, "line longer than {MAX_LINE} bytes"),
            LineError::NotText => {
                f.write_str("line is not text (UTF-8 without control characters)")
            }
        }
    }
}

impl std::error::Error for LineError {}

/// Bytes received and not yet cut into lines. A line ends at LF; a CR just
/// before it is dropped (seed 000 allows both ends).
#[derive(Debug, Default)]
pub struct LineBuffer {
    buf: Vec<u8>,
    /// Bytes at the front already taken as lines.
    start: usize,
}

impl LineBuffer {
    pub fn new() -> LineBuffer {
        LineBuffer::default()
    }

    /// Appends received bytes.
    pub fn extend(&mut self, bytes: &[u8]) {
        if self.start > 0 && self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// Bytes held that are not yet a whole line.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.start
    }

    /// The next whole line without its end: `Ok(None)` until one is complete.
    /// After [`LineError::TooLong`] the buffer is of no further use; after
    /// [`LineError::NotText`] the bad line is gone and the next may be read.
    pub fn next_line(&mut self) -> Result<Option<String>, LineError> {
        let rest = &self.buf[self.start..];
        let Some(end) = rest.iter().position(|&b| b == b'\n') else {
            if rest.len() >= MAX_LINE {
                return Err(LineError::TooLong);
            }
            self.compact();
            return Ok(None);
        };
        if end + 1 > MAX_LINE {
            return Err(LineError::TooLong);
        }
        let mut line = &rest[..end];
        if let [head @ .., b'\r'] = line {
            line = head;
        }
        let text = std::str::from_utf8(line)
            .ok()
            .filter(|s| !s.chars().any(|c| c.is_control() && c != '\t'))
            .map(str::to_owned);
        self.start += end + 1;
        text.map(Some).ok_or(LineError::NotText)
    }

    /// Moves the unread bytes to the front, so the buffer stays as small as a line.
    fn compact(&mut self) {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
    }

    /// Takes every byte not yet read as a line (to hand a connection on).
    pub fn take_rest(&mut self) -> Vec<u8> {
        let rest = self.buf.split_off(self.start);
        self.buf.clear();
        self.start = 0;
        rest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_at_lf_with_or_without_cr_and_may_arrive_in_pieces() {
        let mut b = LineBuffer::new();
        b.extend(b"MOVE 1");
        assert_eq!(b.next_line(), Ok(None));
        b.extend(b" 2 2\r\nREADY\nGA");
        assert_eq!(b.next_line(), Ok(Some("MOVE 1 2 2".into())));
        assert_eq!(b.next_line(), Ok(Some("READY".into())));
        assert_eq!(b.next_line(), Ok(None));
        assert_eq!(b.pending(), 2);
        assert_eq!(b.take_rest(), b"GA");
        assert_eq!(b.pending(), 0);
    }

    #[test]
    fn a_line_of_max_line_bytes_with_its_end_passes_one_more_does_not() {
        let mut b = LineBuffer::new();
        let mut ok = vec![b'a'; MAX_LINE - 1];
        ok.push(b'\n');
        b.extend(&ok);
        assert_eq!(b.next_line().unwrap().unwrap().len(), MAX_LINE - 1);
        let mut b = LineBuffer::new();
        let mut long = vec![b'a'; MAX_LINE];
        long.push(b'\n');
        b.extend(&long);
        assert_eq!(b.next_line(), Err(LineError::TooLong));
        let mut b = LineBuffer::new();
        b.extend(&[b'a'; MAX_LINE]);
        assert_eq!(b.next_line(), Err(LineError::TooLong));
    }

    #[test]
    fn binary_and_control_characters_are_not_text_but_the_next_line_is_read() {
        let mut b = LineBuffer::new();
        b.extend(b"\xff\xfe\nA\x00B\nREADY\n");
        assert_eq!(b.next_line(), Err(LineError::NotText));
        assert_eq!(b.next_line(), Err(LineError::NotText));
        assert_eq!(b.next_line(), Ok(Some("READY".into())));
        b.extend("h\u{e9}llo\twho\n".as_bytes());
        assert_eq!(b.next_line(), Ok(Some("h\u{e9}llo\twho".into())));
    }
}
