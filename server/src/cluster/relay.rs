//! Relaying a client to the host that holds its game (docs/design/play-together.md §11.1):
//! a TCP connection from this host's advertised address to the other's listener, a PROXY
//! v2 header naming the client (with TLV 0xE0: its protocol; 0xE1: who it is, if it signed in
//! or took a guest's name here), the request's bytes replayed,
//! then bytes copied both ways, half-closes passed on. A host lost mid-way (a reset, or
//! silence past the keepalive's probes) ends the relay, with a line for a line protocol's
//! client; nothing waits on a client that keeps its end open once the host has closed.
//!
//! Built as threads of the supervisor's process (one connecting, then one per direction),
//! not yet as the design's child process with a loop of its own: relays are rare (returning
//! players, the cluster's boundary) and capped by `--max-relays`; the blocking copies never
//! touch the supervisor's loop.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use log::{debug, info};

/// How long reaching the other host may take before the client is told it cannot be.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// What a text client is told when the other host cannot be reached.
pub const UNREACHABLE: &str = "ERROR the host of this game cannot be reached; try again\n";
/// What a line-protocol client is told when its game's host is lost mid-way (the copy
/// from it fails: a reset, or no answer to keepalive probes).
pub const LOST: &str = "the connection to the host of this game was lost";
const BUFFER: usize = 64 * 1024;
/// Keepalive on the connection to the other host: a host that vanished (its machine
/// gone, no reset sent) is noticed after about 15 + 3 x 5 = 30 s of silence.
const KEEPALIVE_IDLE: Duration = Duration::from_secs(15);
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(5);
const KEEPALIVE_PROBES: u32 = 3;
/// Once the other host has closed, how long the client's bytes may still go to it (it
/// may linger, reading) before the relay stops reading them and ends.
const AFTER_HOST_CLOSED: Duration = Duration::from_secs(5);

/// One relay to start: where to, and what to send before the client's own bytes.
pub struct Relay {
    pub client: TcpStream,
    /// The client's address as this host knows it (after any balancer's header).
    pub peer: SocketAddr,
    /// The other host's advertised address.
    pub target: String,
    /// This host's advertised address: the relay connects from its IP, which the other
    /// host trusts (`--proxy-from`).
    pub from: Option<SocketAddr>,
    /// The hand-off kind of the client's protocol (TLV 0xE0).
    pub kind: u8,
    /// Who the client is on this host, in words (TLV 0xE1), if it signed in or took a
    /// guest's name here.
    pub identity: Option<String>,
    /// The request that sent it there, and whatever followed it unread.
    pub replay: Vec<u8>,
    /// What the client is told when the other host cannot be reached.
    pub refusal: Vec<u8>,
    /// What the client is told when the other host is lost mid-way; `None` for protocols
    /// where bytes added between two of the host's could cut a message (binary, frames).
    pub lost: Option<Vec<u8>>,
}

/// The relays running, at most `max` at once.
#[derive(Clone)]
pub struct Relays {
    live: Arc<AtomicUsize>,
    max: usize,
}

impl Relays {
    pub fn new(max: usize) -> Relays {
        Relays {
            live: Arc::default(),
            max,
        }
    }

    /// Starts `relay` on threads of its own; gives its client back when `max` run.
    pub fn start(&self, relay: Relay) -> Result<(), TcpStream> {
        if self.live.fetch_add(1, Ordering::SeqCst) >= self.max {
            self.live.fetch_sub(1, Ordering::SeqCst);
            return Err(relay.client);
        }
        let live = self.live.clone();
        let spawned = std::thread::Builder::new()
            .name("relay".into())
            .spawn(move || {
                run(relay);
                live.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            self.live.fetch_sub(1, Ordering::SeqCst);
        }
        Ok(())
    }
}

fn run(mut relay: Relay) {
    let peer = relay.peer;
    let target = relay.target.clone();
    let mut host = match connect(&relay) {
        Ok(host) => host,
        Err(e) => {
            info!("{peer}: cannot relay to {target}: {e}");
            let _ = relay.client.write_all(&relay.refusal);
            let _ = relay.client.shutdown(Shutdown::Write);
            return;
        }
    };
    let destination = host.peer_addr().unwrap_or(peer);
    let kind = [relay.kind];
    let mut tlvs: Vec<(u8, &[u8])> = vec![(reversi_proxy::TLV_PROTOCOL, &kind)];
    if let Some(words) = &relay.identity {
        tlvs.push((reversi_proxy::TLV_IDENTITY, words.as_bytes()));
    }
    let mut first = reversi_proxy::write_v2(peer, destination, &tlvs);
    first.extend_from_slice(&relay.replay);
    if let Err(e) = host.write_all(&first) {
        info!("{peer}: relay to {target} failed at once: {e}");
        return;
    }
    info!("{peer}: relayed to {target}");
    copy_both_ways(relay.client, host, relay.lost.as_deref());
    debug!("{peer}: relay to {target} ended");
}

/// A connection to the other host, from this host's advertised IP when it has one.
fn connect(relay: &Relay) -> io::Result<TcpStream> {
    let target = relay
        .target
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| io::Error::other("the address names no host"))?;
    let domain = socket2::Domain::for_address(target);
    let socket = socket2::Socket::new(domain, socket2::Type::STREAM, None)?;
    if let Some(from) = relay.from.filter(|f| f.is_ipv4() == target.is_ipv4()) {
        socket.bind(&SocketAddr::new(from.ip(), 0).into())?;
    }
    socket.connect_timeout(&target.into(), CONNECT_TIMEOUT)?;
    socket.set_tcp_nodelay(true)?;
    let keepalive = socket2::TcpKeepalive::new()
        .with_time(KEEPALIVE_IDLE)
        .with_interval(KEEPALIVE_INTERVAL)
        .with_retries(KEEPALIVE_PROBES);
    socket.set_tcp_keepalive(&keepalive)?;
    Ok(socket.into())
}

/// How a copy ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// The reading side closed (or the writing side would take no more).
    Closed,
    /// Reading failed: the connection was reset or timed out.
    Broken,
}

/// Copies each way until both ends have closed. When the host's side breaks, a client of
/// a line protocol is told `lost`. When the host's side has ended, the client's bytes
/// may go on to it for [`AFTER_HOST_CLOSED`], then the relay ends even if the client
/// keeps its connection open.
fn copy_both_ways(client: TcpStream, host: TcpStream, lost: Option<&[u8]>) {
    let clones = (client.try_clone(), host.try_clone(), client.try_clone());
    let (Ok(mut client_back), Ok(host_back), Ok(client_guard)) = clones else {
        return;
    };
    let up = std::thread::Builder::new()
        .name("relay-up".into())
        .spawn(move || {
            let mut host = host;
            copy(client, &mut host);
            let _ = host.shutdown(Shutdown::Write);
        });
    let ended = copy(host_back, &mut client_back);
    if let (Ended::Broken, Some(lost)) = (ended, lost) {
        let _ = client_back.write_all(lost);
    }
    let _ = client_back.shutdown(Shutdown::Write);
    let Ok(up) = up else {
        return;
    };
    let deadline = Instant::now() + AFTER_HOST_CLOSED;
    while !up.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    // Wakes the up copy's read if the client still holds its connection open.
    let _ = client_guard.shutdown(Shutdown::Read);
    let _ = up.join();
}

/// Copies `from` to `to` until `from` ends or `to` takes no more.
fn copy(mut from: TcpStream, to: &mut TcpStream) -> Ended {
    let mut buffer = vec![0; BUFFER];
    loop {
        match from.read(&mut buffer) {
            Ok(0) => return Ended::Closed,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Ended::Broken,
            Ok(n) => {
                if to.write_all(&buffer[..n]).is_err() {
                    let _ = from.shutdown(Shutdown::Read);
                    return Ended::Closed;
                }
            }
        }
    }
}
