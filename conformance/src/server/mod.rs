//! Checks a server: each check is a short scripted exchange with the server
//! under test, named after the section of PROTOCOL.md or TEXT-PROTOCOL.md
//! (or a game's spec) it holds the server to, and judged line by line.
//!
//! Checks run one after another: the kit's clients would otherwise meet each
//! other in the server's queues. The server should serve nobody else while
//! the kit runs, for the same reason.

use std::net::SocketAddr;
use std::time::Duration;

use crate::conn::{Conn, Recv};
use crate::report::{Entry, Finding, Judged, Report, Verdict};

mod before;
mod binary;
mod ending;
mod foxes;
mod games;
mod lines;
mod random;
mod referee;
mod seed;
mod table;
mod timeouts;
mod transcripts;
mod turns;
mod viewers;

pub use referee::{game_over, result};

/// The server under test and what the kit knows of its settings.
#[derive(Clone, Debug)]
pub struct Target {
    pub addr: SocketAddr,
    /// The server's handshake timeout, if the kit is to check it.
    pub handshake_timeout: Option<Duration>,
    /// The server's move clock, if the kit is to check it.
    pub move_timeout: Option<Duration>,
    /// The server's first-move clock, if the kit is to check it.
    pub first_move_timeout: Option<Duration>,
    /// A listener for seed 000's own protocol serving Duell (§14).
    pub seed_duell: Option<SocketAddr>,
    /// A listener for seed 002's own protocol (Foxes & Dolphins, foxes.md).
    pub seed_foxes: Option<SocketAddr>,
    /// Random games a game in §10's checks.
    pub random_games: u32,
    /// Seeds the random moves, so a failing run can be repeated.
    pub seed: u64,
    /// Only checks whose name contains this run.
    pub only: Option<String>,
}

impl Target {
    /// A target with no timeouts known, no seed listener, two random games a game.
    pub fn new(addr: SocketAddr) -> Target {
        Target {
            addr,
            handshake_timeout: None,
            move_timeout: None,
            first_move_timeout: None,
            seed_duell: None,
            seed_foxes: None,
            random_games: 2,
            seed: 1,
            only: None,
        }
    }

    /// The move clock, or a skip when it is unknown or too long to wait for.
    pub fn move_clock(&self) -> Result<Duration, Finding> {
        short(self.move_timeout, "--move-timeout")
    }

    /// The first-move clock, or a skip.
    pub fn first_move_clock(&self) -> Result<Duration, Finding> {
        short(self.first_move_timeout, "--first-move-timeout")
    }
}

/// The longest timeout a check waits out.
const LONGEST_WAIT: Duration = Duration::from_secs(10);

fn short(timeout: Option<Duration>, option: &str) -> Result<Duration, Finding> {
    match timeout {
        Some(t) if !t.is_zero() && t <= LONGEST_WAIT => Ok(t),
        Some(_) => Err(Finding::Skipped(format!(
            "{option} must be 1 to 10 s to be checked"
        ))),
        None => Err(Finding::Skipped(format!(
            "the server's {option} was not given"
        ))),
    }
}

/// Skips the check unless the server serves `game` (§4: the refusal of an
/// unknown game lists the games served).
pub fn served(target: &Target, game: &str) -> Judged {
    let mut conn = Conn::open(target.addr, "lister")?;
    conn.send("GAME TYPE conformance-kit-no-such-game")?;
    let line = match conn.recv() {
        Recv::Line(line) => line,
        got => return Err(conn.differ("ERROR no game … here; games: …", got.show())),
    };
    let games = line.split("games: ").nth(1).unwrap_or_default();
    if games
        .split_whitespace()
        .any(|g| g.eq_ignore_ascii_case(game))
    {
        Ok(())
    } else {
        Err(Finding::Skipped(format!(
            "the server does not serve {game} ({line:?})"
        )))
    }
}

/// One check: the section it holds the server to, what it checks, and how.
#[derive(Clone, Copy)]
pub struct Check {
    pub section: &'static str,
    pub what: &'static str,
    pub run: fn(&Target) -> Judged,
}

impl Check {
    /// The check's full name, as the report and the known deviations name it.
    pub fn name(&self) -> String {
        format!("{} {}", self.section, self.what)
    }
}

/// Every check, in the order of the specs' sections (PROTOCOL.md's first),
/// a section's checks in the order they are listed.
pub fn checks() -> Vec<Check> {
    let mut checks = [
        binary::CHECKS,
        lines::CHECKS,
        before::CHECKS,
        turns::CHECKS,
        ending::CHECKS,
        viewers::CHECKS,
        timeouts::CHECKS,
        transcripts::CHECKS,
        games::CHECKS,
        random::CHECKS,
        seed::CHECKS,
    ]
    .concat();
    checks.sort_by_key(|c| section_key(c.section));
    checks
}

/// Orders sections: `binary` before `text`, then by number (§8.10 after §8.9),
/// then a game's own spec after the section that names it.
fn section_key(section: &str) -> (bool, Vec<u32>, &str) {
    let (protocol, rest) = section.split_once(" §").unwrap_or((section, ""));
    let (number, game) = rest.split_once(' ').unwrap_or((rest, ""));
    let numbers = number
        .split('.')
        .map(|n| n.parse().unwrap_or(u32::MAX))
        .collect();
    (protocol != "binary", numbers, game)
}

/// Runs every check (or those `target.only` names) and reports; `progress`
/// sees each entry as soon as it is judged.
pub fn run(target: &Target, mut progress: impl FnMut(&Entry)) -> Report {
    let mut report = Report::default();
    for check in checks() {
        let name = check.name();
        if target
            .only
            .as_ref()
            .is_some_and(|only| !name.contains(only.as_str()))
        {
            continue;
        }
        let entry = Entry {
            section: check.section,
            what: check.what,
            verdict: Verdict::of(&name, (check.run)(target)),
        };
        progress(&entry);
        report.entries.push(entry);
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_run_in_the_order_of_the_specs_sections() {
        let sections: Vec<&str> = checks().iter().map(|c| c.section).collect();
        let mut keys: Vec<_> = sections.iter().map(|s| section_key(s)).collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{sections:?}");
        keys.dedup();
        assert_eq!(
            keys.first().map(|k| k.0),
            Some(false),
            "binary first: {sections:?}"
        );
        assert!(section_key("text §8.10") > section_key("text §8.9"));
        assert!(section_key("text §10 (duell.md)") > section_key("text §10 (draughts.md)"));
        assert!(section_key("text §10.1") > section_key("text §10 (duell.md)"));
    }

    #[test]
    fn every_check_has_a_unique_name_and_every_known_deviation_a_check() {
        let names: Vec<String> = checks().iter().map(Check::name).collect();
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "two checks share a name");
        for (known, _) in crate::deviations::KNOWN {
            assert!(
                names.iter().any(|n| n == known),
                "no check is called {known:?}"
            );
        }
    }
}
