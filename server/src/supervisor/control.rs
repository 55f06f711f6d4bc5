//! The supervisor's side of the control socket (`crate::control`): the thin shell that
//! accepts at most [`MAX_CONNECTIONS`] connections, reads each into its machine
//! ([`Conn`]), answers each request line on the loop (the answers are the director's, made
//! at once) and writes the answers out. A connection whose answer waits to be written is
//! not read, so a client that never reads holds at most one answer. A request that needs
//! the store's accounts (`crate::control::accounts`) is done on a thread, which wakes the
//! loop with its answer (the loop's one waker, token `ARCHIVE`); its connection is not read
//! meanwhile.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixListener as StdListener;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Instant;

use log::{debug, info, warn};
use mio::net::{UnixListener, UnixStream};
use mio::{Interest, Token};

use super::{Supervisor, CONTROL};
use crate::control::accounts::{self, Done, Job};
use crate::control::conn::{Conn, Step};
use crate::control::request::{self, Request};
use crate::control::{IDLE, MAX_CONNECTIONS};

/// The listening socket and its connections.
pub(super) struct Control {
    listener: UnixListener,
    slots: Vec<Option<Slot>>,
    /// The serial the next connection gets.
    next_serial: u64,
    /// Answers of the store threads, and the sender each thread is given.
    answers: Receiver<Answered>,
    answer: Sender<Answered>,
}

/// A store thread's answer to connection `slot` (`serial`: that connection, and not a
/// later one in the same slot).
struct Answered {
    slot: usize,
    serial: u64,
    done: Done,
}

/// One connection.
struct Slot {
    stream: UnixStream,
    conn: Conn,
    /// Answers not written yet.
    out: Vec<u8>,
    /// When `out` must have been read by: a client that does not read is closed.
    read_by: Instant,
    /// Close once `out` is written.
    hanging: bool,
    serial: u64,
    /// A store thread is answering its request.
    awaiting: bool,
}

/// Whether poll token `t` is the control socket's (the listener, or a connection's).
pub(super) fn owns(t: usize) -> bool {
    (CONTROL.0..=CONTROL.0 + MAX_CONNECTIONS).contains(&t)
}

impl Control {
    /// When a connection must be looked at again.
    pub fn deadline(&self) -> Option<Instant> {
        self.slots.iter().flatten().filter_map(Slot::deadline).min()
    }
}

impl Slot {
    /// Queues `text`, to be read within [`IDLE`].
    fn send(&mut self, text: &str, now: Instant) {
        if self.out.is_empty() {
            self.read_by = now + IDLE;
        }
        self.out.extend_from_slice(text.as_bytes());
    }

    /// Its silence's end, or while an answer waits, when it must have been read; none
    /// while a store thread answers (the thread ends by itself).
    fn deadline(&self) -> Option<Instant> {
        match (self.awaiting, self.out.is_empty()) {
            (true, _) => None,
            (false, true) => self.conn.deadline(),
            (false, false) => Some(self.read_by),
        }
    }
}

impl Supervisor {
    /// Serves the control socket bound at `path` (`crate::control::socket::bind`).
    pub fn with_control(mut self, listener: StdListener, path: &Path) -> io::Result<Self> {
        listener.set_nonblocking(true)?;
        let mut listener = UnixListener::from_std(listener);
        self.poll
            .registry()
            .register(&mut listener, CONTROL, Interest::READABLE)?;
        info!("control socket {}", path.display());
        let (answer, answers) = mpsc::channel();
        self.control = Some(Control {
            listener,
            slots: (0..MAX_CONNECTIONS).map(|_| None).collect(),
            next_serial: 0,
            answers,
            answer,
        });
        Ok(self)
    }

    /// An event on token `t` ([`owns`]).
    pub(super) fn on_control(&mut self, t: usize) {
        match t - CONTROL.0 {
            0 => self.accept_control(),
            slot => self.serve_control(slot - 1, Instant::now()),
        }
    }

    /// Accepts every waiting connection; past [`MAX_CONNECTIONS`] one is told so and closed.
    fn accept_control(&mut self) {
        let mut opened = Vec::new();
        let Some(control) = &mut self.control else {
            return;
        };
        loop {
            let (mut stream, _) = match control.listener.accept() {
                Ok(accepted) => accepted,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => {
                    warn!("control socket: accept failed: {e}");
                    break;
                }
            };
            let Some(free) = control.slots.iter().position(Option::is_none) else {
                let busy = request::error(&format!(
                    "busy: {MAX_CONNECTIONS} control connections already; try again"
                ));
                let _ = stream.write(busy.as_bytes());
                continue;
            };
            let token = Token(CONTROL.0 + 1 + free);
            let interest = Interest::READABLE | Interest::WRITABLE;
            if let Err(e) = self.poll.registry().register(&mut stream, token, interest) {
                warn!("control socket: cannot watch a connection: {e}");
                continue;
            }
            debug!("control connection {free} opened");
            let now = Instant::now();
            control.next_serial += 1;
            control.slots[free] = Some(Slot {
                stream,
                conn: Conn::new(now),
                out: Vec::new(),
                read_by: now,
                hanging: false,
                serial: control.next_serial,
                awaiting: false,
            });
            opened.push(free);
        }
        for slot in opened {
            self.serve_control(slot, Instant::now());
        }
    }

    /// Writes what waits, reads and answers what came, and closes when it is over.
    fn serve_control(&mut self, slot: usize, now: Instant) {
        loop {
            let Some(s) = self.control_slot(slot) else {
                return;
            };
            if !flush(s) {
                return self.close_control(slot);
            }
            if !s.out.is_empty() {
                return; // WRITABLE comes when it drains.
            }
            if s.awaiting {
                return;
            }
            if s.hanging {
                return self.close_control(slot);
            }
            if !read_into(s) {
                return self.close_control(slot);
            }
            match s.conn.next(now) {
                Some(Step::Ask(line)) => {
                    let answer = self.control_request(slot, &line);
                    if let Some(s) = self.control_slot(slot) {
                        match answer {
                            Some(answer) => s.send(&request::answer(answer), now),
                            None => s.awaiting = true,
                        }
                    }
                }
                Some(Step::Tell(line)) => s.send(&format!("{line}\n"), now),
                Some(Step::Hang(last)) => {
                    if let Some(line) = last {
                        s.send(&format!("{line}\n"), now);
                    }
                    s.hanging = true;
                }
                None => return,
            }
        }
    }

    /// Connections silent too long are told so and closed; those that leave their answer
    /// unread as long are closed.
    pub(super) fn control_timers(&mut self, now: Instant) {
        let Some(control) = &self.control else {
            return;
        };
        let due: Vec<(usize, bool)> = (0..control.slots.len())
            .filter_map(|i| {
                let s = control.slots[i].as_ref()?;
                let unread = !s.out.is_empty() && s.read_by <= now;
                s.deadline()
                    .is_some_and(|d| d <= now)
                    .then_some((i, unread))
            })
            .collect();
        for (slot, unread) in due {
            match unread {
                true => self.close_control(slot),
                false => self.serve_control(slot, now),
            }
        }
    }

    fn control_slot(&mut self, slot: usize) -> Option<&mut Slot> {
        self.control.as_mut()?.slots.get_mut(slot)?.as_mut()
    }

    fn close_control(&mut self, slot: usize) {
        let Some(control) = &mut self.control else {
            return;
        };
        if let Some(mut s) = control.slots[slot].take() {
            let _ = self.poll.registry().deregister(&mut s.stream);
            debug!("control connection {slot} closed");
        }
    }

    /// One request line's answer: its lines, or why not; `None` when a store thread answers
    /// it later.
    fn control_request(&mut self, slot: usize, line: &str) -> Option<Result<Vec<String>, String>> {
        let request = match request::read(line) {
            Ok(request) => request,
            Err(why) => return Some(Err(why)),
        };
        // What changes something is the operator's act, logged; questions are not.
        match request {
            Request::Tournaments | Request::Standings(_) | Request::Export { .. } => {
                debug!("control socket: {line}")
            }
            _ => info!("control socket: {line}"),
        }
        let job = match request {
            Request::CreateAccount(name) => Job::CreateAccount(name),
            Request::Enter { id, account } if self.store.is_some() => {
                let account =
                    reversi_store::Name::new(&account).map_err(|e| format!("{account:?}: {e}"));
                match account {
                    Ok(account) => Job::Enter { id, account },
                    Err(why) => return Some(Err(why)),
                }
            }
            Request::Drain => {
                self.on_drain(crate::signals::Drain::Start);
                return Some(Ok(vec!["draining".into()]));
            }
            Request::Resume => {
                self.on_drain(crate::signals::Drain::Stop);
                return Some(Ok(vec!["taking new games".into()]));
            }
            Request::Upgrade => {
                self.on_upgrade_asked();
                return Some(Ok(vec![
                    "upgrading in place (the log says how it went)".into()
                ]));
            }
            tournament => return Some(self.operator_tournament(tournament)),
        };
        self.control_job(slot, job).err().map(Err)
    }

    /// Starts a store thread on `job` for connection `slot`.
    fn control_job(&mut self, slot: usize, job: Job) -> Result<(), String> {
        let setting = self
            .store
            .clone()
            .ok_or("this server keeps no accounts (--no-store)")?;
        let waker = self
            .waker()
            .map_err(|e| format!("cannot wake the loop: {e}"))?;
        let control = self.control.as_ref().expect("a request came from it");
        let serial = control.slots[slot].as_ref().map_or(0, |s| s.serial);
        let answer = control.answer.clone();
        std::thread::Builder::new()
            .name("control-store".into())
            .spawn(move || {
                let done = match crate::store::open(&setting) {
                    Ok(mut store) => accounts::run(&mut *store, job),
                    Err(e) => Done::Lines(Err(e.to_string())),
                };
                let _ = answer.send(Answered { slot, serial, done });
                let _ = waker.wake();
            })
            .map(drop)
            .map_err(|e| format!("cannot start a thread: {e}"))
    }

    /// The store threads' answers (on the loop's wake): each to its connection, if it is
    /// still there.
    pub(super) fn on_control_answers(&mut self) {
        let Some(control) = &self.control else {
            return;
        };
        let answered: Vec<Answered> = control.answers.try_iter().collect();
        for Answered { slot, serial, done } in answered {
            if self.control_slot(slot).is_none_or(|s| s.serial != serial) {
                continue;
            }
            let answer = match done {
                Done::Lines(answer) => answer,
                Done::Enter { id, account } => account.and_then(|account| {
                    info!("control socket: registering {account} in tournament {id}");
                    self.operator_tournament(Request::Enter { id, account })
                }),
            };
            let now = Instant::now();
            if let Some(s) = self.control_slot(slot) {
                s.awaiting = false;
                s.send(&request::answer(answer), now);
            }
            self.serve_control(slot, now);
        }
    }
}

/// Writes what it can of `s.out`; `false` when the connection is gone.
fn flush(s: &mut Slot) -> bool {
    while !s.out.is_empty() {
        match s.stream.write(&s.out) {
            Ok(0) => return false,
            Ok(n) => drop(s.out.drain(..n)),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    true
}

/// Reads what has come, while the machine wants it; `false` when the connection is gone.
fn read_into(s: &mut Slot) -> bool {
    let mut buf = [0u8; 4096];
    while s.conn.wants_input() {
        match s.stream.read(&mut buf) {
            Ok(0) => s.conn.ended(),
            Ok(n) => s.conn.received(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    true
}
