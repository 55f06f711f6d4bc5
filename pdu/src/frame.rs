//! A fixed-capacity accumulator that turns socket reads into PDUs.

use crate::decode::{decode, Status};
use crate::error::Error;
use crate::id::Direction;
use crate::pdu::Pdu;
use crate::MAX_PDU_LEN;

/// Bytes buffered from a stream, handed out one PDU at a time.
///
/// No allocation: the buffer lives inline. Read into [`spare_mut`], report
/// how much arrived with [`commit`], then call [`next`] until it returns
/// `Ok(None)`. Draining like this keeps at least [`MAX_PDU_LEN`] bytes of
/// space free for the next read, so a whole PDU always fits.
///
/// ```
/// use reversi_pdu::{Direction, FrameBuffer, Pdu};
///
/// let mut frames = FrameBuffer::new();
/// // A turn PDU arrives split over two reads.
/// for chunk in [&[0x00, 0x04, 0x00][..], &[0x03][..]] {
///     let spare = frames.spare_mut();
///     spare[..chunk.len()].copy_from_slice(chunk);
///     frames.commit(chunk.len());
/// }
/// assert_eq!(frames.next(Direction::ServerToClient), Ok(Some(Pdu::Turn)));
/// assert_eq!(frames.next(Direction::ServerToClient), Ok(None));
/// ```
///
/// [`spare_mut`]: FrameBuffer::spare_mut
/// [`commit`]: FrameBuffer::commit
/// [`next`]: FrameBuffer::next
#[derive(Clone)]
pub struct FrameBuffer {
    buf: [u8; FrameBuffer::CAPACITY],
    /// Start of the bytes not yet handed out.
    start: usize,
    /// End of the bytes received.
    end: usize,
}

impl FrameBuffer {
    /// Bytes held inline: room for a largest PDU left over plus a full read.
    pub const CAPACITY: usize = 4 * MAX_PDU_LEN;

    /// An empty buffer.
    pub const fn new() -> FrameBuffer {
        FrameBuffer {
            buf: [0; FrameBuffer::CAPACITY],
            start: 0,
            end: 0,
        }
    }

    /// The free space to read into; at least [`MAX_PDU_LEN`] bytes once
    /// every complete PDU has been taken with [`next`](FrameBuffer::next).
    pub fn spare_mut(&mut self) -> &mut [u8] {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        &mut self.buf[self.end..]
    }

    /// Records that `n` bytes were written into [`spare_mut`](FrameBuffer::spare_mut).
    /// A count past the free space is clamped to it.
    pub fn commit(&mut self, n: usize) {
        self.end = self.end.saturating_add(n).min(FrameBuffer::CAPACITY);
    }

    /// The next whole PDU, or `Ok(None)` when the bytes so far end inside one.
    ///
    /// An error means the stream is malformed: answer `error` and close; the
    /// buffer is of no further use.
    pub fn next(&mut self, direction: Direction) -> Result<Option<Pdu<'_>>, Error> {
        let pending = &self.buf[self.start..self.end];
        match decode(pending, direction)? {
            Status::Complete((pdu, used)) => {
                self.start += used;
                Ok(Some(pdu))
            }
            Status::Partial => Ok(None),
        }
    }

    /// How many received bytes have not been handed out yet.
    pub fn buffered(&self) -> usize {
        self.end - self.start
    }

    /// Forgets every buffered byte.
    pub fn clear(&mut self) {
        self.start = 0;
        self.end = 0;
    }
}

impl Default for FrameBuffer {
    fn default() -> FrameBuffer {
        FrameBuffer::new()
    }
}

impl core::fmt::Debug for FrameBuffer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FrameBuffer")
            .field("buffered", &self.buffered())
            .finish()
    }
}
