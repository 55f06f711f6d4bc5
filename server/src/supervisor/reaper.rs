//! The running session children, and reaping them.
//!
//! Watching and reaping a child costs the supervisor no descriptor, so no
//! open-files limit can leave a session unreaped. A session forked by the
//! supervisor itself exits with a real-time signal that carries its pid
//! ([`crate::signals`]): the supervisor collects exactly that child with
//! `waitpid(pid)` ([`Children::reap`]). The fork server and the sessions it
//! clones (`CLONE_PARENT`: the supervisor's children too) end with SIGCHLD,
//! which does not queue, so on each one the supervisor collects every child
//! that has exited, `waitpid(-1, WNOHANG)` until none is left
//! ([`Children::sweep`]), and maps each pid to its session. A SIGCHLD names one
//! child, which is collected at once with `waitpid(pid)`; the sweep, for those
//! whose SIGCHLD folded into another's, follows later (the more children, the
//! later), once for a whole burst, since each `waitpid(-1)` walks every child in the kernel
//! (`super::forking`, README "Operations" for the cost).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Instant;

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

/// What one [`Children::sweep`] collected.
#[derive(Default)]
pub struct Swept {
    /// Sessions that ended, and how.
    pub sessions: Vec<(Child, WaitStatus)>,
    /// Other children that ended (the fork server), and how.
    pub others: Vec<WaitStatus>,
}

/// Running sessions by pid.
#[derive(Default)]
pub struct Children {
    running: HashMap<Pid, Child>,
}

/// Children started with an exit signal other than SIGCHLD are "clone" children:
/// waitpid sees them only with `__WALL`.
fn flags() -> Option<WaitPidFlag> {
    Some(WaitPidFlag::WNOHANG | WaitPidFlag::__WALL)
}

impl Children {
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

    /// Collects every child that has exited (`waitpid(-1)` until none is left): on
    /// SIGCHLD, and for exits whose signal was lost.
    pub fn sweep(&mut self) -> Swept {
        let mut reaped = Swept::default();
        loop {
            match waitpid(Pid::from_raw(-1), flags()) {
                Ok(WaitStatus::StillAlive) | Err(Errno::ECHILD) => return reaped,
                Err(Errno::EINTR) => continue,
                Err(e) => {
                    warn!("waitpid failed: {e}");
                    return reaped;
                }
                Ok(status) => match status.pid() {
                    Some(pid) if self.running.contains_key(&pid) => {
                        reaped.sessions.extend(self.take(pid, status))
                    }
                    Some(_) if is_an_end(status) => reaped.others.push(status),
                    _ => {}
                },
            }
        }
    }

    fn take(&mut self, pid: Pid, status: WaitStatus) -> Option<(Child, WaitStatus)> {
        if !is_an_end(status) {
            return None;
        }
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
