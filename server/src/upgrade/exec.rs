//! Executing the new binary in this process, the state in a memfd.

use std::ffi::{CString, OsString};
use std::io::{self, Seek, Write};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::{State, STATE_VAR};

/// Sets or clears close-on-exec on `fd`.
pub fn set_cloexec(fd: RawFd, on: bool) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor number; a bad one is an error, not undefined behaviour.
    let rc = unsafe { libc::fcntl(fd, libc::F_SETFD, if on { libc::FD_CLOEXEC } else { 0 }) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A memfd holding `text`, read from its start, left open across exec.
fn memfd_with(text: &str) -> io::Result<std::fs::File> {
    // SAFETY: memfd_create with a valid name; the descriptor is ours.
    let fd = unsafe { libc::memfd_create(c"reversid-upgrade-state".as_ptr(), 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
    file.write_all(text.as_bytes())?;
    file.rewind()?;
    Ok(file)
}

fn c_string(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(io::Error::other)
}

/// This process's arguments, and its environment with the state's descriptor named.
fn command_line(state_fd: RawFd) -> io::Result<(Vec<CString>, Vec<CString>)> {
    let args = std::env::args_os()
        .map(|a| c_string(a.as_bytes()))
        .collect::<io::Result<Vec<_>>>()?;
    let mut env = std::env::vars_os()
        .filter(|(name, _)| name != STATE_VAR)
        .map(|(name, value): (OsString, OsString)| {
            c_string(&[name.as_bytes(), b"=", value.as_bytes()].concat())
        })
        .collect::<io::Result<Vec<_>>>()?;
    env.push(c_string(format!("{STATE_VAR}={state_fd}").as_bytes())?);
    Ok((args, env))
}

/// Executes `exe` in this process with this process's arguments, in `dir` (where they
/// were first read), handing it `state`. Returns only if that failed, with everything
/// as it was: descriptors close-on-exec again, the signal mask and directory restored.
pub fn exec(exe: &Path, dir: &Path, state: &State) -> io::Error {
    let memfd = match memfd_with(&state.encode()) {
        Ok(file) => file,
        Err(e) => return io::Error::other(format!("cannot write the state: {e}")),
    };
    let (args, env) = match command_line(memfd.as_raw_fd()) {
        Ok(line) => line,
        Err(e) => return e,
    };
    let path = match c_string(exe.as_os_str().as_bytes()) {
        Ok(path) => path,
        Err(e) => return e,
    };
    let kept = state.descriptors();
    let cleared = kept.iter().try_for_each(|&fd| set_cloexec(fd, false));
    let error = match cleared {
        Err(e) => io::Error::other(format!("cannot keep a descriptor open: {e}")),
        Ok(()) => exec_blocked(&path, &args, &env, dir),
    };
    for fd in kept {
        let _ = set_cloexec(fd, true);
    }
    error
}

/// execve with every signal blocked (the mask survives exec: the new image unblocks them
/// once its handlers are in), from `dir`; puts the mask and directory back if it fails.
fn exec_blocked(path: &CString, args: &[CString], env: &[CString], dir: &Path) -> io::Error {
    let here = std::env::current_dir();
    if let Err(e) = std::env::set_current_dir(dir) {
        return io::Error::other(format!("cannot enter {}: {e}", dir.display()));
    }
    let mask = match crate::signals::block_all() {
        Ok(mask) => mask,
        Err(e) => return e,
    };
    let Err(e) = nix::unistd::execve(path, args, env);
    crate::signals::restore_mask(&mask);
    if let Ok(here) = here {
        let _ = std::env::set_current_dir(here);
    }
    io::Error::from(e)
}
