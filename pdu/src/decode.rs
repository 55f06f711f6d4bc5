//! Decoding: bytes received so far to one PDU, or "need more bytes".
//!
//! Every field is a 16-bit big-endian word at a fixed offset, so the frame is
//! read with `first_chunk` and `from_be_bytes`: a short buffer is simply a
//! missing chunk (`Partial`), and the compiler sees whole fixed-size loads.
//! Once the header is in, every check the specification lists is made before
//! waiting for the body, so a bad frame is refused as early as the bytes
//! allow.

use crate::colour::{Colour, Winner};
use crate::error::Error;
use crate::id::{Direction, MsgId};
use crate::pdu::{fixed_len, update_board_len, Pdu, Squares, UpdateBoard};
use crate::square::{Place, Square};
use crate::{HEADER_LEN, MAX_PDU_LEN, MAX_SQUARES};

/// The outcome of a decode that did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status<T> {
    /// A whole PDU was read.
    Complete(T),
    /// The buffer holds the start of a PDU that may still be valid: read
    /// more bytes and try again with all of them.
    Partial,
}

impl<T> Status<T> {
    /// The value, if complete.
    pub fn complete(self) -> Option<T> {
        match self {
            Status::Complete(value) => Some(value),
            Status::Partial => None,
        }
    }
}

/// Decodes the PDU at the start of `buf`, received in `direction`.
///
/// Returns the PDU and how many bytes of `buf` it used, or
/// [`Status::Partial`] when `buf` ends before the PDU does. Bytes after the
/// PDU are left alone: call again on the rest. Any [`Error`] means the
/// stream is malformed and cannot be resynchronised.
// Always inlined: returned through memory, the result is written field by
// field and read back whole by the caller, and that store-to-load stall cost
// more than all the checks (criterion: 9 ns against 3 ns a fixed-size PDU).
// The function is small and has few call sites.
#[inline(always)]
pub fn decode(buf: &[u8], direction: Direction) -> Result<Status<(Pdu<'_>, usize)>, Error> {
    let Some(&[s0, s1, i0, i1]) = buf.first_chunk::<HEADER_LEN>() else {
        return Ok(Status::Partial);
    };
    let msg_size = u16::from_be_bytes([s0, s1]);
    let wire_id = i16::from_be_bytes([i0, i1]);
    let Some(id) =
        MsgId::from_wire(wire_id).filter(|id| id.travels(direction) && size_fits(*id, msg_size))
    else {
        return Err(header_error(msg_size, wire_id, direction));
    };
    let len = usize::from(msg_size);
    let Some((_, body)) = buf
        .get(..len)
        .and_then(|f| f.split_first_chunk::<HEADER_LEN>())
    else {
        return Ok(Status::Partial);
    };
    let pdu = decode_body(id, msg_size, body)?;
    Ok(Status::Complete((pdu, len)))
}

/// Whether `msg_size` is the size the table gives for `id`. Every size it
/// allows is within 4..=264.
const fn size_fits(id: MsgId, msg_size: u16) -> bool {
    let len = msg_size as usize;
    match fixed_len(id) {
        Some(fixed) => len == fixed,
        None => {
            let pairs = len.wrapping_sub(update_board_len(0));
            len > update_board_len(0) && pairs % 4 == 0 && pairs / 4 <= MAX_SQUARES
        }
    }
}

/// Why a header was refused, checked in the specification's order (§3.4):
/// size range, id, direction, then size for the id.
#[cold]
fn header_error(msg_size: u16, wire_id: i16, direction: Direction) -> Error {
    if !(HEADER_LEN..=MAX_PDU_LEN).contains(&usize::from(msg_size)) {
        return Error::SizeOutOfRange {
            msg_size,
            id: wire_id,
        };
    }
    match MsgId::from_wire(wire_id) {
        None => Error::UnknownId { id: wire_id },
        Some(id) if !id.travels(direction) => Error::WrongDirection { id, direction },
        Some(id) => Error::WrongSize { id, msg_size },
    }
}

/// Decodes the body of a frame whose size already matches its id.
#[inline(always)]
fn decode_body(id: MsgId, msg_size: u16, body: &[u8]) -> Result<Pdu<'_>, Error> {
    // Bodies without fields come first: they need no bytes beyond the header.
    match id {
        MsgId::Error => return Ok(Pdu::Error),
        MsgId::Connect => return Ok(Pdu::Connect),
        MsgId::Quit => return Ok(Pdu::Quit),
        MsgId::Turn => return Ok(Pdu::Turn),
        MsgId::PlaceError => return Ok(Pdu::PlaceError),
        MsgId::ConnectOk | MsgId::Place | MsgId::UpdateBoard | MsgId::Winner => {}
    }
    // The size check guarantees the first two body words; if they were ever
    // missing, the frame's size was wrong for its id.
    let Some((&[a0, a1, b0, b1], pairs)) = body.split_first_chunk::<4>() else {
        return Err(Error::WrongSize { id, msg_size });
    };
    let first = i16::from_be_bytes([a0, a1]);
    if id == MsgId::Place {
        // x, y: any values (erratum E5).
        let y = i16::from_be_bytes([b0, b1]);
        return Ok(Pdu::Place(Place { x: first, y }));
    }
    // connect_ok, winner and update_board: `player: i16, pad: u16`.
    let pad = u16::from_be_bytes([b0, b1]);
    if pad != 0 {
        return Err(Error::NonZeroPadding { id, pad });
    }
    let bad_player = || Error::BadPlayer { id, player: first };
    if id == MsgId::Winner {
        return Ok(Pdu::Winner(
            Winner::from_wire(first).ok_or_else(bad_player)?,
        ));
    }
    let colour = Colour::from_wire(first).ok_or_else(bad_player)?;
    if id == MsgId::ConnectOk {
        return Ok(Pdu::ConnectOk { colour });
    }
    check_squares(pairs)?;
    Ok(Pdu::UpdateBoard(UpdateBoard {
        colour,
        squares: Squares::from_wire(pairs),
    }))
}

/// In every `x: i16, y: i16` pair of a square on the board, both high bytes
/// are zero and both low bytes are below 8.
const OFF_BOARD_BITS: [u8; 4] = [0xff, 0xf8, 0xff, 0xf8];

/// Every `x, y` pair of update_board must name a square (erratum E5).
///
/// The pairs are OR-ed together and checked once, a loop the compiler turns
/// into vector instructions; only a frame that fails this quick check pays
/// for the second pass, which finds the square to name in the error.
fn check_squares(pairs: &[u8]) -> Result<(), Error> {
    // `chunks_exact` yields 4-byte slices, so the conversion never fails;
    // as arrays, the pairs are loaded whole and the loop is vectorised.
    let any = pairs
        .chunks_exact(4)
        .filter_map(|pair| <[u8; 4]>::try_from(pair).ok())
        .fold(0, |any, pair| any | u32::from_ne_bytes(pair));
    if any & u32::from_ne_bytes(OFF_BOARD_BITS) == 0 {
        return Ok(());
    }
    match first_off_board(pairs) {
        Some((x, y)) => Err(Error::SquareOffBoard { x, y }),
        None => Ok(()),
    }
}

/// The first pair that names no square.
#[cold]
fn first_off_board(pairs: &[u8]) -> Option<(i16, i16)> {
    pairs
        .chunks_exact(4)
        .map(|p| {
            (
                i16::from_be_bytes([p[0], p[1]]),
                i16::from_be_bytes([p[2], p[3]]),
            )
        })
        .find(|&(x, y)| Square::from_wire(x, y).is_none())
}
