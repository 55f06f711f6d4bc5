//! Arbitrary bytes through the text protocol's line codec, cut at an arbitrary
//! point: never a panic, no line longer than the limit, and every message
//! that parses prints as a line that parses back to the same message.

#![no_main]

use libfuzzer_sys::fuzz_target;
use reversi_text::{ClientMessage, LineBuffer, LineError, ServerMessage, MAX_LINE};

fuzz_target!(|input: (u16, &[u8])| {
    let (cut, data) = input;
    let cut = usize::from(cut).min(data.len());
    let mut lines = LineBuffer::new();
    for chunk in [&data[..cut], &data[cut..]] {
        lines.extend(chunk);
        loop {
            match lines.next_line() {
                Ok(Some(line)) => {
                    assert!(line.len() < MAX_LINE);
                    check(&line);
                }
                Ok(None) => break,
                Err(LineError::NotText) => {}
                Err(LineError::TooLong) => return,
            }
        }
    }
    // Both parsers on the raw bytes as text, whatever they hold.
    check(&String::from_utf8_lossy(data));
});

fn check(line: &str) {
    if let Ok(message) = ClientMessage::parse(line) {
        let printed = message.to_string();
        assert_eq!(ClientMessage::parse(&printed).as_ref(), Ok(&message), "{printed:?}");
    }
    if let Ok(message) = ServerMessage::parse(line) {
        let printed = message.to_string();
        assert_eq!(ServerMessage::parse(&printed).as_ref(), Ok(&message), "{printed:?}");
    }
}
