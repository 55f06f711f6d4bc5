//! How the game-independent client ([`crate::text::Client`]) reaches a
//! server: the text protocol over TCP, or the binary Reversi protocol over
//! TCP translated to and from the same messages ([`translate`]). Whichever
//! it is, the client, the screen, the line mode and the bot driver are the
//! same.

mod binary;
mod driver;
mod link;
pub mod pdus;
mod text;
pub mod tls;
pub mod translate;

pub use binary::{BinaryReader, BinaryWriter};
pub use driver::Driver;
pub use link::{open, Protocol, Reader, Writer};
pub use text::{LineReader, LineWriter};
