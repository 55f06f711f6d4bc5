//! `reversid ctl`: tells the running reversid what its operator wants: by signal to the
//! pid in its pid file (spec/DEPLOY.md §7), or without `--pid-file` by its control socket
//! (§10). The pid is believed only while the file is locked: a file left by a server that
//! is gone names a pid that may be another process's now.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use nix::sys::signal::kill;
use nix::unistd::Pid;

use crate::signals::Drain;

/// What `reversid ctl` can ask.
#[derive(Debug, Clone, Subcommand)]
pub enum Order {
    /// Take no new games: running games finish, queued players are turned away, new ones
    /// refused, and GET /health answers 503 so a load balancer sends players elsewhere
    /// (the same as SIGUSR1).
    Drain(Target),
    /// Take new games again (the same as SIGUSR2).
    Resume(Target),
    /// Replace the running binary with the one now at its path, without closing the
    /// listening sockets or ending a game (the same as SIGWINCH; spec/DEPLOY.md
    /// "Upgrading in place"). The log says whether it did: "upgraded", or why not.
    Upgrade(Target),
}

/// Which server: by its pid file (a signal), else by its control socket.
#[derive(Debug, Clone, Args)]
pub struct Target {
    /// The --pid-file the server runs with: the order goes by signal.
    #[arg(long, value_name = "PATH")]
    pub pid_file: Option<PathBuf>,

    #[command(flatten)]
    pub socket: crate::control::client::Socket,
}

impl Order {
    /// Sends the order's signal to the server holding the pid file; says what it did.
    pub fn send(&self) -> io::Result<String> {
        let (signal, target, told, line) = match self {
            Order::Drain(target) => (Drain::Start.signal(), target, "to drain", "DRAIN"),
            Order::Resume(target) => (
                Drain::Stop.signal(),
                target,
                "to take games again",
                "RESUME",
            ),
            Order::Upgrade(target) => (
                crate::signals::UPGRADE_SIGNAL,
                target,
                "to upgrade in place (its log says how it went)",
                "UPGRADE",
            ),
        };
        let Some(pid_file) = &target.pid_file else {
            target.socket.ask(line).map_err(io::Error::other)?;
            return Ok(format!("reversid told {told} (by its control socket)"));
        };
        let pid = running_pid(pid_file)?;
        kill(Pid::from_raw(pid), signal)
            .map_err(|e| io::Error::other(format!("cannot signal reversid (pid {pid}): {e}")))?;
        Ok(format!("reversid (pid {pid}) told {told}"))
    }
}

/// The pid in `path`, if a running server holds its lock.
fn running_pid(path: &Path) -> io::Result<i32> {
    let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let mut file = File::open(path).map_err(named)?;
    // SAFETY: flock on a valid descriptor. A shared lock is refused while the server
    // holds its exclusive one; got, it is let go when `file` closes.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) } == 0 {
        return Err(io::Error::other(format!(
            "{}: no reversid holds this pid file (is it running?)",
            path.display()
        )));
    }
    let mut text = String::new();
    file.read_to_string(&mut text).map_err(named)?;
    text.trim()
        .parse::<i32>()
        .ok()
        .filter(|&pid| pid > 0)
        .ok_or_else(|| {
            io::Error::other(format!(
                "{}: holds no pid yet ({:?})",
                path.display(),
                text.trim()
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unlocked_pid_file_names_no_server() {
        let path = std::env::temp_dir().join(format!("reversid-ctl-test-{}", std::process::id()));
        std::fs::write(&path, "1\n").unwrap();
        let err = running_pid(&path).unwrap_err();
        assert!(err.to_string().contains("no reversid holds"), "{err}");
        let held = File::open(&path).unwrap();
        // SAFETY: flock on a valid descriptor.
        assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
        assert_eq!(running_pid(&path).unwrap(), 1);
        std::fs::remove_file(&path).unwrap();
        let err = running_pid(&path).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
