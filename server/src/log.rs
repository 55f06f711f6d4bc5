//! Logging: env_logger on stderr, each line with timestamp, level and pid.
//!
//! `--log-file` is opened in append mode and put in place of stderr (fd 2), so
//! the logger, panics and anything else writing to stderr all land in it, and a
//! SIGHUP can reopen it after rotation without touching the logger.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

/// The pid printed on every line; refreshed in each session child after fork.
static PID: AtomicU32 = AtomicU32::new(0);

/// Installs the logger. Filter from RUST_LOG, `info` when unset.
pub fn init() {
    refresh_pid();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info"))
        .format(|buf, record| {
            writeln!(
                buf,
                "{} {:<5} [{}] {}",
                buf.timestamp_millis(),
                record.level(),
                PID.load(Ordering::Relaxed),
                record.args()
            )
        })
        .write_style(env_logger::WriteStyle::Never)
        .init();
}

/// Re-reads the pid for the log lines (call in a freshly forked child).
pub fn refresh_pid() {
    PID.store(std::process::id(), Ordering::Relaxed);
}

/// Opens `path` for appending and makes it the process's stderr.
pub fn redirect_stderr(path: &Path) -> io::Result<()> {
    let file: File = OpenOptions::new().create(true).append(true).open(path)?;
    // SAFETY: dup2 onto fd 2 with a valid descriptor; `file` closes its own copy on drop.
    if unsafe { libc::dup2(file.as_raw_fd(), libc::STDERR_FILENO) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
