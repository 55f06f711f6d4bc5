//! Runs the client ([`Client`]) on a real connection of either protocol:
//! feeds it events and carries out its [`Action`]s. The user interface
//! (play, bot, watch) supplies the events it reads and decides what to do
//! with the notices.
//!
//! A person's driver ([`Driver::checking_moves`]) also keeps the game by its
//! rules ([`Follower`]) and refuses a move they forbid before it is sent:
//! the server's rule is that an illegal move loses, and a person's client,
//! which knows the rules, must not send one it knows is illegal. Bots and
//! raw protocol clients are not checked.

use std::collections::VecDeque;
use std::time::Instant;

use super::link::{open, Protocol, Reader, Writer};
use crate::follow::Follower;
use crate::text::{Action, Client, Event, Notice, Request};

/// The client and its connection.
pub struct Driver {
    addr: String,
    protocol: Protocol,
    client: Client,
    writer: Option<Writer>,
    reader: Option<Reader>,
    /// Check a person's moves on the rules' copy of the game.
    checks_moves: bool,
    /// The rules' copy of the game being played, where it can be kept.
    rules: Option<Follower>,
    /// When to feed [`Event::Redial`]: the connection was lost mid-game.
    redial_at: Option<Instant>,
    /// Takes each connection's reader as it opens (a reader thread's spawner);
    /// without one, [`Driver::next_event`] reads in place.
    reader_sink: Option<Box<dyn FnMut(Reader) + Send>>,
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
            checks_moves: false,
            rules: None,
            redial_at: None,
            reader_sink: None,
        }
    }

    /// The same driver, refusing here the moves the game's rules forbid.
    /// The binary transport already does so itself (and lists the legal
    /// moves), so only the text protocol's moves are checked here.
    pub fn checking_moves(mut self) -> Driver {
        self.checks_moves = self.protocol == Protocol::Text;
        self
    }

    /// The same driver, saying who it is on each text connection (`--name`,
    /// `--token`); binary Reversi connections stay anonymous (its bytes have no name).
    pub fn identified(mut self, identity: Option<crate::text::Identity>) -> Driver {
        if self.protocol == Protocol::Text {
            self.client = Client::new().with_identity(identity);
        }
        self
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Takes the receiving half of the connection just opened, for a reader
    /// thread; without it, [`Driver::next_event`] reads in place.
    pub fn take_reader(&mut self) -> Option<Reader> {
        self.reader.take()
    }

    /// Hands every later connection's reader to `sink` (after a reconnection).
    pub fn on_reader(&mut self, sink: Box<dyn FnMut(Reader) + Send>) {
        self.reader_sink = Some(sink);
    }

    /// Another handle on the open text connection (read in place), to close it from
    /// another thread: the blocked [`Driver::next_event`] then reads EOF.
    pub fn connection_handle(&self) -> Option<std::net::TcpStream> {
        self.reader.as_ref()?.handle()
    }

    /// When [`Event::Redial`] is due, if a reconnection waits.
    pub fn redial_due(&self) -> Option<Instant> {
        self.redial_at
    }

    /// Blocks for the next event of the connection (EOF if there is none; the
    /// reconnection's [`Event::Redial`] once due, while one waits).
    pub fn next_event(&mut self) -> Event {
        match (&mut self.reader, self.redial_at) {
            (Some(reader), _) => reader.next_event(),
            (None, Some(due)) => {
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
                Event::Redial
            }
            (None, None) => Event::Eof,
        }
    }

    /// Feeds `event` and carries out every action it leads to, handing each
    /// notice to `show`. Returns the exit code if the connection finished.
    pub fn handle(&mut self, event: Event, show: &mut dyn FnMut(&Notice)) -> Option<u8> {
        let mut events = VecDeque::from([event]);
        let mut exit = None;
        while let Some(event) = events.pop_front() {
            if event == Event::Redial {
                self.redial_at = None;
            }
            let event = self.checked(event);
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
                    Action::Identify(identity) => {
                        let sent = match &mut self.writer {
                            Some(writer) => writer.send_line(&identity.line()),
                            None => Err(std::io::ErrorKind::NotConnected.into()),
                        };
                        if let Err(err) = sent {
                            log::debug!("saying who this client is failed: {err}");
                            events.push_back(Event::Eof);
                        }
                    }
                    Action::SendLine(line) => {
                        let sent = match &mut self.writer {
                            Some(writer) => writer.send_line(&line),
                            None => Err(std::io::ErrorKind::NotConnected.into()),
                        };
                        if let Err(err) = sent {
                            log::debug!("sending {line} failed: {err}");
                            events.push_back(Event::Eof);
                        }
                    }
                    Action::Close => {
                        if let Some(writer) = self.writer.take() {
                            writer.close();
                        }
                        self.reader = None;
                    }
                    Action::Show(notice) => {
                        self.keep_rules(&notice);
                        show(&notice);
                    }
                    Action::Exit(code) => exit = Some(code),
                    Action::Redial(wait) => self.redial_at = Some(Instant::now() + wait),
                }
            }
        }
        exit
    }

    /// A person's move the rules forbid becomes a refusal with the reason.
    /// Only a move the server waits for is checked: the client refuses the
    /// others itself.
    fn checked(&mut self, event: Event) -> Event {
        let Event::User(request @ (Request::Move(_) | Request::Notation(_))) = &event else {
            return event;
        };
        let (Some(game), Some(rules)) = (self.client.game(), &self.rules) else {
            return event;
        };
        let Some(team) = game.team().filter(|_| self.client.may_move()) else {
            return event;
        };
        if let Some(why) = rules.differs_from(game) {
            log::info!("{why}; moves are sent unchecked");
            self.rules = None;
            return event;
        }
        match rules.check(team, request) {
            Ok(()) => event,
            Err(why) => Event::Refused(format!("illegal move: {why}")),
        }
    }

    /// Keeps the rules' copy in step with the game the notices tell of.
    fn keep_rules(&mut self, notice: &Notice) {
        if !self.checks_moves {
            return;
        }
        match notice {
            Notice::Started => {
                self.rules = self.client.game().and_then(|g| Follower::of(&g.game));
            }
            Notice::Moved { team, notation } | Notice::Replayed { team, notation } => {
                if let Some(Err(why)) = self.rules.as_mut().map(|r| r.follow(*team, notation)) {
                    log::info!("{why}; moves are sent unchecked");
                    self.rules = None;
                }
            }
            Notice::News(text) => {
                if let Some(rules) = self.rules.as_mut() {
                    rules.follow_news(text);
                }
            }
            _ => {}
        }
    }

    fn open(&mut self) -> Result<(), String> {
        let (reader, writer) = open(&self.addr, self.protocol)?;
        match &mut self.reader_sink {
            Some(sink) => sink(reader),
            None => self.reader = Some(reader),
        }
        self.writer = Some(writer);
        Ok(())
    }
}
