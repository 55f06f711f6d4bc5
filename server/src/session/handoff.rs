//! Handing a connection from the supervisor to a running session: the
//! descriptor travels as SCM_RIGHTS over a Unix datagram socket made for that
//! child, with the peer's address, its protocol and any bytes it sent after
//! its request.
//!
//! A datagram: `kind: u8` (0 binary, 1 text), `peer_len: u8`, the peer's
//! address in text, then the early bytes.

use std::io::{self, IoSlice, IoSliceMut};
use std::net::TcpStream;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixDatagram;

use nix::sys::socket::{recvmsg, sendmsg, ControlMessage, ControlMessageOwned, MsgFlags};

use crate::wire::WireKind;

/// The largest datagram: the header, an address, and early bytes up to the
/// supervisor's input cap.
const MAX_DATAGRAM: usize = 2 + 255 + 8192;

/// A connection received from the supervisor.
pub struct Handed {
    /// Non-blocking.
    pub stream: TcpStream,
    pub peer: String,
    pub wire: WireKind,
    pub early: Vec<u8>,
}

/// Sends `stream` (the supervisor's copy stays open until the caller drops it).
/// `WouldBlock` when the session is not taking connections fast enough.
pub fn send(
    socket: &UnixDatagram,
    stream: RawFd,
    peer: &str,
    wire: WireKind,
    early: &[u8],
) -> io::Result<()> {
    let peer = &peer.as_bytes()[..peer.len().min(255)];
    let header = [
        match wire {
            WireKind::Binary => 0,
            WireKind::Text => 1,
        },
        peer.len() as u8,
    ];
    let early = &early[..early.len().min(MAX_DATAGRAM - 2 - peer.len())];
    let iov = [
        IoSlice::new(&header),
        IoSlice::new(peer),
        IoSlice::new(early),
    ];
    let fds = [stream];
    let cmsg = [ControlMessage::ScmRights(&fds)];
    sendmsg::<()>(
        socket.as_raw_fd(),
        &iov,
        &cmsg,
        MsgFlags::MSG_DONTWAIT | MsgFlags::MSG_NOSIGNAL,
        None,
    )
    .map_err(io::Error::from)?;
    Ok(())
}

/// The next connection waiting on `socket`, `Ok(None)` when there is none now.
pub fn receive(socket: &mut impl AsRawFd) -> io::Result<Option<Handed>> {
    let mut buf = vec![0u8; MAX_DATAGRAM];
    let mut cmsg_space = nix::cmsg_space!([RawFd; 1]);
    let (bytes, fd) = {
        let mut iov = [IoSliceMut::new(&mut buf)];
        let msg = match recvmsg::<()>(
            socket.as_raw_fd(),
            &mut iov,
            Some(&mut cmsg_space),
            MsgFlags::MSG_DONTWAIT | MsgFlags::MSG_CMSG_CLOEXEC,
        ) {
            Ok(msg) => msg,
            Err(nix::errno::Errno::EAGAIN) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let mut fd = None;
        for cmsg in msg.cmsgs().map_err(io::Error::from)? {
            if let ControlMessageOwned::ScmRights(fds) = cmsg {
                for raw in fds {
                    // SAFETY: the kernel just gave us this descriptor; we own it now.
                    let owned = unsafe { OwnedFd::from_raw_fd(raw) };
                    if fd.is_none() {
                        fd = Some(owned);
                    }
                }
            }
        }
        if msg.bytes == 0 && fd.is_none() {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        (msg.bytes, fd)
    };
    let fd = fd.ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "a hand-off without a descriptor",
        )
    })?;
    let bad = || io::Error::new(io::ErrorKind::InvalidData, "a malformed hand-off");
    let [kind, peer_len, ..] = buf[..bytes] else {
        return Err(bad());
    };
    let peer_end = 2 + usize::from(peer_len);
    let peer = buf.get(2..peer_end).ok_or_else(bad)?;
    let stream = TcpStream::from(fd);
    stream.set_nonblocking(true)?;
    Ok(Some(Handed {
        stream,
        peer: String::from_utf8_lossy(peer).into_owned(),
        wire: if kind == 0 {
            WireKind::Binary
        } else {
            WireKind::Text
        },
        early: buf[peer_end.min(bytes)..bytes].to_vec(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn a_connection_crosses_with_its_peer_protocol_and_early_bytes() {
        let (sup, mut child) = UnixDatagram::pair().unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (served, peer) = listener.accept().unwrap();
        assert!(receive(&mut child).unwrap().is_none());
        send(
            &sup,
            served.as_raw_fd(),
            &peer.to_string(),
            WireKind::Text,
            b"GAME QUIT\n",
        )
        .unwrap();
        drop(served);
        let mut handed = receive(&mut child).unwrap().unwrap();
        assert_eq!(handed.peer, peer.to_string());
        assert_eq!(handed.wire, WireKind::Text);
        assert_eq!(handed.early, b"GAME QUIT\n");
        handed.stream.set_nonblocking(false).unwrap();
        handed.stream.write_all(b"hello").unwrap();
        let mut got = [0u8; 5];
        client.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"hello");
    }
}
