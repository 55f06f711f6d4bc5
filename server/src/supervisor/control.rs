//! The supervisor's side of the control socket (`crate::control`): the thin shell that
//! accepts at most [`MAX_CONNECTIONS`] connections, reads each into its machine
//! ([`Conn`]), answers each request line on the loop (the answers are the director's, made
//! at once) and writes the answers out. A connection whose answer waits to be written is
//! not read, so a client that never reads holds at most one answer.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixListener as StdListener;
use std::path::Path;
use std::time::Instant;

use log::{debug, info, warn};
use mio::net::{UnixListener, UnixStream};
use mio::{Interest, Token};

use super::{Supervisor, CONTROL};
use crate::control::conn::{Conn, Step};
use crate::control::request::{self, Request};
use crate::control::{IDLE, MAX_CONNECTIONS};

/// The listening socket and its connections.
pub(super) struct Control {
    listener: UnixListener,
    slots: Vec<Option<Slot>>,
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

    /// Its silence's end, or while an answer waits, when it must have been read.
    fn deadline(&self) -> Option<Instant> {
        match self.out.is_empty() {
            true => self.conn.deadline(),
            false => Some(self.read_by),
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
        self.control = Some(Control {
            listener,
            slots: (0..MAX_CONNECTIONS).map(|_| None).collect(),
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
            control.slots[free] = Some(Slot {
                stream,
                conn: Conn::new(now),
                out: Vec::new(),
                read_by: now,
                hanging: false,
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
            if s.hanging {
                return self.close_control(slot);
            }
            if !read_into(s) {
                return self.close_control(slot);
            }
            match s.conn.next(now) {
                Some(Step::Ask(line)) => {
                    let answer = request::answer(self.control_request(&line));
                    if let Some(s) = self.control_slot(slot) {
                        s.send(&answer, now);
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

    /// One request line's answer: its lines, or why not.
    fn control_request(&mut self, line: &str) -> Result<Vec<String>, String> {
        let request = request::read(line)?;
        // What changes something is the operator's act, logged; questions are not.
        match request {
            Request::Tournaments | Request::Standings(_) | Request::Export { .. } => {
                debug!("control socket: {line}")
            }
            _ => info!("control socket: {line}"),
        }
        match request {
            Request::Drain => {
                self.on_drain(crate::signals::Drain::Start);
                Ok(vec!["draining".into()])
            }
            Request::Resume => {
                self.on_drain(crate::signals::Drain::Stop);
                Ok(vec!["taking new games".into()])
            }
            Request::Upgrade => {
                self.on_upgrade_asked();
                Ok(vec!["upgrading in place (the log says how it went)".into()])
            }
            tournament => self.operator_tournament(tournament),
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
