//! A connection of either protocol, as the driver sees it: one reader of
//! the client's events, one writer of its messages.

use std::io;

use reversi_text::ClientMessage;

use super::binary::{self, BinaryReader, BinaryWriter};
use super::text::{self, LineReader, LineWriter};
use crate::text::Event;

/// The wire protocol a connection speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// spec/TEXT-PROTOCOL.md: every game.
    Text,
    /// spec/PROTOCOL.md: Reversi only.
    Binary,
}

/// The sending half of a connection of either protocol.
pub enum Writer {
    Text(LineWriter),
    Binary(BinaryWriter),
}

/// The receiving half of a connection of either protocol.
pub enum Reader {
    Text(LineReader),
    Binary(Box<BinaryReader>),
}

impl Reader {
    /// Another handle on a text connection, to close it from elsewhere.
    pub fn handle(&self) -> Option<std::net::TcpStream> {
        match self {
            Reader::Text(reader) => reader.handle(),
            Reader::Binary(_) => None,
        }
    }

    /// Blocks for the next event; after the last one, EOF for ever.
    pub fn next_event(&mut self) -> Event {
        match self {
            Reader::Text(reader) => reader.next_event(),
            Reader::Binary(reader) => reader.next_event(),
        }
    }
}

/// Opens a connection to `addr` speaking `protocol`; the error is one line
/// naming the address tried.
pub fn open(addr: &str, protocol: Protocol) -> Result<(Reader, Writer), String> {
    Ok(match protocol {
        Protocol::Text => {
            let (reader, writer) = text::open(addr)?;
            (Reader::Text(reader), Writer::Text(writer))
        }
        Protocol::Binary => {
            let (reader, writer) = binary::open(addr)?;
            (Reader::Binary(Box::new(reader)), Writer::Binary(writer))
        }
    })
}

impl Writer {
    /// Sends `message`; returns the events it is answered with at once,
    /// without the server (the binary transport refusing an illegal move).
    pub fn send(&mut self, message: &ClientMessage) -> io::Result<Vec<Event>> {
        match self {
            Writer::Text(writer) => writer.send(message).map(|()| Vec::new()),
            Writer::Binary(writer) => writer.send(message),
        }
    }

    /// Sends one line the codec does not hold (the identity line; text only,
    /// since the binary protocol has no names).
    pub fn send_line(&mut self, line: &str) -> io::Result<()> {
        match self {
            Writer::Text(writer) => writer.send_line(line),
            Writer::Binary(_) => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "the binary protocol has no names",
            )),
        }
    }

    /// Closes both directions; a reader blocked on the connection wakes up with EOF.
    pub fn close(&self) {
        match self {
            Writer::Text(writer) => writer.close(),
            Writer::Binary(writer) => writer.close(),
        }
    }
}
