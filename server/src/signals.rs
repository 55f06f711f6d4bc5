//! Signals reach the event loop through a self-pipe registered with mio.
//!
//! The handler does only async-signal-safe work: it sets an atomic flag and
//! writes one byte to the pipe (ignoring a full pipe: one pending byte is
//! enough to wake the loop). The loop drains the pipe and reads the flags.

use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};

use mio::unix::pipe::{self, Receiver, Sender};
use nix::sys::signal::{self, SaFlags, SigAction, SigHandler, SigSet, SigmaskHow, Signal};

static WAKE_FD: AtomicI32 = AtomicI32::new(-1);
static HANGUP: AtomicBool = AtomicBool::new(false);
/// SIGTERM and SIGINT together: the first asks for a smart shutdown, the second for a fast one.
static STOP: AtomicUsize = AtomicUsize::new(0);

/// The signals the supervisor handles.
pub const SUPERVISOR: &[Signal] = &[
    Signal::SIGCHLD,
    Signal::SIGTERM,
    Signal::SIGINT,
    Signal::SIGHUP,
];

/// What arrived since the last [`SelfPipe::take`].
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pending {
    pub hangup: bool,
    /// Total SIGTERM + SIGINT received so far (not reset by `take`).
    pub stops: usize,
}

/// The pipe the handlers write to. Keep it alive while the handlers are installed.
pub struct SelfPipe {
    /// Written by the handler through its raw fd; held here so it stays open.
    _sender: Sender,
    receiver: Receiver,
}

extern "C" fn on_signal(signo: libc::c_int) {
    // SAFETY: errno is saved and restored around write, which is async-signal-safe.
    let saved = unsafe { *libc::__errno_location() };
    match signo {
        // SIGCHLD only wakes the loop, which reaps on every wake-up (signals coalesce).
        libc::SIGCHLD => {}
        libc::SIGHUP => HANGUP.store(true, Ordering::SeqCst),
        _ => {
            STOP.fetch_add(1, Ordering::SeqCst);
        }
    }
    let fd = WAKE_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        let byte = 1u8;
        // SAFETY: fd is the pipe's write end; a failed write (full pipe) is fine.
        unsafe { libc::write(fd, (&byte as *const u8).cast(), 1) };
    }
    // SAFETY: restore errno for the interrupted code.
    unsafe { *libc::__errno_location() = saved };
}

impl SelfPipe {
    /// Creates the pipe and installs the handler for `signals`.
    pub fn install(signals: &[Signal]) -> io::Result<SelfPipe> {
        let (sender, receiver) = pipe::new()?;
        WAKE_FD.store(sender.as_raw_fd(), Ordering::SeqCst);
        let action = SigAction::new(
            SigHandler::Handler(on_signal),
            SaFlags::SA_RESTART | SaFlags::SA_NOCLDSTOP,
            SigSet::empty(),
        );
        for &sig in signals {
            // SAFETY: the handler only touches atomics and write(2).
            unsafe { signal::sigaction(sig, &action) }.map_err(io::Error::from)?;
        }
        Ok(SelfPipe {
            _sender: sender,
            receiver,
        })
    }

    /// The read end, to register with mio.
    pub fn receiver(&mut self) -> &mut Receiver {
        &mut self.receiver
    }

    /// Drains the pipe and returns the flags set since the last call.
    pub fn take(&mut self) -> Pending {
        let mut sink = [0u8; 64];
        loop {
            match self.receiver.read(&mut sink) {
                Ok(0) => break,
                Ok(_) => continue,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        Pending {
            hangup: HANGUP.swap(false, Ordering::SeqCst),
            stops: STOP.load(Ordering::SeqCst),
        }
    }
}

/// Blocks every signal; returns the previous mask for [`restore_mask`]. Used around fork so
/// no handler runs in the child before it has reset them.
pub fn block_all() -> io::Result<SigSet> {
    let mut old = SigSet::empty();
    signal::sigprocmask(
        SigmaskHow::SIG_SETMASK,
        Some(&SigSet::all()),
        Some(&mut old),
    )
    .map_err(io::Error::from)?;
    Ok(old)
}

/// Puts back a mask saved by [`block_all`].
pub fn restore_mask(old: &SigSet) {
    let _ = signal::sigprocmask(SigmaskHow::SIG_SETMASK, Some(old), None);
}

/// In a fresh child: every signal the supervisor handled back to its default action, the flags
/// cleared, the wake fd forgotten (the caller closes it). Signals stay blocked until
/// [`unblock_all`].
pub fn reset_in_child() {
    WAKE_FD.store(-1, Ordering::SeqCst);
    HANGUP.store(false, Ordering::SeqCst);
    STOP.store(0, Ordering::SeqCst);
    let default = SigAction::new(SigHandler::SigDfl, SaFlags::empty(), SigSet::empty());
    for &sig in SUPERVISOR {
        // SAFETY: installing SIG_DFL.
        let _ = unsafe { signal::sigaction(sig, &default) };
    }
    // SIGPIPE stays ignored (as Rust's runtime set it): a write to a dead peer is an EPIPE error.
}

/// Empties the signal mask.
pub fn unblock_all() {
    let _ = signal::sigprocmask(SigmaskHow::SIG_SETMASK, Some(&SigSet::empty()), None);
}
