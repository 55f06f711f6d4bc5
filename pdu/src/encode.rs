//! Encoding into the caller's buffer: each field is a big-endian word.

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
    #[inline]
    pub fn encode(&self, buf: &mut [u8]) -> Result<usize, Error> {
        let len = self.encoded_len();
        let Some(out) = buf.get_mut(..len) else {
            return Err(Error::BufferTooSmall {
                needed: len,
                len: buf.len(),
            });
        };
        // Every length is at most 264, so the cast is exact.
        out[field::MSG_SIZE].copy_from_slice(&(len as u16).to_be_bytes());
        out[field::ID].copy_from_slice(&self.id().to_wire().to_be_bytes());
        match self {
            Pdu::ConnectOk { colour } => player_word(out, colour.to_wire()),
            Pdu::Winner(winner) => player_word(out, winner.to_wire()),
            Pdu::Place(Place { x, y }) => {
                out[field::WORD_1].copy_from_slice(&x.to_be_bytes());
                out[field::WORD_2].copy_from_slice(&y.to_be_bytes());
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
    out[field::WORD_1].copy_from_slice(&player.to_be_bytes());
    out[field::WORD_2].copy_from_slice(&0u16.to_be_bytes());
}

// Kept out of `encode`: inlined, its loop needs registers that every PDU's
// encode then saves and restores, a third more time for the bare ones.
#[inline(never)]
fn squares(out: &mut [u8], squares: &Squares<'_>) {
    for (pair, square) in out.chunks_exact_mut(4).zip(squares) {
        pair[0..2].copy_from_slice(&i16::from(square.x()).to_be_bytes());
        pair[2..4].copy_from_slice(&i16::from(square.y()).to_be_bytes());
    }
}
