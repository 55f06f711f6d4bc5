//! Attack traffic for the attack suite (tests/tests/attacks*.rs and the
//! `reversi-attack` tool), to loopback only and bounded in count and time:
//! flooders that never read, idle crowds from many 127.x.y.z addresses, and
//! an honest pair whose start is timed.

#![allow(dead_code)]

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use socket2::{Domain, Socket, Type};

/// What a flooder sends, as fast as the server takes it, never reading a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Joins `foxes` (GAME TYPE), then MOVE lines: an ERROR line each.
    Moves,
    /// GAME LIST lines: a listing each.
    Lists,
    /// A WebSocket upgrade, then pings: a pong each.
    Pings,
    /// On a Duell seed listener: MOVE lines while it waits.
    Duell,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Moves, Kind::Lists, Kind::Pings, Kind::Duell];

    /// The bytes sent once, then the bytes sent again and again.
    fn traffic(self) -> (Vec<u8>, Vec<u8>) {
        let repeat = |unit: &[u8]| unit.repeat(4096 / unit.len());
        match self {
            Kind::Moves => (b"GAME TYPE foxes\n".to_vec(), repeat(b"MOVE d3\n")),
            Kind::Lists => (Vec::new(), repeat(b"GAME LIST\n")),
            Kind::Duell => (Vec::new(), repeat(b"MOVE d3\n")),
            Kind::Pings => (upgrade_request(), repeat(&masked_ping())),
        }
    }
}

/// A WebSocket upgrade request for /ws.
pub fn upgrade_request() -> Vec<u8> {
    b"GET /ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
      Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        .to_vec()
}

/// A client's ping frame with an empty payload, masked.
pub fn masked_ping() -> Vec<u8> {
    vec![0x89, 0x80, 1, 2, 3, 4]
}

/// Flooders running until [`Flood::stop`].
pub struct Flood {
    stop: Arc<AtomicBool>,
    sent: Arc<AtomicU64>,
    threads: Vec<JoinHandle<()>>,
}

impl Flood {
    /// `n` flooders of `kind` against `addr`.
    pub fn start(kind: Kind, addr: SocketAddr, n: usize) -> Flood {
        let stop = Arc::new(AtomicBool::new(false));
        let sent = Arc::new(AtomicU64::new(0));
        let threads = (0..n)
            .map(|_| {
                let (stop, sent) = (Arc::clone(&stop), Arc::clone(&sent));
                std::thread::spawn(move || flood(kind, addr, &stop, &sent))
            })
            .collect();
        Flood {
            stop,
            sent,
            threads,
        }
    }

    /// Stops them; returns the bytes they sent.
    pub fn stop(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads {
            let _ = t.join();
        }
        self.sent.load(Ordering::Relaxed)
    }
}

/// One flooder: connects, sends, and connects again when the server closes it.
fn flood(kind: Kind, addr: SocketAddr, stop: &AtomicBool, sent: &AtomicU64) {
    let (first, again) = kind.traffic();
    while !stop.load(Ordering::Relaxed) {
        let Ok(mut stream) = TcpStream::connect(addr) else {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        if stream.write_all(&first).is_err() || stream.set_nonblocking(true).is_err() {
            continue;
        }
        while !stop.load(Ordering::Relaxed) {
            match stream.write(&again) {
                Ok(n) => {
                    sent.fetch_add(n as u64, Ordering::Relaxed);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(1))
                }
                Err(_) => break,
            }
        }
    }
}

/// The loopback address number `i` (127.1.0.1 and on): a source address of its own.
pub fn loopback(i: usize) -> Ipv4Addr {
    let i = i as u32 + 1;
    Ipv4Addr::new(127, 1 + (i >> 16) as u8, (i >> 8) as u8, i as u8)
}

/// A loopback address in a /24 of its own for each `i` (127.100.0.1 and on): a crowd
/// spread over many networks, as a botnet's is.
pub fn spread(i: usize) -> Ipv4Addr {
    Ipv4Addr::new(127, 100 + (i >> 8) as u8, i as u8, 1)
}

/// A connection to `addr` from `from` (any 127.x.y.z works on Linux without setup).
pub fn connect_from(from: Ipv4Addr, addr: SocketAddr) -> io::Result<TcpStream> {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None)?;
    socket.bind(&SocketAddr::from((from, 0)).into())?;
    socket.connect_timeout(&addr.into(), Duration::from_secs(5))?;
    Ok(socket.into())
}

/// `per_address` idle connections from each of `addresses` loopback addresses;
/// those the server takes (or the system allows) are returned, to be held open.
pub fn idle_crowd(addr: SocketAddr, addresses: usize, per_address: usize) -> Vec<TcpStream> {
    (0..addresses)
        .flat_map(|a| (0..per_address).map(move |_| a))
        .filter_map(|a| connect_from(loopback(a), addr).ok())
        .collect()
}

/// Starts one binary Reversi game from `from`: how long until both players had
/// `connect_ok`, or `None` when it did not start within `patience`.
pub fn honest_pair(addr: SocketAddr, from: Ipv4Addr, patience: Duration) -> Option<Duration> {
    let start = Instant::now();
    let mut players: Vec<TcpStream> = (0..2)
        .map(|_| connect_from(from, addr))
        .collect::<io::Result<_>>()
        .ok()?;
    for p in &mut players {
        // connect: msg_size 4, id 0.
        p.write_all(&[0, 4, 0, 0]).ok()?;
    }
    for p in &mut players {
        let left = patience.checked_sub(start.elapsed())?;
        p.set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .ok()?;
        let mut head = [0u8; 4];
        p.read_exact(&mut head).ok()?;
        // connect_ok: id 1.
        if head[3] != 1 {
            return None;
        }
    }
    Some(start.elapsed())
}

/// The resident size of process `pid`, in bytes.
pub fn resident(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// The `q` quantile (0 to 1) of `times`, sorted in place.
pub fn quantile(times: &mut [Duration], q: f64) -> Duration {
    times.sort();
    let i = ((times.len() as f64 - 1.0) * q).round() as usize;
    times.get(i).copied().unwrap_or_default()
}

/// The id of the newest game `GAME LIST` names on the server at `addr`.
pub fn newest_game_id(addr: SocketAddr) -> u64 {
    let mut lister = reversi_tests::text::TextClient::connect(addr);
    lister.send("GAME LIST");
    lister.expect("GAME SESSIONS");
    lister
        .seen
        .iter()
        .filter(|l| l.starts_with("GAME SESSION "))
        .filter_map(|l| l.split_whitespace().nth(2)?.parse().ok())
        .max()
        .expect("a game is running")
}

/// The pid of the session of game `id`, from its first log line (`[pid] session: …
/// (<game> game <id>, seed …)`).
pub fn session_pid(server: &reversi_tests::Server, id: u64) -> i32 {
    let line = server.wait_log(&format!(" game {id}, seed"));
    line.split_once('[')
        .and_then(|(_, rest)| rest.split_once(']'))
        .and_then(|(pid, _)| pid.parse().ok())
        .unwrap_or_else(|| panic!("no pid in {line:?}"))
}

/// How many descriptors process `pid` has open.
pub fn open_descriptors(pid: i32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count())
}

/// A text client from `from` asks to watch game `id` and reads until it watches:
/// `Ok` with the client, or `Err` with the line it got instead (a refusal).
pub fn watch(
    addr: SocketAddr,
    from: Ipv4Addr,
    id: u64,
) -> Result<reversi_tests::text::TextClient, String> {
    let stream = connect_from(from, addr).map_err(|e| e.to_string())?;
    let mut viewer = reversi_tests::text::TextClient::from_stream(stream);
    viewer.send(&format!("GAME WATCH {id}"));
    loop {
        match viewer.recv() {
            Some(line) if line.starts_with("GAME WATCHING") => return Ok(viewer),
            Some(line) if line.starts_with("ERROR") => return Err(line),
            Some(_) => {}
            None => return Err("closed".to_owned()),
        }
    }
}

/// Two text players of `game` (started with `--fixed-colours`): the first to move, then
/// the second, each past its `GAME TURN 1`.
pub fn text_players(
    addr: SocketAddr,
    game: &str,
) -> (
    reversi_tests::text::TextClient,
    reversi_tests::text::TextClient,
) {
    let mut first = reversi_tests::text::TextClient::join(addr, game);
    first.expect("GAME WAITING");
    let mut second = reversi_tests::text::TextClient::join(addr, game);
    first.expect("GAME TURN 1");
    second.expect("GAME TURN 1");
    (first, second)
}

/// A player that sends `line` as fast as the server takes it and reads (and forgets)
/// every reply, so that its output never backs up: only a read budget bounds it.
pub struct LineFlood {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<u64>>,
}

impl LineFlood {
    pub fn start(stream: TcpStream, line: &str) -> LineFlood {
        let stop = Arc::new(AtomicBool::new(false));
        let mut reader = stream.try_clone().expect("clone");
        let mut writer = stream;
        let unit = line.as_bytes().repeat(4096 / line.len());
        let writing = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let _ = writer.set_write_timeout(Some(Duration::from_millis(100)));
                let mut sent = 0;
                while !stop.load(Ordering::Relaxed) {
                    match writer.write(&unit) {
                        Ok(n) => sent += n as u64,
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                        Err(e) if e.kind() == io::ErrorKind::TimedOut => {}
                        Err(_) => break,
                    }
                }
                sent
            })
        };
        let reading = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let _ = reader.set_read_timeout(Some(Duration::from_millis(100)));
                let mut buf = [0u8; 65536];
                while !stop.load(Ordering::Relaxed) {
                    match reader.read(&mut buf) {
                        Ok(0) => break,
                        Ok(_) => {}
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                        Err(e) if e.kind() == io::ErrorKind::TimedOut => {}
                        Err(_) => break,
                    }
                }
                0
            })
        };
        LineFlood {
            stop,
            threads: vec![writing, reading],
        }
    }

    /// Stops it; returns the bytes sent.
    pub fn stop(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.threads
            .into_iter()
            .map(|t| t.join().unwrap_or(0))
            .sum()
    }
}

/// How one of item 5's instant games went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstantGame {
    /// Started, and lost at once by the second player.
    Lost,
    /// A player was refused before the game: the server's `ERROR` line.
    Refused(String),
    /// Anything else (a connection failed, a line never came).
    Failed,
}

/// One instant game from `from`, as issue 22's item 5 played them: two text players join
/// Tic-Tac-Toe (on a server started with `--fixed-colours`), the first moves b2 and the
/// second plays b2 too, an illegal move that loses the game at once.
pub fn instant_game(addr: SocketAddr, from: Ipv4Addr) -> InstantGame {
    use reversi_tests::text::TextClient;
    let join = || -> Option<(TextClient, String)> {
        let mut player = TextClient::from_stream(connect_from(from, addr).ok()?);
        player.set_timeout(Duration::from_secs(5));
        player.send("GAME TYPE tictactoe");
        let line = line_of(&mut player, &["GAME WAITING", "GAME TURN", "ERROR"])?;
        Some((player, line))
    };
    let refused = |line: String| {
        let why = line.strip_prefix("ERROR ")?;
        Some(InstantGame::Refused(why.to_owned()))
    };
    let Some((mut first, line)) = join() else {
        return InstantGame::Failed;
    };
    if let Some(refusal) = refused(line) {
        return refusal;
    }
    let Some((mut second, line)) = join() else {
        return InstantGame::Failed;
    };
    if let Some(refusal) = refused(line) {
        return refusal;
    }
    let lost = line_of(&mut first, &["READY"]).is_some()
        && {
            first.send("MOVE b2");
            line_of(&mut second, &["READY"]).is_some()
        }
        && {
            second.send("MOVE b2");
            line_of(&mut second, &["GAME OVER"]).is_some()
        };
    if lost {
        InstantGame::Lost
    } else {
        InstantGame::Failed
    }
}

/// The first line `client` receives that starts with one of `wanted`; `None` at EOF or timeout.
fn line_of(client: &mut reversi_tests::text::TextClient, wanted: &[&str]) -> Option<String> {
    loop {
        let line = client.recv()?;
        if wanted.iter().any(|w| line.starts_with(w)) {
            return Some(line);
        }
    }
}
