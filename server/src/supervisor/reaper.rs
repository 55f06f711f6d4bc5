//! The running session children, and reaping them.
//!
//! Watching and reaping a child costs the supervisor no descriptor, so no
//! open-files limit can leave a session unreaped. Every session's end is
//! named by a queued real-time signal that carries its pid
//! ([`crate::signals`]): sent by the kernel for a session forked by the
//! supervisor itself; sent by the session itself just before it exits for
//! one cloned by the fork server (those end with SIGCHLD: exec reset the fork
//! server's exit signal, and `CLONE_PARENT` children inherit it). A named
//! session is queued and collected with `waitpid(pid)` at the next turns, one
//! at a time within the turn's budget (`super::budget`), so that a thousand
//! ends in one batch do not hold the loop ([`Children::announce`],
//! [`Children::collect_next`]); one that announced before its exit was done
//! is asked again at the SIGCHLD that follows. No step walks every child.
//!
//! The sweep, `waitpid(-1, WNOHANG)` until no exited child is left
//! ([`Children::sweep_one`], one a step), walks every child in the kernel for each child it
//! finds (about 0.3 us a child): it is the backstop, for ends that were not
//! announced ([`SweepNeed`]): a session killed by a signal (its SIGCHLD names a
//! session that did not announce: soon), an announcement that did not fit in
//! the signal queue (the session then sends the lost signal: soon), a full
//! self-pipe (now), and a killed session whose SIGCHLD folded into another's
//! (any SIGCHLD: the backstop, later; the more children, the later).

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use log::{debug, info, warn};
use nix::errno::Errno;
use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use reversi_games::registry::Module;

/// A running session.
pub struct Child {
    pub pid: Pid,
    /// The game's id for `GAME LIST` and `GAME WATCH`.
    pub id: u64,
    pub module: &'static Module,
    pub peers: Vec<SocketAddr>,
    /// Who plays in each seat, as `peers` (for `GAME LIST`).
    pub players: Vec<crate::terms::SeatPlayer>,
    pub started: Instant,
}

/// What one `waitpid(-1)` of a sweep found ([`Children::sweep_one`]).
pub enum Swept {
    /// A session ended, and how.
    Session(Child, WaitStatus),
    /// Another child ended (the fork server, the TLS terminator), and how.
    Other(WaitStatus),
    /// A child that stopped or continued, or one that is no session's and did not end:
    /// asked again, the sweep goes on.
    Nothing,
    /// No exited child is left: the sweep is done.
    Done,
}

// Collecting a child costs the kernel 20-100 us (`release_task` drops its /proc dentries:
// `proc_invalidate_siblings_dcache`), and each `waitpid(-1)` walks every child (0.3 us
// each: 3 ms with 10,000): a thousand announcements collected in one turn held the loop
// for 30-50 ms of CPU when 10,000 games ended together, a sweep that found hundreds over
// 100 ms. So both go one child at a time within the turn's budget (`super::budget`), the
// rest left as zombies for the next turns, which come at once.

/// The most sessions [`Children::with_room`] makes room for.
const ROOM_MOST: usize = 1 << 16;

/// Running sessions by pid.
#[derive(Default)]
pub struct Children {
    running: HashMap<Pid, Child>,
    /// Running sessions that announced their end and are not collected yet.
    ending: HashSet<Pid>,
    /// Sessions to ask for their exit at the next turns, a few a turn (announced, or named
    /// by a SIGCHLD), each once ([`Children::collect_next`]).
    due: std::collections::VecDeque<Pid>,
    queued: HashSet<Pid>,
    /// Sessions of `ending` asked and found running (their exit not done): asked again at
    /// the next SIGCHLD ([`Children::queue_ending`]). Kept apart so that a SIGCHLD costs
    /// what they number, not what `ending` does (thousands in a burst, nearly all queued).
    early: HashSet<Pid>,
}

/// Children started with an exit signal other than SIGCHLD are "clone" children:
/// waitpid sees them only with `__WALL`.
fn flags() -> Option<WaitPidFlag> {
    Some(WaitPidFlag::WNOHANG | WaitPidFlag::__WALL)
}

impl Children {
    /// No session yet, with room for `sessions` (up to [`ROOM_MOST`]) in each of its sets:
    /// a set that outgrows its capacity rehashes every entry at once, 0.5-2 ms with 8,000 on
    /// a loaded machine, inside the turn of one end when thousands end together. Only the
    /// sets' control bytes are touched now (a byte a place).
    pub fn with_room(sessions: usize) -> Children {
        let n = sessions.min(ROOM_MOST);
        Children {
            running: HashMap::with_capacity(n),
            ending: HashSet::with_capacity(n),
            due: std::collections::VecDeque::with_capacity(n),
            queued: HashSet::with_capacity(n),
            early: HashSet::with_capacity(n),
        }
    }

    pub fn len(&self) -> usize {
        self.running.len()
    }

    pub fn is_empty(&self) -> bool {
        self.running.is_empty()
    }

    /// Whether `pid` is a running session's.
    pub fn contains(&self, pid: Pid) -> bool {
        self.running.contains_key(&pid)
    }

    pub fn insert(&mut self, child: Child) {
        self.running.insert(child.pid, child);
    }

    pub fn iter(&self) -> impl Iterator<Item = &Child> {
        self.running.values()
    }

    /// The child running game `id`.
    pub fn by_id(&self, id: u64) -> Option<&Child> {
        self.iter().find(|c| c.id == id)
    }

    /// Collects child `pid`, which signalled its exit: the child and how it ended.
    pub fn reap(&mut self, pid: Pid) -> Option<(Child, WaitStatus)> {
        loop {
            match waitpid(pid, flags()) {
                Ok(WaitStatus::StillAlive) => return None,
                Ok(status) => return self.take(pid, status),
                Err(Errno::EINTR) => continue,
                Err(Errno::ECHILD) => return None,
                Err(e) => {
                    warn!("waitpid({pid}) failed: {e}");
                    return None;
                }
            }
        }
    }

    /// Session `pid` announced its end: asked for its exit at a next turn.
    pub fn announce(&mut self, pid: Pid) {
        if self.running.contains_key(&pid) {
            self.ending.insert(pid);
            self.queue(pid);
        }
    }

    /// Session `pid` is to be asked for its exit at a next turn (a SIGCHLD named it).
    pub fn queue(&mut self, pid: Pid) {
        if self.running.contains_key(&pid) && self.queued.insert(pid) {
            self.due.push_back(pid);
        }
    }

    /// A SIGCHLD came, which may stand for several exits: every session that announced
    /// its end and was found running when asked is asked again (the others are queued).
    pub fn queue_ending(&mut self) {
        for pid in std::mem::take(&mut self.early) {
            self.queue(pid);
        }
    }

    /// Whether sessions wait to be asked ([`Children::collect_next`]).
    pub fn has_due(&self) -> bool {
        !self.due.is_empty()
    }

    /// Asks the first queued session for its exit: `None` if none is queued, else the
    /// session and how it ended if it is done (one that announced but has not exited yet
    /// stays ending, asked again at a SIGCHLD).
    pub fn collect_next(&mut self) -> Option<Option<(Child, WaitStatus)>> {
        let pid = self.due.pop_front()?;
        self.queued.remove(&pid);
        let collected = self.reap(pid);
        if collected.is_none() && self.ending.contains(&pid) {
            self.early.insert(pid);
        }
        Some(collected)
    }

    /// Whether session `pid` announced its end and is not collected yet.
    pub fn is_ending(&self, pid: Pid) -> bool {
        self.ending.contains(&pid)
    }

    /// One step of a sweep, the backstop for ends that were not announced (see the module
    /// doc): collects one child that has exited, if any (`waitpid(-1)`).
    pub fn sweep_one(&mut self) -> Swept {
        loop {
            return match waitpid(Pid::from_raw(-1), flags()) {
                Ok(WaitStatus::StillAlive) | Err(Errno::ECHILD) => Swept::Done,
                Err(Errno::EINTR) => continue,
                Err(e) => {
                    warn!("waitpid failed: {e}");
                    Swept::Done
                }
                Ok(status) => match status.pid() {
                    Some(pid) if self.running.contains_key(&pid) => match self.take(pid, status) {
                        Some((child, status)) => Swept::Session(child, status),
                        None => Swept::Nothing,
                    },
                    Some(_) if is_an_end(status) => Swept::Other(status),
                    _ => Swept::Nothing,
                },
            };
        }
    }

    fn take(&mut self, pid: Pid, status: WaitStatus) -> Option<(Child, WaitStatus)> {
        if !is_an_end(status) {
            return None;
        }
        self.ending.remove(&pid);
        self.early.remove(&pid);
        // Left in `due` if there: asked again, it is no child any more (ECHILD: nothing).
        match self.running.remove(&pid) {
            Some(child) => {
                log_exit(&child, status);
                Some((child, status))
            }
            None => {
                debug!("reaped unknown child {pid}");
                None
            }
        }
    }

    /// Sends `signal` to every running session.
    pub fn signal_all(&self, signal: Signal) {
        for child in self.iter() {
            if let Err(e) = kill(child.pid, signal) {
                debug!("kill({}, {signal}): {e}", child.pid);
            }
        }
    }
}

/// How soon every child must be asked whether it has exited ([`Children::sweep`]), from
/// one batch of exit news. Ordered: the more urgent, the greater.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SweepNeed {
    /// No exit can have gone unnamed.
    None,
    /// A SIGCHLD came: the end of a killed session may have folded into it.
    Backstop,
    /// A session ended without announcing it, or its announcement was lost: other ends may
    /// have folded into its SIGCHLD. Not at once: a lost announcement is sent before the
    /// exit, which the sweep must find done.
    Soon,
    /// Exit news did not fit in the self-pipe.
    Now,
}

/// Whom a SIGCHLD named, as the supervisor finds it once the exit signals of the same
/// batch are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    /// A running session that announced its end.
    Announced,
    /// A running session that did not: killed by a signal.
    Unannounced,
    /// No running session: the fork server, the TLS terminator, or a session collected
    /// already (its announcement read first).
    Other,
}

/// What one batch of exit news asks of the sweep: `pipe_full` (news did not fit in the
/// self-pipe), `lost` (an announcement did not fit in the signal queue), `sigchld` (a
/// SIGCHLD came), `named` (whom the SIGCHLDs named).
pub fn sweep_need(pipe_full: bool, lost: bool, sigchld: bool, named: &[Named]) -> SweepNeed {
    if pipe_full {
        SweepNeed::Now
    } else if lost || named.contains(&Named::Unannounced) {
        SweepNeed::Soon
    } else if sigchld || !named.is_empty() {
        SweepNeed::Backstop
    } else {
        SweepNeed::None
    }
}

/// The least delay of a sweep that is not needed now.
const SWEEP_DELAY: Duration = Duration::from_millis(200);
/// The delay a running child adds to a [`SweepNeed::Soon`] sweep: one `waitpid(-1)` walks
/// every child in the kernel, about 0.3 us each, so such sweeps cost the supervisor under
/// 1% of a core however many games run; a folded killed session waits 1 s with 25,000
/// games, 4 s with 100,000.
const SWEEP_DELAY_PER_CHILD: Duration = Duration::from_micros(40);
/// The least delay of a [`SweepNeed::Backstop`] sweep.
const BACKSTOP_DELAY: Duration = Duration::from_secs(2);
/// The delay a running child adds to a backstop sweep: 5 s with 25,000 games, whose walk
/// (7.5 ms) then costs 0.15% of a core while games end.
const BACKSTOP_DELAY_PER_CHILD: Duration = Duration::from_micros(200);

fn scaled(least: Duration, per_child: Duration, running: usize) -> Duration {
    let running = u32::try_from(running).unwrap_or(u32::MAX);
    per_child.saturating_mul(running).max(least)
}

/// When the next sweep comes, after news that `need` it with `running` children: the
/// sooner of the one due at `due` and the one this news asks for.
pub fn next_sweep(
    due: Option<Instant>,
    need: SweepNeed,
    now: Instant,
    running: usize,
) -> Option<Instant> {
    let asked = match need {
        SweepNeed::None => return due,
        SweepNeed::Backstop => now + scaled(BACKSTOP_DELAY, BACKSTOP_DELAY_PER_CHILD, running),
        SweepNeed::Soon => now + scaled(SWEEP_DELAY, SWEEP_DELAY_PER_CHILD, running),
        SweepNeed::Now => now,
    };
    Some(due.map_or(asked, |due| due.min(asked)))
}

/// How long a sweep that is due may wait while named ends wait to be collected.
const POSTPONED_MOST: Duration = Duration::from_secs(10);

/// Whether the sweep set for `at` is done now: at once while `shutting_down`; else once
/// its time has come and no named end waits (`named_waiting`), or [`POSTPONED_MOST`] past
/// its time. A sweep in the middle of thousands of named ends collects them in its
/// kernel walk of every child, which took 16 ms of CPU in one `waitpid(-1)` when 10,000
/// games ended together (the exiting processes hold the task list's lock); the named ends
/// are collected anyway, and the sweep then finds only what went unnamed.
pub fn sweep_due(
    at: Option<Instant>,
    now: Instant,
    named_waiting: bool,
    shutting_down: bool,
) -> bool {
    match at {
        None => false,
        Some(_) if shutting_down => true,
        Some(at) if at > now => false,
        Some(at) => !named_waiting || now >= at + POSTPONED_MOST,
    }
}

/// Collects child `pid` (no session) if it has ended: how it ended.
pub fn collect(pid: Pid) -> Option<WaitStatus> {
    loop {
        match waitpid(pid, flags()) {
            Err(Errno::EINTR) => continue,
            Ok(status) if is_an_end(status) => return Some(status),
            _ => return None,
        }
    }
}

/// Whether `status` says the child is gone (not merely stopped or continued).
fn is_an_end(status: WaitStatus) -> bool {
    matches!(status, WaitStatus::Exited(..) | WaitStatus::Signaled(..))
}

fn log_exit(child: &Child, status: WaitStatus) {
    let lived = child.started.elapsed().as_secs_f64();
    let pid = child.pid;
    let who: Vec<String> = child.peers.iter().map(ToString::to_string).collect();
    let who = format!("{} {}", child.module.info.name, who.join(" vs "));
    match status {
        WaitStatus::Exited(_, 0) => {
            info!("session {pid} exited with status 0 after {lived:.3}s ({who})")
        }
        WaitStatus::Exited(_, code) if crate::session::abandoned_by(code).is_some() => {
            info!("session {pid} exited with status {code} (abandoned) after {lived:.3}s ({who})")
        }
        WaitStatus::Exited(_, code) if crate::session::lost_by(code).is_some() => {
            info!("session {pid} exited with status {code} (forfeited) after {lived:.3}s ({who})")
        }
        WaitStatus::Exited(_, code) => {
            warn!("session {pid} exited with status {code} after {lived:.3}s ({who})")
        }
        WaitStatus::Signaled(_, sig, _) => {
            warn!("session {pid} killed by {sig} after {lived:.3}s ({who})")
        }
        _ => warn!("session {pid} gone after {lived:.3}s ({who})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Children that are not this process's: asking them finds nothing (ECHILD).
    fn strangers(n: i32) -> Children {
        let module = reversi_games::registry::find("tictactoe").expect("a game");
        let mut children = Children::default();
        for pid in 1..=n {
            children.insert(Child {
                pid: Pid::from_raw(i32::MAX - pid),
                id: pid as u64,
                module,
                peers: Vec::new(),
                players: Vec::new(),
                started: Instant::now(),
            });
            children.announce(Pid::from_raw(i32::MAX - pid));
        }
        children
    }

    #[test]
    fn each_queued_session_is_asked_once_and_one_still_running_again_at_a_sigchld() {
        let mut children = strangers(3);
        // Announced: queued once each, however often named.
        children.announce(Pid::from_raw(i32::MAX - 1));
        children.queue(Pid::from_raw(i32::MAX - 2));
        let mut asked = 0;
        while let Some(got) = children.collect_next() {
            assert!(got.is_none(), "strangers are never collected");
            asked += 1;
        }
        assert_eq!(asked, 3);
        assert_eq!(children.len(), 3, "not collected: still running");
        assert!(!children.has_due());
        // Asked and found running: asked again at a SIGCHLD, each once.
        children.queue_ending();
        children.queue_ending();
        assert_eq!(children.due.len(), 3);
        while children.collect_next().is_some() {}
        // A session named by a SIGCHLD that never announced is not asked again.
        let module = reversi_games::registry::find("tictactoe").expect("a game");
        let pid = Pid::from_raw(i32::MAX - 100);
        children.insert(Child {
            pid,
            id: 100,
            module,
            peers: Vec::new(),
            players: Vec::new(),
            started: Instant::now(),
        });
        children.queue(pid);
        while children.collect_next().is_some() {}
        children.queue_ending();
        assert_eq!(children.due.len(), 3, "the three that announced");
    }

    use Named::{Announced, Other, Unannounced};

    #[test]
    fn what_each_kind_of_news_asks_of_the_sweep() {
        // (pipe full, announcement lost, SIGCHLD, named) -> need
        let table: &[(bool, bool, bool, &[Named], SweepNeed)] = &[
            (false, false, false, &[], SweepNeed::None),
            (false, false, true, &[], SweepNeed::Backstop),
            (false, false, true, &[Announced], SweepNeed::Backstop),
            (false, false, true, &[Other, Announced], SweepNeed::Backstop),
            (
                false,
                false,
                true,
                &[Announced, Unannounced],
                SweepNeed::Soon,
            ),
            (false, true, false, &[], SweepNeed::Soon),
            (false, true, true, &[Announced], SweepNeed::Soon),
            (true, false, false, &[], SweepNeed::Now),
            (true, true, true, &[Unannounced], SweepNeed::Now),
        ];
        for &(pipe_full, lost, sigchld, named, want) in table {
            let got = sweep_need(pipe_full, lost, sigchld, named);
            assert_eq!(got, want, "{pipe_full} {lost} {sigchld} {named:?}");
        }
    }

    #[test]
    fn a_sweep_due_waits_for_the_named_ends_but_not_for_long_nor_at_shutdown() {
        let now = Instant::now();
        let s = Duration::from_secs;
        // (set for, named ends waiting, shutting down) -> done now
        let table: &[(Option<Instant>, bool, bool, bool)] = &[
            (None, false, false, false),
            (None, true, true, false),
            (Some(now + s(1)), false, false, false),
            (Some(now + s(1)), true, true, true),
            (Some(now), false, false, true),
            (Some(now), true, false, false),
            (Some(now - s(9)), true, false, false),
            (Some(now - s(10)), true, false, true),
            (Some(now - s(1)), false, false, true),
        ];
        for &(at, named, shutting_down, want) in table {
            let got = sweep_due(at, now, named, shutting_down);
            assert_eq!(got, want, "{at:?} {named} {shutting_down}");
        }
    }

    #[test]
    fn a_sweep_comes_no_later_than_the_news_asks() {
        let now = Instant::now();
        let s = Duration::from_secs;
        // (due, need, running) -> next
        let table: &[(Option<Duration>, SweepNeed, usize, Option<Duration>)] = &[
            (None, SweepNeed::None, 0, None),
            (Some(s(3)), SweepNeed::None, 0, Some(s(3))),
            (None, SweepNeed::Backstop, 0, Some(s(2))),
            (None, SweepNeed::Backstop, 25_000, Some(s(5))),
            (None, SweepNeed::Soon, 0, Some(Duration::from_millis(200))),
            (None, SweepNeed::Soon, 25_000, Some(s(1))),
            (None, SweepNeed::Soon, 100_000, Some(s(4))),
            (Some(s(5)), SweepNeed::Soon, 25_000, Some(s(1))),
            (Some(s(1)), SweepNeed::Backstop, 25_000, Some(s(1))),
            (Some(s(1)), SweepNeed::Now, 25_000, Some(s(0))),
        ];
        for &(due, need, running, want) in table {
            let got = next_sweep(due.map(|d| now + d), need, now, running);
            assert_eq!(got, want.map(|d| now + d), "{due:?} {need:?} {running}");
        }
    }
}
