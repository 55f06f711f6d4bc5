//! Lone waiters meet across hosts (docs/design/play-together.md §11.4): a pure state
//! machine fed by the bus's `reversid_lone` rows and, every tick, by what each public
//! queue of this host holds. A queue that cannot pair for `--meet-after` is published;
//! for a game, every host picks the same **target** from the rows they all see (the
//! smallest host id with a `fixed` row, else the host of the oldest row), and a host that
//! is not the target sends its movable waiters there.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// One host's lone waiters of one game, as the table holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lone {
    /// The row's id: older rows have smaller ids (a bigserial).
    pub id: i64,
    pub host: u8,
    pub game: String,
    pub waiting: u32,
    /// Its waiters were relayed in: they cannot move again.
    pub fixed: bool,
}

/// What the bus heard of lone waiters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Every live host's rows, read when joining.
    Read(Vec<Lone>),
    /// `lone ID S GAME N fixed|movable`.
    Lone(Lone),
    /// `lone-gone S GAME`.
    Gone(u8, String),
}

/// A queue of this host that cannot pair: how many wait, and whether every one of them
/// was relayed in (`fixed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alone {
    pub waiting: u32,
    pub fixed: bool,
}

/// What to do about one queue now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Stay,
    /// Publish (or renew) this host's row for the game.
    Publish(Alone),
    /// Withdraw this host's row for the game.
    Withdraw,
    /// Send the movable waiters to host `0`, and withdraw the row.
    MoveTo(u8),
}

pub struct Meeting {
    me: u8,
    meet_after: Duration,
    rows: HashMap<(u8, String), Lone>,
    /// Since when each of this host's queues has been alone.
    since: HashMap<String, Instant>,
    /// What this host published, per game.
    published: HashMap<String, Alone>,
}

impl Meeting {
    pub fn new(me: u8, meet_after: Duration) -> Meeting {
        Meeting {
            me,
            meet_after,
            rows: HashMap::new(),
            since: HashMap::new(),
            published: HashMap::new(),
        }
    }

    pub fn on_event(&mut self, event: Event) {
        match event {
            Event::Read(rows) => {
                self.rows.clear();
                for row in rows {
                    self.rows.insert((row.host, row.game.clone()), row);
                }
            }
            Event::Lone(row) => {
                self.rows.insert((row.host, row.game.clone()), row);
            }
            Event::Gone(host, game) => {
                self.rows.remove(&(host, game));
            }
        }
    }

    /// Rows of hosts not in `hosts` (dead) are dropped.
    pub fn keep_hosts(&mut self, hosts: &[u8]) {
        self.rows.retain(|(host, _), _| hosts.contains(host));
    }

    /// PostgreSQL lost: the rows may change unheard. (What this host published stays
    /// in the outbox, written again at the rejoin.)
    pub fn clear(&mut self) {
        self.rows.clear();
    }

    /// The host every host sends `game`'s movable waiters to, if any host published.
    pub fn target(&self, game: &str) -> Option<u8> {
        let rows = self.rows.values().filter(|r| r.game == game);
        let fixed = rows.clone().filter(|r| r.fixed).map(|r| r.host).min();
        fixed.or_else(|| rows.min_by_key(|r| r.id).map(|r| r.host))
    }

    /// This host's queue of `game` at `now`: `alone` when it holds waiters it cannot
    /// pair, `None` when it holds none or pairs them.
    pub fn observe(&mut self, game: &str, alone: Option<Alone>, now: Instant) -> Step {
        let Some(alone) = alone else {
            self.since.remove(game);
            return match self.published.remove(game) {
                Some(_) => Step::Withdraw,
                None => Step::Stay,
            };
        };
        let since = *self.since.entry(game.to_owned()).or_insert(now);
        if now.saturating_duration_since(since) < self.meet_after {
            return Step::Stay;
        }
        match (self.published.get(game), self.target(game)) {
            (Some(_), Some(target)) if target != self.me && !alone.fixed => {
                self.published.remove(game);
                self.since.remove(game);
                Step::MoveTo(target)
            }
            (Some(&known), _) if known == alone => Step::Stay,
            _ => {
                self.published.insert(game.to_owned(), alone);
                Step::Publish(alone)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AFTER: Duration = Duration::from_millis(500);

    fn lone(id: i64, host: u8, fixed: bool) -> Lone {
        Lone {
            id,
            host,
            game: "reversi".into(),
            waiting: 1,
            fixed,
        }
    }

    const ONE: Alone = Alone {
        waiting: 1,
        fixed: false,
    };

    #[test]
    fn a_queue_alone_is_published_after_meet_after_and_withdrawn_when_paired() {
        let t0 = Instant::now();
        let mut m = Meeting::new(b'A', AFTER);
        assert_eq!(m.observe("reversi", Some(ONE), t0), Step::Stay);
        let t1 = t0 + AFTER;
        assert_eq!(m.observe("reversi", Some(ONE), t1), Step::Publish(ONE));
        assert_eq!(m.observe("reversi", Some(ONE), t1), Step::Stay, "once");
        assert_eq!(m.observe("reversi", None, t1), Step::Withdraw);
        assert_eq!(m.observe("reversi", None, t1), Step::Stay);
    }

    #[test]
    fn the_host_of_the_older_row_is_the_target_and_the_other_moves() {
        let t1 = Instant::now() + AFTER;
        let (mut a, mut b) = (Meeting::new(b'A', AFTER), Meeting::new(b'B', AFTER));
        for m in [&mut a, &mut b] {
            m.observe("reversi", Some(ONE), t1 - AFTER);
            assert_eq!(m.observe("reversi", Some(ONE), t1), Step::Publish(ONE));
            m.on_event(Event::Lone(lone(8, b'B', false)));
            m.on_event(Event::Lone(lone(9, b'A', false)));
        }
        assert_eq!(a.target("reversi"), Some(b'B'));
        assert_eq!(a.observe("reversi", Some(ONE), t1), Step::MoveTo(b'B'));
        assert_eq!(
            b.observe("reversi", Some(ONE), t1),
            Step::Stay,
            "B is the target"
        );
    }

    #[test]
    fn a_host_with_fixed_waiters_is_the_target_and_they_never_move() {
        let t1 = Instant::now() + AFTER;
        let mut a = Meeting::new(b'A', AFTER);
        a.on_event(Event::Lone(lone(1, b'A', false)));
        a.on_event(Event::Lone(lone(5, b'C', true)));
        assert_eq!(a.target("reversi"), Some(b'C'), "fixed wins over older");
        let fixed = Alone {
            waiting: 1,
            fixed: true,
        };
        let mut b = Meeting::new(b'B', AFTER);
        b.on_event(Event::Lone(lone(5, b'C', true)));
        b.observe("reversi", Some(fixed), t1 - AFTER);
        assert_eq!(b.observe("reversi", Some(fixed), t1), Step::Publish(fixed));
        assert_eq!(b.observe("reversi", Some(fixed), t1), Step::Stay);
    }

    #[test]
    fn rows_of_dead_hosts_and_of_an_outage_are_forgotten() {
        let mut m = Meeting::new(b'A', AFTER);
        m.on_event(Event::Read(vec![
            lone(1, b'B', false),
            lone(2, b'C', false),
        ]));
        assert_eq!(m.target("reversi"), Some(b'B'));
        m.keep_hosts(b"AC");
        assert_eq!(m.target("reversi"), Some(b'C'));
        m.on_event(Event::Gone(b'C', "reversi".into()));
        assert_eq!(m.target("reversi"), None);
        m.on_event(Event::Lone(lone(3, b'B', false)));
        m.clear();
        assert_eq!(m.target("draughts"), None);
        assert_eq!(m.target("reversi"), None);
    }
}
