//! Runs the state machine on a real connection: feeds it events and carries
//! out its actions. The user interface (play, bot) supplies the events it
//! reads and decides what to do with the notices.

use std::collections::VecDeque;

use crate::connection::{self, Reader, Writer};
use crate::state::{Action, Event, Notice, State};

/// One client: the machine's state and the connection it drives.
pub struct Driver {
    addr: String,
    state: State,
    writer: Option<Writer>,
    reader: Option<Reader>,
}

impl Driver {
    /// A disconnected client for the server at `addr`.
    pub fn new(addr: &str) -> Driver {
        Driver {
            addr: addr.to_string(),
            state: State::Disconnected,
            writer: None,
            reader: None,
        }
    }

    /// The machine's current state.
    pub fn state(&self) -> &State {
        &self.state
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
            log::trace!("{} + {event:?}", self.state.name());
            let state = std::mem::replace(&mut self.state, State::Disconnected);
            let (next, actions) = state.step(event);
            self.state = next;
            for action in actions {
                match action {
                    Action::Open => events.push_back(Event::Opened(self.open())),
                    Action::Send(out) => {
                        let sent = match &mut self.writer {
                            Some(writer) => writer.send(out),
                            None => Err(std::io::ErrorKind::NotConnected.into()),
                        };
                        if let Err(err) = sent {
                            // A failed write is EOF of the connection (§9.2 note).
                            log::debug!("sending {out:?} failed: {err}");
                            events.push_back(Event::Eof);
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
        let (reader, writer) = connection::open(&self.addr)?;
        self.reader = Some(reader);
        self.writer = Some(writer);
        Ok(())
    }
}
