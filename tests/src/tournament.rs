//! Signed-in text players for the tournament suites (spec/TOURNAMENTS.md §7): each connects
//! from a loopback address of its own (the server limits registrations and sign-ins per
//! address), waits with `GAME TOURNAMENT PLAY`, plays Tic-Tac-Toe by a script of its own,
//! and comes back after each game until told the tournament is over. The server's address
//! may change under it (a restart), and a refused or dropped connection is tried again.

use std::collections::HashSet;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::text::TextClient;

pub const PASSWORD: &str = "correct horse battery";
/// Tic-Tac-Toe's squares in reading order.
pub const SQUARES: [&str; 9] = ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"];

/// How long a waiting player reads before it looks whether the tournament is over.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// The loopback address `127.a.b.c` numbered `n` (from 127.0.0.2 on), so that every
/// player has its own: per-address limits never see two of them.
pub fn loopback(n: u32) -> IpAddr {
    let n = n + 2;
    IpAddr::V4(Ipv4Addr::new(127, (n >> 16) as u8, (n >> 8) as u8, n as u8))
}

/// A text connection to `addr` from `from` (bound before connecting), or why not.
pub fn connect_from(addr: SocketAddr, from: IpAddr) -> std::io::Result<TextClient> {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None)?;
    socket.bind(&SocketAddr::new(from, 0).into())?;
    socket.connect(&addr.into())?;
    Ok(TextClient::from_stream(TcpStream::from(socket)))
}

/// Sends `line` and returns the next line.
pub fn answer(c: &mut TextClient, line: &str) -> String {
    c.send(line);
    c.recv().expect("an answer")
}

/// A connection from `from` signed in by `line` (`GAME REGISTER …`, `GAME SIGNIN …`); over the
/// sign-in limit it waits its turn and tries again. `None` if the server cannot be reached
/// or refuses.
pub fn sign_in(addr: SocketAddr, from: IpAddr, line: &str) -> Option<TextClient> {
    loop {
        // A fresh connection each try: the handshake timeout runs through refused tries.
        let mut c = connect_from(addr, from).ok()?;
        c.send(line);
        let got = c.recv()?;
        if got.starts_with("ERROR too many sign-in attempts") {
            std::thread::sleep(Duration::from_secs(1));
            continue;
        }
        if !got.starts_with("GAME SIGNEDIN ") {
            // A server shutting down refuses; the caller tries again (or gives up).
            eprintln!("{line:?}: {got}");
            return None;
        }
        return Some(c);
    }
}

/// Registers `name` from `from` and returns its signed-in connection.
pub fn register(addr: SocketAddr, from: IpAddr, name: &str) -> TextClient {
    sign_in(addr, from, &format!("GAME REGISTER {name} {PASSWORD}"))
        .unwrap_or_else(|| panic!("{name} could not register"))
}

pub use crate::http::get;

/// The server's address, which a restart changes.
#[derive(Clone)]
pub struct Address(Arc<Mutex<SocketAddr>>);

impl Address {
    pub fn new(addr: SocketAddr) -> Address {
        Address(Arc::new(Mutex::new(addr)))
    }

    pub fn get(&self) -> SocketAddr {
        *self.0.lock().unwrap()
    }

    pub fn set(&self, addr: SocketAddr) {
        *self.0.lock().unwrap() = addr;
    }
}

/// How many times one credential signs in before the next is used: under both the
/// per-account (or per-token) burst of 10 and the per-address burst of 20.
pub const SIGN_INS_EACH: usize = 9;

/// One tournament player: who it is, where it connects from, how it plays.
#[derive(Clone)]
pub struct Player {
    pub name: String,
    /// Where it connects from and how it signs in (`GAME SIGNIN name password`, or `GAME
    /// SIGNIN token`), [`SIGN_INS_EACH`] times each in turn, the last one ever after.
    pub credentials: Vec<(IpAddr, String)>,
    /// The squares it prefers, best first: it plays the first free one.
    pub squares: Vec<&'static str>,
    /// A pause before each move (to keep games running for a while).
    pub think: Duration,
}

impl Player {
    /// Player `n` of a field: its own address, and a script that varies with `n` (its
    /// squares in reading order from square `n * 4`, round and round), so results vary.
    pub fn numbered(n: u32, name: &str) -> Player {
        let start = (n as usize * 4) % SQUARES.len();
        Player {
            name: name.to_owned(),
            credentials: vec![(loopback(n + 1), format!("GAME SIGNIN {name} {PASSWORD}"))],
            squares: SQUARES[start..]
                .iter()
                .chain(&SQUARES[..start])
                .copied()
                .collect(),
            think: Duration::ZERO,
        }
    }

    /// Where it registers from: its first address.
    pub fn from(&self) -> IpAddr {
        self.credentials[0].0
    }
}

/// What a player saw of its tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seen {
    /// `GAME PAIRED …` and the game's `GAME OVER …`.
    Game { paired: String, over: String },
    /// `GAME BYE …` (told only if it was waiting when the round was paired).
    Bye(String),
}

/// What the test tells its players while they play.
pub struct Control {
    /// The tournament is over: stop.
    pub done: AtomicBool,
    /// Stay away once this many games are played (until it is raised).
    pub hold_after: AtomicUsize,
}

impl Control {
    pub fn new() -> Arc<Control> {
        Arc::new(Control {
            done: AtomicBool::new(false),
            hold_after: AtomicUsize::new(usize::MAX),
        })
    }

    pub fn done(&self) -> bool {
        self.done.load(Ordering::Relaxed)
    }

    fn holds(&self, played: usize) -> bool {
        played >= self.hold_after.load(Ordering::Relaxed) && !self.done()
    }
}

/// Every player of `players` playing its games of tournament `id` at `server` on a thread of
/// its own ([`play`]); each thread answers what its player saw.
pub fn play_all(
    server: &Address,
    players: &[Player],
    id: u64,
    control: &Arc<Control>,
) -> Vec<std::thread::JoinHandle<Vec<Seen>>> {
    players
        .iter()
        .map(|p| {
            let (server, p, control) = (server.clone(), p.clone(), control.clone());
            std::thread::spawn(move || play(&server, &p, id, &control))
        })
        .collect()
}

/// Plays `player`'s games of tournament `id` at `server` until told it is done, coming back
/// after each game (a new connection, signed in again) and after the server goes away.
pub fn play(server: &Address, player: &Player, id: u64, control: &Control) -> Vec<Seen> {
    let mut seen = Vec::new();
    let mut signed_in = 0;
    while !control.done() {
        let played = seen
            .iter()
            .filter(|s| matches!(s, Seen::Game { .. }))
            .count();
        if control.holds(played) {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        let which = (signed_in / SIGN_INS_EACH).min(player.credentials.len() - 1);
        let (from, line) = &player.credentials[which];
        let Some(mut c) = sign_in(server.get(), *from, line) else {
            std::thread::sleep(Duration::from_millis(100));
            continue;
        };
        signed_in += 1;
        c.set_timeout(LOOK_EVERY);
        c.send(&format!("GAME TOURNAMENT PLAY {id}"));
        wait_and_play(&mut c, player, &control.done, &mut seen);
    }
    seen
}

/// One connection's wait: byes noted, its game played; returns when the connection ends
/// (after a game, the session closes it) or the tournament is over.
fn wait_and_play(c: &mut TextClient, player: &Player, done: &AtomicBool, seen: &mut Vec<Seen>) {
    let mut paired = None;
    loop {
        let asked = Instant::now();
        let Some(line) = c.recv() else {
            // A read timeout looks like the end of the connection, but takes its time.
            if asked.elapsed() < LOOK_EVERY / 2 || done.load(Ordering::Relaxed) {
                return;
            }
            continue;
        };
        if line.starts_with("GAME PAIRED ") {
            paired = Some(line);
        } else if line.starts_with("GAME BYE ") {
            seen.push(Seen::Bye(line));
        } else if line.starts_with("GAME NEWS ") && line.ends_with("your game is starting") {
            let paired = paired.take().expect("GAME PAIRED before the game starts");
            if let Some(over) = play_game(c, player) {
                seen.push(Seen::Game { paired, over });
            }
            return;
        }
    }
}

/// Plays one game to its `GAME OVER` line (`None` if the connection ends first).
fn play_game(c: &mut TextClient, player: &Player) -> Option<String> {
    c.set_timeout(crate::PATIENCE);
    let mut taken = HashSet::new();
    loop {
        let line = c.recv()?;
        if let Some(rest) = line.strip_prefix("GAME MOVED ") {
            taken.insert(rest.split_whitespace().nth(1)?.to_owned());
        } else if line == "READY" {
            std::thread::sleep(player.think);
            let free = player.squares.iter().find(|s| !taken.contains(**s))?;
            c.send(&format!("MOVE {free}"));
        } else if line.starts_with("GAME OVER") {
            return Some(line);
        }
    }
}

/// The tournament's `GAME TOURNAMENT id …` line, asked on a connection of its own.
pub fn tournament_line(addr: SocketAddr, id: u64) -> Option<String> {
    let mut c = TextClient::connect(addr);
    c.send("GAME TOURNAMENTS");
    let prefix = format!("GAME TOURNAMENT {id} ");
    loop {
        let line = c.recv()?;
        if line.starts_with(&prefix) {
            return Some(line);
        }
        if line.starts_with("GAME TOURNAMENTS ") {
            return None;
        }
    }
}

/// Waits (up to `patience`) until tournament `id` is finished; returns its line.
pub fn wait_finished(addr: &Address, id: u64, patience: Duration) -> String {
    let deadline = Instant::now() + patience;
    loop {
        if let Some(line) = tournament_line(addr.get(), id) {
            if line.contains(" finished ") {
                return line;
            }
        }
        assert!(
            Instant::now() < deadline,
            "tournament {id} not finished in time"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// `GAME STANDINGS id`: the crosstable's text lines and the `GAME BOARD` lines' words after
/// the id (`round board game state [record]`).
pub fn standings(addr: SocketAddr, id: u64) -> (Vec<String>, Vec<Vec<String>>) {
    let mut c = TextClient::connect(addr);
    c.send(&format!("GAME STANDINGS {id}"));
    let (mut table, mut boards) = (Vec::new(), Vec::new());
    let (row, board) = (
        format!("GAME CROSSTABLE {id} "),
        format!("GAME BOARD {id} "),
    );
    loop {
        let line = c.recv().expect("the standings");
        if let Some(text) = line.strip_prefix(&row) {
            table.push(text.to_owned());
        } else if let Some(words) = line.strip_prefix(&board) {
            boards.push(words.split_whitespace().map(str::to_owned).collect());
        } else {
            assert!(line.starts_with("GAME STANDINGS "), "{line}");
            return (table, boards);
        }
    }
}
