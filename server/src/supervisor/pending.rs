//! Connections the supervisor holds before they are handed to a session:
//! in handshake, queued for an opponent, or closing after a refusal.
//!
//! Stored in a slab (index = mio token); the pairing queue and the two timer
//! lists refer to slots by index and serial, and skip entries whose slot was
//! freed or reused since ("lazy deletion"). Both timeouts are fixed durations,
//! so each timer list is in deadline order by construction.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use reversi_games::registry::Module;

use super::addresses::{Host, Network};
use super::identity::Identity;
use super::origin::Origin;
use crate::outbox::Outbox;
use crate::protocols::WireKind;

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
    /// The client's address: the TCP peer's, or the one its proxy's header gave.
    pub peer: SocketAddr,
    /// Where `peer` comes from (set through [`Pending::settle`] once a proxy's header is read).
    pub origin: Origin,
    pub state: State,
    /// The protocol, once the first bytes told it.
    pub wire: Option<WireKind>,
    /// The game it queues for (Queued only).
    pub game: Option<&'static Module>,
    /// Its join completes a group: what follows the join goes to the session unscreened
    /// (spec §9.2: bytes that arrive with the pairing connect).
    pub pairing: bool,
    serial: u64,
    /// Bytes received and not yet consumed by the handshake.
    pub input: Vec<u8>,
    pub out: Outbox,
    /// Our sending side is shut down (Closing only).
    pub write_shut: bool,
    /// Bytes read and thrown away since the refusal (Closing only).
    pub discarded: usize,
    /// The queue position it was last told of (Queued, while the server is full).
    pub told_position: Option<usize>,
    /// Who it is: anonymous, a guest, an account (identity.rs).
    pub identity: Identity,
    /// The ticket of its request the account workers are answering: its further input
    /// waits until the answer is in (accounts.rs).
    pub in_flight: Option<u64>,
}

type Stamp = (usize, u64);

/// One fewer for `key`, forgotten at zero.
fn uncount<K: std::hash::Hash + Eq>(counts: &mut HashMap<K, usize>, key: K) {
    if let Some(n) = counts.get_mut(&key) {
        *n -= 1;
        if *n == 0 {
            counts.remove(&key);
        }
    }
}

/// The clients waiting for one game, oldest first; entries of clients that left
/// stay until they reach the front or a sweep (lazy deletion).
#[derive(Default)]
struct Queue {
    entries: VecDeque<Stamp>,
    live: usize,
}

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
    /// The same, per host and per network, for those whose origin counts against their address.
    waiting_per_host: HashMap<Host, usize>,
    waiting_per_network: HashMap<Network, usize>,
    closing: usize,
    /// One first-come first-served queue per game, by the game's name.
    queues: HashMap<&'static str, Queue>,
    queued: usize,
    /// Joins and departures so far, in all queues: a queue position changed when it grew.
    queue_moves: u64,
    handshake_timers: VecDeque<(Instant, Stamp)>,
    closing_timers: VecDeque<(Instant, Stamp)>,
}

impl Pending {
    /// Handshake plus queued connections.
    pub fn waiting(&self) -> usize {
        self.waiting
    }

    /// Connections of `host` in Handshake or Queued.
    pub fn waiting_of(&self, host: Host) -> usize {
        self.waiting_per_host.get(&host).copied().unwrap_or(0)
    }

    /// Connections of `peer`'s network in Handshake or Queued.
    pub fn waiting_in(&self, peer: SocketAddr) -> usize {
        self.waiting_per_network
            .get(&Network::of(peer))
            .copied()
            .unwrap_or(0)
    }

    fn start_waiting(&mut self, peer: SocketAddr, origin: Origin) {
        self.waiting += 1;
        self.count_host(peer, origin);
    }

    fn count_host(&mut self, peer: SocketAddr, origin: Origin) {
        if origin.counts() {
            *self.waiting_per_host.entry(Host::of(peer)).or_default() += 1;
            *self
                .waiting_per_network
                .entry(Network::of(peer))
                .or_default() += 1;
        }
    }

    fn stop_waiting(&mut self, peer: SocketAddr, origin: Origin) {
        self.waiting -= 1;
        self.uncount_host(peer, origin);
    }

    fn uncount_host(&mut self, peer: SocketAddr, origin: Origin) {
        if !origin.counts() {
            return;
        }
        uncount(&mut self.waiting_per_host, Host::of(peer));
        uncount(&mut self.waiting_per_network, Network::of(peer));
    }

    /// The connection that has been in Handshake longest, if any: the one to close
    /// when the pool is full (as sshd's MaxStartups and HAProxy do), since a client
    /// that means to play completes its handshake at once.
    pub fn oldest_in_handshake(&mut self) -> Option<usize> {
        while let Some(&(_, stamp)) = self.handshake_timers.front() {
            if self.live(stamp, State::Handshake) {
                return Some(stamp.0);
            }
            self.handshake_timers.pop_front();
        }
        None
    }

    pub fn closing(&self) -> usize {
        self.closing
    }

    pub fn is_empty(&self) -> bool {
        self.waiting == 0 && self.closing == 0
    }

    #[cfg(test)]
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
    fn left_queue(&mut self, game: &'static str) {
        self.queued -= 1;
        self.queue_moves += 1;
        let slots = &self.slots;
        if let Some(q) = self.queues.get_mut(game) {
            q.live -= 1;
            if q.entries.len() > 2 * q.live + STALE_SLACK {
                q.entries
                    .retain(|&stamp| is_live(slots, stamp, State::Queued));
            }
        }
    }

    /// Adds a freshly accepted connection in Handshake; returns its index.
    pub fn insert(
        &mut self,
        stream: mio::net::TcpStream,
        peer: SocketAddr,
        origin: Origin,
        deadline: Instant,
    ) -> usize {
        self.next_serial += 1;
        let conn = Conn {
            stream,
            peer,
            origin,
            state: State::Handshake,
            wire: None,
            game: None,
            pairing: false,
            serial: self.next_serial,
            input: Vec::new(),
            out: Outbox::new(),
            write_shut: false,
            discarded: 0,
            told_position: None,
            identity: Identity::Anonymous,
            in_flight: None,
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
        self.start_waiting(peer, origin);
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

    /// A connection in Handshake is `peer`'s from now on, of `origin` (its proxy's
    /// header was read): the per-host count moves with it.
    pub fn settle(&mut self, index: usize, peer: SocketAddr, origin: Origin) {
        let Some(conn) = self.get_mut(index) else {
            return;
        };
        debug_assert_eq!(conn.state, State::Handshake);
        let was = (conn.peer, conn.origin);
        (conn.peer, conn.origin) = (peer, origin);
        self.uncount_host(was.0, was.1);
        self.count_host(peer, origin);
    }

    /// Handshake to Queued, at the back of `game`'s queue.
    pub fn enqueue(&mut self, index: usize, game: &'static Module) {
        let Some(stamp) = self.stamp(index) else {
            return;
        };
        if let Some(conn) = self.get_mut(index) {
            debug_assert_eq!(conn.state, State::Handshake);
            conn.state = State::Queued;
            conn.game = Some(game);
            let q = self.queues.entry(game.info.name).or_default();
            q.entries.push_back(stamp);
            q.live += 1;
            self.queued += 1;
            self.queue_moves += 1;
        }
    }

    /// Handshake to Queued in no queue: an Inviting creator, or a joiner waiting for a
    /// challenge's other players (supervisor/challenges.rs has them).
    pub fn hold(&mut self, index: usize) {
        if let Some(conn) = self.get_mut(index) {
            debug_assert_eq!(conn.state, State::Handshake);
            conn.state = State::Queued;
            conn.game = None;
        }
    }

    /// A held connection back to Handshake, with a fresh handshake `deadline`.
    pub fn release(&mut self, index: usize, deadline: Instant) {
        // A new serial: the timer of its first handshake, if still listed, is stale now.
        let serial = self.next_serial + 1;
        let Some(conn) = self.get_mut(index) else {
            return;
        };
        if conn.state != State::Queued || conn.game.is_some() {
            return;
        }
        conn.state = State::Handshake;
        conn.serial = serial;
        self.next_serial = serial;
        self.handshake_timers.push_back((deadline, (index, serial)));
    }

    /// Joins and departures so far, in all queues.
    pub fn queue_moves(&self) -> u64 {
        self.queue_moves
    }

    /// How many wait for `game`.
    pub fn queued_for(&self, game: &str) -> usize {
        self.queues.get(game).map_or(0, |q| q.live)
    }

    /// The connections queued for `game`, oldest first.
    pub fn queue_of(&self, game: &str) -> Vec<usize> {
        self.queues.get(game).map_or_else(Vec::new, |q| {
            q.entries
                .iter()
                .filter(|&&stamp| self.live(stamp, State::Queued))
                .map(|&(index, _)| index)
                .collect()
        })
    }

    /// The games with someone waiting.
    pub fn waiting_games(&self) -> Vec<&'static str> {
        self.queues
            .iter()
            .filter(|(_, q)| q.live > 0)
            .map(|(&name, _)| name)
            .collect()
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
        let game = conn.game.take();
        let (peer, origin) = (conn.peer, conn.origin);
        if let (State::Queued, Some(game)) = (was, game) {
            self.left_queue(game.info.name);
        }
        self.stop_waiting(peer, origin);
        self.closing += 1;
        self.closing_timers.push_back((deadline, stamp));
    }

    /// Frees the slot and returns the connection (the caller deregisters it).
    pub fn remove(&mut self, index: usize) -> Option<Conn> {
        let conn = self.slots.get_mut(index)?.take()?;
        self.free.push(index);
        match conn.state {
            State::Handshake => self.stop_waiting(conn.peer, conn.origin),
            State::Queued => {
                self.stop_waiting(conn.peer, conn.origin);
                if let Some(game) = conn.game {
                    self.left_queue(game.info.name);
                }
            }
            State::Closing => self.closing -= 1,
        }
        Some(conn)
    }

    fn drop_stale_front(&mut self, game: &str) {
        let slots = &self.slots;
        if let Some(q) = self.queues.get_mut(game) {
            while let Some(&stamp) = q.entries.front() {
                if is_live(slots, stamp, State::Queued) {
                    break;
                }
                q.entries.pop_front();
            }
        }
    }

    /// The indices of the `n` connections that have waited longest for `game`, oldest first.
    pub fn front_group(&mut self, game: &str, n: usize) -> Option<Vec<usize>> {
        if self.queued_for(game) < n {
            return None;
        }
        self.drop_stale_front(game);
        let q = self.queues.get(game)?;
        let group: Vec<usize> = q
            .entries
            .iter()
            .filter(|&&stamp| self.live(stamp, State::Queued))
            .map(|&(index, _)| index)
            .take(n)
            .collect();
        (group.len() == n).then_some(group)
    }

    /// Removes and returns the `n` connections that have waited longest for `game`.
    pub fn pop_group(&mut self, game: &str, n: usize) -> Option<Vec<Conn>> {
        let group = self.front_group(game, n)?;
        let conns: Vec<Conn> = group.into_iter().filter_map(|i| self.remove(i)).collect();
        self.drop_stale_front(game);
        (conns.len() == n).then_some(conns)
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

    const NAME: &str = "reversi";
    const DIRECT: Origin = Origin::Direct { screened: true };

    fn game() -> &'static Module {
        reversi_games::registry::find(NAME).unwrap()
    }

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
            .map(|(s, peer)| p.insert(s, peer, DIRECT, now))
            .collect();
        assert_eq!(p.waiting(), 5);
        for &i in &ids {
            p.enqueue(i, game());
        }
        assert_eq!(p.queued(), 5);
        // The oldest leaves; the second is refused.
        p.remove(ids[0]);
        p.start_closing(ids[1], b"bye", now + LINGER);
        assert_eq!((p.waiting(), p.queued(), p.closing()), (3, 3, 1));
        assert_eq!(
            p.waiting_of(Host::of(peers[0])),
            3,
            "all from one loopback host"
        );
        assert_eq!(p.front_group(NAME, 2), Some(vec![ids[2], ids[3]]));
        assert_eq!(p.queue_of(NAME), [ids[2], ids[3], ids[4]]);
        let pair = p.pop_group(NAME, 2).unwrap();
        assert_eq!([pair[0].peer, pair[1].peer], [peers[2], peers[3]]);
        assert_eq!(p.queued(), 1);
        assert!(p.pop_group(NAME, 2).is_none());
        // A reused slot does not revive the stale queue entries that pointed at it.
        let (more, _more_clients) = conns(1);
        let (s, peer) = more.into_iter().next().unwrap();
        let fresh = p.insert(s, peer, DIRECT, now);
        assert!(ids[..4].contains(&fresh));
        assert!(p.pop_group(NAME, 2).is_none());
        p.enqueue(fresh, game());
        let pair = p.pop_group(NAME, 2).unwrap();
        assert_eq!([pair[0].peer, pair[1].peer], [peers[4], peer]);
        // Each game has its own queue.
        assert!(p.front_group("tictactoe", 1).is_none());
    }

    #[test]
    fn a_held_connection_waits_in_no_queue_without_a_timeout_until_released() {
        let (served, _clients) = conns(1);
        let now = Instant::now();
        let secs = |n| now + Duration::from_secs(n);
        let mut p = Pending::default();
        let (s, peer) = served.into_iter().next().unwrap();
        let i = p.insert(s, peer, DIRECT, secs(10));
        p.hold(i);
        assert_eq!(p.get(i).map(|c| c.state), Some(State::Queued));
        assert_eq!((p.waiting(), p.queued()), (1, 0));
        p.release(i, secs(20));
        assert_eq!(p.get(i).map(|c| c.state), Some(State::Handshake));
        // Its first handshake's deadline is stale: only the fresh one counts.
        assert!(p.expired_handshakes(secs(10)).is_empty());
        assert_eq!(p.expired_handshakes(secs(20)), [i]);
        p.remove(i);
        assert!(p.is_empty());
    }

    #[test]
    fn a_proxys_connection_counts_against_its_client_once_the_header_names_it() {
        let (served, _clients) = conns(2);
        let now = Instant::now();
        let mut p = Pending::default();
        let proxy = served[0].1;
        let client: SocketAddr = "203.0.113.7:5000".parse().unwrap();
        let ids: Vec<usize> = served
            .into_iter()
            .map(|(s, peer)| p.insert(s, peer, Origin::Awaiting { seed: None }, now))
            .collect();
        assert_eq!((p.waiting(), p.waiting_of(Host::of(proxy))), (2, 0));
        p.settle(ids[0], client, Origin::Relayed { via: proxy });
        p.settle(ids[1], proxy, Origin::Check);
        assert_eq!(p.waiting_of(Host::of(client)), 1);
        assert_eq!(
            p.waiting_of(Host::of(proxy)),
            0,
            "a health check counts for no one"
        );
        assert_eq!(p.get(ids[0]).map(|c| c.peer), Some(client));
        p.start_closing(ids[0], b"bye", now + LINGER);
        assert_eq!((p.waiting(), p.waiting_of(Host::of(client))), (1, 0));
        p.remove(ids[1]);
        assert_eq!(p.waiting(), 0);
    }

    #[test]
    fn the_oldest_connection_still_in_handshake_is_the_one_to_make_room() {
        let (served, _clients) = conns(3);
        let now = Instant::now();
        let mut p = Pending::default();
        let peer = served[0].1;
        let ids: Vec<usize> = served
            .into_iter()
            .map(|(s, peer)| p.insert(s, peer, DIRECT, now))
            .collect();
        assert_eq!(p.waiting_in(peer), 3, "one loopback /24");
        assert_eq!(p.oldest_in_handshake(), Some(ids[0]));
        // Queued (its handshake done) or gone: not a candidate any more.
        p.enqueue(ids[0], game());
        p.remove(ids[1]);
        assert_eq!(p.oldest_in_handshake(), Some(ids[2]));
        p.start_closing(ids[2], b"", now);
        assert_eq!(p.oldest_in_handshake(), None);
        assert_eq!(p.waiting_in(peer), 1);
    }

    #[test]
    fn clients_leaving_behind_a_waiting_front_do_not_pile_up_in_the_queue() {
        let now = Instant::now();
        let mut p = Pending::default();
        let (served, _clients) = conns(1);
        let mut keep = Vec::new();
        for (s, peer) in served {
            let front = p.insert(s, peer, DIRECT, now);
            p.enqueue(front, game());
        }
        for _ in 0..10 {
            let (served, clients) = conns(50);
            keep.push(clients);
            for (s, peer) in served {
                let i = p.insert(s, peer, DIRECT, now);
                p.enqueue(i, game());
                p.remove(i);
            }
        }
        assert_eq!(p.queued(), 1);
        let entries = p.queues[NAME].entries.len();
        assert!(entries <= 2 + STALE_SLACK, "{entries} entries");
    }

    #[test]
    fn timers_expire_in_order_and_ignore_connections_that_moved_on() {
        let (served, _clients) = conns(3);
        let t0 = Instant::now();
        let mut p = Pending::default();
        let ids: Vec<usize> = served
            .into_iter()
            .enumerate()
            .map(|(k, (s, peer))| p.insert(s, peer, DIRECT, t0 + Duration::from_secs(k as u64 + 1)))
            .collect();
        p.enqueue(ids[0], game());
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
