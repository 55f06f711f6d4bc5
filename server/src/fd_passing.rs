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

/// The most descriptors one message can carry (the kernel's SCM_MAX_FD). Room for all
/// of them is made on every receive: were the kernel to cut the list, the descriptors
/// it did install could not be owned, and would leak.
const KERNEL_MAX_FDS: usize = 253;

/// Receives one message into `buf`, expecting at most `MAX_FDS` descriptors: more are
/// closed and the message marked truncated. `Ok(None)`: the peer closed the socket.
pub fn receive<const MAX_FDS: usize>(
    socket: &impl AsRawFd,
    buf: &mut [u8],
) -> io::Result<Option<Received>> {
    let mut space = nix::cmsg_space!([RawFd; KERNEL_MAX_FDS]);
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
    let truncated = fds.len() > MAX_FDS
        || msg
            .flags
            .intersects(MsgFlags::MSG_TRUNC | MsgFlags::MSG_CTRUNC);
    fds.truncate(MAX_FDS);
    if msg.bytes == 0 && fds.is_empty() {
        return Ok(None);
    }
    Ok(Some(Received {
        len: msg.bytes,
        fds,
        truncated,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nix::sys::socket::{socketpair, AddressFamily, SockFlag, SockType};

    fn pair() -> (OwnedFd, OwnedFd) {
        socketpair(
            AddressFamily::Unix,
            SockType::SeqPacket,
            None,
            SockFlag::SOCK_CLOEXEC,
        )
        .unwrap()
    }

    #[test]
    fn a_message_and_its_descriptors_cross() {
        let (a, b) = pair();
        let (x, _y) = pair();
        send(&a, &[b"he", b"llo"], &[x.as_raw_fd()], MsgFlags::empty()).unwrap();
        let mut buf = [0u8; 16];
        let got = receive::<1>(&b, &mut buf).unwrap().unwrap();
        assert_eq!(
            (&buf[..got.len], got.fds.len(), got.truncated),
            (&b"hello"[..], 1, false)
        );
        drop(a);
        assert!(receive::<1>(&b, &mut buf).unwrap().is_none());
    }

    #[test]
    fn too_many_descriptors_or_bytes_are_marked_and_none_leaks() {
        let (a, b) = pair();
        let (sent, ends): (Vec<OwnedFd>, Vec<OwnedFd>) = (0..3).map(|_| pair()).unzip();
        let raw: Vec<RawFd> = sent.iter().map(AsRawFd::as_raw_fd).collect();
        send(&a, &[b"x"], &raw, MsgFlags::empty()).unwrap();
        drop(sent);
        let mut buf = [0u8; 4];
        let got = receive::<1>(&b, &mut buf).unwrap().unwrap();
        assert!(got.truncated);
        assert_eq!(got.fds.len(), 1);
        // A socket whose every copy is closed reads as closed at its other end: the two
        // beyond the one expected were closed, the one kept is still open.
        let closed = |end: &OwnedFd| {
            let mut byte = [0u8; 1];
            let flags = MsgFlags::MSG_DONTWAIT;
            matches!(
                nix::sys::socket::recv(end.as_raw_fd(), &mut byte, flags),
                Ok(0)
            )
        };
        assert_eq!(
            ends.iter().map(closed).collect::<Vec<_>>(),
            [false, true, true]
        );
        send(&a, &[b"too long"], &[], MsgFlags::empty()).unwrap();
        let got = receive::<1>(&b, &mut buf).unwrap().unwrap();
        assert!(got.truncated);
    }
}
