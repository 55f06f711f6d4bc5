//! Runs a protocol machine on a real connection: feeds it events and
//! carries out its actions ([`Step`]) over a connection of any transport
//! (text, binary); the user interface (play, bot, watch) supplies the events it
//! reads and decides what to do with the notices.

use std::collections::VecDeque;

pub use crate::step::Step;

/// A protocol client as a state machine.
pub trait Machine {
    type Event;
    type Message: std::fmt::Debug;
    type Notice;
    /// Feeds one event; returns what to do.
    fn feed(&mut self, event: Self::Event) -> Vec<Step<Self::Message, Self::Notice>>;
    /// The event that reports opening the connection.
    fn opened(result: Result<(), String>) -> Self::Event;
    /// The event of a connection that reached its end (or failed).
    fn eof() -> Self::Event;
}

/// The sending half of a connection.
pub trait Link: Sized {
    type Message;
    /// The receiving half.
    type Source: Source;
    /// Sends `message`; returns the events it is answered with at once,
    /// without the server (a transport that refuses a move itself).
    fn send(
        &mut self,
        message: &Self::Message,
    ) -> std::io::Result<Vec<<Self::Source as Source>::Event>>;
    /// Closes both directions; a reader blocked on the connection wakes up with EOF.
    fn close(&self);
}

/// The receiving half of a connection.
pub trait Source {
    type Event;
    /// Blocks for the next event; after the last one, EOF for ever.
    fn next_event(&mut self) -> Self::Event;
}

/// Opens a connection to an address; the error is one line.
pub type Opener<L> = fn(&str) -> Result<(<L as Link>::Source, L), String>;

/// A machine and the connection it drives.
pub struct Runner<M, L: Link> {
    addr: String,
    opener: Opener<L>,
    machine: M,
    link: Option<L>,
    source: Option<L::Source>,
}

impl<M, L> Runner<M, L>
where
    M: Machine,
    L: Link<Message = M::Message>,
    L::Source: Source<Event = M::Event>,
{
    /// A machine, disconnected, for the server at `addr`, reached with `opener`.
    pub fn with(addr: &str, machine: M, opener: Opener<L>) -> Runner<M, L> {
        Runner {
            addr: addr.to_owned(),
            opener,
            machine,
            link: None,
            source: None,
        }
    }

    pub fn machine(&self) -> &M {
        &self.machine
    }

    /// Takes the receiving half of the connection just opened, for a reader
    /// thread; without it, [`Runner::next_event`] reads in place.
    pub fn take_reader(&mut self) -> Option<L::Source> {
        self.source.take()
    }

    /// Blocks for the next event of the connection (EOF if there is none).
    pub fn next_event(&mut self) -> M::Event {
        match &mut self.source {
            Some(source) => source.next_event(),
            None => M::eof(),
        }
    }

    /// Feeds `event` and carries out every action it leads to, handing each
    /// notice to `show`. Returns the exit code if the connection finished.
    pub fn handle(&mut self, event: M::Event, show: &mut dyn FnMut(&M::Notice)) -> Option<u8> {
        let mut events = VecDeque::from([event]);
        let mut exit = None;
        while let Some(event) = events.pop_front() {
            for step in self.machine.feed(event) {
                match step {
                    Step::Open => events.push_back(M::opened(self.open())),
                    Step::Send(message) => {
                        let sent = match &mut self.link {
                            Some(link) => link.send(&message),
                            None => Err(std::io::ErrorKind::NotConnected.into()),
                        };
                        match sent {
                            Ok(answers) => events.extend(answers),
                            Err(err) => {
                                // A failed write is EOF of the connection (§9.2 note).
                                log::debug!("sending {message:?} failed: {err}");
                                events.push_back(M::eof());
                            }
                        }
                    }
                    Step::Close => {
                        if let Some(link) = self.link.take() {
                            link.close();
                        }
                        self.source = None;
                    }
                    Step::Show(notice) => show(&notice),
                    Step::Exit(code) => exit = Some(code),
                }
            }
        }
        exit
    }

    fn open(&mut self) -> Result<(), String> {
        let (source, link) = (self.opener)(&self.addr)?;
        self.source = Some(source);
        self.link = Some(link);
        Ok(())
    }
}
