//! Signals reach the event loop through a self-pipe registered with mio.
//!
//! The handler does only async-signal-safe work: it sets an atomic flag and
//! writes to the pipe (ignoring a full pipe: one pending byte is enough to
//! wake the loop). The loop drains the pipe and reads the flags.
//!
//! Sessions end with [`exit_signal`], a real-time signal: real-time signals
//! queue, one per exit, each with the sender's pid, so the handler writes that
//! pid to the pipe and the supervisor collects exactly that child. Sessions
//! forked by the supervisor itself have it as their exit signal, sent by the
//! kernel. Sessions cloned by the fork server cannot: exec resets the fork
//! server's exit signal to SIGCHLD and `CLONE_PARENT` children inherit it
//! (kernel: `de_thread`, `copy_process`). They announce their end themselves,
//! [`announce_end`], the same signal sent with `sigqueue` just before they
//! exit, and then end with a SIGCHLD, which does not queue: its pid is written
//! to the pipe too ([`Pending::sigchld_pids`]), but one SIGCHLD may stand for
//! several exits ([`Pending::sigchld`]). A session whose announcement did not
//! fit in the queue (`RLIMIT_SIGPENDING`: `sigqueue` fails with EAGAIN) sends
//! [`lost_signal`] instead, with `kill`, which the kernel delivers at least
//! once even to a full queue: "ask every child soon" ([`Pending::lost`]); a
//! full pipe says "ask every child now" ([`Pending::sweep`]). Either way no
//! descriptor is spent on watching a child (supervisor/reaper.rs for the rest).

use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU8, AtomicUsize, Ordering};

use mio::unix::pipe::{self, Receiver, Sender};
use nix::sys::signal::{self, SaFlags, SigAction, SigHandler, SigSet, SigmaskHow, Signal};

/// The pipe's write end plus one; 0 for none. Zero at start, so it lies in .bss with the
/// flags below, which a session writes too: a session then copies one page of the
/// binary's data less (README, a session's memory).
static WAKE_FD: AtomicI32 = AtomicI32::new(0);
static HANGUP: AtomicBool = AtomicBool::new(false);
/// A child's exit could not be written to the pipe: ask every child.
static SWEEP: AtomicBool = AtomicBool::new(false);
/// A SIGCHLD arrived: some exits may have folded into it.
static SIGCHLD: AtomicBool = AtomicBool::new(false);
/// A session's end announcement was lost (queue full): ask every child soon.
static LOST: AtomicBool = AtomicBool::new(false);
/// SIGTERM and SIGINT together: the first asks for a smart shutdown, the second for a fast one.
static STOP: AtomicUsize = AtomicUsize::new(0);
/// The last of SIGUSR1 (drain) and SIGUSR2 (resume) since the last take: [`Drain`] as a byte.
static DRAIN: AtomicU8 = AtomicU8::new(NO_DRAIN_NEWS);
/// SIGWINCH arrived: the operator asks for an upgrade in place (spec/DEPLOY.md).
static UPGRADE: AtomicBool = AtomicBool::new(false);
const NO_DRAIN_NEWS: u8 = 0;
const DRAIN_START: u8 = 1;
const DRAIN_STOP: u8 = 2;

/// What the operator asked of new games (`reversid ctl drain|resume`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drain {
    /// SIGUSR1: take no new games; running ones finish.
    Start,
    /// SIGUSR2: take new games again.
    Stop,
}

impl Drain {
    /// The signal that asks for it.
    pub fn signal(self) -> Signal {
        match self {
            Drain::Start => Signal::SIGUSR1,
            Drain::Stop => Signal::SIGUSR2,
        }
    }
}

/// The signals the supervisor handles. SIGCHLD is how the fork server and the sessions
/// it clones end (see the module doc).
pub const SUPERVISOR: &[Signal] = &[
    Signal::SIGCHLD,
    Signal::SIGTERM,
    Signal::SIGINT,
    Signal::SIGHUP,
    Signal::SIGUSR1,
    Signal::SIGUSR2,
    UPGRADE_SIGNAL,
];

/// The signal that asks the supervisor to upgrade in place (`reversid ctl upgrade`).
/// Not SIGUSR2 as in nginx: that one already takes games again after a drain. SIGWINCH
/// is ignored by default, so sent to a reversid that cannot upgrade it does no harm.
pub const UPGRADE_SIGNAL: Signal = Signal::SIGWINCH;

/// The signal session children send their parent when they exit (see the module doc).
pub fn exit_signal() -> libc::c_int {
    libc::SIGRTMIN() + 1
}

/// The signal a session sends the supervisor when its [`exit_signal`] announcement
/// did not fit in the queue (see the module doc).
pub fn lost_signal() -> libc::c_int {
    libc::SIGRTMIN() + 2
}

/// The real-time signals the supervisor handles besides [`SUPERVISOR`].
fn supervisor_rt() -> [libc::c_int; 2] {
    [exit_signal(), lost_signal()]
}

/// In a session cloned by the fork server, as its last act before it exits: tells its
/// parent, the supervisor, that it ends, by [`exit_signal`] with its pid (see the module
/// doc). The supervisor may look before the exit is done, and looks again on the
/// SIGCHLD that follows.
pub fn announce_end() {
    // SAFETY: getppid, sigqueue and kill have no memory effects here.
    unsafe {
        let parent = libc::getppid();
        if parent <= 1 {
            return; // orphaned: nobody to tell
        }
        let value = libc::sigval {
            sival_ptr: std::ptr::null_mut(),
        };
        if libc::sigqueue(parent, exit_signal(), value) != 0
            && *libc::__errno_location() == libc::EAGAIN
        {
            libc::kill(parent, lost_signal());
        }
    }
}

/// What arrived since the last [`SelfPipe::take`].
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Pending {
    pub hangup: bool,
    /// Total SIGTERM + SIGINT received so far (not reset by `take`).
    pub stops: usize,
    /// Children that exited or are about to: the pids of their [`exit_signal`]s.
    pub exited: Vec<i32>,
    /// The pids of SIGCHLDs: children that exited, the fork server or a session it
    /// cloned (others may have folded into each).
    pub sigchld_pids: Vec<i32>,
    /// Some exits did not fit in the pipe: every child must be asked (`waitpid(-1)`
    /// until none is left).
    pub sweep: bool,
    /// A SIGCHLD arrived: its pid is in `sigchld_pids` (unless the pipe was full), but
    /// others may have folded into it (standard signals do not queue).
    pub sigchld: bool,
    /// A session's end announcement was lost ([`lost_signal`], or an [`exit_signal`]
    /// that came without its pid): every child must be asked soon.
    pub lost: bool,
    /// The last drain or resume asked for, if any.
    pub drain: Option<Drain>,
    /// An upgrade in place was asked for.
    pub upgrade: bool,
}

/// A pid in the pipe is written as a tag byte and four bytes; a plain wake-up as one 0 byte.
const EXIT_TAG: u8 = 2;
/// As [`EXIT_TAG`], for a SIGCHLD's pid.
const SIGCHLD_TAG: u8 = 3;

/// The pipe the handlers write to. Keep it alive while the handlers are installed.
pub struct SelfPipe {
    /// Written by the handler through its raw fd; held here so it stays open.
    _sender: Sender,
    receiver: Receiver,
    /// The first bytes of a pid record that the last read cut ([`SelfPipe::take_some`]).
    cut: Vec<u8>,
    /// The last [`SelfPipe::take_some`] stopped at its most: the pipe may hold more.
    more: bool,
}

/// The most bytes one [`SelfPipe::take_some`] reads: about 800 exits, a fraction of a
/// millisecond to take in. A pipe filled while the loop waited for a core (64 KiB, some
/// 13,000 exits) took over 3 ms of the loop thread's CPU in one turn when 10,000 games
/// ended together.
pub const TAKE_SOME: usize = 4096;

extern "C" fn on_signal(signo: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: errno is saved and restored around write, which is async-signal-safe.
    let saved = unsafe { *libc::__errno_location() };
    let fd = WAKE_FD.load(Ordering::SeqCst) - 1;
    let mut message = [0u8; 5];
    let mut len = 1;
    match signo {
        libc::SIGHUP => HANGUP.store(true, Ordering::SeqCst),
        libc::SIGTERM | libc::SIGINT => {
            STOP.fetch_add(1, Ordering::SeqCst);
        }
        libc::SIGUSR1 => DRAIN.store(DRAIN_START, Ordering::SeqCst),
        libc::SIGUSR2 => DRAIN.store(DRAIN_STOP, Ordering::SeqCst),
        libc::SIGWINCH => UPGRADE.store(true, Ordering::SeqCst),
        _ if signo == lost_signal() => LOST.store(true, Ordering::SeqCst),
        _ if !info.is_null() => {
            // SAFETY: the kernel passed a valid siginfo for a signal installed with SA_SIGINFO.
            let pid = unsafe { (*info).si_pid() };
            message[0] = if signo == libc::SIGCHLD {
                SIGCHLD.store(true, Ordering::SeqCst);
                SIGCHLD_TAG
            } else {
                EXIT_TAG
            };
            message[1..].copy_from_slice(&pid.to_ne_bytes());
            len = 5;
            if pid == 0 {
                // A kill()ed real-time signal that found the queue full comes without its pid.
                LOST.store(true, Ordering::SeqCst);
                len = 1;
            }
        }
        _ => SWEEP.store(true, Ordering::SeqCst),
    }
    if fd >= 0 {
        // SAFETY: fd is the pipe's write end. A pipe write of at most PIPE_BUF bytes is
        // atomic: it is all there or, when full, not at all.
        let n = unsafe { libc::write(fd, message.as_ptr().cast(), len) };
        if n != len as isize && len > 1 {
            SWEEP.store(true, Ordering::SeqCst);
        }
    }
    // SAFETY: restore errno for the interrupted code.
    unsafe { *libc::__errno_location() = saved };
}

impl SelfPipe {
    /// Creates the pipe and installs the handler for `signals`.
    pub fn install(signals: &[Signal]) -> io::Result<SelfPipe> {
        let (sender, receiver) = pipe::new()?;
        WAKE_FD.store(sender.as_raw_fd() + 1, Ordering::SeqCst);
        let action = SigAction::new(
            SigHandler::SigAction(on_signal),
            SaFlags::SA_RESTART | SaFlags::SA_NOCLDSTOP | SaFlags::SA_SIGINFO,
            SigSet::empty(),
        );
        for &sig in signals {
            // SAFETY: the handler only touches atomics and write(2).
            unsafe { signal::sigaction(sig, &action) }.map_err(io::Error::from)?;
        }
        Ok(SelfPipe {
            _sender: sender,
            receiver,
            cut: Vec::new(),
            more: false,
        })
    }

    /// As [`SelfPipe::install`], and also catches the children's [`exit_signal`] and
    /// [`lost_signal`].
    pub fn install_supervisor() -> io::Result<SelfPipe> {
        let pipe = SelfPipe::install(SUPERVISOR)?;
        catch_realtime()?;
        Ok(pipe)
    }

    /// The read end, to register with mio.
    pub fn receiver(&mut self) -> &mut Receiver {
        &mut self.receiver
    }

    /// Drains the pipe and returns what arrived since the last call.
    pub fn take(&mut self) -> Pending {
        self.take_some(usize::MAX)
    }

    /// As [`SelfPipe::take`], reading about `most` bytes at most ([`TAKE_SOME`]); then
    /// [`SelfPipe::more`] says whether the pipe may hold more, to be taken by the next
    /// call (the pipe gives no new readiness event for what is left in it).
    pub fn take_some(&mut self, most: usize) -> Pending {
        let mut bytes = std::mem::take(&mut self.cut);
        let mut sink = [0u8; 4096];
        self.more = false;
        let mut read = false;
        loop {
            if read && bytes.len() >= most {
                self.more = true;
                break;
            }
            // One byte at least, so that a cut record longer than `most` moves on.
            let room = most.saturating_sub(bytes.len()).clamp(1, sink.len());
            match self.receiver.read(&mut sink[..room]) {
                Ok(0) => break,
                Ok(n) => {
                    read = true;
                    bytes.extend_from_slice(&sink[..n]);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        let (exited, sigchld_pids, cut) = parse(&bytes);
        self.cut = cut.to_vec();
        Pending {
            hangup: HANGUP.swap(false, Ordering::SeqCst),
            stops: STOP.load(Ordering::SeqCst),
            exited,
            sigchld_pids,
            sweep: SWEEP.swap(false, Ordering::SeqCst),
            sigchld: SIGCHLD.swap(false, Ordering::SeqCst),
            lost: LOST.swap(false, Ordering::SeqCst),
            drain: match DRAIN.swap(NO_DRAIN_NEWS, Ordering::SeqCst) {
                DRAIN_START => Some(Drain::Start),
                DRAIN_STOP => Some(Drain::Stop),
                _ => None,
            },
            upgrade: UPGRADE.swap(false, Ordering::SeqCst),
        }
    }

    /// Whether the last [`SelfPipe::take_some`] stopped at its most.
    pub fn more(&self) -> bool {
        self.more
    }
}

/// The pids of the exit and SIGCHLD records in `bytes`, and the first bytes of a record
/// cut at its end (the rest comes with the next read: the handler writes each record
/// whole, a read may cut it).
fn parse(bytes: &[u8]) -> (Vec<i32>, Vec<i32>, &[u8]) {
    let mut exited = Vec::new();
    let mut sigchld_pids = Vec::new();
    let mut rest = bytes;
    while let [tag, tail @ ..] = rest {
        match (*tag, tail) {
            (EXIT_TAG | SIGCHLD_TAG, [a, b, c, d, more @ ..]) => {
                let pid = i32::from_ne_bytes([*a, *b, *c, *d]);
                match *tag {
                    EXIT_TAG => exited.push(pid),
                    _ => sigchld_pids.push(pid),
                }
                rest = more;
            }
            (EXIT_TAG | SIGCHLD_TAG, _) => break,
            _ => rest = tail,
        }
    }
    (exited, sigchld_pids, rest)
}

/// Installs the handler for [`exit_signal`] and [`lost_signal`].
fn catch_realtime() -> io::Result<()> {
    for signo in supervisor_rt() {
        // SAFETY: as in SelfPipe::install; nix has no Signal for real-time signals, so
        // libc is called.
        let rc = unsafe {
            let mut raw: libc::sigaction = std::mem::zeroed();
            raw.sa_sigaction = on_signal as *const () as usize;
            raw.sa_flags = libc::SA_RESTART | libc::SA_SIGINFO;
            libc::sigemptyset(&mut raw.sa_mask);
            libc::sigaction(signo, &raw, std::ptr::null_mut())
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
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
    WAKE_FD.store(0, Ordering::SeqCst);
    HANGUP.store(false, Ordering::SeqCst);
    STOP.store(0, Ordering::SeqCst);
    DRAIN.store(NO_DRAIN_NEWS, Ordering::SeqCst);
    UPGRADE.store(false, Ordering::SeqCst);
    SWEEP.store(false, Ordering::SeqCst);
    SIGCHLD.store(false, Ordering::SeqCst);
    LOST.store(false, Ordering::SeqCst);
    let default = SigAction::new(SigHandler::SigDfl, SaFlags::empty(), SigSet::empty());
    for &sig in SUPERVISOR {
        // SAFETY: installing SIG_DFL.
        let _ = unsafe { signal::sigaction(sig, &default) };
    }
    for signo in supervisor_rt() {
        // SAFETY: SIG_DFL for the real-time ones too.
        unsafe { libc::signal(signo, libc::SIG_DFL) };
    }
    // SIGPIPE stays ignored (as Rust's runtime set it): a write to a dead peer is an EPIPE error.
}

/// The signals a terminal sends its foreground process group: ^C, ^\, ^Z, and SIGHUP when
/// it hangs up.
const TERMINAL: &[Signal] = &[
    Signal::SIGINT,
    Signal::SIGQUIT,
    Signal::SIGTSTP,
    Signal::SIGHUP,
];

/// In a fresh child, signals still blocked: moves it into a session (and process group) of
/// its own, without a controlling terminal. What a terminal, or `kill` of a shell job, sends
/// the supervisor's process group is for the supervisor alone: the first ^C asks it to let
/// running games finish, and would otherwise end every session at once. A terminal signal
/// that reached the child while it was still in that group (between fork and here) is
/// dropped: setting a signal to SIG_IGN discards it while pending; the disposition is then
/// put back.
pub fn leave_the_terminals_group() -> io::Result<()> {
    nix::unistd::setsid().map_err(io::Error::from)?;
    let ignore = SigAction::new(SigHandler::SigIgn, SaFlags::empty(), SigSet::empty());
    for &sig in TERMINAL {
        // SAFETY: SIG_IGN, then the action that was there before.
        unsafe {
            let old = signal::sigaction(sig, &ignore).map_err(io::Error::from)?;
            signal::sigaction(sig, &old).map_err(io::Error::from)?;
        }
    }
    Ok(())
}

/// Empties the signal mask.
pub fn unblock_all() {
    let _ = signal::sigprocmask(SigmaskHow::SIG_SETMASK, Some(&SigSet::empty()), None);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The handlers' flags are process-wide: one test at a time touches them.
    static SIGNALS: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn the_last_of_drain_and_resume_is_taken_once() {
        let _one = SIGNALS.lock().unwrap();
        let mut pipe = SelfPipe::install(&[Signal::SIGUSR1, Signal::SIGUSR2]).unwrap();
        assert_eq!(pipe.take().drain, None);
        signal::raise(Signal::SIGUSR1).unwrap();
        assert_eq!(pipe.take().drain, Some(Drain::Start));
        assert_eq!(pipe.take().drain, None);
        signal::raise(Signal::SIGUSR1).unwrap();
        signal::raise(Signal::SIGUSR2).unwrap();
        assert_eq!(pipe.take().drain, Some(Drain::Stop));
    }

    #[test]
    fn an_upgrade_is_asked_once() {
        let _one = SIGNALS.lock().unwrap();
        let mut pipe = SelfPipe::install(&[UPGRADE_SIGNAL]).unwrap();
        assert!(!pipe.take().upgrade);
        signal::raise(UPGRADE_SIGNAL).unwrap();
        assert!(pipe.take().upgrade);
        assert!(!pipe.take().upgrade);
    }

    #[test]
    fn a_sigchld_names_its_sender_and_asks_for_a_sweep_once() {
        let _one = SIGNALS.lock().unwrap();
        let mut pipe = SelfPipe::install(&[Signal::SIGCHLD]).unwrap();
        assert!(!pipe.take().sigchld);
        signal::raise(Signal::SIGCHLD).unwrap();
        let got = pipe.take();
        assert!(got.sigchld);
        assert!(!got.sweep, "nothing was lost from the pipe");
        assert_eq!(got.sigchld_pids, vec![std::process::id() as i32]);
        let me = std::process::id() as i32;
        assert!(!got.exited.contains(&me), "a SIGCHLD is no exit signal");
        assert!(!pipe.take().sigchld);
    }

    /// Queues `signo` to this thread with this process's pid, as a session's `sigqueue`
    /// does to the supervisor (to the thread, so it is handled before this returns).
    fn queue_to_self(signo: libc::c_int) {
        // SAFETY: a zeroed siginfo with the fields of sigqueue's filled in: si_pid and
        // si_uid are the first two ints of the union, which starts at byte 16 on 64-bit
        // Linux (12 on 32-bit); then a syscall to this thread.
        unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            info.si_signo = signo;
            info.si_code = libc::SI_QUEUE;
            let union = (&mut info as *mut libc::siginfo_t as *mut u8)
                .add(3 * 4 + 4 * usize::from(cfg!(target_pointer_width = "64")));
            *(union as *mut i32) = libc::getpid();
            let rc = libc::syscall(
                libc::SYS_rt_tgsigqueueinfo,
                libc::getpid(),
                libc::gettid(),
                signo,
                &info,
            );
            assert_eq!(rc, 0, "{}", io::Error::last_os_error());
        }
    }

    #[test]
    fn a_record_cut_by_a_read_is_kept_for_the_next() {
        let pid = 4321i32.to_ne_bytes();
        let mut bytes = vec![0, EXIT_TAG];
        bytes.extend(pid);
        bytes.extend([SIGCHLD_TAG, pid[0], pid[1]]);
        let (exited, sigchld, cut) = parse(&bytes);
        assert_eq!((exited, sigchld), (vec![4321], vec![]));
        assert_eq!(cut, [SIGCHLD_TAG, pid[0], pid[1]]);
        let mut joined = cut.to_vec();
        joined.extend([pid[2], pid[3], 0]);
        let (exited, sigchld, cut) = parse(&joined);
        assert_eq!((exited, sigchld, cut), (vec![], vec![4321], &[][..]));
    }

    #[test]
    fn a_pipe_taken_some_at_a_time_gives_every_exit_once() {
        let _one = SIGNALS.lock().unwrap();
        let mut pipe = SelfPipe::install(&[]).unwrap();
        catch_realtime().unwrap();
        for _ in 0..500 {
            queue_to_self(exit_signal());
        }
        let me = std::process::id() as i32;
        let (mut ours, mut takes) = (0, 0);
        loop {
            // 7 bytes: a record and part of the next, each take.
            let got = pipe.take_some(7);
            ours += got.exited.iter().filter(|&&pid| pid == me).count();
            takes += 1;
            if !pipe.more() {
                break;
            }
        }
        assert_eq!(ours, 500);
        assert!(takes > 300, "{takes} takes of 7 bytes");
    }

    #[test]
    fn exit_signals_queue_each_with_its_pid_and_a_lost_one_asks_for_a_sweep() {
        let _one = SIGNALS.lock().unwrap();
        let mut pipe = SelfPipe::install(&[]).unwrap();
        catch_realtime().unwrap();
        for _ in 0..3 {
            queue_to_self(exit_signal());
        }
        let got = pipe.take();
        let me = std::process::id() as i32;
        // Other tests' children may end with the exit signal too: only ours are counted.
        let ours = got.exited.iter().filter(|&&pid| pid == me).count();
        assert_eq!(ours, 3, "{:?}", got.exited);
        assert!(!got.lost && !got.sweep && !got.sigchld);
        queue_to_self(lost_signal());
        let got = pipe.take();
        assert!(got.lost && !got.exited.contains(&me));
        assert!(!pipe.take().lost);
    }
}
