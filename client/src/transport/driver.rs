//! Runs the client ([`Client`]) on a real connection of either protocol:
//! feeds it events and carries out its [`Action`]s. The user interface
//! (play, bot, watch) supplies the events it reads and decides what to do
//! with the notices.

use std::collections::VecDeque;

use super::link::{open, Protocol, Reader, Writer};
use crate::text::{Action, Client, Event, Notice};

/// The client and its connection.
pub struct Driver {
    addr: String,
    protocol: Protocol,
    client: Client,
    writer: Option<Writer>,
    reader: Option<Reader>,
}

impl Driver {
    /// A disconnected client for the server at `addr`, over `protocol`.
    pub fn new(addr: &str, protocol: Protocol) -> Driver {
        Driver {
            addr: addr.to_owned(),
            protocol,
            client: Client::new(),
            writer: None,
            reader: None,
        }
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Takes the receiving half of the connection just opened, for a reader
    /// thread; without it, [`Driver::next_event`] reads in place.
    pub fn take_reader(&mut self) -> Option<Reader> {
        self.reader.take()
    }

    /// Blocks for the next event of the connection (EOF if there is none).
    pub fn next_event(&mut self) -> Event {
        match &mut self.reader {
            Some(reader) => reader.next_event(),
            None => Event::Eof,
        }
    }

    /// Feeds `event` and carries out every action it leads to, handing each
    /// notice to `show`. Returns the exit code if the connection finished.
    pub fn handle(&mut self, event: Event, show: &mut dyn FnMut(&Notice)) -> Option<u8> {
        let mut events = VecDeque::from([event]);
        let mut exit = None;
        while let Some(event) = events.pop_front() {
            for action in self.client.handle(event) {
                match action {
                    Action::Open => events.push_back(Event::Opened(self.open())),
                    Action::Send(message) => {
                        let sent = match &mut self.writer {
                            Some(writer) => writer.send(&message),
                            None => Err(std::io::ErrorKind::NotConnected.into()),
                        };
                        match sent {
                            Ok(answers) => events.extend(answers),
                            Err(err) => {
                                // A failed write is the connection's end.
                                log::debug!("sending {message} failed: {err}");
                                events.push_back(Event::Eof);
                            }
                        }
                    }
                    Action::Close => {
                        if let Some(writer) = self.writer.take() {
                            writer.close();
                        }
                        self.reader = None;
                    }
                    Action::Show(notice) => show(&notice),
                    Action::Exit(code) => exit = Some(code),
                }
            }
        }
        exit
    }

    fn open(&mut self) -> Result<(), String> {
        let (reader, writer) = open(&self.addr, self.protocol)?;
        self.reader = Some(reader);
        self.writer = Some(writer);
        Ok(())
    }
}
