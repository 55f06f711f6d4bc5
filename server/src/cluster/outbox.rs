//! This host's challenges, as the bus must publish them (docs/design/play-together.md
//! §11.2): the loop writes here (under a mutex held for a few instructions), the bus
//! thread takes the changes when it is connected and writes them to PostgreSQL; when it
//! (re)joins it writes every live one anew, so nothing made or ended while PostgreSQL was
//! down is lost. Bounded: while the bus is away, only what a rejoin cannot rebuild (the
//! ended codes, newest kept) accumulates.

use std::collections::HashMap;
use std::time::SystemTime;

use super::meeting::Alone;
use crate::supervisor::challenges::{Code, Ended};

/// Changes kept at most while the bus does not take them.
const CHANGES_AT_MOST: usize = 4096;

/// One of this host's live challenges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub public: bool,
    pub game: String,
    pub options: String,
    pub expires: SystemTime,
}

/// What changed since the bus last looked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A new challenge (still live when the bus took it).
    Live(Code, Row),
    Gone(Code, Ended),
    /// This host's lone waiters of a game (`None`: it has none now).
    Lone(String, Option<Alone>),
}

#[derive(Debug, Default)]
pub struct Outbox {
    live: HashMap<Code, Row>,
    changes: Vec<Code>,
    gone: Vec<(Code, Ended)>,
    /// Per game, this host's lone waiters as published (one entry a game: bounded).
    lone: HashMap<String, Alone>,
    lone_changed: Vec<String>,
}

impl Outbox {
    /// A challenge made here.
    pub fn publish(&mut self, code: Code, row: Row) {
        self.live.insert(code, row);
        self.changes.push(code);
        if self.changes.len() > CHANGES_AT_MOST {
            // A rejoin writes every live one anyway: the oldest notices can go.
            self.changes.drain(..CHANGES_AT_MOST / 2);
        }
    }

    /// A challenge of this host ended.
    pub fn end(&mut self, code: Code, why: Ended) {
        self.live.remove(&code);
        self.gone.push((code, why));
        if self.gone.len() > CHANGES_AT_MOST {
            self.gone.drain(..CHANGES_AT_MOST / 2);
        }
    }

    /// This host's lone waiters of `game` now (`None`: none).
    pub fn lone(&mut self, game: &str, alone: Option<Alone>) {
        match alone {
            Some(alone) => self.lone.insert(game.to_owned(), alone),
            None => self.lone.remove(game),
        };
        if !self.lone_changed.iter().any(|g| g == game) {
            self.lone_changed.push(game.to_owned());
        }
    }

    /// Every game's lone waiters, for a rejoin.
    pub fn lone_now(&self) -> Vec<(String, Alone)> {
        self.lone.iter().map(|(g, a)| (g.clone(), *a)).collect()
    }

    /// The changes since the last call, ended ones first (a code ended before the bus saw
    /// it live is not published at all).
    pub fn take(&mut self) -> Vec<Change> {
        let gone = std::mem::take(&mut self.gone);
        let made = std::mem::take(&mut self.changes);
        let made = made
            .into_iter()
            .filter_map(|code| Some(Change::Live(code, self.live.get(&code)?.clone())));
        let gone_codes: Vec<Code> = gone.iter().map(|(c, _)| *c).collect();
        let made =
            made.filter(|c| !matches!(c, Change::Live(code, _) if gone_codes.contains(code)));
        let lone = std::mem::take(&mut self.lone_changed)
            .into_iter()
            .map(|game| {
                let now = self.lone.get(&game).copied();
                Change::Lone(game, now)
            });
        gone.into_iter()
            .map(|(code, why)| Change::Gone(code, why))
            .chain(made)
            .chain(lone)
            .collect()
    }

    /// Every live challenge, for a rejoin.
    pub fn live(&self) -> Vec<(Code, Row)> {
        self.live.iter().map(|(c, r)| (*c, r.clone())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(n: u64) -> Code {
        Code::parse(&format!("{n:012}")).unwrap()
    }

    fn row() -> Row {
        Row {
            public: true,
            game: "tictactoe".into(),
            options: "time=move:60 side=random public".into(),
            expires: SystemTime::UNIX_EPOCH,
        }
    }

    #[test]
    fn changes_are_taken_once_ended_ones_first() {
        let mut o = Outbox::default();
        o.publish(code(1), row());
        o.publish(code(2), row());
        o.end(code(3), Ended::Expired);
        assert_eq!(
            o.take(),
            [
                Change::Gone(code(3), Ended::Expired),
                Change::Live(code(1), row()),
                Change::Live(code(2), row())
            ]
        );
        assert_eq!(o.take(), []);
        assert_eq!(o.live().len(), 2);
    }

    #[test]
    fn a_code_ended_before_it_was_taken_is_only_said_gone() {
        let mut o = Outbox::default();
        o.publish(code(1), row());
        o.end(code(1), Ended::Accepted);
        assert_eq!(o.take(), [Change::Gone(code(1), Ended::Accepted)]);
        assert!(o.live().is_empty());
    }

    #[test]
    fn lone_waiters_are_said_once_per_game_as_they_are_now() {
        let mut o = Outbox::default();
        let one = Alone {
            waiting: 1,
            fixed: false,
        };
        o.lone("reversi", Some(one));
        o.lone("reversi", None);
        o.lone("draughts", Some(one));
        assert_eq!(
            o.take(),
            [
                Change::Lone("reversi".into(), None),
                Change::Lone("draughts".into(), Some(one))
            ]
        );
        assert_eq!(o.lone_now(), [("draughts".to_owned(), one)]);
    }

    #[test]
    fn while_nobody_takes_them_changes_stay_bounded() {
        let mut o = Outbox::default();
        for n in 0..3 * CHANGES_AT_MOST as u64 {
            o.publish(code(n), row());
            o.end(code(n), Ended::Withdrawn);
        }
        assert!(o.take().len() <= CHANGES_AT_MOST);
        assert!(o.live().is_empty());
    }
}
