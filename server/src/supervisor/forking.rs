//! Where sessions come from: the fork server while it runs (see
//! [`crate::fork_server`]), else a fork of the supervisor itself; and how the
//! supervisor learns that they ended.
//!
//! A session forked from the supervisor exits with the real-time signal that
//! names it (see [`crate::signals`]). One cloned by the fork server cannot: the
//! fork server was executed afresh, exec resets its exit signal to SIGCHLD, and
//! `CLONE_PARENT` children inherit their creator's. Standard signals do not
//! queue, so those sessions, and the fork server itself, are watched with a
//! pidfd each instead. The supervisor never forks while the fork server runs,
//! so the descriptors cost nothing (a fork would copy them all).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use log::{error, info, warn};
use mio::unix::SourceFd;
use mio::{Interest, Token};
use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

use super::Supervisor;
use crate::fork_server::handle::{Failure, ForkServer};
use crate::session::{self, Group, SessionConfig};
use crate::spawn;

/// Tokens from here up are a watched process's pidfd: the token less this is its pid.
pub(super) const EXIT_BASE: usize = 1 << 40;

/// The running fork server and the pidfd that tells when it ends.
pub(super) struct Forks {
    pub server: ForkServer,
    exit: OwnedFd,
}

impl Supervisor {
    /// Starts the fork server if the configuration asks for one; without it, sessions
    /// are forked from the supervisor, which works the same, only slower with many games.
    pub(super) fn start_fork_server(&mut self) {
        let Some(spec) = &self.config.fork_server else {
            return;
        };
        let started =
            ForkServer::start(spec).and_then(|server| match self.watch_exit(server.pid()) {
                Ok(exit) => Ok(Forks { server, exit }),
                Err(e) => {
                    let _ = kill(server.pid(), Signal::SIGKILL);
                    let _ = waitpid(server.pid(), Some(WaitPidFlag::__WALL));
                    Err(e)
                }
            });
        match started {
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
            self.unwatch(&forks.exit);
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

    /// Opens a pidfd for `pid` and registers it, so that its end wakes the loop with
    /// token `EXIT_BASE + pid`.
    pub(super) fn watch_exit(&self, pid: Pid) -> io::Result<OwnedFd> {
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid.as_raw(), 0) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the descriptor was just opened for us.
        let fd = unsafe { OwnedFd::from_raw_fd(fd as RawFd) };
        let token = Token(EXIT_BASE + pid.as_raw() as usize);
        self.poll
            .registry()
            .register(&mut SourceFd(&fd.as_raw_fd()), token, Interest::READABLE)?;
        Ok(fd)
    }

    pub(super) fn unwatch(&self, pidfd: &OwnedFd) {
        let _ = self
            .poll
            .registry()
            .deregister(&mut SourceFd(&pidfd.as_raw_fd()));
    }

    /// A watched process ended: the fork server, or a session it started.
    pub(super) fn on_exit_event(&mut self, pid: Pid) {
        if !self.fork_server_exited(pid) {
            if let Some((child, status)) = self.children.reap(pid) {
                self.ended(&child, status);
            }
        }
    }

    /// Whether `pid`, which ended, was the fork server (then collected).
    fn fork_server_exited(&mut self, pid: Pid) -> bool {
        if self.fork_server.as_ref().map(|f| f.server.pid()) != Some(pid) {
            return false;
        }
        if let Some(forks) = self.fork_server.take() {
            self.unwatch(&forks.exit);
        }
        let how = match waitpid(pid, Some(WaitPidFlag::__WALL)) {
            Ok(WaitStatus::Exited(_, code)) => format!("exited with status {code}"),
            Ok(WaitStatus::Signaled(_, signal, _)) => format!("was killed by {signal}"),
            Ok(status) => format!("ended ({status:?})"),
            Err(e) => format!("ended (waitpid: {e})"),
        };
        error!("the fork server {how}: sessions are forked from the supervisor from now on");
        true
    }
}

impl Supervisor {
    /// Starts the session of `group`: its pid, the group (whose sockets the caller then
    /// closes) and, for a session from the fork server, the pidfd that tells its end.
    #[allow(clippy::type_complexity)]
    pub(super) fn fork_session(
        &mut self,
        keep: &[i32],
        config: Option<SessionConfig>,
        group: Group,
        viewers: OwnedFd,
    ) -> Result<(Pid, Group, Option<OwnedFd>), (io::Error, Group)> {
        let Some(forks) = &self.fork_server else {
            return fork_directly(keep, config, group, viewers).map(|(pid, g)| (pid, g, None));
        };
        match forks.server.start_session(&group, &viewers) {
            Ok(pid) => match self.watch_exit(pid) {
                Ok(pidfd) => Ok((pid, group, Some(pidfd))),
                Err(e) => {
                    // Only if something else collected it already.
                    error!("cannot watch session {pid} for its end: {e}");
                    Ok((pid, group, None))
                }
            },
            Err(Failure::NotSent(e)) => {
                error!("the fork server is gone ({e}): sessions are forked from the supervisor from now on");
                self.stop_fork_server();
                fork_directly(keep, config, group, viewers).map(|(pid, g)| (pid, g, None))
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
