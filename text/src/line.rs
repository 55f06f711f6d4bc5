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
        let Some(end) = line_end(rest)? else {
            self.compact();
            return Ok(None);
        };
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
}

/// Where the first line of `bytes` ends (the index of its LF): `Ok(None)` while it
/// may still come, [`LineError::TooLong`] once [`MAX_LINE`] bytes hold none.
fn line_end(bytes: &[u8]) -> Result<Option<usize>, LineError> {
    match bytes.iter().take(MAX_LINE).position(|&b| b == b'\n') {
        Some(end) => Ok(Some(end)),
        None if bytes.len() >= MAX_LINE => Err(LineError::TooLong),
        None => Ok(None),
    }
}

/// A connection's first line, read before its protocol is known: stricter than the
/// lines after it, so that a binary client is told apart by its first byte.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Opening {
    /// No line end yet, and nothing that is not text.
    Incomplete,
    /// The line without its end (and without the CRs before it), and the bytes it took.
    Line { text: String, used: usize },
    /// A byte no opening line holds ([`is_opening_text`]), seen before the line's end.
    NotText(u8),
    /// [`MAX_LINE`] bytes without a line end.
    TooLong,
}

/// Whether `byte` may start an opening line: printable ASCII, tab, CR. (Further on, the
/// line may hold any UTF-8 but control characters: names are Unicode.)
pub fn is_opening_text(byte: u8) -> bool {
    matches!(byte, b' '..=b'~' | b'\t' | b'\r')
}

/// Reads the opening line at the front of `input`. Each byte is judged as it arrives,
/// so a stream that is not text is known at its first bad byte (a UTF-8 sequence cut at
/// the end of what came is judged when the rest comes).
pub fn opening_line(input: &[u8]) -> Opening {
    let window = &input[..input.len().min(MAX_LINE)];
    let (line, whole) = match window.iter().position(|&b| b == b'\n') {
        Some(end) => (&window[..end], true),
        None => (window, false),
    };
    if let Some(bad) = first_not_opening(line, whole) {
        return Opening::NotText(bad);
    }
    match line_end(input) {
        Ok(Some(end)) => {
            let text = String::from_utf8_lossy(&input[..end]);
            Opening::Line {
                text: text.trim_end_matches('\r').to_owned(),
                used: end + 1,
            }
        }
        Ok(None) => Opening::Incomplete,
        Err(_) => Opening::TooLong,
    }
}

/// The first byte of `line` (no LF in it) that no opening line holds: an ASCII control
/// other than tab and CR, a byte that is not UTF-8, or the first byte of a C1 control.
/// A UTF-8 sequence cut at the end is not judged yet unless the line is `whole`.
fn first_not_opening(line: &[u8], whole: bool) -> Option<u8> {
    let (text, broken) = match std::str::from_utf8(line) {
        Ok(text) => (text, None),
        Err(e) => {
            let valid = &line[..e.valid_up_to()];
            let text = std::str::from_utf8(valid).unwrap_or_default();
            let cut = e.error_len().is_none() && !whole;
            (text, (!cut).then(|| line[e.valid_up_to()]))
        }
    };
    let is_opening = |c: char| matches!(c, '\t' | '\r') || !c.is_control();
    match text.char_indices().find(|&(_, c)| !is_opening(c)) {
        Some((at, _)) => Some(text.as_bytes()[at]),
        None => broken,
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

    #[test]
    fn an_opening_line_is_text_judged_byte_by_byte() {
        assert_eq!(opening_line(b"GAME"), Opening::Incomplete);
        assert_eq!(
            opening_line(b" GAME LIST\r\nMOVE"),
            Opening::Line {
                text: " GAME LIST".into(),
                used: 12
            }
        );
        assert_eq!(opening_line(b"G\x01"), Opening::NotText(0x01));
        // UTF-8 beyond the first byte: names are Unicode.
        let named = "GAME NAME Zo\u{eb}\n".as_bytes();
        assert!(
            matches!(opening_line(named), Opening::Line { text, .. } if text == "GAME NAME Zo\u{eb}")
        );
        // A sequence cut where the input ends waits for the rest; a broken one is refused.
        assert_eq!(opening_line(&named[..13]), Opening::Incomplete);
        assert_eq!(opening_line(b"GAME \xc3("), Opening::NotText(0xc3));
        assert_eq!(opening_line(b"GAME \xff"), Opening::NotText(0xff));
        assert_eq!(opening_line(b"GAME caf\xe9\n"), Opening::NotText(0xe9));
        // C1 controls (U+0085) and DEL are controls too.
        assert_eq!(opening_line("G\u{85}".as_bytes()), Opening::NotText(0xc2));
        assert_eq!(opening_line(b"G\x7f"), Opening::NotText(0x7f));
        assert_eq!(opening_line(&[b'G'; MAX_LINE]), Opening::TooLong);
        let mut longest = vec![b'G'; MAX_LINE - 1];
        longest.push(b'\n');
        assert!(matches!(opening_line(&longest), Opening::Line { used, .. } if used == MAX_LINE));
    }
}
