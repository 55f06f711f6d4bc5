//! The other hosts' challenges as this host knows them (docs/design/play-together.md §11.2,
//! §11.3): a pure registry fed by the bus's events and the clock. A join code that is not
//! this host's own is looked up here: live on another host (the joiner is relayed there),
//! or ended (the same error as on its own host). Public ones join this host's lobby.
//! Only while joined: PostgreSQL down, the host serves its own challenges alone (§11.5).

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use crate::supervisor::challenges::{Code, Ended, REMEMBERED_AT_MOST};

/// A live challenge of another host, as the bus read or heard it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remote {
    pub code: Code,
    /// The symbol of the host that holds it (and plays its game).
    pub host: u8,
    pub public: bool,
    /// Its life left when read.
    pub seconds: u64,
    pub game: String,
    /// Every option written out, as its host lists it (`time=5+3 side=random public`).
    pub options: String,
}

/// What the bus heard of challenges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Every live challenge and every remembered ended code, read when joining.
    Read {
        live: Vec<Remote>,
        ended: Vec<(Code, Ended)>,
    },
    /// `challenge …`: one is live.
    Live(Remote),
    /// `challenge-gone CODE why`: it ended.
    Gone(Code, Ended),
}

/// Where a code is, for a host that does not hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// Live on host `0`.
    Live(u8),
    Ended(Ended),
}

/// One public challenge of another host, as the lobby lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed<'a> {
    pub code: Code,
    pub seconds: u64,
    pub game: &'a str,
    pub options: &'a str,
}

struct Held {
    remote: Remote,
    expires: Instant,
}

/// The mirror of host `me`: other hosts' live challenges and ended codes.
pub struct Mirror {
    me: u8,
    live: HashMap<Code, Held>,
    ended: HashMap<Code, Ended>,
    /// Oldest first, to forget beyond [`REMEMBERED_AT_MOST`].
    ended_order: VecDeque<Code>,
}

impl Mirror {
    pub fn new(me: u8) -> Mirror {
        Mirror {
            me,
            live: HashMap::new(),
            ended: HashMap::new(),
            ended_order: VecDeque::new(),
        }
    }

    /// Takes what the bus heard.
    pub fn on_event(&mut self, event: Event, now: Instant) {
        match event {
            Event::Read { live, ended } => {
                self.clear();
                for (code, why) in ended {
                    self.end(code, why);
                }
                for remote in live {
                    self.hold(remote, now);
                }
            }
            Event::Live(remote) => self.hold(remote, now),
            Event::Gone(code, why) => {
                self.live.remove(&code);
                self.end(code, why);
            }
        }
    }

    /// The live hosts, as a heartbeat read them: challenges of the others are dropped
    /// (their host is dead; a later beat withdraws them in the table).
    pub fn keep_hosts(&mut self, hosts: &[u8]) {
        let hosts: HashSet<u8> = hosts.iter().copied().collect();
        self.live
            .retain(|_, held| hosts.contains(&held.remote.host));
    }

    /// Forgets everything: PostgreSQL is lost, and what it said may change unheard.
    pub fn clear(&mut self) {
        self.live.clear();
        self.ended.clear();
        self.ended_order.clear();
    }

    /// Where `code` is, if another host has or had it.
    pub fn find(&self, code: Code, now: Instant) -> Option<Found> {
        match self.live.get(&code) {
            Some(held) if held.expires > now => Some(Found::Live(held.remote.host)),
            // Its host says when it expired; until then it is as good as expired here.
            Some(_) => Some(Found::Ended(Ended::Expired)),
            None => self.ended.get(&code).map(|&why| Found::Ended(why)),
        }
    }

    /// Whether a code is taken somewhere (a new one is drawn again).
    pub fn knows(&self, code: Code) -> bool {
        self.live.contains_key(&code) || self.ended.contains_key(&code)
    }

    /// The other hosts' live public challenges, the soonest to expire (the oldest) first.
    pub fn lobby(&self, now: Instant) -> Vec<Listed<'_>> {
        let mut held: Vec<&Held> = self
            .live
            .values()
            .filter(|h| h.remote.public && h.expires > now)
            .collect();
        held.sort_by_key(|h| (h.expires, h.remote.code.to_string()));
        held.into_iter()
            .map(|h| Listed {
                code: h.remote.code,
                seconds: h.expires.saturating_duration_since(now).as_secs(),
                game: &h.remote.game,
                options: &h.remote.options,
            })
            .collect()
    }

    fn hold(&mut self, remote: Remote, now: Instant) {
        if remote.host == self.me || self.ended.contains_key(&remote.code) {
            return;
        }
        let expires = now + Duration::from_secs(remote.seconds);
        self.live.insert(remote.code, Held { remote, expires });
    }

    fn end(&mut self, code: Code, why: Ended) {
        if self.ended.insert(code, why).is_none() {
            self.ended_order.push_back(code);
        }
        while self.ended_order.len() > REMEMBERED_AT_MOST {
            if let Some(old) = self.ended_order.pop_front() {
                self.ended.remove(&old);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(n: u64) -> Code {
        Code::parse(&format!("{n:012}")).unwrap()
    }

    fn remote(n: u64, host: u8, public: bool) -> Remote {
        Remote {
            code: code(n),
            host,
            public,
            seconds: 900,
            game: "tictactoe".into(),
            options: "time=move:60 side=random public".into(),
        }
    }

    #[test]
    fn a_live_code_of_another_host_is_found_there_until_it_ends() {
        let t0 = Instant::now();
        let mut m = Mirror::new(b'B');
        m.on_event(Event::Live(remote(1, b'A', false)), t0);
        assert_eq!(m.find(code(1), t0), Some(Found::Live(b'A')));
        assert!(m.knows(code(1)));
        m.on_event(Event::Gone(code(1), Ended::Accepted), t0);
        assert_eq!(m.find(code(1), t0), Some(Found::Ended(Ended::Accepted)));
        assert_eq!(m.find(code(2), t0), None);
    }

    #[test]
    fn this_hosts_own_challenges_are_not_mirrored() {
        let t0 = Instant::now();
        let mut m = Mirror::new(b'A');
        m.on_event(Event::Live(remote(1, b'A', true)), t0);
        assert_eq!(m.find(code(1), t0), None);
        assert!(m.lobby(t0).is_empty());
    }

    #[test]
    fn a_code_past_its_life_is_expired_before_its_host_says_so() {
        let t0 = Instant::now();
        let mut m = Mirror::new(b'B');
        m.on_event(Event::Live(remote(1, b'A', true)), t0);
        let later = t0 + Duration::from_secs(901);
        assert_eq!(m.find(code(1), later), Some(Found::Ended(Ended::Expired)));
        assert!(m.lobby(later).is_empty());
    }

    #[test]
    fn the_lobby_lists_public_ones_oldest_first_with_their_life_left() {
        let t0 = Instant::now();
        let mut m = Mirror::new(b'C');
        m.on_event(Event::Live(remote(1, b'A', true)), t0);
        m.on_event(Event::Live(remote(2, b'B', false)), t0);
        let t1 = t0 + Duration::from_secs(10);
        m.on_event(Event::Live(remote(3, b'B', true)), t1);
        let listed = m.lobby(t1);
        let codes: Vec<_> = listed.iter().map(|l| (l.code, l.seconds)).collect();
        assert_eq!(codes, [(code(1), 890), (code(3), 900)]);
        m.on_event(Event::Gone(code(1), Ended::Withdrawn), t1);
        assert_eq!(m.lobby(t1).len(), 1, "gone when its creator left");
    }

    #[test]
    fn a_dead_hosts_challenges_are_dropped_and_a_read_replaces_all() {
        let t0 = Instant::now();
        let mut m = Mirror::new(b'C');
        m.on_event(Event::Live(remote(1, b'A', true)), t0);
        m.on_event(Event::Live(remote(2, b'B', true)), t0);
        m.keep_hosts(b"BC");
        assert_eq!(m.find(code(1), t0), None);
        assert_eq!(m.find(code(2), t0), Some(Found::Live(b'B')));
        let read = Event::Read {
            live: vec![remote(3, b'A', true)],
            ended: vec![(code(4), Ended::Expired)],
        };
        m.on_event(read, t0);
        assert_eq!(m.find(code(2), t0), None);
        assert_eq!(m.find(code(3), t0), Some(Found::Live(b'A')));
        assert_eq!(m.find(code(4), t0), Some(Found::Ended(Ended::Expired)));
        m.clear();
        assert_eq!(m.find(code(3), t0), None, "nothing known while alone");
    }

    #[test]
    fn a_late_live_notice_does_not_revive_an_ended_code() {
        let t0 = Instant::now();
        let mut m = Mirror::new(b'B');
        m.on_event(Event::Gone(code(1), Ended::Withdrawn), t0);
        m.on_event(Event::Live(remote(1, b'A', true)), t0);
        assert_eq!(m.find(code(1), t0), Some(Found::Ended(Ended::Withdrawn)));
    }
}
