//! Handing a connection from the supervisor to a running session.
//!
//! Each session listens on an abstract Unix seqpacket socket named after the
//! supervisor's pid and the game's id ([`address`]; no file, and no descriptor kept by the
//! supervisor). Whoever forks the session creates the listener before the fork and closes
//! its copy after: the fork server, so that the supervisor's loop does not pay the bind,
//! whose name lookup walks one of the kernel's 256 chains, ever longer with more games
//! (a hundred names with 25,000); or the supervisor, forking directly.
//! To hand over a viewer the supervisor connects, sends one message with the
//! descriptor as SCM_RIGHTS, and closes; the session accepts only its parent.
//!
//! A message: `kind: u8` (0 binary, 1 text, 2 seed 000, 3 seed 002, 4 WebSocket),
//! `role: u8` (`0xFF` a viewer, else the number of the seat a returning player takes back),
//! `peer_len: u8`, the peer's address in text, then the bytes the client sent after its request.

use std::io;
use std::net::TcpStream;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

use nix::sys::socket::{
    accept4, bind, connect, getsockopt, listen, setsockopt, socket, sockopt, AddressFamily,
    Backlog, MsgFlags, SockFlag, SockType, UnixAddr,
};

use nix::sys::time::{TimeVal, TimeValLike};

use crate::fd_passing;
use crate::protocols::WireKind;

/// The largest message: the header, an address, and early bytes up to the
/// supervisor's input cap.
const MAX_MESSAGE: usize = HEADER + 255 + crate::protocols::MAX_INPUT;
/// Kind, role and the peer's length.
const HEADER: usize = 3;
/// The role byte of a viewer.
const VIEWER: u8 = 0xFF;
/// How long a session waits for the message once its parent has connected (it is sent
/// right after the connect, so this is only a bound against a stuck sender).
const RECEIVE_TIMEOUT: Duration = Duration::from_secs(1);

/// What a handed connection comes to do in the session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Watch the game.
    Viewer,
    /// Take back seat `n` (the supervisor checked the seat's resume token).
    Seat(u8),
}

impl Role {
    fn byte(self) -> u8 {
        match self {
            Role::Viewer => VIEWER,
            Role::Seat(n) => n.min(VIEWER - 1),
        }
    }

    fn of_byte(byte: u8) -> Role {
        match byte {
            VIEWER => Role::Viewer,
            n => Role::Seat(n),
        }
    }
}

/// A connection received from the supervisor.
pub struct Handed {
    /// Non-blocking.
    pub stream: TcpStream,
    pub peer: String,
    pub wire: WireKind,
    pub role: Role,
    pub early: Vec<u8>,
}

/// The name of game `id`'s socket: `reversid/`, the supervisor's pid and the id mixed, as
/// raw bytes.
///
/// Why mixed: the kernel keeps abstract names in 256 chains, chosen by a checksum of the
/// name's bytes, and walks one on every bind and connect. Ids written in decimal vary a
/// few digits, whose checksums fall in 120 to 150 of the chains: with 25,000 games
/// running, a bind compared 400 to 600 names, a third of the supervisor's CPU a set-up.
/// Mixed bits spread the names over all 256 (about 100 a chain then). The mix is a bijection, so
/// names stay unique.
fn address(supervisor: u32, id: u64) -> io::Result<UnixAddr> {
    Ok(UnixAddr::new_abstract(&name(supervisor, id))?)
}

const PREFIX: &[u8; 9] = b"reversid/";

fn name(supervisor: u32, id: u64) -> [u8; PREFIX.len() + 12] {
    let mut name = [0; PREFIX.len() + 12];
    name[..PREFIX.len()].copy_from_slice(PREFIX);
    name[PREFIX.len()..][..4].copy_from_slice(&supervisor.to_le_bytes());
    name[PREFIX.len() + 4..].copy_from_slice(&mix(id).to_le_bytes());
    name
}

/// splitmix64's finalizer: each step (xor with a shift, product by an odd constant) is a
/// bijection of u64.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A non-blocking Unix seqpacket socket.
fn seqpacket() -> io::Result<OwnedFd> {
    Ok(socket(
        AddressFamily::Unix,
        SockType::SeqPacket,
        SockFlag::SOCK_CLOEXEC | SockFlag::SOCK_NONBLOCK,
        None,
    )?)
}

/// The listener of game `id` of the supervisor `supervisor` (call before the fork).
pub fn listener(supervisor: u32, id: u64) -> io::Result<OwnedFd> {
    let fd = seqpacket()?;
    bind(fd.as_raw_fd(), &address(supervisor, id)?)?;
    listen(&fd, Backlog::new(16)?)?;
    Ok(fd)
}

/// Sends `stream` to the session of game `id` (the supervisor's copy stays open until the
/// caller drops it). Fails when the session is gone or not taking connections.
pub fn send(
    id: u64,
    stream: RawFd,
    peer: &str,
    wire: WireKind,
    role: Role,
    early: &[u8],
) -> io::Result<()> {
    let socket = seqpacket()?;
    connect(socket.as_raw_fd(), &address(std::process::id(), id)?)?;
    let peer = &peer.as_bytes()[..peer.len().min(255)];
    let header = [kind_byte(wire), role.byte(), peer.len() as u8];
    let early = &early[..early.len().min(MAX_MESSAGE - HEADER - peer.len())];
    fd_passing::send(
        &socket,
        &[&header, peer, early],
        &[stream],
        MsgFlags::MSG_DONTWAIT,
    )
}

/// The byte that names `wire` in a hand-off message: its number in the registry.
pub fn kind_byte(wire: WireKind) -> u8 {
    wire.number()
}

/// The protocol a hand-off message's kind byte names.
pub fn wire_of(kind: u8) -> Option<WireKind> {
    WireKind::of_number(kind)
}

/// The next connection handed over, `Ok(None)` when none is waiting. Connections from
/// anyone but the parent process are closed unread.
pub fn accept(listener: &OwnedFd) -> io::Result<Option<Handed>> {
    loop {
        let raw = match accept4(listener.as_raw_fd(), SockFlag::SOCK_CLOEXEC) {
            Ok(raw) => raw,
            Err(nix::errno::Errno::EAGAIN) => return Ok(None),
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        };
        // SAFETY: accept4 just returned this descriptor; we own it now.
        let conn = unsafe { OwnedFd::from_raw_fd(raw) };
        let parent = nix::unistd::getppid().as_raw();
        match getsockopt(&conn, sockopt::PeerCredentials) {
            Ok(cred) if cred.pid() == parent => {}
            Ok(cred) => {
                log::warn!(
                    "hand-off socket: refused a connection from pid {}",
                    cred.pid()
                );
                continue;
            }
            Err(e) => return Err(e.into()),
        }
        let timeout = TimeVal::milliseconds(RECEIVE_TIMEOUT.as_millis() as i64);
        setsockopt(&conn, sockopt::ReceiveTimeout, &timeout)?;
        return receive(&conn).map(Some);
    }
}

fn receive(conn: &OwnedFd) -> io::Result<Handed> {
    let mut buf = vec![0u8; MAX_MESSAGE];
    let bad = |why: &str| io::Error::new(io::ErrorKind::InvalidData, format!("hand-off: {why}"));
    let received = fd_passing::receive::<1>(conn, &mut buf)?.ok_or_else(|| bad("no message"))?;
    if received.truncated {
        return Err(bad("the message or its descriptors were cut"));
    }
    let bytes = received.len;
    let fd = received
        .fds
        .into_iter()
        .next()
        .ok_or_else(|| bad("no descriptor"))?;
    let [kind, role, peer_len, ..] = buf[..bytes] else {
        return Err(bad("message too short"));
    };
    let wire = wire_of(kind).ok_or_else(|| bad(&format!("no protocol of kind {kind}")))?;
    let peer_end = HEADER + usize::from(peer_len);
    let peer = buf
        .get(HEADER..peer_end.min(bytes))
        .ok_or_else(|| bad("bad peer"))?;
    let stream = TcpStream::from(fd);
    stream.set_nonblocking(true)?;
    Ok(Handed {
        stream,
        peer: String::from_utf8_lossy(peer).into_owned(),
        wire,
        role: Role::of_byte(role),
        early: buf[peer_end.min(bytes)..bytes].to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// The chain of 256 in which Linux keeps an abstract name (`unix_abstract_hash` in
    /// net/unix/af_unix.c): the folded Internet checksum of the address (family, then
    /// the name with its leading NUL), folded again, with the socket type.
    fn kernel_chain(name: &[u8]) -> u8 {
        let mut address = vec![1u8, 0, 0]; // AF_UNIX, little-endian, then the NUL
        address.extend_from_slice(name);
        if address.len() % 2 == 1 {
            address.push(0);
        }
        let mut sum: u32 = address
            .chunks(2)
            .map(|w| u32::from(u16::from_le_bytes([w[0], w[1]])))
            .sum();
        while sum > 0xFFFF {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        let folded = !sum & 0xFFFF;
        let hash = folded ^ (folded >> 8) ^ libc::SOCK_SEQPACKET as u32;
        (hash & 0xFF) as u8
    }

    #[test]
    fn the_names_of_many_games_spread_over_the_kernels_chains() {
        let mut chains = [0u32; 256];
        for id in 1..=25_000 {
            chains[usize::from(kernel_chain(&name(4242, id)))] += 1;
        }
        let used = chains.iter().filter(|&&n| n > 0).count();
        let longest = chains.iter().max().copied().unwrap_or(0);
        assert_eq!(used, 256, "{chains:?}");
        assert!(longest < 150, "a chain of {longest}: {chains:?}");
    }

    #[test]
    fn names_are_unique_and_carry_the_supervisors_pid() {
        let names: std::collections::HashSet<_> = (0..10_000).map(|id| name(7, id)).collect();
        assert_eq!(names.len(), 10_000);
        assert_ne!(name(7, 1), name(8, 1));
        assert!(name(7, 1).starts_with(PREFIX));
    }

    #[test]
    fn only_the_parent_may_hand_over() {
        // Here the "session" is this test process, whose parent is not us: refused.
        let id = u64::from(std::process::id()) << 20 | 1;
        let listener = listener(std::process::id(), id).unwrap();
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let _client = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (served, peer) = l.accept().unwrap();
        assert!(accept(&listener).unwrap().is_none());
        send(
            id,
            served.as_raw_fd(),
            &peer.to_string(),
            WireKind::Text,
            Role::Viewer,
            b"x",
        )
        .unwrap();
        assert!(
            accept(&listener).unwrap().is_none(),
            "a stranger's connection is refused"
        );
    }

    #[test]
    fn a_connection_crosses_with_its_peer_protocol_and_early_bytes() {
        // Receive directly from a connected pair: the message format and the descriptor.
        let (a, b) = nix::sys::socket::socketpair(
            AddressFamily::Unix,
            SockType::SeqPacket,
            None,
            SockFlag::SOCK_CLOEXEC,
        )
        .unwrap();
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (served, peer) = l.accept().unwrap();
        let peer_text = peer.to_string();
        let header = [1u8, 2, peer_text.len() as u8];
        fd_passing::send(
            &a,
            &[&header, peer_text.as_bytes(), b"GAME QUIT\n"],
            &[served.as_raw_fd()],
            MsgFlags::empty(),
        )
        .unwrap();
        drop(served);
        let mut handed = receive(&b).unwrap();
        assert_eq!(handed.peer, peer_text);
        assert_eq!(handed.wire, WireKind::Text);
        assert_eq!(handed.role, Role::Seat(2));
        assert_eq!(handed.early, b"GAME QUIT\n");
        handed.stream.set_nonblocking(false).unwrap();
        handed.stream.write_all(b"hello").unwrap();
        let mut got = [0u8; 5];
        client.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"hello");
    }

    #[test]
    fn roles_cross_as_one_byte() {
        for role in [Role::Viewer, Role::Seat(0), Role::Seat(63)] {
            assert_eq!(Role::of_byte(role.byte()), role);
        }
    }

    #[test]
    fn every_protocol_has_its_own_kind_byte() {
        for wire in WireKind::ALL {
            assert_eq!(wire_of(kind_byte(wire)), Some(wire));
        }
        assert_eq!(wire_of(WireKind::ALL.len() as u8), None);
    }
}
