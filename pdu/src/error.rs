//! The one error type of the codec.

use core::fmt;

use crate::id::{Direction, MsgId};
use crate::{MAX_PDU_LEN, MAX_SQUARES};

/// What was wrong with a frame, or why a PDU could not be encoded.
///
/// Every decoding variant means the frame is malformed: the receiver answers
/// `error` and closes the connection (spec/PROTOCOL.md). Small and `Copy`, so
/// it can travel anywhere without allocating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// `msg_size` is below the 4-byte header or above the largest PDU.
    SizeOutOfRange {
        /// The `msg_size` field.
        msg_size: u16,
        /// The `id` field, which may or may not name a PDU.
        id: i16,
    },
    /// The `id` field names no PDU.
    UnknownId {
        /// The `id` field.
        id: i16,
    },
    /// `msg_size` is not the size the table gives for this id.
    WrongSize {
        /// The PDU.
        id: MsgId,
        /// The `msg_size` field.
        msg_size: u16,
    },
    /// A `player` field holds a value this PDU does not allow.
    BadPlayer {
        /// The PDU.
        id: MsgId,
        /// The `player` field.
        player: i16,
    },
    /// A padding field is not zero.
    NonZeroPadding {
        /// The PDU.
        id: MsgId,
        /// The padding field.
        pad: u16,
    },
    /// An update_board names a square off the board.
    SquareOffBoard {
        /// The `x` field.
        x: i16,
        /// The `y` field.
        y: i16,
    },
    /// This PDU does not travel in this direction (a server receiving turn).
    WrongDirection {
        /// The PDU.
        id: MsgId,
        /// The direction it was received in.
        direction: Direction,
    },
    /// Encoding: the output buffer is shorter than the PDU.
    BufferTooSmall {
        /// The PDU's length.
        needed: usize,
        /// The buffer's length.
        len: usize,
    },
    /// Encoding: an update_board must carry 1 to 64 squares.
    SquareCount {
        /// How many squares were given.
        count: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::SizeOutOfRange { msg_size, id } => match MsgId::from_wire(id) {
                Some(id) => write!(
                    f,
                    "{id} with msg_size {msg_size}: outside 4..={MAX_PDU_LEN}"
                ),
                None => write!(
                    f,
                    "msg_size {msg_size} is outside 4..={MAX_PDU_LEN} (and id {id} is unknown)"
                ),
            },
            Error::UnknownId { id } => write!(f, "unknown PDU id {id}"),
            Error::WrongSize {
                id: MsgId::UpdateBoard,
                msg_size,
            } => write!(
                f,
                "update_board with msg_size {msg_size}: not 8 + 4n with 1 <= n <= {MAX_SQUARES}"
            ),
            Error::WrongSize { id, msg_size } => match crate::pdu::fixed_len(id) {
                Some(len) => write!(f, "{id} with msg_size {msg_size}: must be {len}"),
                None => write!(f, "{id} with msg_size {msg_size}"),
            },
            Error::BadPlayer { id, player } => {
                let allowed = if id == MsgId::Winner {
                    "0 (draw), 1 (white) or 2 (black)"
                } else {
                    "1 (white) or 2 (black)"
                };
                write!(f, "{id} with player {player}: must be {allowed}")
            }
            Error::NonZeroPadding { id, pad } => {
                write!(f, "{id} with padding {pad:#06x}: must be 0")
            }
            Error::SquareOffBoard { x, y } => {
                write!(f, "update_board square ({x}, {y}) is off the board")
            }
            Error::WrongDirection { id, direction } => {
                write!(f, "{id} does not travel {direction}")
            }
            Error::BufferTooSmall { needed, len } => {
                write!(f, "a {needed}-byte PDU does not fit a {len}-byte buffer")
            }
            Error::SquareCount { count } => write!(
                f,
                "update_board carries 1 to {MAX_SQUARES} squares, not {count}"
            ),
        }
    }
}

impl core::error::Error for Error {}
