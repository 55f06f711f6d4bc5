//! Where this host stands in the cluster (docs/design/play-together.md §11.5), a pure state
//! machine fed by the bus thread's events and the clock: joined with the other hosts, or
//! serving its own players alone while PostgreSQL cannot be reached. It says what to log
//! and what `GET /health` adds; the hosts' addresses outlive an outage (a relay needs no
//! database).

use std::collections::BTreeMap;
use std::time::{Duration, Instant, SystemTime};

/// How often a host alone says so again in the log.
pub const STILL_ALONE_EVERY: Duration = Duration::from_secs(60);

/// What the bus thread tells the loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Connected (again): the live hosts, this one included.
    Joined(Vec<(u8, String)>),
    /// A heartbeat's reading of the live hosts.
    Hosts(Vec<(u8, String)>),
    /// A host announced itself (`host S ADDR`).
    Host(u8, String),
    /// PostgreSQL cannot be reached, or the connection was lost, for this reason.
    Lost(String),
}

/// A line for the log, and how loud.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    Info(String),
    Warn(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// With `live` hosts (this one included), as last read.
    Joined { live: usize },
    /// Since `since` (wall clock, for `/health`; `started` on the monotonic one), for
    /// `reason`; `warned`: the log said so.
    Alone {
        since: SystemTime,
        started: Instant,
        reason: String,
        warned: bool,
        next_note: Instant,
    },
}

/// This host's standing and the hosts it knows.
#[derive(Debug, Clone)]
pub struct Standing {
    /// This host's symbol: the others are the ones worth naming in the log.
    me: u8,
    state: State,
    /// Every host known, by symbol: its advertised address.
    hosts: BTreeMap<u8, String>,
}

impl Standing {
    /// At start: alone until the bus first joins (not yet said in the log: the first
    /// failure is).
    pub fn new(me: u8, now: Instant, wall: SystemTime) -> Standing {
        Standing {
            me,
            state: State::Alone {
                since: wall,
                started: now,
                reason: "not reached yet".into(),
                warned: false,
                next_note: now + STILL_ALONE_EVERY,
            },
            hosts: BTreeMap::new(),
        }
    }

    /// Takes an event of the bus thread; what to log. Every other host is named with its
    /// address once, the first time any event tells of it (a host that joined before this
    /// one is only ever in the lists).
    pub fn on_event(&mut self, event: Event, now: Instant, wall: SystemTime) -> Vec<Note> {
        match event {
            Event::Joined(hosts) => {
                let warned = matches!(self.state, State::Alone { warned: true, .. });
                let mut notes = vec![match warned {
                    true => Note::Warn(format!("cluster: PostgreSQL back; {}", count(hosts.len()))),
                    false => Note::Info(format!("cluster: joined; {}", count(hosts.len()))),
                }];
                self.state = State::Joined { live: hosts.len() };
                notes.extend(self.learn(hosts));
                notes
            }
            Event::Hosts(hosts) => {
                let mut notes = Vec::new();
                if let State::Joined { live } = &mut self.state {
                    if std::mem::replace(live, hosts.len()) != hosts.len() {
                        notes.push(Note::Info(format!("cluster: {}", count(hosts.len()))));
                    }
                }
                notes.extend(self.learn(hosts));
                notes
            }
            Event::Host(id, addr) => self.learn(vec![(id, addr)]),
            Event::Lost(reason) => self.lose(reason, now, wall).into_iter().collect(),
        }
    }

    /// Keeps `hosts`' addresses; a note for each other host new or moved.
    fn learn(&mut self, hosts: Vec<(u8, String)>) -> Vec<Note> {
        let mut notes = Vec::new();
        for (id, addr) in hosts {
            let known = self.hosts.insert(id, addr.clone());
            if id != self.me && known.as_ref() != Some(&addr) {
                notes.push(Note::Info(format!(
                    "cluster: host {} at {addr}",
                    id as char
                )));
            }
        }
        notes
    }

    /// PostgreSQL failed: alone from now (or still), said once at warn.
    fn lose(&mut self, reason: String, now: Instant, wall: SystemTime) -> Option<Note> {
        let note = Note::Warn(format!(
            "cluster: PostgreSQL unreachable ({reason}); serving this host's players alone"
        ));
        match &mut self.state {
            State::Alone { warned: true, .. } => None,
            State::Alone {
                warned, reason: r, ..
            } => {
                *warned = true;
                *r = reason;
                Some(note)
            }
            State::Joined { .. } => {
                self.state = State::Alone {
                    since: wall,
                    started: now,
                    reason,
                    warned: true,
                    next_note: now + STILL_ALONE_EVERY,
                };
                Some(note)
            }
        }
    }

    /// When [`Standing::on_timer`] has something to say.
    pub fn deadline(&self) -> Option<Instant> {
        match &self.state {
            State::Alone {
                warned: true,
                next_note,
                ..
            } => Some(*next_note),
            _ => None,
        }
    }

    /// Every minute alone, the log says so again.
    pub fn on_timer(&mut self, now: Instant) -> Option<Note> {
        let State::Alone {
            warned: true,
            next_note,
            started,
            ..
        } = &mut self.state
        else {
            return None;
        };
        if *next_note > now {
            return None;
        }
        *next_note = now + STILL_ALONE_EVERY;
        let minutes = now.saturating_duration_since(*started).as_secs() / 60;
        Some(Note::Info(format!(
            "cluster: still alone after {minutes} min"
        )))
    }

    /// The line `GET /health` adds: `ok: cluster of N hosts` or `alone: PostgreSQL
    /// unreachable since <UTC time> (<reason>)`.
    pub fn health_line(&self) -> String {
        match &self.state {
            State::Joined { live } => format!("ok: cluster of {}", count(*live)),
            State::Alone { since, reason, .. } => format!(
                "alone: PostgreSQL unreachable since {} ({reason})",
                utc(*since)
            ),
        }
    }

    /// Whether PostgreSQL is reached (the other hosts are heard).
    pub fn joined(&self) -> bool {
        matches!(self.state, State::Joined { .. })
    }

    /// Whether `ip` is the advertised address of a host known (relays leave from it).
    pub fn is_host_ip(&self, ip: std::net::IpAddr) -> bool {
        self.hosts
            .values()
            .filter_map(|addr| addr.parse::<std::net::SocketAddr>().ok())
            .any(|addr| addr.ip() == ip)
    }

    /// The advertised address of host `id`, if ever known (kept through an outage).
    pub fn address_of(&self, id: u8) -> Option<&str> {
        self.hosts.get(&id).map(String::as_str)
    }
}

fn count(n: usize) -> String {
    match n {
        1 => "1 host".into(),
        n => format!("{n} hosts"),
    }
}

/// `2026-11-26T19:40:03Z`: a wall-clock time in UTC, to the second.
pub fn utc(time: SystemTime) -> String {
    let secs = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The calendar date `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(ids: &str) -> Vec<(u8, String)> {
        ids.bytes()
            .map(|id| (id, format!("10.0.0.{}:8765", id - b'0')))
            .collect()
    }

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn utc_times_are_written_as_in_the_design() {
        assert_eq!(utc(at(0)), "1970-01-01T00:00:00Z");
        assert_eq!(utc(at(1_795_722_003)), "2026-11-26T19:40:03Z");
        assert_eq!(utc(at(951_782_400)), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn a_first_failure_is_warned_once_then_every_minute_at_info() {
        let t0 = Instant::now();
        let mut s = Standing::new(b'1', t0, at(100));
        assert_eq!(s.deadline(), None, "nothing said before the first failure");
        let first = s.on_event(Event::Lost("connection refused".into()), t0, at(100));
        assert_eq!(
            first,
            vec![Note::Warn(
                "cluster: PostgreSQL unreachable (connection refused); serving this host's players alone".into()
            )]
        );
        assert_eq!(s.on_event(Event::Lost("again".into()), t0, at(102)), []);
        assert_eq!(s.on_timer(t0 + Duration::from_secs(59)), None);
        let later = t0 + STILL_ALONE_EVERY * 3;
        assert_eq!(
            s.on_timer(later),
            Some(Note::Info("cluster: still alone after 3 min".into()))
        );
        assert_eq!(s.deadline(), Some(later + STILL_ALONE_EVERY));
        assert_eq!(
            s.health_line(),
            "alone: PostgreSQL unreachable since 1970-01-01T00:01:40Z (connection refused)"
        );
    }

    #[test]
    fn joining_counts_hosts_and_coming_back_is_said_at_warn() {
        let t0 = Instant::now();
        let mut s = Standing::new(b'1', t0, at(0));
        assert_eq!(
            s.on_event(Event::Joined(hosts("12")), t0, at(1)),
            [
                Note::Info("cluster: joined; 2 hosts".into()),
                Note::Info("cluster: host 2 at 10.0.0.2:8765".into()),
            ]
        );
        assert_eq!(s.health_line(), "ok: cluster of 2 hosts");
        assert_eq!(s.on_event(Event::Hosts(hosts("12")), t0, at(2)), []);
        assert_eq!(
            s.on_event(Event::Hosts(hosts("123")), t0, at(3)),
            [
                Note::Info("cluster: 3 hosts".into()),
                Note::Info("cluster: host 3 at 10.0.0.3:8765".into()),
            ]
        );
        s.on_event(Event::Lost("connection closed".into()), t0, at(4));
        assert!(s
            .health_line()
            .starts_with("alone: PostgreSQL unreachable since"));
        assert_eq!(
            s.address_of(b'3'),
            Some("10.0.0.3:8765"),
            "kept while alone"
        );
        assert_eq!(
            s.on_event(Event::Joined(hosts("1")), t0, at(5)),
            [Note::Warn("cluster: PostgreSQL back; 1 host".into())]
        );
        assert_eq!(s.deadline(), None);
    }

    #[test]
    fn a_host_announcing_itself_is_learnt_once() {
        let t0 = Instant::now();
        let mut s = Standing::new(b'1', t0, at(0));
        let event = Event::Host(b'7', "10.0.0.7:8765".into());
        assert_eq!(
            s.on_event(event.clone(), t0, at(0)),
            [Note::Info("cluster: host 7 at 10.0.0.7:8765".into())]
        );
        assert_eq!(s.on_event(event, t0, at(0)), []);
        assert_eq!(s.address_of(b'7'), Some("10.0.0.7:8765"));
        assert_eq!(s.address_of(b'8'), None);
    }

    #[test]
    fn a_host_first_heard_of_in_a_list_is_named_once_and_this_one_never() {
        let t0 = Instant::now();
        let mut s = Standing::new(b'1', t0, at(0));
        // Host 2 joined first: this host hears of it in its own join's list, and its
        // announcement comes after.
        s.on_event(Event::Joined(hosts("12")), t0, at(1));
        assert_eq!(
            s.on_event(Event::Host(b'2', "10.0.0.2:8765".into()), t0, at(1)),
            []
        );
        assert_eq!(
            s.on_event(Event::Host(b'1', "10.0.0.9:8765".into()), t0, at(1)),
            [],
            "this host is named by its own start line"
        );
        assert_eq!(
            s.on_event(Event::Host(b'2', "10.0.0.22:8765".into()), t0, at(2)),
            [Note::Info("cluster: host 2 at 10.0.0.22:8765".into())],
            "a host back at another address is named again"
        );
    }
}
