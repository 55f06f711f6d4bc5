//! Encoding into the caller's buffer, with byteorder.

use byteorder::{BigEndian, ByteOrder};

use crate::error::Error;
use crate::pdu::{Pdu, Squares};
use crate::square::Place;

/// Byte offsets of the fields, as in the specification's diagrams.
mod field {
    use core::ops::Range;
    pub const MSG_SIZE: Range<usize> = 0..2;
    pub const ID: Range<usize> = 2..4;
    /// player (connect_ok, update_board, winner) or x (place).
    pub const WORD_1: Range<usize> = 4..6;
    /// pad (connect_ok, update_board, winner) or y (place).
    pub const WORD_2: Range<usize> = 6..8;
    pub const SQUARES: usize = 8;
}

impl Pdu<'_> {
    /// Writes the PDU at the start of `buf` and returns its length.
    ///
    /// A buffer shorter than [`Pdu::encoded_len`] is an error and is left
    /// untouched. [`MAX_PDU_LEN`](crate::MAX_PDU_LEN) bytes always suffice.
    pub fn encode(&self, buf: &mut [u8]) -> Result<usize, Error> {
        let len = self.encoded_len();
        let Some(out) = buf.get_mut(..len) else {
            return Err(Error::BufferTooSmall {
                needed: len,
                len: buf.len(),
            });
        };
        // Every length is at most 264, so the cast is exact.
        BigEndian::write_u16(&mut out[field::MSG_SIZE], len as u16);
        BigEndian::write_i16(&mut out[field::ID], self.id().to_wire());
        match self {
            Pdu::ConnectOk { colour } => player_word(out, colour.to_wire()),
            Pdu::Winner(winner) => player_word(out, winner.to_wire()),
            Pdu::Place(Place { x, y }) => {
                BigEndian::write_i16(&mut out[field::WORD_1], *x);
                BigEndian::write_i16(&mut out[field::WORD_2], *y);
            }
            Pdu::UpdateBoard(update) => {
                player_word(out, update.colour.to_wire());
                squares(&mut out[field::SQUARES..], &update.squares);
            }
            Pdu::Error | Pdu::Connect | Pdu::Quit | Pdu::Turn | Pdu::PlaceError => {}
        }
        Ok(len)
    }
}

fn player_word(out: &mut [u8], player: i16) {
    BigEndian::write_i16(&mut out[field::WORD_1], player);
    BigEndian::write_u16(&mut out[field::WORD_2], 0);
}

fn squares(out: &mut [u8], squares: &Squares<'_>) {
    for (pair, square) in out.chunks_exact_mut(4).zip(squares) {
        BigEndian::write_i16(&mut pair[0..2], i16::from(square.x()));
        BigEndian::write_i16(&mut pair[2..4], i16::from(square.y()));
    }
}
