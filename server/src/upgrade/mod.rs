//! Upgrading in place (spec/DEPLOY.md "Upgrading in place"): the supervisor executes
//! the new binary in its own process, so the pid, the listening sockets and the running
//! sessions (its children) stay, and the new image rebuilds itself from a [`State`]
//! the old one wrote.
//!
//! - [`trial`]: the new binary is first run as `reversid --check-upgrade` with the same
//!   arguments; only if it answers that it reads this state's format is it executed.
//! - [`exec`]: the state goes into a memfd; every descriptor it names, and the memfd,
//!   stays open across exec; signals stay blocked from just before exec until the new
//!   image has installed its handlers (a session's exit signal would otherwise kill it).
//! - [`inherited`]: the new image finds the state through [`STATE_VAR`].
//!
//! The supervisor's side (what goes into the state, and what is rebuilt from it) is in
//! `crate::supervisor::upgrading`.

pub mod exec;
pub mod state;
pub mod trial;

use std::io::{self, Read};
use std::os::fd::{FromRawFd, RawFd};

pub use state::State;

/// The environment variable that names the state's descriptor in the new image.
pub const STATE_VAR: &str = "REVERSID_UPGRADE_STATE";

/// The line `reversid --check-upgrade` prints when it could start: the word, then the
/// state format versions it reads.
pub const CHECKED: &str = "reversid-upgrade-check ok";

/// What `--check-upgrade` prints.
pub fn check_line() -> String {
    format!("{CHECKED} {}", state::VERSION)
}

/// The state an upgrading image left for this one, if this process is such an image.
/// The variable is removed (no child may take it for its own), and every descriptor the
/// state names is made close-on-exec again (new sessions must not inherit them).
pub fn inherited() -> Option<io::Result<State>> {
    let fd = std::env::var_os(STATE_VAR)?;
    // SAFETY: main calls this before any thread exists.
    unsafe { std::env::remove_var(STATE_VAR) };
    Some(read_state(&fd.to_string_lossy()))
}

fn read_state(fd: &str) -> io::Result<State> {
    let fd: RawFd = fd
        .parse()
        .map_err(|_| io::Error::other(format!("{STATE_VAR}={fd:?} names no descriptor")))?;
    // SAFETY: the upgrading image left this memfd open for us; we own it from here.
    let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    let state = State::decode(&text).map_err(|e| io::Error::other(e.to_string()))?;
    for fd in state.descriptors() {
        exec::set_cloexec(fd, true)?;
    }
    Ok(state)
}
