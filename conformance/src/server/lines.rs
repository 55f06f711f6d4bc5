//! TEXT-PROTOCOL.md §1: lines, case, blanks, overlong lines, lines that are
//! not text.

use std::time::Duration;

use crate::conn::Conn;
use crate::report::Judged;
use crate::server::table::seat;
use crate::server::{served, Check, Target};

pub const CHECKS: &[Check] = &[
    Check {
        section: "text §1",
        what: "command words in any case, blanks around words and a CR before the LF are ignored",
        run: case_and_blanks,
    },
    Check {
        section: "text §1",
        what: "an empty line is ignored, the first one included",
        run: empty_lines,
    },
    Check {
        section: "text §1",
        what: "a line of 1024 bytes with its end is read",
        run: longest_line,
    },
    Check {
        section: "text §1",
        what: "a waiting connection's line longer than 1024 bytes gets one ERROR and the close",
        run: overlong_while_waiting,
    },
    Check {
        section: "text §1",
        what: "in a game a line that is not text gets ERROR, then READY, and loses nothing",
        run: not_text_in_a_game,
    },
    Check {
        section: "text §1",
        what: "before a game a line with a byte no text line holds gets the binary error and the close",
        run: not_text_before_a_game,
    },
    Check {
        section: "text §1",
        what: "a first byte that cannot start a line of text is judged binary: the binary error",
        run: binary_first_byte,
    },
];

/// PROTOCOL.md's `error` PDU: the bytes a connection judged binary gets.
const BINARY_ERROR: &[u8] = &[0x00, 0x04, 0xff, 0xff];

fn case_and_blanks(target: &Target) -> Judged {
    let mut conn = Conn::open(target.addr, "client")?;
    conn.send_raw(b"  game \t version  \r\n")?;
    conn.next_starts("GAME VERSION 1 ")?;
    conn.send("Game Version")?;
    conn.next_starts("GAME VERSION 1 ")?;
    Ok(())
}

fn empty_lines(target: &Target) -> Judged {
    let mut conn = Conn::open(target.addr, "client")?;
    conn.send_raw(b"\n\r\n")?;
    conn.silent_for(Duration::from_millis(300))?;
    conn.send("GAME VERSION")?;
    conn.next_starts("GAME VERSION 1 ")?;
    Ok(())
}

fn longest_line(target: &Target) -> Judged {
    let mut conn = Conn::open(target.addr, "client")?;
    // 1023 bytes and the LF: blanks, then a request.
    let line = format!("{}GAME VERSION", " ".repeat(1023 - "GAME VERSION".len()));
    conn.send(&line)?;
    conn.next_starts("GAME VERSION 1 ")?;
    Ok(())
}

fn overlong_while_waiting(target: &Target) -> Judged {
    let mut conn = Conn::open(target.addr, "client")?;
    conn.send(&"x".repeat(1100))?;
    conn.next_starts("ERROR ")?;
    conn.closed()
}

fn not_text_in_a_game(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let mut table = seat(target, "tictactoe")?;
    let x = &mut table.players[0];
    x.send_raw(b"MOVE \xff\n")?;
    x.next_is("ERROR line is not text (UTF-8 without control characters)")?;
    x.next_is("READY")?;
    x.send_raw(b"MOVE b2\x01\n")?;
    x.next_is("ERROR line is not text (UTF-8 without control characters)")?;
    x.next_is("READY")?;
    x.send("MOVE b2")?;
    x.next_is("GAME MOVED 1 b2")?;
    Ok(())
}

fn not_text_before_a_game(target: &Target) -> Judged {
    let mut conn = Conn::open(target.addr, "client")?;
    conn.send("GAME VERSION")?;
    conn.next_starts("GAME VERSION 1 ")?;
    // Not UTF-8 (Unicode itself is text: names are Unicode).
    conn.send_raw(b"GAME TYPE caf\xe9\n")?;
    binary_error(&mut conn)
}

fn binary_first_byte(target: &Target) -> Judged {
    let mut conn = Conn::open(target.addr, "client")?;
    // A binary place PDU, which no binary client may send first either.
    conn.send_raw(&[0x00, 0x08, 0x00, 0x04, 0x00, 0x03, 0x00, 0x02])?;
    binary_error(&mut conn)
}

/// The connection must get the binary `error` (00 04 FF FF), then the close.
fn binary_error(conn: &mut Conn) -> Judged {
    match conn.recv_bytes() {
        Ok(bytes) if bytes == BINARY_ERROR => Ok(()),
        Ok(bytes) => Err(conn.differ(
            "the bytes 00 04 ff ff, then the close",
            format!("the bytes {bytes:02x?}, then the close"),
        )),
        Err(got) => Err(conn.differ("the bytes 00 04 ff ff, then the close", got.show())),
    }
}
