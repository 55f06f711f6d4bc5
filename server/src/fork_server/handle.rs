//! The supervisor's end of the fork server: start it, ask it for sessions.

use std::ffi::CString;
use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::time::Duration;

use nix::sys::socket::{
    setsockopt, socketpair, sockopt, AddressFamily, MsgFlags, SockFlag, SockType,
};
use nix::sys::time::{TimeVal, TimeValLike};
use nix::unistd::Pid;

use super::{Request, SeatHeader, DIR_VAR, READY, SOCKET_VAR};
use crate::fd_passing;
use crate::session::Group;
use crate::spawn::{self, Parent};

/// How the fork server is started: reversid's own command line, read again in `dir`, with
/// `extra_args` after it (what the supervisor settled that the fork server must not
/// settle again, such as the journal directory named after the supervisor's pid).
#[derive(Debug, Clone)]
pub struct ForkServerSpec {
    pub dir: PathBuf,
    pub extra_args: Vec<std::ffi::OsString>,
}

/// How long the supervisor waits for the fork server to start, or to answer one request.
/// It answers in microseconds; this bounds a fork server that is stuck.
const TIMEOUT: Duration = Duration::from_secs(5);

/// A running fork server.
pub struct ForkServer {
    pid: Pid,
    socket: OwnedFd,
}

/// Why a session was not started through the fork server.
#[derive(Debug)]
pub enum Failure {
    /// The request did not go out: nothing was started, so forking directly is safe.
    NotSent(io::Error),
    /// The request went out but no answer came back: whether the session started is unknown.
    NoAnswer(io::Error),
    /// The fork server answered that it could not start the session (clone failed).
    Refused(io::Error),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::NotSent(e) => write!(f, "the request could not be sent: {e}"),
            Failure::NoAnswer(e) => write!(f, "no answer: {e}"),
            Failure::Refused(e) => write!(f, "it could not start the session: {e}"),
        }
    }
}

impl ForkServer {
    /// Executes this program again as a fork server, as `spec` says, and waits until it
    /// is ready.
    pub fn start(spec: &ForkServerSpec) -> io::Result<ForkServer> {
        let (ours, theirs) = socketpair(
            AddressFamily::Unix,
            SockType::SeqPacket,
            None,
            SockFlag::SOCK_CLOEXEC,
        )?;
        let timeout = TimeVal::milliseconds(TIMEOUT.as_millis() as i64);
        setsockopt(&ours, sockopt::ReceiveTimeout, &timeout)?;
        setsockopt(&ours, sockopt::SendTimeout, &timeout)?;
        let exec = Exec::new(theirs.as_raw_fd(), spec)?;
        let fd = theirs.as_raw_fd();
        let forked = spawn::fork_child(&[fd], "reversid-forks", Parent::Caller, exec, |exec, _| {
            exec.run()
        });
        drop(theirs);
        let (pid, _) = forked.map_err(|(e, _)| e)?;
        let server = ForkServer { pid, socket: ours };
        let mut hello = [0u8; 1];
        match fd_passing::receive::<1>(&server.socket, &mut hello) {
            Ok(Some(m)) if m.len == 1 && hello[0] == READY => Ok(server),
            Ok(_) => Err(io::Error::other(
                "it ended before it was ready (see its log line)",
            )),
            Err(e) => Err(e),
        }
    }

    /// The fork server's pid: its exit is signalled like a session's.
    pub fn pid(&self) -> Pid {
        self.pid
    }

    /// Starts the session of `group` (the fork server makes its viewers' listener); the
    /// caller then closes its copies of the sockets.
    pub fn start_session(&self, group: &Group) -> Result<Pid, Failure> {
        let request = Request::Start {
            id: group.id,
            game: group.module.info.name.to_owned(),
            terms: group.terms,
            seats: group
                .seats
                .iter()
                .map(|seat| SeatHeader {
                    wire: seat.wire,
                    peer: seat.peer,
                    early: seat.early.clone(),
                    token: seat.token,
                    player: seat.player.clone(),
                })
                .collect(),
            spare: group.spare_journal.clone(),
        };
        let fds: Vec<RawFd> = group.seats.iter().map(|s| s.stream.as_raw_fd()).collect();
        let request = request.encode();
        again_if_interrupted(|| {
            fd_passing::send(&self.socket, &[&request], &fds, MsgFlags::empty())
        })
        .map_err(Failure::NotSent)?;
        let mut answer = [0u8; 4];
        let pid = match again_if_interrupted(|| fd_passing::receive::<1>(&self.socket, &mut answer))
        {
            Ok(Some(m)) if m.len == 4 && m.fds.is_empty() => i32::from_le_bytes(answer),
            Ok(Some(_)) => return Err(Failure::NoAnswer(io::Error::other("a malformed answer"))),
            Ok(None) => return Err(Failure::NoAnswer(io::ErrorKind::UnexpectedEof.into())),
            Err(e) => return Err(Failure::NoAnswer(e)),
        };
        if pid > 0 {
            Ok(Pid::from_raw(pid))
        } else {
            Err(Failure::Refused(io::Error::from_raw_os_error(-pid)))
        }
    }

    /// Gives the fork server the supervisor's stderr, reopened after log rotation.
    pub fn reopen_log(&self) -> io::Result<()> {
        let request = Request::ReopenLog.encode();
        fd_passing::send(
            &self.socket,
            &[&request],
            &[libc::STDERR_FILENO],
            MsgFlags::empty(),
        )
    }
}

/// Everything `execve` needs, made before the fork.
struct Exec {
    socket: RawFd,
    args: Vec<CString>,
    env: Vec<CString>,
}

impl Exec {
    fn new(socket: RawFd, spec: &ForkServerSpec) -> io::Result<Exec> {
        let c = |bytes: Vec<u8>| CString::new(bytes).map_err(io::Error::other);
        let args = std::env::args_os()
            .chain(spec.extra_args.iter().cloned())
            .map(|arg| c(arg.as_bytes().to_vec()))
            .collect::<io::Result<Vec<_>>>()?;
        let mut env = std::env::vars_os()
            .filter(|(name, _)| name != SOCKET_VAR && name != DIR_VAR)
            .map(|(name, value)| c([name.as_bytes(), b"=", value.as_bytes()].concat()))
            .collect::<io::Result<Vec<_>>>()?;
        env.push(c(format!("{SOCKET_VAR}={socket}").into_bytes())?);
        let dir = spec.dir.as_os_str().as_bytes();
        env.push(c([DIR_VAR.as_bytes(), b"=", dir].concat())?);
        Ok(Exec { socket, args, env })
    }

    /// In the child: keeps the socket open across exec and executes this program again.
    fn run(self) -> i32 {
        // SAFETY: clears close-on-exec on a descriptor this process owns.
        unsafe { libc::fcntl(self.socket, libc::F_SETFD, 0) };
        let Err(e) = nix::unistd::execve(c"/proc/self/exe", &self.args, &self.env);
        log::error!("cannot execute the fork server: {e}");
        1
    }
}

/// Runs `io` again while a signal interrupts it. The socket's timeouts make a blocked
/// send or receive return EINTR even under SA_RESTART, and the supervisor gets a SIGCHLD
/// whenever a session ends. A SEQPACKET message is sent or received whole or not at all.
fn again_if_interrupted<T>(mut io: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    loop {
        match io() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            done => return done,
        }
    }
}
