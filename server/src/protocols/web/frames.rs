//! WebSocket frames (RFC 6455 §5) as the text protocol uses them: every client
//! message is one whole text frame holding one protocol line, and the server
//! sends each of its lines as one text frame. Headers are read and written by
//! tungstenite's frame codec; what is allowed is decided here.
//!
//! Reading is stateless: [`next`] looks at the start of a buffer and says what
//! the first frame is and how many bytes it takes, so the supervisor can screen
//! a connection's first messages and hand the rest, untouched, to its game.

use std::io::Cursor;

use reversi_text::MAX_LINE;
use tungstenite::protocol::frame::coding::{CloseCode, Control, Data, OpCode};
use tungstenite::protocol::frame::{Frame, FrameHeader};

/// The largest payload a control frame may carry (RFC 6455 §5.5).
const MAX_CONTROL: u64 = 125;

/// A client's frame, unmasked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incoming {
    /// A text message: one protocol line, its end optional.
    Text(Vec<u8>),
    /// A binary message: the text protocol has none.
    Binary,
    /// A ping, with the payload its pong must echo.
    Ping(Vec<u8>),
    /// A pong, with the payload of the ping it answers (or any: pongs may be unsolicited).
    Pong(Vec<u8>),
    /// The client closes; the payload (code and reason) is echoed.
    Close(Vec<u8>),
}

/// Why a client's frames break the protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub why: String,
    /// The close code that says so.
    pub code: CloseCode,
}

impl Violation {
    fn protocol(why: impl Into<String>) -> Violation {
        Violation {
            why: why.into(),
            code: CloseCode::Protocol,
        }
    }
}

/// The first frame of `input` and the bytes it takes; `Ok(None)` while it is incomplete.
/// A header announcing more than a message may hold is refused at once, so a buffer
/// never holds more than one header and [`MAX_LINE`] bytes of payload.
pub fn next(input: &[u8]) -> Result<Option<(Incoming, usize)>, Violation> {
    let mut cursor = Cursor::new(input);
    let (header, length) = match FrameHeader::parse(&mut cursor) {
        Ok(Some(found)) => found,
        Ok(None) => return Ok(None),
        Err(e) => return Err(Violation::protocol(format!("bad frame header: {e}"))),
    };
    check(&header, length)?;
    let start = cursor.position() as usize;
    // `check` bounded the length, so this cannot overflow.
    let end = start + length as usize;
    let Some(payload) = input.get(start..end) else {
        return Ok(None);
    };
    let mut payload = payload.to_vec();
    if let Some(mask) = header.mask {
        unmask(&mut payload, mask);
    }
    let frame = match header.opcode {
        OpCode::Data(Data::Text) => Incoming::Text(utf8(payload)?),
        OpCode::Data(_) => Incoming::Binary,
        OpCode::Control(Control::Ping) => Incoming::Ping(payload),
        OpCode::Control(Control::Pong) => Incoming::Pong(payload),
        OpCode::Control(_) => Incoming::Close(close_payload(payload)?),
    };
    Ok(Some((frame, end)))
}

/// A text message's payload, which must be UTF-8 (RFC 6455 §8.1: else fail with 1007).
fn utf8(payload: Vec<u8>) -> Result<Vec<u8>, Violation> {
    match std::str::from_utf8(&payload) {
        Ok(_) => Ok(payload),
        Err(_) => Err(Violation {
            why: "a text message that is not UTF-8".to_owned(),
            code: CloseCode::Invalid,
        }),
    }
}

/// A client's close payload: empty, or a status code a client may send (RFC 6455
/// §7.4) and a UTF-8 reason; anything else fails the connection (1002, 1007).
fn close_payload(payload: Vec<u8>) -> Result<Vec<u8>, Violation> {
    let (code, reason) = match payload.as_slice() {
        [] => return Ok(payload),
        [_] => {
            return Err(Violation::protocol(
                "a close frame with a 1-byte status code",
            ))
        }
        [hi, lo, reason @ ..] => (CloseCode::from(u16::from_be_bytes([*hi, *lo])), reason),
    };
    if !code.is_allowed() {
        return Err(Violation::protocol(format!(
            "a close frame with status code {code}, which no endpoint may send"
        )));
    }
    if std::str::from_utf8(reason).is_err() {
        return Err(Violation {
            why: "a close reason that is not UTF-8".to_owned(),
            code: CloseCode::Invalid,
        });
    }
    Ok(payload)
}

/// What the text protocol accepts of a client's frame header.
fn check(header: &FrameHeader, length: u64) -> Result<(), Violation> {
    if header.rsv1 || header.rsv2 || header.rsv3 {
        return Err(Violation::protocol(
            "reserved bits set (no extension was agreed)",
        ));
    }
    if header.mask.is_none() {
        return Err(Violation::protocol("an unmasked frame from a client"));
    }
    // tungstenite's parser has refused the reserved opcodes already.
    match header.opcode {
        OpCode::Data(Data::Continue) => Err(Violation::protocol(
            "a fragmented message (each message must be one frame)",
        )),
        OpCode::Data(_) if !header.is_final => Err(Violation::protocol(
            "a fragmented message (each message must be one frame)",
        )),
        OpCode::Data(_) if length > MAX_LINE as u64 => Err(Violation {
            why: format!("a message longer than {MAX_LINE} bytes"),
            code: CloseCode::Size,
        }),
        OpCode::Control(_) if !header.is_final || length > MAX_CONTROL => Err(Violation::protocol(
            "a control frame fragmented or longer than 125 bytes",
        )),
        _ => Ok(()),
    }
}

/// Client frames are masked with a 4-byte key (RFC 6455 §5.3).
fn unmask(payload: &mut [u8], mask: [u8; 4]) {
    for (i, byte) in payload.iter_mut().enumerate() {
        *byte ^= mask[i % 4];
    }
}

/// A text message's line: without the one line end it may carry. `None` when the
/// message holds more than one line.
pub fn line_of(payload: &[u8]) -> Option<&[u8]> {
    let line = payload.strip_suffix(b"\n").unwrap_or(payload);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    (!line.contains(&b'\n')).then_some(line)
}

fn format(frame: Frame, out: &mut Vec<u8>) {
    // Writing into a Vec cannot fail.
    let _ = frame.format(out);
}

/// Each line of `lines` (LF-terminated, as the text protocol writes them) as a text frame.
pub fn text_frames(lines: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(lines.len() + 8);
    for line in lines.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        format(
            Frame::message(line.to_vec(), OpCode::Data(Data::Text), true),
            &mut out,
        );
    }
    out
}

/// The pong that answers a ping with `payload`.
pub fn pong(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 2);
    format(Frame::pong(payload.to_vec()), &mut out);
    out
}

/// A ping of ours with `payload` (the lag allowance's: its number in decimal).
pub fn ping(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 2);
    format(Frame::ping(payload.to_vec()), &mut out);
    out
}

/// A close frame with `code` and no reason (the reason went before, as an `ERROR` line).
pub fn close(code: CloseCode) -> Vec<u8> {
    close_echo(&u16::from(code).to_be_bytes())
}

/// The close frame that answers a client's close: its status code echoed, or none
/// when it gave none (RFC 6455 §5.5.1).
pub fn close_echo(payload: &[u8]) -> Vec<u8> {
    let code = payload.get(..2).unwrap_or_default();
    let mut out = Vec::with_capacity(4);
    // The default header is a final, unmasked close frame.
    format(
        Frame::from_payload(FrameHeader::default(), code.to_vec().into()),
        &mut out,
    );
    out
}

/// A client's frame: FIN and `opcode`, masked with `mask` (a payload under 64 KiB).
pub fn client_frame(opcode: u8, payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
    let mut out = vec![0x80 | opcode];
    match payload.len() {
        n @ 0..=125 => out.push(0x80 | n as u8),
        n => {
            out.push(0x80 | 126);
            out.extend((n as u16).to_be_bytes());
        }
    }
    out.extend(mask);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    out
}

#[cfg(test)]
pub mod tests {
    use super::*;

    pub use super::client_frame;

    #[test]
    fn a_masked_text_frame_is_read_whole_or_not_at_all() {
        let frame = client_frame(1, b"GAME LIST", [1, 2, 3, 4]);
        for cut in 0..frame.len() {
            assert_eq!(next(&frame[..cut]), Ok(None), "{cut} bytes");
        }
        let mut two = frame.clone();
        two.extend(client_frame(9, b"hi", [9, 9, 9, 9]));
        assert_eq!(
            next(&two),
            Ok(Some((Incoming::Text(b"GAME LIST".to_vec()), frame.len())))
        );
        assert_eq!(
            next(&two[frame.len()..]),
            Ok(Some((Incoming::Ping(b"hi".to_vec()), 8)))
        );
    }

    #[test]
    fn frames_the_text_protocol_does_not_take_are_violations() {
        let mut unmasked = client_frame(1, b"x", [0; 4]);
        unmasked[1] &= 0x7f;
        unmasked.truncate(2);
        unmasked.push(b'x');
        let mut fragment = client_frame(1, b"x", [1; 4]);
        fragment[0] &= 0x7f;
        let mut reserved_bit = client_frame(1, b"x", [1; 4]);
        reserved_bit[0] |= 0x40;
        let long = client_frame(1, &[b'a'; MAX_LINE + 1], [1; 4]);
        let cases: [(&[u8], &str); 6] = [
            (&unmasked, "unmasked"),
            (&fragment, "fragmented"),
            (&client_frame(0, b"x", [1; 4]), "fragmented"),
            (&reserved_bit, "reserved bits"),
            (&client_frame(3, b"x", [1; 4]), "opcode"),
            (&long[..8], "longer than 1024"),
        ];
        for (bytes, why) in cases {
            let got = next(bytes).unwrap_err();
            assert!(got.why.contains(why), "{why}: {got:?}");
        }
        assert_eq!(next(&long[..8]).unwrap_err().code, CloseCode::Size);
        let big_ping = client_frame(9, &[0; 126], [1; 4]);
        assert!(next(&big_ping).unwrap_err().why.contains("control frame"));
    }

    #[test]
    fn text_that_is_not_utf8_and_bad_close_codes_fail_the_connection() {
        let invalid = next(&client_frame(1, &[b'G', 0xc3], [1; 4])).unwrap_err();
        assert_eq!(invalid.code, CloseCode::Invalid);
        let bad_reason = next(&client_frame(8, &[0x03, 0xe8, 0xff], [1; 4])).unwrap_err();
        assert_eq!(bad_reason.code, CloseCode::Invalid);
        for code in [0u16, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000] {
            let frame = client_frame(8, &code.to_be_bytes(), [1; 4]);
            let got = next(&frame).unwrap_err();
            assert_eq!(got.code, CloseCode::Protocol, "{code}");
        }
        assert_eq!(
            next(&client_frame(8, &[3], [1; 4])).unwrap_err().code,
            CloseCode::Protocol
        );
        for code in [1000u16, 1001, 1003, 1007, 1011, 3000, 4999] {
            let payload = [&code.to_be_bytes()[..], b"bye"].concat();
            let frame = client_frame(8, &payload, [1; 4]);
            assert_eq!(
                next(&frame),
                Ok(Some((Incoming::Close(payload), frame.len()))),
                "{code}"
            );
        }
        assert!(next(&client_frame(1, "G\u{e9}".as_bytes(), [1; 4])).is_ok());
    }

    #[test]
    fn the_largest_message_is_one_line_of_the_line_limit() {
        let line = [b'a'; MAX_LINE];
        let frame = client_frame(1, &line, [5; 4]);
        assert_eq!(
            next(&frame),
            Ok(Some((Incoming::Text(line.to_vec()), frame.len())))
        );
    }

    #[test]
    fn a_message_is_one_line_with_its_end_optional() {
        assert_eq!(line_of(b"GAME LIST"), Some(&b"GAME LIST"[..]));
        assert_eq!(line_of(b"GAME LIST\r\n"), Some(&b"GAME LIST"[..]));
        assert_eq!(line_of(b"GAME LIST\n"), Some(&b"GAME LIST"[..]));
        assert_eq!(line_of(b"GAME LIST\nGAME QUIT"), None);
    }

    #[test]
    fn server_frames_are_unmasked_and_one_a_line() {
        assert_eq!(
            text_frames(b"READY\nGAME TURN 1\n"),
            [&[0x81, 5][..], b"READY", &[0x81, 11], b"GAME TURN 1"].concat()
        );
        assert_eq!(pong(b"hi"), [0x8a, 2, b'h', b'i']);
        assert_eq!(close(CloseCode::Normal), [0x88, 2, 0x03, 0xe8]);
        assert_eq!(close_echo(&[]), [0x88, 0]);
        assert_eq!(close_echo(&[0x03, 0xe9, b'b', b'y']), [0x88, 2, 0x03, 0xe9]);
    }
}
