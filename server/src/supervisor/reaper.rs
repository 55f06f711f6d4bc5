//! The running session children, and reaping them.
//!
//! Each child holds one end of a Unix seqpacket socket (its hand-off socket,
//! [`crate::session::handoff`]); the supervisor's end is in its poll. When a
//! child exits the kernel closes its end, the supervisor's end reads EOF, and
//! that one child is collected with `waitpid(pid)` (a single-pid wait is O(1)
//! on Linux 5.19 and later). The old way, `waitpid(-1)` on every wake-up,
//! walked every child on each call, so reaping grew with the number of games.
//! Descriptors are closed before a process turns zombie, so the EOF can come
//! first: such a child is kept as *exiting* and collected on the SIGCHLD that
//! follows. One descriptor per child in the supervisor, so 10,000 games fit
//! the usual 20,000-descriptor limit.

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
    /// Where viewers are handed to the child; EOF when it has exited.
    pub control: OwnedFd,
}

/// Running sessions in a slab; the slot is the child's poll token.
#[derive(Default)]
pub struct Children {
    slots: Vec<Option<Child>>,
    free: Vec<usize>,
    len: usize,
    /// Slots whose hand-off socket hung up before `waitpid` could collect them.
    exiting: Vec<usize>,
}

impl Children {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Stores a child; returns its slot.
    pub fn insert(&mut self, child: Child) -> usize {
        self.len += 1;
        match self.free.pop() {
            Some(i) => {
                self.slots[i] = Some(child);
                i
            }
            None => {
                self.slots.push(Some(child));
                self.slots.len() - 1
            }
        }
    }

    pub fn get(&self, slot: usize) -> Option<&Child> {
        self.slots.get(slot).and_then(Option::as_ref)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Child> {
        self.slots.iter().flatten()
    }

    /// The child running game `id`.
    pub fn by_id(&self, id: u64) -> Option<&Child> {
        self.iter().find(|c| c.id == id)
    }

    /// The hand-off socket of `slot` hung up: its child has exited or is exiting.
    /// Returns the child if it was collected (it is then gone from the table).
    pub fn reap_slot(&mut self, slot: usize) -> Option<Child> {
        let pid = self.get(slot)?.pid;
        match waitpid(pid, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => {
                if !self.exiting.contains(&slot) {
                    self.exiting.push(slot);
                }
                None
            }
            Ok(status) => self.take(slot, status),
            Err(Errno::ECHILD) => self.take(slot, WaitStatus::StillAlive),
            Err(e) => {
                warn!("waitpid({pid}) failed: {e}");
                None
            }
        }
    }

    /// Collects `slot` on the next SIGCHLD whatever its socket says.
    pub fn mark_exiting(&mut self, slot: usize) {
        if !self.exiting.contains(&slot) {
            self.exiting.push(slot);
        }
    }

    /// Collects the children that hung up earlier and have exited since (on SIGCHLD).
    pub fn reap_exiting(&mut self) -> Vec<Child> {
        let slots = std::mem::take(&mut self.exiting);
        slots
            .into_iter()
            .filter_map(|slot| self.reap_slot(slot))
            .collect()
    }

    fn take(&mut self, slot: usize, status: WaitStatus) -> Option<Child> {
        if matches!(status, WaitStatus::Stopped(..) | WaitStatus::Continued(_)) {
            return None;
        }
        let child = self.slots.get_mut(slot)?.take()?;
        self.free.push(slot);
        self.len -= 1;
        self.exiting.retain(|&s| s != slot);
        log_exit(&child, status);
        Some(child)
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
        WaitStatus::Exited(_, code) => {
            warn!("session {pid} exited with status {code} after {lived:.3}s ({who})")
        }
        WaitStatus::Signaled(_, sig, _) => {
            warn!("session {pid} killed by {sig} after {lived:.3}s ({who})")
        }
        _ => warn!("session {pid} gone after {lived:.3}s ({who})"),
    }
}
