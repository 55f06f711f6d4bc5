//! The control socket (spec/DEPLOY.md "Control socket"): a Unix stream socket, mode 0600,
//! on which the operator, anyone who can open it, has every organiser's right. Text lines:
//! one request a line, each answered `OK n` and n lines, or `ERROR why`.
//!
//! - [`conn`]: one connection's machine (lines, limits, silence), state x event.
//! - [`request`]: what a line asks, and the answer's framing.
//! - [`socket`]: binding the file (mode 0600, a stale one removed, a live one kept).
//! - [`accounts`]: the requests that need the store's accounts, done on a thread.
//! - [`client`]: `reversid tournament …` and `reversid account create`, which ask it and
//!   say the answer in words.
//!
//! The supervisor's side, which answers, is `crate::supervisor::control`.

pub mod accounts;
pub mod client;
pub mod conn;
pub mod request;
pub mod socket;

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Control connections served at once; one more is told so and closed.
pub const MAX_CONNECTIONS: usize = 4;
/// The longest request line, in bytes.
pub const MAX_LINE: usize = 4096;
/// How long a connection may stay silent (with nothing asked) before it is closed.
pub const IDLE: Duration = Duration::from_secs(30);
/// The socket's name in the data directory.
pub const FILE_NAME: &str = "control.sock";

/// Where the control socket is: `--control PATH`, else the data directory's
/// [`FILE_NAME`]; `None` with neither (a server run with `--no-store` has none unless
/// given a path).
pub fn path(given: Option<&Path>, data_dir: Option<&Path>) -> Option<PathBuf> {
    given
        .map(Path::to_path_buf)
        .or_else(|| data_dir.map(|dir| dir.join(FILE_NAME)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_given_wins_over_the_data_directory() {
        let given = Path::new("/run/r.sock");
        let data = Path::new("/var/lib/reversid");
        assert_eq!(path(Some(given), Some(data)).unwrap(), given);
        assert_eq!(
            path(None, Some(data)).unwrap(),
            Path::new("/var/lib/reversid/control.sock")
        );
        assert_eq!(path(None, None), None);
    }
}
