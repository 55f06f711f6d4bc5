//! Where sessions come from: the fork server while it runs (see
//! [`crate::fork_server`]), else a fork of the supervisor itself; and how the
//! supervisor learns that they ended.
//!
//! A session forked from the supervisor exits with the real-time signal that
//! names it (see [`crate::signals`]). One cloned by the fork server ends with
//! SIGCHLD (exec reset the fork server's exit signal to it, and `CLONE_PARENT`
//! children inherit their creator's), so it announces its end with the same
//! real-time signal just before it exits. Either way each end is collected by
//! its pid; a sweep of every exited child is the backstop (see `super::reaper`).
//! Watching them costs no descriptor.

use std::io;
use std::os::fd::AsRawFd;
use std::time::Instant;

use log::{error, info, warn};
use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

use super::budget::Part;
use super::reaper::{self, Named, Swept};
use super::Supervisor;
use crate::fork_server::handle::{Failure, ForkServer};
use crate::session::{self, handoff, Group, SessionConfig};
use crate::spawn;

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

    /// One step of a sweep: collects a child that exited, whatever named it; false when
    /// none is left.
    fn sweep_step(&mut self) -> bool {
        let swept = self.children.sweep_one();
        self.mark_items(Part::Sweep, 1);
        match swept {
            Swept::Done => return false,
            Swept::Nothing => {}
            Swept::Session(child, status) => {
                self.record_ends(vec![(child, status)], Vec::new());
                self.mark_items(Part::Ends, 1);
            }
            Swept::Other(status) => self.record_ends(Vec::new(), vec![status]),
        }
        true
    }

    /// Collects every child that has exited, whatever the turn has used (shutdown's last
    /// look before SIGKILL).
    pub(super) fn sweep_all(&mut self) {
        while self.sweep_step() {}
    }

    /// Whether `pid` is a child that is no session: the fork server or the TLS terminator.
    fn is_other_child(&self, pid: Pid) -> bool {
        self.fork_server.as_ref().map(|f| f.server.pid()) == Some(pid) || self.tls_ended(pid)
    }

    fn record_ends(&mut self, reaped: Vec<(reaper::Child, WaitStatus)>, others: Vec<WaitStatus>) {
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

    /// Signals arrived: queues the sessions they name, to be collected within the turns'
    /// budgets ([`Supervisor::collect_named`]; a session's exit signal may come before its
    /// exit is done: it is asked again at the SIGCHLD that follows), collects other
    /// children now, and sets the sweep for ends that may have gone unnamed
    /// (`reaper::sweep_need`), which the turn's deferrable work does when it is due.
    pub(super) fn on_exits(&mut self, got: &crate::signals::Pending, now: Instant) {
        let mut others = Vec::new();
        // Exit signals first: a session's SIGCHLD may come in the same batch as its
        // announcement, and must not count as unannounced.
        for &pid in &got.exited {
            let pid = Pid::from_raw(pid);
            if self.children.contains(pid) {
                self.children.announce(pid);
            } else if self.is_other_child(pid) {
                others.extend(reaper::collect(pid));
            }
        }
        let mut named = Vec::new();
        for &pid in &got.sigchld_pids {
            let pid = Pid::from_raw(pid);
            if self.children.contains(pid) {
                named.push(if self.children.is_ending(pid) {
                    Named::Announced
                } else {
                    Named::Unannounced
                });
                self.children.queue(pid);
            } else {
                named.push(Named::Other);
                if self.is_other_child(pid) {
                    others.extend(reaper::collect(pid));
                }
            }
        }
        if got.sigchld || !got.sigchld_pids.is_empty() {
            self.children.queue_ending();
        }
        self.record_ends(Vec::new(), others);
        let need = reaper::sweep_need(got.sweep, got.lost, got.sigchld, &named);
        if need >= reaper::SweepNeed::Soon {
            log::debug!("a sweep is needed ({need:?}): {named:?}, lost {}", got.lost);
        }
        self.sweep_at = reaper::next_sweep(self.sweep_at, need, now, self.children.len());
    }

    /// Collects the sessions whose ends were named, one at a time while the turn's budget
    /// allows (budget.rs); the loop comes back at once while more wait
    /// ([`Supervisor::next_deadline`]).
    pub(super) fn collect_named(&mut self) {
        while self.children.has_due() && self.may_defer() {
            self.collect_one();
        }
    }

    /// Collects every session whose end was named, whatever the turn has used (before an
    /// upgrade's exec, as the new image would hear of them only at a sweep).
    pub(super) fn collect_due(&mut self) {
        while self.children.has_due() {
            self.collect_one();
        }
    }

    /// Asks the first session queued for its exit; if it is done, its end is recorded.
    fn collect_one(&mut self) {
        let Some(collected) = self.children.collect_next() else {
            return;
        };
        self.mark_items(Part::Reap, 1);
        if let Some(end) = collected {
            self.record_ends(vec![end], Vec::new());
            self.mark_items(Part::Ends, 1);
        }
    }

    /// The sweep set by [`Supervisor::on_exits`], when it is due (`reaper::sweep_due`: at
    /// once while shutting down, so shutdown never waits on a session that has ended; else
    /// once the named ends are collected), one child at a time while the turn's budget
    /// allows; what is left goes on at the next turn.
    pub(super) fn sweep_when_due(&mut self, now: Instant, shutting_down: bool) {
        let named = self.children.has_due();
        if !reaper::sweep_due(self.sweep_at, now, named, shutting_down) {
            return;
        }
        self.sweep_at = None;
        let mut found = 0;
        while self.may_defer() {
            if !self.sweep_step() {
                log::debug!("swept exited children: {found}");
                return;
            }
            found += 1;
        }
        log::debug!("swept exited children: {found}, more left for the next turn");
        self.sweep_at = Some(now);
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
        config: Option<SessionConfig>,
        group: Group,
    ) -> Result<(Pid, Group), (io::Error, Group)> {
        let Some(forks) = &self.fork_server else {
            return fork_directly(config, group);
        };
        match forks.server.start_session(&group) {
            Ok(pid) => Ok((pid, group)),
            Err(Failure::NotSent(e)) => {
                error!("the fork server is gone ({e}): sessions are forked from the supervisor from now on");
                self.stop_fork_server();
                fork_directly(config, group)
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

/// Forks the session of `group` from the supervisor itself, with the listener for its
/// viewers (`crate::session::handoff`).
fn fork_directly(
    config: Option<SessionConfig>,
    group: Group,
) -> Result<(Pid, Group), (io::Error, Group)> {
    let Some(config) = config else {
        let e = io::Error::other(format!(
            "no session settings for {}",
            group.module.info.name
        ));
        return Err((e, group));
    };
    let viewers = match handoff::listener(std::process::id(), group.id) {
        Ok(listener) => listener,
        Err(e) => return Err((e, group)),
    };
    let mut keep: Vec<i32> = group.seats.iter().map(|s| s.stream.as_raw_fd()).collect();
    keep.push(viewers.as_raw_fd());
    spawn::fork_session(&keep, spawn::Parent::Caller, group, move |group, abort| {
        session::play(&config, group, abort, viewers)
    })
}
