//! The running session children, and reaping them.
//!
//! Each child has a pidfd registered in the supervisor's poll: when it becomes
//! readable that one child has exited and is collected with `waitpid(pid)`.
//! `waitpid(-1)` would walk every child on each call, so reaping would grow
//! with the number of games; it is used only for children whose pidfd could
//! not be opened (kernels before 5.3).

use std::net::SocketAddr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixDatagram;
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
    /// Readable when the child has exited.
    pub pidfd: Option<OwnedFd>,
    /// Where viewers are handed to the child.
    pub control: UnixDatagram,
}

/// Running sessions in a slab; the slot is the child's poll token.
#[derive(Default)]
pub struct Children {
    slots: Vec<Option<Child>>,
    free: Vec<usize>,
    len: usize,
    /// Children without a pidfd: reaped by `waitpid(-1)` on SIGCHLD.
    without_pidfd: usize,
}

/// Opens a pidfd for `pid` (Linux 5.3 and later).
pub fn pidfd_open(pid: Pid) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid.as_raw(), 0) };
    if fd < 0 {
        debug!("pidfd_open({pid}): {}", std::io::Error::last_os_error());
        return None;
    }
    // SAFETY: the kernel just returned this descriptor; nothing else owns it.
    Some(unsafe { OwnedFd::from_raw_fd(fd as i32) })
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
        if child.pidfd.is_none() {
            self.without_pidfd += 1;
        }
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

    /// The pidfd of `slot` said its child exited: collect it. Returns the child if it was
    /// reaped (it is then gone from the table; the caller deregisters its pidfd).
    pub fn reap_slot(&mut self, slot: usize) -> Option<Child> {
        let pid = self.get(slot)?.pid;
        match waitpid(pid, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => None,
            Ok(status) => self.take(slot, status),
            Err(Errno::ECHILD) => self.take(slot, WaitStatus::StillAlive),
            Err(e) => {
                warn!("waitpid({pid}) failed: {e}");
                None
            }
        }
    }

    /// Collects children that have no pidfd (`waitpid(-1)` until none is left exited).
    pub fn reap_unwatched(&mut self) -> Vec<Child> {
        let mut reaped = Vec::new();
        if self.without_pidfd == 0 {
            return reaped;
        }
        loop {
            let status = match waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) | Err(Errno::ECHILD) => return reaped,
                Err(Errno::EINTR) => continue,
                Err(e) => {
                    warn!("waitpid failed: {e}");
                    return reaped;
                }
                Ok(status) => status,
            };
            let Some(pid) = status.pid() else { continue };
            let slot = self
                .slots
                .iter()
                .position(|c| c.as_ref().is_some_and(|c| c.pid == pid));
            match slot {
                Some(slot) => reaped.extend(self.take(slot, status)),
                None => debug!("reaped unknown child {pid}"),
            }
        }
    }

    fn take(&mut self, slot: usize, status: WaitStatus) -> Option<Child> {
        if matches!(status, WaitStatus::Stopped(..) | WaitStatus::Continued(_)) {
            return None;
        }
        let child = self.slots.get_mut(slot)?.take()?;
        self.free.push(slot);
        self.len -= 1;
        if child.pidfd.is_none() {
            self.without_pidfd -= 1;
        }
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

impl AsRawFd for Child {
    /// The pidfd (the caller checks it exists).
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.pidfd.as_ref().map_or(-1, AsRawFd::as_raw_fd)
    }
}
