//! The supervisor's end of the TLS terminator: start it, hand it connections, tell it to
//! reload its certificate. Nothing here blocks: a terminator that falls behind makes
//! the supervisor refuse TLS clients, never wait.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

use nix::sys::socket::{socketpair, AddressFamily, MsgFlags, SockFlag, SockType};
use nix::unistd::Pid;

use super::terminator::{self, Message};
use super::TlsFiles;
use crate::fd_passing;
use crate::spawn::{self, Parent};

/// A running terminator.
pub struct Terminator {
    pid: Pid,
    socket: OwnedFd,
}

impl Terminator {
    /// Forks the terminator, which reads `files` and serves TLS with them until the
    /// supervisor's end of their socket closes and its last connection ends.
    pub fn start(files: &TlsFiles) -> io::Result<Terminator> {
        let (ours, theirs) = socketpair(
            AddressFamily::Unix,
            SockType::SeqPacket,
            None,
            SockFlag::SOCK_CLOEXEC,
        )?;
        let keep = [theirs.as_raw_fd()];
        let data = (theirs, files.clone());
        let forked = spawn::fork_child(&keep, "reversid-tls", Parent::Caller, data, |d, abort| {
            terminator::run(d.0, d.1, abort)
        });
        let (pid, _) = forked.map_err(|(e, _)| e)?;
        Ok(Terminator { pid, socket: ours })
    }

    /// The terminator's pid: its exit is collected like a session's.
    pub fn pid(&self) -> Pid {
        self.pid
    }

    /// Hands the client's socket, with the `early` bytes already read from it, to the
    /// terminator, which writes what the client sends inside TLS to `plain` (whose other
    /// end the caller reads) and sends the client what comes back from it. Fails at once
    /// if the terminator is gone or its queue is full.
    pub fn hand(
        &self,
        client: &impl AsRawFd,
        plain: &impl AsRawFd,
        early: &[u8],
    ) -> io::Result<()> {
        let fds = [client.as_raw_fd(), plain.as_raw_fd()];
        let tag = [Message::Hand as u8];
        fd_passing::send(&self.socket, &[&tag, early], &fds, MsgFlags::MSG_DONTWAIT)
    }

    /// Tells the terminator to read its certificate and key again (SIGHUP). Connections
    /// already set up keep theirs; new ones get the new.
    pub fn reload(&self) -> io::Result<()> {
        let tag = [Message::Reload as u8];
        fd_passing::send(&self.socket, &[&tag], &[], MsgFlags::MSG_DONTWAIT)
    }
}

/// A connected pair of Unix stream sockets: the supervisor's end (non-blocking, for its
/// loop) and the terminator's (blocking, for a relay thread).
pub fn plaintext_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let (ours, theirs) = socketpair(
        AddressFamily::Unix,
        SockType::Stream,
        None,
        SockFlag::SOCK_CLOEXEC | SockFlag::SOCK_NONBLOCK,
    )?;
    let theirs = std::os::unix::net::UnixStream::from(theirs);
    theirs.set_nonblocking(false)?;
    Ok((ours, theirs.into()))
}
