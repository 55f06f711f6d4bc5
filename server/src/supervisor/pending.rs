//! Connections the supervisor holds before they are handed to a session:
//! in handshake, queued for an opponent, or closing after a refusal.
//!
//! Stored in a slab (index = mio token); the pairing queue and the two timer
//! lists refer to slots by index and serial, and skip entries whose slot was
//! freed or reused since ("lazy deletion"). Both timeouts are fixed durations,
//! so each timer list is in deadline order by construction.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crate::outbox::Outbox;

/// How long a refused connection is drained before it is closed (spec §12).
pub const LINGER: Duration = Duration::from_secs(1);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Accepted; no complete handshake yet.
    Handshake,
    /// Handshake done; waiting for an opponent.
    Queued,
    /// Refused: flushing what was queued for it, then discarding input until EOF or LINGER.
    Closing,
}

pub struct Conn {
    pub stream: mio::net::TcpStream,
    pub peer: SocketAddr,
    pub state: State,
    serial: u64,
    /// Bytes received and not yet consumed by the handshake.
    pub input: Vec<u8>,
    pub out: Outbox,
    /// Our sending side is shut down (Closing only).
    pub write_shut: bool,
    /// Bytes read and thrown away since the refusal (Closing only).
    pub discarded: usize,
}

type Stamp = (usize, u64);

/// Stale queue entries tolerated before a sweep, beyond one per live entry.
const STALE_SLACK: usize = 64;

/// Whether `stamp` still names the connection it was taken from, in `state`.
fn is_live(slots: &[Option<Conn>], (index, serial): Stamp, state: State) -> bool {
    slots
        .get(index)
        .and_then(Option::as_ref)
        .is_some_and(|c| c.serial == serial && c.state == state)
}

#[derive(Default)]
pub struct Pending {
    slots: Vec<Option<Conn>>,
    free: Vec<usize>,
    next_serial: u64,
    /// Connections in Handshake or Queued: what the pending limit counts.
    waiting: usize,
    closing: usize,
    queue: VecDeque<Stamp>,
    queued: usize,
    handshake_timers: VecDeque<(Instant, Stamp)>,
    closing_timers: VecDeque<(Instant, Stamp)>,
}

impl Pending {
    /// Handshake plus queued connections.
    pub fn waiting(&self) -> usize {
        self.waiting
    }

    pub fn closing(&self) -> usize {
        self.closing
    }

    pub fn is_empty(&self) -> bool {
        self.waiting == 0 && self.closing == 0
    }

    pub fn queued(&self) -> usize {
        self.queued
    }

    fn stamp(&self, index: usize) -> Option<Stamp> {
        self.get(index).map(|c| (index, c.serial))
    }

    fn live(&self, stamp: Stamp, state: State) -> bool {
        is_live(&self.slots, stamp, state)
    }

    /// One queued connection fewer. Stale queue entries are normally dropped at the front;
    /// while the front keeps waiting (at the session cap), clients that come and go would
    /// pile up behind it for ever, so the whole queue is swept once they outnumber the rest.
    fn left_queue(&mut self) {
        self.queued -= 1;
        if self.queue.len() > 2 * self.queued + STALE_SLACK {
            let slots = &self.slots;
            self.queue
                .retain(|&stamp| is_live(slots, stamp, State::Queued));
        }
    }

    /// Adds a freshly accepted connection in Handshake; returns its index.
    pub fn insert(
        &mut self,
        stream: mio::net::TcpStream,
        peer: SocketAddr,
        deadline: Instant,
    ) -> usize {
        self.next_serial += 1;
        let conn = Conn {
            stream,
            peer,
            state: State::Handshake,
            serial: self.next_serial,
            input: Vec::new(),
            out: Outbox::new(),
            write_shut: false,
            discarded: 0,
        };
        let index = match self.free.pop() {
            Some(i) => {
                self.slots[i] = Some(conn);
                i
            }
            None => {
                self.slots.push(Some(conn));
                self.slots.len() - 1
            }
        };
        self.waiting += 1;
        self.handshake_timers
            .push_back((deadline, (index, self.next_serial)));
        index
    }

    pub fn get(&self, index: usize) -> Option<&Conn> {
        self.slots.get(index).and_then(Option::as_ref)
    }

    pub fn get_mut(&mut self, index: usize) -> Option<&mut Conn> {
        self.slots.get_mut(index).and_then(Option::as_mut)
    }

    /// Every index in use.
    pub fn indices(&self) -> Vec<usize> {
        (0..self.slots.len())
            .filter(|&i| self.slots[i].is_some())
            .collect()
    }

    /// Handshake to Queued, at the back of the queue.
    pub fn enqueue(&mut self, index: usize) {
        let Some(stamp) = self.stamp(index) else {
            return;
        };
        if let Some(conn) = self.get_mut(index) {
            debug_assert_eq!(conn.state, State::Handshake);
            conn.state = State::Queued;
            self.queue.push_back(stamp);
            self.queued += 1;
        }
    }

    /// Moves a Handshake or Queued connection to Closing, with `farewell` to send first.
    pub fn start_closing(&mut self, index: usize, farewell: &[u8], deadline: Instant) {
        let Some(stamp) = self.stamp(index) else {
            return;
        };
        let Some(conn) = self.get_mut(index) else {
            return;
        };
        let was = conn.state;
        if was == State::Closing {
            return;
        }
        conn.state = State::Closing;
        conn.input = Vec::new();
        conn.out.push(farewell);
        if was == State::Queued {
            self.left_queue();
        }
        self.waiting -= 1;
        self.closing += 1;
        self.closing_timers.push_back((deadline, stamp));
    }

    /// Frees the slot and returns the connection (the caller deregisters it).
    pub fn remove(&mut self, index: usize) -> Option<Conn> {
        let conn = self.slots.get_mut(index)?.take()?;
        self.free.push(index);
        match conn.state {
            State::Handshake => self.waiting -= 1,
            State::Queued => {
                self.waiting -= 1;
                self.left_queue();
            }
            State::Closing => self.closing -= 1,
        }
        Some(conn)
    }

    fn drop_stale_front(&mut self) {
        while let Some(&stamp) = self.queue.front() {
            if self.live(stamp, State::Queued) {
                break;
            }
            self.queue.pop_front();
        }
    }

    /// The indices of the two connections that have waited longest, oldest first.
    pub fn front_pair(&mut self) -> Option<[usize; 2]> {
        if self.queued < 2 {
            return None;
        }
        self.drop_stale_front();
        let mut live = self
            .queue
            .iter()
            .filter(|&&stamp| self.live(stamp, State::Queued))
            .map(|&(index, _)| index);
        Some([live.next()?, live.next()?])
    }

    /// Removes and returns the two connections that have waited longest, oldest first.
    pub fn pop_pair(&mut self) -> Option<[Conn; 2]> {
        if self.queued < 2 {
            return None;
        }
        self.drop_stale_front();
        let (first, _) = self.queue.pop_front()?;
        self.drop_stale_front();
        let (second, _) = self.queue.pop_front()?;
        let a = self.remove(first)?;
        let b = self.remove(second)?;
        Some([a, b])
    }

    /// Indices whose handshake deadline has passed (still in Handshake).
    pub fn expired_handshakes(&mut self, now: Instant) -> Vec<usize> {
        Self::expired(&mut self.handshake_timers, now)
            .into_iter()
            .filter(|&s| self.live(s, State::Handshake))
            .map(|(i, _)| i)
            .collect()
    }

    /// Indices whose linger after a refusal has run out.
    pub fn expired_closings(&mut self, now: Instant) -> Vec<usize> {
        Self::expired(&mut self.closing_timers, now)
            .into_iter()
            .filter(|&s| self.live(s, State::Closing))
            .map(|(i, _)| i)
            .collect()
    }

    fn expired(timers: &mut VecDeque<(Instant, Stamp)>, now: Instant) -> Vec<Stamp> {
        let mut out = Vec::new();
        while let Some(&(deadline, stamp)) = timers.front() {
            if deadline > now {
                break;
            }
            timers.pop_front();
            out.push(stamp);
        }
        out
    }

    /// The earliest timer, possibly of a connection that is gone (waking early is harmless).
    pub fn next_deadline(&mut self) -> Option<Instant> {
        while let Some(&(_, s)) = self.handshake_timers.front() {
            if self.live(s, State::Handshake) {
                break;
            }
            self.handshake_timers.pop_front();
        }
        while let Some(&(_, s)) = self.closing_timers.front() {
            if self.live(s, State::Closing) {
                break;
            }
            self.closing_timers.pop_front();
        }
        let a = self.handshake_timers.front().map(|t| t.0);
        let b = self.closing_timers.front().map(|t| t.0);
        a.into_iter().chain(b).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` accepted loopback connections (the client ends are returned too, to keep them open).
    fn conns(
        n: usize,
    ) -> (
        Vec<(mio::net::TcpStream, SocketAddr)>,
        Vec<std::net::TcpStream>,
    ) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let clients: Vec<_> = (0..n)
            .map(|_| std::net::TcpStream::connect(addr).unwrap())
            .collect();
        let served = (0..n)
            .map(|_| {
                let (s, peer) = listener.accept().unwrap();
                s.set_nonblocking(true).unwrap();
                (mio::net::TcpStream::from_std(s), peer)
            })
            .collect();
        (served, clients)
    }

    #[test]
    fn pairs_come_out_oldest_first_skipping_those_that_left() {
        let (served, _clients) = conns(5);
        let now = Instant::now();
        let mut p = Pending::default();
        let peers: Vec<SocketAddr> = served.iter().map(|(_, peer)| *peer).collect();
        let ids: Vec<usize> = served
            .into_iter()
            .map(|(s, peer)| p.insert(s, peer, now))
            .collect();
        assert_eq!(p.waiting(), 5);
        for &i in &ids {
            p.enqueue(i);
        }
        assert_eq!(p.queued(), 5);
        // The oldest leaves; the second is refused.
        p.remove(ids[0]);
        p.start_closing(ids[1], b"bye", now + LINGER);
        assert_eq!((p.waiting(), p.queued(), p.closing()), (3, 3, 1));
        assert_eq!(p.front_pair(), Some([ids[2], ids[3]]));
        let [a, b] = p.pop_pair().unwrap();
        assert_eq!([a.peer, b.peer], [peers[2], peers[3]]);
        assert_eq!(p.queued(), 1);
        assert!(p.pop_pair().is_none());
        // A reused slot does not revive the stale queue entries that pointed at it.
        let (more, _more_clients) = conns(1);
        let (s, peer) = more.into_iter().next().unwrap();
        let fresh = p.insert(s, peer, now);
        assert!(ids[..4].contains(&fresh));
        assert!(p.pop_pair().is_none());
        p.enqueue(fresh);
        let [a, b] = p.pop_pair().unwrap();
        assert_eq!([a.peer, b.peer], [peers[4], peer]);
    }

    #[test]
    fn clients_leaving_behind_a_waiting_front_do_not_pile_up_in_the_queue() {
        let now = Instant::now();
        let mut p = Pending::default();
        let (served, _clients) = conns(1);
        let mut keep = Vec::new();
        for (s, peer) in served {
            let front = p.insert(s, peer, now);
            p.enqueue(front);
        }
        for _ in 0..10 {
            let (served, clients) = conns(50);
            keep.push(clients);
            for (s, peer) in served {
                let i = p.insert(s, peer, now);
                p.enqueue(i);
                p.remove(i);
            }
        }
        assert_eq!(p.queued(), 1);
        assert!(
            p.queue.len() <= 2 + STALE_SLACK,
            "{} entries",
            p.queue.len()
        );
    }

    #[test]
    fn timers_expire_in_order_and_ignore_connections_that_moved_on() {
        let (served, _clients) = conns(3);
        let t0 = Instant::now();
        let mut p = Pending::default();
        let ids: Vec<usize> = served
            .into_iter()
            .enumerate()
            .map(|(k, (s, peer))| p.insert(s, peer, t0 + Duration::from_secs(k as u64 + 1)))
            .collect();
        p.enqueue(ids[0]);
        assert_eq!(p.next_deadline(), Some(t0 + Duration::from_secs(2)));
        assert_eq!(
            p.expired_handshakes(t0 + Duration::from_secs(2)),
            vec![ids[1]]
        );
        p.start_closing(ids[2], b"", t0 + Duration::from_secs(5));
        assert_eq!(p.next_deadline(), Some(t0 + Duration::from_secs(5)));
        assert!(p.expired_handshakes(t0 + Duration::from_secs(9)).is_empty());
        assert_eq!(
            p.expired_closings(t0 + Duration::from_secs(9)),
            vec![ids[2]]
        );
    }
}
