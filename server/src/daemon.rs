//! Process-level set-up: the locked pid file, detaching from the terminal,
//! and the open-files limit.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::path::{Path, PathBuf};

/// A pid file held with an exclusive `flock` for the life of the process.
///
/// The lock belongs to the open file description, so it survives the forks of
/// [`daemonize`]; session children close their copy at once.
pub struct PidFile {
    file: File,
    path: PathBuf,
    /// Our pid is in it. A pid file dropped before that (a failed start) is removed,
    /// so no empty file is left behind.
    written: bool,
}

impl Drop for PidFile {
    fn drop(&mut self) {
        if !self.written {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl PidFile {
    /// Opens and locks `path`; fails with a clear message when another process holds it.
    pub fn lock(path: &Path) -> io::Result<PidFile> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        // SAFETY: flock on a valid descriptor.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let err = io::Error::last_os_error();
            if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                return Err(io::Error::new(
                    io::ErrorKind::AddrInUse,
                    format!(
                        "locked: another reversid is running (pid {})",
                        holder.trim()
                    ),
                ));
            }
            return Err(err);
        }
        Ok(PidFile {
            file,
            path: path.to_owned(),
            written: false,
        })
    }

    /// The pid file an upgraded image inherited, open and locked as `fd` (the pid is the
    /// same: it stays written).
    pub fn adopt(fd: std::os::fd::RawFd, path: &Path) -> PidFile {
        PidFile {
            // SAFETY: the image before the upgrade left this descriptor open for us.
            file: unsafe { File::from_raw_fd(fd) },
            path: path.to_owned(),
            written: true,
        }
    }

    /// The descriptor holding the lock (kept open across an upgrade in place).
    pub fn fd(&self) -> std::os::fd::RawFd {
        self.file.as_raw_fd()
    }

    /// Writes this process's pid into the file.
    pub fn write_pid(&mut self) -> io::Result<()> {
        self.file.set_len(0)?;
        self.file.rewind()?;
        writeln!(self.file, "{}", std::process::id())?;
        self.file.flush()?;
        self.written = true;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Detaches: fork, setsid, fork, chdir /, umask 022, stdin/stdout/stderr to /dev/null.
///
/// The original process waits until the daemon reports that it is set up
/// (`ready` runs in the daemon after stdio went to /dev/null, so it may point
/// stderr at a log file), then exits 0, or 1 with the daemon's error. Must run
/// before any thread exists.
pub fn daemonize(ready: impl FnOnce() -> io::Result<()>) -> io::Result<()> {
    let mut fds = [0; 2];
    // SAFETY: plain pipe(2)/fork(2)/setsid(2) calls in a single-threaded process.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(io::Error::last_os_error());
        }
        match libc::fork() {
            -1 => return Err(io::Error::last_os_error()),
            0 => {}
            _child => {
                libc::close(fds[1]);
                let mut report = File::from_raw_fd(fds[0]);
                let mut text = String::new();
                let _ = report.read_to_string(&mut text);
                let mut status = 0;
                libc::waitpid(_child, &mut status, 0);
                if text.starts_with("ok") {
                    libc::_exit(0);
                }
                eprintln!("reversid: the daemon failed to start: {}", text.trim());
                libc::_exit(1);
            }
        }
        libc::close(fds[0]);
        if libc::setsid() < 0 {
            return Err(io::Error::last_os_error());
        }
        match libc::fork() {
            -1 => return Err(io::Error::last_os_error()),
            0 => {}
            _ => libc::_exit(0),
        }
        libc::umask(0o022);
        if libc::chdir(c"/".as_ptr()) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    // SAFETY: fds[1] is our write end of the pipe.
    let mut report = unsafe { File::from_raw_fd(fds[1]) };
    let null = OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")?;
    for fd in [libc::STDIN_FILENO, libc::STDOUT_FILENO, libc::STDERR_FILENO] {
        // SAFETY: dup2 of a valid descriptor onto a standard one.
        if unsafe { libc::dup2(null.as_raw_fd(), fd) } < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    if let Err(e) = ready() {
        let _ = write!(report, "{e}");
        return Err(e);
    }
    report.write_all(b"ok")?;
    Ok(())
}

/// A daemon's working directory and umask, set again after an upgrade in place (which
/// executed the new binary in the directory reversid was started in).
pub fn back_to_root() -> io::Result<()> {
    // SAFETY: umask and chdir have no preconditions.
    unsafe {
        libc::umask(0o022);
        if libc::chdir(c"/".as_ptr()) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The open files limit (soft).
pub fn nofile_limit() -> io::Result<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit with a valid struct.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(lim.rlim_cur)
}

/// Raises the soft RLIMIT_NOFILE to the hard limit; returns the new soft limit. The
/// supervisor holds one descriptor per waiting connection (none per running session).
pub fn raise_nofile() -> io::Result<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit with a valid struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return Err(io::Error::last_os_error());
        }
        if lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = lim.rlim_max;
            if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(lim.rlim_cur)
}
