//! Runs a protocol machine on a real connection: feeds it events and
//! carries out its actions. Both protocols' machines ([`crate::state`],
//! [`crate::text`]) ask for the same five things, so one driver runs
//! either; the user interface (play, bot, watch) supplies the events it
//! reads and decides what to do with the notices.

use std::collections::VecDeque;

use crate::connection::{Reader, Writer};
use crate::state::{Event, Notice, State};

/// What a protocol machine asks its driver to do, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step<Message, Notice> {
    /// Open the connection, then feed the machine's "opened" event back.
    Open,
    /// Send a message.
    Send(Message),
    /// Close the connection.
    Close,
    /// Tell the user something.
    Show(Notice),
    /// This connection is finished: a one-game client ends with this code.
    Exit(u8),
}

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
    /// Opens a connection to `addr`; the error is one line.
    fn open(addr: &str) -> Result<(Self::Source, Self), String>;
    fn send(&mut self, message: &Self::Message) -> std::io::Result<()>;
    /// Closes both directions; a reader blocked on the connection wakes up with EOF.
    fn close(&self);
}

/// The receiving half of a connection.
pub trait Source {
    type Event;
    /// Blocks for the next event; after the last one, EOF for ever.
    fn next_event(&mut self) -> Self::Event;
}

/// A machine and the connection it drives.
pub struct Runner<M, L: Link> {
    addr: String,
    machine: M,
    link: Option<L>,
    source: Option<L::Source>,
}

/// The binary protocol's client on a TCP connection.
pub type Driver = Runner<State, Writer>;

impl<M, L> Runner<M, L>
where
    M: Machine,
    L: Link<Message = M::Message>,
    L::Source: Source<Event = M::Event>,
{
    /// A machine, disconnected, for the server at `addr`.
    pub fn with(addr: &str, machine: M) -> Runner<M, L> {
        Runner {
            addr: addr.to_owned(),
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
                        if let Err(err) = sent {
                            // A failed write is EOF of the connection (§9.2 note).
                            log::debug!("sending {message:?} failed: {err}");
                            events.push_back(M::eof());
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
        let (source, link) = L::open(&self.addr)?;
        self.source = Some(source);
        self.link = Some(link);
        Ok(())
    }
}

impl Driver {
    /// A disconnected client for the server at `addr`.
    pub fn new(addr: &str) -> Driver {
        Runner::with(addr, State::Disconnected)
    }

    /// The machine's current state.
    pub fn state(&self) -> &State {
        self.machine()
    }
}

impl Machine for State {
    type Event = Event;
    type Message = crate::state::Outgoing;
    type Notice = Notice;

    fn feed(&mut self, event: Event) -> Vec<crate::state::Action> {
        log::trace!("{} + {event:?}", self.name());
        let state = std::mem::replace(self, State::Disconnected);
        let (next, actions) = state.step(event);
        *self = next;
        actions
    }

    fn opened(result: Result<(), String>) -> Event {
        Event::Opened(result)
    }

    fn eof() -> Event {
        Event::Eof
    }
}

impl Source for Reader {
    type Event = Event;
    fn next_event(&mut self) -> Event {
        Reader::next_event(self)
    }
}
