//! The table of running session children, and reaping them.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Instant;

use log::{debug, info, warn};
use nix::errno::Errno;
use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

struct Child {
    started: Instant,
    peers: [SocketAddr; 2],
}

/// Running sessions by pid.
#[derive(Default)]
pub struct Children {
    running: HashMap<Pid, Child>,
}

impl Children {
    pub fn len(&self) -> usize {
        self.running.len()
    }

    pub fn is_empty(&self) -> bool {
        self.running.is_empty()
    }

    pub fn insert(&mut self, pid: Pid, peers: [SocketAddr; 2]) {
        self.running.insert(
            pid,
            Child {
                started: Instant::now(),
                peers,
            },
        );
    }

    /// Collects every child that has exited (waitpid(-1, WNOHANG) until none is left) and logs
    /// each; abnormal exits at warn. Returns how many were reaped.
    pub fn reap(&mut self) -> usize {
        let mut reaped = 0;
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
            let (code, signal) = match status {
                WaitStatus::Exited(_, code) => (Some(code), None),
                WaitStatus::Signaled(_, sig, _) => (None, Some(sig)),
                // Stopped/continued: not an exit (SA_NOCLDSTOP makes these rare).
                _ => continue,
            };
            reaped += 1;
            let Some(child) = self.running.remove(&pid) else {
                debug!("reaped unknown child {pid}");
                continue;
            };
            let lived = child.started.elapsed().as_secs_f64();
            let [a, b] = child.peers;
            match (code, signal) {
                (Some(0), _) => {
                    info!("session {pid} exited with status 0 after {lived:.3}s ({a} vs {b})")
                }
                (Some(code), _) => {
                    warn!("session {pid} exited with status {code} after {lived:.3}s ({a} vs {b})")
                }
                (_, Some(sig)) => {
                    warn!("session {pid} killed by {sig} after {lived:.3}s ({a} vs {b})")
                }
                _ => {}
            }
        }
    }

    /// Sends `signal` to every running session.
    pub fn signal_all(&self, signal: Signal) {
        for &pid in self.running.keys() {
            if let Err(e) = kill(pid, signal) {
                debug!("kill({pid}, {signal}): {e}");
            }
        }
    }
}
