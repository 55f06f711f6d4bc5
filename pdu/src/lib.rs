//! The wire format of the Reversi protocol (spec/PROTOCOL.md): a `no_std`,
//! allocation-free, zero-copy codec for its nine PDUs.
//!
//! Every PDU is a big-endian frame: `msg_size: u16` (the whole PDU's length,
//! header included), `id: i16`, then a body whose size the id fixes.
//! Decoding is direction-aware and strict: anything the specification calls
//! malformed is an [`Error`] naming what was wrong, and every frame that is
//! accepted re-encodes to the same bytes.
//!
//! ```
//! use reversi_pdu::{decode, Colour, Direction, Pdu, Square, Squares, Status, UpdateBoard};
//!
//! // A server tells both players that black played d3 and flipped d4.
//! let played = ["d3".parse::<Square>()?, "d4".parse()?];
//! let update = Pdu::UpdateBoard(UpdateBoard {
//!     colour: Colour::Black,
//!     squares: Squares::new(&played)?,
//! });
//! let mut buf = [0u8; reversi_pdu::MAX_PDU_LEN];
//! let len = update.encode(&mut buf)?;
//! assert_eq!(
//!     &buf[..len],
//!     [0x00, 0x10, 0x00, 0x06, 0x00, 0x02, 0x00, 0x00,
//!      0x00, 0x03, 0x00, 0x02, 0x00, 0x03, 0x00, 0x03]
//! );
//!
//! // A client reads it back, in place: the squares are a view of `buf`.
//! match decode(&buf[..len], Direction::ServerToClient)? {
//!     Status::Complete((Pdu::UpdateBoard(update), used)) => {
//!         assert_eq!(used, 16);
//!         assert!(update.squares.iter().eq(played));
//!     }
//!     other => panic!("unexpected {other:?}"),
//! }
//!
//! // Half a header is not an error: wait for more bytes.
//! assert_eq!(decode(&buf[..3], Direction::ServerToClient)?, Status::Partial);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! For a socket, [`FrameBuffer`] accumulates reads without allocating and
//! hands out PDUs one at a time.

#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(test)]
extern crate std;

mod colour;
mod decode;
mod encode;
mod error;
mod frame;
mod id;
mod pdu;
mod square;

/// The README's example, compiled and run by `cargo test` so it cannot go stale.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

pub use colour::{Colour, Winner};
pub use decode::{decode, Status};
pub use error::Error;
pub use frame::FrameBuffer;
pub use id::{Direction, MsgId};
pub use pdu::{Pdu, Squares, SquaresIter, UpdateBoard};
pub use square::{ParseSquareError, Place, Square};

/// Length of the header every PDU starts with: `msg_size` and `id`.
pub const HEADER_LEN: usize = 4;

/// Length of the largest PDU: an update_board with 64 squares.
pub const MAX_PDU_LEN: usize = 264;

/// Most squares one update_board may carry.
pub const MAX_SQUARES: usize = 64;
