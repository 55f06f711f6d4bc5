//! The trial run: `reversid --check-upgrade ARGS...` of the new binary, whose last line
//! must say it reads the state format this image writes. A binary that is not reversid,
//! does not start, rejects the command line or reads another format is never executed.

use std::io::{self, Read};
use std::os::fd::{AsRawFd, RawFd};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use super::{state, CHECKED};

/// How long the trial may take (a debug build on a loaded machine starts in well under this).
pub const TIMEOUT: Duration = Duration::from_secs(20);
/// More output than an answer needs: the trial is cut short.
const MAX_OUTPUT: usize = 64 * 1024;

/// A trial under way; its output is read as the loop finds it readable.
pub struct Trial {
    child: Child,
    stdout: ChildStdout,
    output: Vec<u8>,
    pub deadline: Instant,
}

impl Trial {
    /// Starts `exe --check-upgrade` with this process's arguments, in `dir`.
    pub fn start(exe: &Path, dir: &Path) -> io::Result<Trial> {
        let mut child = Command::new(exe)
            .arg("--check-upgrade")
            .args(std::env::args_os().skip(1))
            .current_dir(dir)
            .env_remove(super::STATE_VAR)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("no stdout"))?;
        nonblocking(stdout.as_raw_fd())?;
        Ok(Trial {
            child,
            stdout,
            output: Vec::new(),
            deadline: Instant::now() + TIMEOUT,
        })
    }

    /// Its output's descriptor, to register with the loop.
    pub fn fd(&self) -> RawFd {
        self.stdout.as_raw_fd()
    }

    /// Reads what it wrote; its verdict once its output ended.
    pub fn read(&mut self) -> Option<Result<(), String>> {
        let mut buf = [0u8; 4096];
        loop {
            match self.stdout.read(&mut buf) {
                Ok(0) => return Some(self.verdict()),
                Ok(n) if self.output.len() + n > MAX_OUTPUT => {
                    return Some(Err("it wrote far more than an answer".to_owned()))
                }
                Ok(n) => self.output.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return None,
                Err(e) => return Some(Err(format!("its output cannot be read: {e}"))),
            }
        }
    }

    fn verdict(&mut self) -> Result<(), String> {
        // Collected here if it has ended; if a sweep of every child got it first, the
        // output alone decides (the exit status is not needed).
        let _ = self.child.try_wait();
        judge(&String::from_utf8_lossy(&self.output))
    }

    /// Ends a trial that took too long.
    pub fn abandon(mut self) {
        let _ = self.child.kill();
        let _ = self.child.try_wait();
    }
}

fn nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we own.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Whether a trial's output says the new binary can take this image's state.
pub fn judge(output: &str) -> Result<(), String> {
    let Some(answer) = output.lines().rev().find(|l| !l.trim().is_empty()) else {
        return Err("it said nothing (is it reversid, of a version that can upgrade?)".to_owned());
    };
    let Some(versions) = answer.trim().strip_prefix(CHECKED) else {
        return Err(format!(
            "it did not say it can take over: {:?}",
            answer.trim()
        ));
    };
    let reads = versions
        .split_whitespace()
        .any(|v| v.parse() == Ok(state::VERSION));
    match reads {
        true => Ok(()),
        false => Err(format!(
            "it reads state formats {:?}, this reversid writes {}",
            versions.trim(),
            state::VERSION
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_binary_that_reads_this_format_passes() {
        assert_eq!(
            judge(&format!("{}\n", crate::upgrade::check_line())),
            Ok(())
        );
        assert_eq!(judge(&format!("{CHECKED} 7 1 \n\n")), Ok(()));
        assert!(judge("").unwrap_err().contains("said nothing"));
        assert!(judge("usage: sh\n").unwrap_err().contains("did not say"));
        assert!(judge(&format!("{CHECKED} 2\n"))
            .unwrap_err()
            .contains("formats"));
    }
}
