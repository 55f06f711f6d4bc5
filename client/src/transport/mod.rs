//! How the game-independent client ([`crate::text::Client`]) reaches a
//! server: the text protocol over TCP, or the binary Reversi protocol over
//! TCP translated to and from the same messages ([`translate`]). Whichever
//! it is, the client, the screen, the line mode and the bot driver are the
//! same.

mod binary;
pub mod pdus;
pub mod translate;

use std::io;

use reversi_text::ClientMessage;

use crate::driver::{Link, Machine, Runner, Source, Step};
use crate::text::{self, Client, Event, LineReader, LineWriter, Notice};
pub use binary::{BinaryReader, BinaryWriter};

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
    /// Blocks for the next event; after the last one, EOF for ever.
    pub fn next_event(&mut self) -> Event {
        match self {
            Reader::Text(reader) => reader.next_event(),
            Reader::Binary(reader) => reader.next_event(),
        }
    }
}

fn open_text(addr: &str) -> Result<(Reader, Writer), String> {
    let (reader, writer) = text::open(addr)?;
    Ok((Reader::Text(reader), Writer::Text(writer)))
}

fn open_binary(addr: &str) -> Result<(Reader, Writer), String> {
    let (reader, writer) = binary::open(addr)?;
    Ok((Reader::Binary(Box::new(reader)), Writer::Binary(writer)))
}

/// The game-independent client and its connection.
pub type Driver = Runner<Client, Writer>;

impl Driver {
    /// A disconnected client for the server at `addr`, over `protocol`.
    pub fn new(addr: &str, protocol: Protocol) -> Driver {
        let opener = match protocol {
            Protocol::Text => open_text,
            Protocol::Binary => open_binary,
        };
        Runner::with(addr, Client::new(), opener)
    }

    pub fn client(&self) -> &Client {
        self.machine()
    }
}

impl Machine for Client {
    type Event = Event;
    type Message = ClientMessage;
    type Notice = Notice;

    fn feed(&mut self, event: Event) -> Vec<Step<ClientMessage, Notice>> {
        self.handle(event)
    }

    fn opened(result: Result<(), String>) -> Event {
        Event::Opened(result)
    }

    fn eof() -> Event {
        Event::Eof
    }
}

impl Link for Writer {
    type Message = ClientMessage;
    type Source = Reader;

    fn send(&mut self, message: &ClientMessage) -> io::Result<Vec<Event>> {
        match self {
            Writer::Text(writer) => writer.send(message).map(|()| Vec::new()),
            Writer::Binary(writer) => writer.send(message),
        }
    }

    fn close(&self) {
        match self {
            Writer::Text(writer) => writer.close(),
            Writer::Binary(writer) => writer.close(),
        }
    }
}

impl Source for Reader {
    type Event = Event;
    fn next_event(&mut self) -> Event {
        Reader::next_event(self)
    }
}
