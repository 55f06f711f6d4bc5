//! Forking a child process: what the supervisor uses to start the fork server
//! (and sessions, with `--fork-directly`), and the fork server to start sessions
//! (see supervisor/forking.rs for who forks what). The child keeps only the
//! descriptors it is given and runs its body with a fresh signal set-up, in a
//! session of its own: signals sent to the supervisor's process group (a
//! terminal's ^C, `kill %1` from a shell) are the supervisor's to act on.

use std::io;
use std::os::fd::RawFd;
use std::panic::{self, AssertUnwindSafe};

use nix::unistd::Pid;

use nix::sys::signal::Signal;

use crate::signals::{self, SelfPipe};

/// The exit code of a session child whose session panicked (as for a panicking `main`).
const PANICKED: i32 = 101;

/// Whose child the new process is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parent {
    /// The caller's, with the real-time exit signal (see crate::signals).
    Caller,
    /// The caller's parent's (`CLONE_PARENT`): the fork server starting a session for the
    /// supervisor. The kernel then gives the child the caller's own exit signal, SIGCHLD
    /// since the fork server was executed (exec resets it), so the child announces its
    /// end itself before it exits ([`signals::announce_end`]).
    CallersParent,
}

/// What the child allocates from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Heap {
    /// The heap it shares with its parent, as any forked process.
    Shared,
    /// An arena of its own, entered first thing (crate::arena): a session, which then
    /// never writes into the pages it shares with its parent.
    Own,
}

/// Forks a child that runs `body(data, abort)` and exits with what it returns. In the
/// parent, returns the child's pid (or the error) with `data`, which the parent then
/// drops, closing its copies of the sockets in it. The child keeps only the descriptors
/// in `keep` (and stdio), and never returns from here.
pub fn fork_child<T>(
    keep: &[RawFd],
    name: &str,
    parent: Parent,
    data: T,
    body: impl FnOnce(T, SelfPipe) -> i32,
) -> Result<(Pid, T), (io::Error, T)> {
    fork(keep, name, parent, Heap::Shared, data, body)
}

/// [`fork_child`] for a session: the child allocates from an arena of its own
/// (crate::arena; not for a child with threads, such as the TLS terminator, which keeps
/// malloc's per-thread arenas).
pub fn fork_session<T>(
    keep: &[RawFd],
    parent: Parent,
    data: T,
    body: impl FnOnce(T, SelfPipe) -> i32,
) -> Result<(Pid, T), (io::Error, T)> {
    fork(keep, "reversid-game", parent, Heap::Own, data, body)
}

fn fork<T>(
    keep: &[RawFd],
    name: &str,
    parent: Parent,
    heap: Heap,
    data: T,
    body: impl FnOnce(T, SelfPipe) -> i32,
) -> Result<(Pid, T), (io::Error, T)> {
    let old_mask = match signals::block_all() {
        Ok(mask) => mask,
        Err(e) => return Err((e, data)),
    };
    // fork(2), but the child's exit signal is the real-time one that names it (see
    // crate::signals). SAFETY: the supervisor is single-threaded, so the child is a
    // consistent copy; a raw clone with no new stack returns twice, like fork.
    let flags = match parent {
        Parent::Caller => signals::exit_signal() as libc::c_ulong,
        Parent::CallersParent => libc::CLONE_PARENT as libc::c_ulong,
    };
    let pid = unsafe { libc::syscall(libc::SYS_clone, flags, 0usize, 0usize, 0usize, 0usize) };
    match pid as libc::pid_t {
        -1 => {
            let err = io::Error::last_os_error();
            signals::restore_mask(&old_mask);
            Err((err, data))
        }
        0 => child(keep, name, parent, heap, data, body),
        pid => {
            signals::restore_mask(&old_mask);
            Ok((Pid::from_raw(pid), data))
        }
    }
}

fn child<T>(
    keep: &[RawFd],
    name: &str,
    parent: Parent,
    heap: Heap,
    data: T,
    body: impl FnOnce(T, SelfPipe) -> i32,
) -> ! {
    // First, so that a session never writes into the heap it shares with its parent.
    let arena = match heap {
        Heap::Own => crate::arena::enter(),
        Heap::Shared => Ok(()),
    };
    crate::log::refresh_pid();
    // Listeners, the parent's epoll instance, the signal pipe, every other waiting
    // client, other children's pidfds and control sockets, the pid file: closed by
    // number. Nothing is deregistered from the inherited epoll (that would edit the
    // parent's interest list); closing our copy is enough.
    close_all_except(keep);
    signals::reset_in_child();
    if let Err(e) = signals::leave_the_terminals_group() {
        log::warn!("{name}: cannot leave the terminal's process group ({e}): a ^C meant for the supervisor reaches it too");
    }
    set_process_name(name);
    if let Err(e) = arena {
        log::warn!("{name}: no heap of its own ({e}): it shares fewer pages with its parent");
    }
    // The abort request (fast shutdown) is armed before any signal is let through.
    let abort = match SelfPipe::install(&[Signal::SIGTERM]) {
        Ok(pipe) => pipe,
        Err(e) => {
            log::error!("session set-up failed: {e}");
            end(parent, 1)
        }
    };
    signals::unblock_all();
    // A panic ends the child here (the hook has logged it): unwinding further would run
    // the supervisor's frames, and whatever catches panics above them, in the session.
    let code = panic::catch_unwind(AssertUnwindSafe(|| body(data, abort))).unwrap_or(PANICKED);
    end(parent, code)
}

/// Ends the child with `code`, the log flushed and, for a session cloned by the fork server,
/// its end announced to the supervisor.
fn end(parent: Parent, code: i32) -> ! {
    log::logger().flush();
    if parent == Parent::CallersParent {
        signals::announce_end();
    }
    std::process::exit(code)
}

/// Closes every descriptor from 3 up except those in `keep`.
pub fn close_all_except(keep: &[RawFd]) {
    let mut keep: Vec<u32> = keep
        .iter()
        .filter(|&&fd| fd > 2)
        .map(|&fd| fd as u32)
        .collect();
    keep.sort_unstable();
    let mut first = 3u32;
    for fd in keep.into_iter().chain([u32::MAX]) {
        if fd > first {
            close_range(first, fd - 1);
        }
        first = fd.saturating_add(1);
    }
}

fn close_range(first: u32, last: u32) {
    // SAFETY: closes descriptors nothing else in this process will use again.
    if unsafe { libc::close_range(first, last, 0) } == 0 {
        return;
    }
    // Kernels before 5.9: close one by one up to the open-files limit.
    let limit = unsafe { libc::sysconf(libc::_SC_OPEN_MAX) };
    let last = last.min(u32::try_from(limit).unwrap_or(1 << 20));
    for fd in first..=last {
        // SAFETY: as above.
        unsafe { libc::close(fd as i32) };
    }
}

/// Sets the process name shown by `ps` and `top` (at most 15 bytes are kept).
pub fn set_process_name(name: &str) {
    let mut buf = [0u8; 16];
    let n = name.len().min(15);
    buf[..n].copy_from_slice(&name.as_bytes()[..n]);
    // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes.
    unsafe { libc::prctl(libc::PR_SET_NAME, buf.as_ptr() as libc::c_ulong, 0, 0, 0) };
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};

    use super::*;

    /// One fork at a time: a raw clone skips the C library's fork handlers, so a lock
    /// another thread of the test process holds (malloc's) stays held in the child.
    static FORKING: Mutex<()> = Mutex::new(());

    /// Forks a child that runs `body` and returns how it ended (failing after 5 s).
    fn run_child(name: &str, body: impl FnOnce() -> i32) -> (Pid, WaitStatus) {
        run(name, Heap::Shared, body)
    }

    fn run(name: &str, heap: Heap, body: impl FnOnce() -> i32) -> (Pid, WaitStatus) {
        let _one = FORKING.lock().unwrap_or_else(|e| e.into_inner());
        // The child's exit signal would end this process, which has no handler for it.
        // SAFETY: ignoring a signal.
        unsafe { libc::signal(signals::exit_signal(), libc::SIG_IGN) };
        let forked = fork(&[], name, Parent::Caller, heap, (), |(), _abort| body());
        let (pid, ()) = forked.map_err(|(e, ())| e).unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match waitpid(pid, Some(WaitPidFlag::WNOHANG | WaitPidFlag::__WALL)).unwrap() {
                WaitStatus::StillAlive if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                WaitStatus::StillAlive => {
                    let _ = nix::sys::signal::kill(pid, Signal::SIGKILL);
                    panic!("the child {name} did not end");
                }
                status => return (pid, status),
            }
        }
    }

    #[test]
    fn a_panicking_session_ends_its_child_and_goes_no_further() {
        let (pid, status) = run_child("test-panic", || panic!("a session bug"));
        assert_eq!(status, WaitStatus::Exited(pid, PANICKED));
    }

    #[test]
    fn a_session_allocates_from_an_arena_of_its_own_and_another_child_does_not() {
        let (pid, status) = run("test-arena", Heap::Own, || {
            i32::from(!crate::arena::entered())
        });
        assert_eq!(status, WaitStatus::Exited(pid, 0), "no arena in a session");
        let (pid, status) = run_child("test-no-arena", || i32::from(crate::arena::entered()));
        assert_eq!(
            status,
            WaitStatus::Exited(pid, 0),
            "an arena in a plain child"
        );
    }

    #[test]
    fn a_child_has_a_session_of_its_own() {
        let (pid, status) = run_child("test-setsid", || {
            let me = nix::unistd::getpid();
            let own = nix::unistd::getsid(None) == Ok(me) && nix::unistd::getpgrp() == me;
            i32::from(!own)
        });
        assert_eq!(
            status,
            WaitStatus::Exited(pid, 0),
            "not in a session of its own"
        );
    }
}
