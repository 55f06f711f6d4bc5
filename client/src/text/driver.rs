//! The text-protocol [`Client`] on a TCP connection: the generic
//! [`Runner`] with the line codec's reader and writer.

use super::client::{Client, Event, Notice};
use super::connection::{LineReader, LineWriter};
use crate::driver::{Link, Machine, Runner, Source, Step};
use reversi_text::ClientMessage;

/// A text-protocol client and its connection.
pub type Driver = Runner<Client, LineWriter>;

impl Driver {
    /// A disconnected client for the server at `addr`.
    pub fn new(addr: &str) -> Driver {
        Runner::with(addr, Client::new())
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

impl Link for LineWriter {
    type Message = ClientMessage;
    type Source = LineReader;

    fn open(addr: &str) -> Result<(LineReader, LineWriter), String> {
        super::connection::open(addr)
    }

    fn send(&mut self, message: &ClientMessage) -> std::io::Result<()> {
        LineWriter::send(self, message)
    }

    fn close(&self) {
        LineWriter::close(self)
    }
}

impl Source for LineReader {
    type Event = Event;
    fn next_event(&mut self) -> Event {
        LineReader::next_event(self)
    }
}
