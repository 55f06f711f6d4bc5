//! The running session children, and reaping them.
//!
//! A session child is started with a real-time exit signal that carries its
//! pid ([`crate::signals`]), so the supervisor collects exactly the child that
//! exited with `waitpid(pid)`, which is O(1) on Linux 5.19 and later. The old
//! way, `waitpid(-1)` on every wake-up, walked every child on each call, and a
//! descriptor per child (a pidfd) would make every fork copy and every child
//! close one descriptor per running game. The supervisor holds none.
//! `waitpid(-1)` is left for the rare case of exits the signal pipe could not
//! hold ([`Children::sweep`]). Sessions started by the fork server cannot have
//! that signal; each has a pidfd instead (see `super::forking`).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::os::fd::OwnedFd;
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
    pub started: Instant,
    /// For a session from the fork server: the pidfd that tells its end (see
    /// `super::forking`); the others announce it with their exit signal.
    pub pidfd: Option<OwnedFd>,
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

    /// Collects every child that has exited (`waitpid(-1)` until none is left): for exits
    /// whose signal was lost.
    pub fn sweep(&mut self) -> Vec<(Child, WaitStatus)> {
        let mut reaped = Vec::new();
        loop {
            match waitpid(Pid::from_raw(-1), flags()) {
                Ok(WaitStatus::StillAlive) | Err(Errno::ECHILD) => return reaped,
                Err(Errno::EINTR) => continue,
                Err(e) => {
                    warn!("waitpid failed: {e}");
                    return reaped;
                }
                Ok(status) => {
                    if let Some(pid) = status.pid() {
                        reaped.extend(self.take(pid, status));
                    }
                }
            }
        }
    }

    fn take(&mut self, pid: Pid, status: WaitStatus) -> Option<(Child, WaitStatus)> {
        if matches!(status, WaitStatus::Stopped(..) | WaitStatus::Continued(_)) {
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
