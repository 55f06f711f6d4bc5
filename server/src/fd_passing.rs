//! Sending descriptors over Unix sockets (SCM_RIGHTS): one message and its
//! descriptors at a time, the received ones owned at once so none can leak.

use std::io::{self, IoSlice, IoSliceMut};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use nix::sys::socket::{recvmsg, sendmsg, ControlMessage, ControlMessageOwned, MsgFlags};

/// Sends `parts` as one message with `fds` beside it.
pub fn send(
    socket: &impl AsRawFd,
    parts: &[&[u8]],
    fds: &[RawFd],
    flags: MsgFlags,
) -> io::Result<()> {
    let iov: Vec<IoSlice<'_>> = parts.iter().map(|part| IoSlice::new(part)).collect();
    let rights = [ControlMessage::ScmRights(fds)];
    let cmsgs: &[ControlMessage<'_>] = if fds.is_empty() { &[] } else { &rights };
    sendmsg::<()>(
        socket.as_raw_fd(),
        &iov,
        cmsgs,
        flags | MsgFlags::MSG_NOSIGNAL,
        None,
    )?;
    Ok(())
}

/// A message received: its length in the caller's buffer and the descriptors that came
/// with it (close-on-exec). `Ok(None)` at end of stream.
pub struct Received {
    pub len: usize,
    pub fds: Vec<OwnedFd>,
    /// The message or its descriptors did not fit and were cut.
    pub truncated: bool,
}

/// Receives one message into `buf` with at most `MAX_FDS` descriptors. `Ok(None)`: the
/// peer closed the socket.
pub fn receive<const MAX_FDS: usize>(
    socket: &impl AsRawFd,
    buf: &mut [u8],
) -> io::Result<Option<Received>> {
    let mut space = nix::cmsg_space!([RawFd; MAX_FDS]);
    let mut iov = [IoSliceMut::new(buf)];
    let msg = recvmsg::<()>(
        socket.as_raw_fd(),
        &mut iov,
        Some(&mut space),
        MsgFlags::MSG_CMSG_CLOEXEC,
    )?;
    let mut fds = Vec::new();
    for cmsg in msg.cmsgs()? {
        if let ControlMessageOwned::ScmRights(raw) = cmsg {
            // SAFETY: the kernel just gave us these descriptors; we own them now.
            fds.extend(
                raw.into_iter()
                    .map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }),
            );
        }
    }
    let truncated = msg
        .flags
        .intersects(MsgFlags::MSG_TRUNC | MsgFlags::MSG_CTRUNC);
    if msg.bytes == 0 && fds.is_empty() {
        return Ok(None);
    }
    Ok(Some(Received {
        len: msg.bytes,
        fds,
        truncated,
    }))
}
