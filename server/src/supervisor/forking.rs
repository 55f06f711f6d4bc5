//! Where sessions come from: the fork server while it runs (see
//! [`crate::fork_server`]), else a fork of the supervisor itself; and how the
//! supervisor learns that they ended.
//!
//! A session forked from the supervisor exits with the real-time signal that
//! names it (see [`crate::signals`]). One cloned by the fork server cannot: the
//! fork server was executed afresh, exec resets its exit signal to SIGCHLD, and
//! `CLONE_PARENT` children inherit their creator's. Those sessions, and the fork
//! server itself, are collected on SIGCHLD by a sweep of every exited child
//! (see `super::reaper`): watching them costs no descriptor.

use std::io;
use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

use log::{error, info, warn};
use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

use super::Supervisor;
use crate::fork_server::handle::{Failure, ForkServer};
use crate::session::{self, Group, SessionConfig};
use crate::spawn;

/// How long after a SIGCHLD every child is asked whether it has exited (see
/// [`Supervisor::on_exits`]) when few run: a session whose SIGCHLD folded into another's
/// stays a zombie this long.
const SWEEP_DELAY: Duration = Duration::from_millis(200);

/// The delay a running child adds to [`SWEEP_DELAY`]. One `waitpid(-1)` walks every child
/// in the kernel, about 0.3 us each (3.1 ms with 10,000 children on the project's
/// machine), so sweeps, at most one per delay, cost the supervisor under 1% of a core
/// however many games run; a folded exit waits 1 s with 25,000 games, 4 s with 100,000.
const SWEEP_DELAY_PER_CHILD: Duration = Duration::from_micros(40);

/// How long after a SIGCHLD the sweep comes, with `running` children.
pub(super) fn sweep_delay(running: usize) -> Duration {
    let scaled = SWEEP_DELAY_PER_CHILD.saturating_mul(u32::try_from(running).unwrap_or(u32::MAX));
    scaled.max(SWEEP_DELAY)
}

/// The running fork server.
pub(super) struct Forks {
    pub server: ForkServer,
}

impl Supervisor {
    /// Starts the fork server if the configuration asks for one; without it, sessions
    /// are forked from the supervisor, which works the same, only slower with many games.
    pub(super) fn start_fork_server(&mut self) {
        let Some(spec) = &self.config.fork_server else {
            return;
        };
        match ForkServer::start(spec).map(|server| Forks { server }) {
            Ok(forks) => {
                info!("fork server {} started", forks.server.pid());
                self.fork_server = Some(forks);
            }
            Err(e) => {
                warn!("cannot start the fork server ({e}): sessions are forked from the supervisor")
            }
        }
    }

    /// Stops using the fork server (it failed): killed and collected.
    pub(super) fn stop_fork_server(&mut self) {
        if let Some(forks) = self.fork_server.take() {
            let _ = kill(forks.server.pid(), Signal::SIGKILL);
            let _ = waitpid(forks.server.pid(), Some(WaitPidFlag::__WALL));
        }
    }

    /// At shutdown: closes the fork server's socket, on which it ends, and collects it
    /// (killed if it has not ended within a second).
    pub(super) fn finish_fork_server(&mut self) {
        let Some(forks) = self.fork_server.take() else {
            return;
        };
        let pid = forks.server.pid();
        drop(forks);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        let flags = Some(WaitPidFlag::__WALL | WaitPidFlag::WNOHANG);
        while let Ok(WaitStatus::StillAlive) = waitpid(pid, flags) {
            if std::time::Instant::now() >= deadline {
                warn!("the fork server did not end with the supervisor: SIGKILL");
                let _ = kill(pid, Signal::SIGKILL);
                let _ = waitpid(pid, Some(WaitPidFlag::__WALL));
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Collects the children that ended: each of `exited` (named by its exit signal or its
    /// SIGCHLD) with `waitpid(pid)`, and on `sweep` every child that has exited
    /// (`waitpid(-1)` until none is left). A named pid that is neither a running session's
    /// nor the fork server's was collected already (by a sweep).
    pub(super) fn collect_children(&mut self, exited: &[i32], sweep: bool) {
        let mut reaped = Vec::new();
        let mut others = Vec::new();
        for &pid in exited {
            let pid = Pid::from_raw(pid);
            if self.children.contains(pid) {
                reaped.extend(self.children.reap(pid));
            } else if self.fork_server.as_ref().map(|f| f.server.pid()) == Some(pid)
                || self.tls_ended(pid)
            {
                others.extend(super::reaper::collect(pid));
            }
        }
        if sweep {
            let swept = self.children.sweep();
            reaped.extend(swept.sessions);
            others.extend(swept.others);
        }
        for (child, status) in &reaped {
            self.ended(child, *status);
        }
        for status in others {
            self.other_child_ended(status);
        }
        if !reaped.is_empty() {
            log::debug!("{} sessions running", self.children.len());
        }
    }

    /// Signals arrived: collects the children they name now, and every child that has
    /// exited now if the pipe lost some, or within [`sweep_delay`] of a SIGCHLD (which may
    /// stand for several exits). The delay lets one sweep, which walks every child in the
    /// kernel, serve every SIGCHLD of a burst.
    pub(super) fn on_exits(&mut self, got: &crate::signals::Pending, now: Instant) {
        self.collect_children(&got.exited, got.sweep);
        if got.sweep {
            self.sweep_at = None;
        } else if got.sigchld && self.sweep_at.is_none() {
            self.sweep_at = Some(now + sweep_delay(self.children.len()));
        }
    }

    /// The sweep a SIGCHLD asked for, when it is due; at once while shutting down, so
    /// shutdown never waits on a session that has ended.
    pub(super) fn sweep_when_due(&mut self, now: Instant, shutting_down: bool) {
        let due = self.sweep_at.is_some_and(|at| at <= now || shutting_down);
        if due {
            self.sweep_at = None;
            self.collect_children(&[], true);
        }
    }

    /// A child that is no session ended (collected by a sweep, with `status`): if it was
    /// the fork server, sessions are forked from the supervisor from now on.
    pub(super) fn other_child_ended(&mut self, status: WaitStatus) {
        let Some(pid) = status.pid() else {
            return;
        };
        if self.tls_ended(pid) {
            self.tls = None;
            error!(
                "the TLS terminator {pid} {}: started again for the next TLS client",
                how(status)
            );
            return;
        }
        if self.fork_server.as_ref().map(|f| f.server.pid()) != Some(pid) {
            log::debug!("reaped unknown child {pid}");
            return;
        }
        self.fork_server = None;
        let how = how(status);
        error!("the fork server {how}: sessions are forked from the supervisor from now on");
    }
}

/// How a child ended, for the log.
fn how(status: WaitStatus) -> String {
    match status {
        WaitStatus::Exited(_, code) => format!("exited with status {code}"),
        WaitStatus::Signaled(_, signal, _) => format!("was killed by {signal}"),
        status => format!("ended ({status:?})"),
    }
}
impl Supervisor {
    /// Starts the session of `group`: its pid and the group (whose sockets the caller
    /// then closes).
    pub(super) fn fork_session(
        &mut self,
        keep: &[i32],
        config: Option<SessionConfig>,
        group: Group,
        viewers: OwnedFd,
    ) -> Result<(Pid, Group), (io::Error, Group)> {
        let Some(forks) = &self.fork_server else {
            return fork_directly(keep, config, group, viewers);
        };
        match forks.server.start_session(&group, &viewers) {
            Ok(pid) => Ok((pid, group)),
            Err(Failure::NotSent(e)) => {
                error!("the fork server is gone ({e}): sessions are forked from the supervisor from now on");
                self.stop_fork_server();
                fork_directly(keep, config, group, viewers)
            }
            Err(Failure::Refused(e)) => Err((e, group)),
            Err(failure) => {
                error!("the fork server failed ({failure}): sessions are forked from the supervisor from now on");
                self.stop_fork_server();
                Err((io::Error::other(failure.to_string()), group))
            }
        }
    }
}

/// Forks the session of `group` from the supervisor itself.
fn fork_directly(
    keep: &[i32],
    config: Option<SessionConfig>,
    group: Group,
    viewers: OwnedFd,
) -> Result<(Pid, Group), (io::Error, Group)> {
    let Some(config) = config else {
        let e = io::Error::other(format!(
            "no session settings for {}",
            group.module.info.name
        ));
        return Err((e, group));
    };
    spawn::fork_child(
        keep,
        "reversid-game",
        spawn::Parent::Caller,
        group,
        move |group, abort| session::play(&config, group, abort, viewers),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_waits_longer_the_more_children_it_would_walk() {
        assert_eq!(sweep_delay(0), SWEEP_DELAY);
        assert_eq!(sweep_delay(1000), SWEEP_DELAY);
        assert_eq!(sweep_delay(25_000), Duration::from_secs(1));
        assert_eq!(sweep_delay(100_000), Duration::from_secs(4));
    }
}
