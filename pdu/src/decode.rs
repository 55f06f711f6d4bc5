//! Decoding: bytes received so far to one PDU, or "need more bytes".
//!
//! nom's streaming parsers read the header, so a short buffer is `Partial`
//! rather than an error; once the header is in, every check the
//! specification lists is made before waiting for the body, so a bad frame
//! is refused as early as the bytes allow.

use nom::number::complete::{be_i16 as body_i16, be_u16 as body_u16};
use nom::number::streaming::{be_i16, be_u16};
use nom::Parser;

use crate::colour::{Colour, Winner};
use crate::error::Error;
use crate::id::{Direction, MsgId};
use crate::pdu::{fixed_len, update_board_len, Pdu, Squares, UpdateBoard};
use crate::square::{Place, Square};
use crate::{HEADER_LEN, MAX_PDU_LEN, MAX_SQUARES};

type NomError<'a> = nom::error::Error<&'a [u8]>;

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
pub fn decode(buf: &[u8], direction: Direction) -> Result<Status<(Pdu<'_>, usize)>, Error> {
    let (msg_size, id) = match header(buf)? {
        Status::Complete(header) => header,
        Status::Partial => return Ok(Status::Partial),
    };
    if !id.travels(direction) {
        return Err(Error::WrongDirection { id, direction });
    }
    check_size(id, msg_size)?;
    let len = usize::from(msg_size);
    let Some(frame) = buf.get(..len) else {
        return Ok(Status::Partial);
    };
    let pdu = body(id, msg_size, &frame[HEADER_LEN..])?;
    Ok(Status::Complete((pdu, len)))
}

/// Reads and range-checks the header: `msg_size` in 4..=264 and a known id.
fn header(buf: &[u8]) -> Result<Status<(u16, MsgId)>, Error> {
    let (msg_size, id) = match (be_u16::<_, NomError<'_>>, be_i16).parse(buf) {
        Ok((_, fields)) => fields,
        // Streaming parsers fail only with Incomplete on a short buffer.
        Err(_) => return Ok(Status::Partial),
    };
    if !(HEADER_LEN..=MAX_PDU_LEN).contains(&usize::from(msg_size)) {
        return Err(Error::SizeOutOfRange { msg_size, id });
    }
    let id = MsgId::from_wire(id).ok_or(Error::UnknownId { id })?;
    Ok(Status::Complete((msg_size, id)))
}

/// Checks `msg_size` against the table for `id`.
fn check_size(id: MsgId, msg_size: u16) -> Result<(), Error> {
    let len = usize::from(msg_size);
    let ok = match fixed_len(id) {
        Some(fixed) => len == fixed,
        None => {
            let pairs = len.wrapping_sub(update_board_len(0));
            len > update_board_len(0) && pairs % 4 == 0 && pairs / 4 <= MAX_SQUARES
        }
    };
    if ok {
        Ok(())
    } else {
        Err(Error::WrongSize { id, msg_size })
    }
}

/// Decodes the body of a frame whose size already matches its id.
fn body(id: MsgId, msg_size: u16, body: &[u8]) -> Result<Pdu<'_>, Error> {
    // check_size guarantees the body's length, so nom cannot run short; if it
    // ever did, the frame's size was wrong for its id.
    let short = |_| Error::WrongSize { id, msg_size };
    Ok(match id {
        MsgId::Error => Pdu::Error,
        MsgId::Connect => Pdu::Connect,
        MsgId::Quit => Pdu::Quit,
        MsgId::Turn => Pdu::Turn,
        MsgId::PlaceError => Pdu::PlaceError,
        MsgId::ConnectOk => {
            let (_, player) = player_word(id, body).map_err(short)?;
            let colour = colour(id, player?)?;
            Pdu::ConnectOk { colour }
        }
        MsgId::Winner => {
            let (_, player) = player_word(id, body).map_err(short)?;
            let player = player?;
            let winner = Winner::from_wire(player).ok_or(Error::BadPlayer { id, player })?;
            Pdu::Winner(winner)
        }
        MsgId::Place => {
            let (_, (x, y)) = (body_i16::<_, NomError<'_>>, body_i16)
                .parse(body)
                .map_err(short)?;
            Pdu::Place(Place { x, y })
        }
        MsgId::UpdateBoard => {
            let (pairs, player) = player_word(id, body).map_err(short)?;
            let colour = colour(id, player?)?;
            check_squares(pairs)?;
            Pdu::UpdateBoard(UpdateBoard {
                colour,
                squares: Squares::from_wire(pairs),
            })
        }
    })
}

/// Reads the `player: i16, pad: u16` word; padding must be zero.
fn player_word(id: MsgId, body: &[u8]) -> nom::IResult<&[u8], Result<i16, Error>, NomError<'_>> {
    let (rest, (player, pad)) = (body_i16, body_u16).parse(body)?;
    let player = if pad == 0 {
        Ok(player)
    } else {
        Err(Error::NonZeroPadding { id, pad })
    };
    Ok((rest, player))
}

/// A `player` field that must name a colour.
fn colour(id: MsgId, player: i16) -> Result<Colour, Error> {
    Colour::from_wire(player).ok_or(Error::BadPlayer { id, player })
}

/// Every `x, y` pair of update_board must name a square (erratum E5).
fn check_squares(pairs: &[u8]) -> Result<(), Error> {
    let mut rest = pairs;
    while !rest.is_empty() {
        let (next, (x, y)) = (body_i16::<_, NomError<'_>>, body_i16)
            .parse(rest)
            .map_err(|_| Error::WrongSize {
                id: MsgId::UpdateBoard,
                msg_size: update_board_len(0) as u16 + pairs.len() as u16,
            })?;
        Square::from_wire(x, y).ok_or(Error::SquareOffBoard { x, y })?;
        rest = next;
    }
    Ok(())
}
