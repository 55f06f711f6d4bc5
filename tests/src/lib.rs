//! Helpers shared by the end-to-end suites and the load generator: locating
//! the workspace's binaries, running `reversid` on a free port, a blocking PDU
//! client with read timeouts, and a referee that plays whole games while
//! checking every PDU against the engine.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime};

use reversi_engine::{Game, Side};
use reversi_pdu::{decode, Colour, Direction, Pdu, Square, Status, Winner, MAX_PDU_LEN};

pub use nix::sys::signal::Signal;
use scratch::Scratch;

pub mod browser;
pub mod capture;
pub mod cut;
pub mod delay;
pub mod http;
/// A private, throwaway PostgreSQL: the store's own test harness, shared.
#[path = "../../store/tests/common/postgres.rs"]
pub mod postgres;
pub mod scratch;
pub mod text;
pub mod tmux;
pub mod tournament;

/// reversid's options that lift its per-address limits and log summaries, for tests (which
/// read the log) and load runs on loopback.
pub const UNLIMITED: &[&str] = &[
    "--max-pending-per-address",
    "1000000",
    "--max-sessions-per-address",
    "1000000",
    "--abandon-strikes",
    "1000000",
    "--first-move-timeout",
    "0",
    "--log-burst",
    "1000000",
    "--game-starts-per-address",
    "1000000",
    "--game-start-rate",
    "1000000",
];

/// reversid's options that keep the transcripts suites were written for: a drop loses at
/// once (no `GAME TOKEN`), no lag allowance (so no `GAME PING`) and no rematch window
/// (each connection closed at once after its game, as before). The suites of those
/// features set them again (a later value wins).
pub const AS_BEFORE: &[&str] = &[
    "--grace",
    "0",
    "--lag-allowance",
    "0",
    "--rematch-window",
    "0",
];

/// Says that the running test skips, and why, where `cargo test` shows it
/// even when the test passes: straight to the process's standard error,
/// which the test harness does not capture (it captures `eprintln!`).
pub fn skipped(why: &str) {
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let _ = writeln!(io::stderr().lock(), "\n{test}: skipped: {why}");
}

/// How long a test waits for anything before it fails.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// Seed 002's Foxes & Dolphins on its own listener, quick: a 10 ms cooldown, a tide every
/// 150 ms, the game over after 1.5 s without anything eaten.
pub const QUICK_FOXES: &[&str] = &[
    "--listen-seed",
    "foxes=127.0.0.1:0",
    "--game-option",
    "foxes.cooldown-ms=10",
    "--game-option",
    "foxes.tide-ms=150",
    "--game-option",
    "foxes.quiet-ms=1500",
];

/// The journals of running or unarchived games in the directory `dir`: its `.journal-*`
/// files (the spares kept beside them for new games are no journals).
pub fn journals_in(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(".journal-"))
            .count()
    })
}

/// The directory cargo puts binaries in for the running test or tool: the
/// parent of `deps/` for an integration test, the executable's own directory
/// for a binary.
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let dir = exe.parent().expect("exe has a directory");
    if dir.ends_with("deps") {
        dir.parent().expect("deps has a parent").to_owned()
    } else {
        dir.to_owned()
    }
}

fn binary(name: &str, sources: &[&str]) -> PathBuf {
    let path = target_dir().join(name);
    let built = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .unwrap_or_else(|_| {
            panic!(
                "{} is missing: build it first (cargo test --workspace builds every binary)",
                path.display()
            )
        });
    // `cargo test -p reversi-tests` alone does not rebuild other packages'
    // binaries; testing a stale one would report on code that is not there.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for dir in sources {
        if newest_change(&root.join(dir)).is_some_and(|changed| changed > built) {
            panic!(
                "{} is older than {dir}/: run cargo test --workspace (or cargo build --workspace) first",
                path.display()
            );
        }
    }
    path
}

/// The latest modification time of any file below `dir`.
fn newest_change(dir: &Path) -> Option<SystemTime> {
    let mut newest = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let changed = if path.is_dir() {
            newest_change(&path)
        } else {
            entry.metadata().and_then(|m| m.modified()).ok()
        };
        newest = newest.max(changed);
    }
    newest
}

/// The server binary `reversid`, next to the running executable.
pub fn reversid_binary() -> PathBuf {
    binary(
        "reversid",
        &[
            "server/src",
            "server/web",
            "games/src",
            "text/src",
            "engine/src",
            "pdu/src",
        ],
    )
}

/// The client binary `reversi`, next to the running executable.
pub fn reversi_binary() -> PathBuf {
    binary(
        "reversi",
        &[
            "client/src",
            "engine/src",
            "pdu/src",
            "games/src",
            "text/src",
        ],
    )
}

/// Lines reversid has logged so far, and a way to wait for more.
#[derive(Default)]
struct LogLines {
    lines: Mutex<Vec<String>>,
    grew: Condvar,
}

#[derive(Clone, Copy)]
enum Limit {
    None,
    Files(u64),
    NoFork,
}

/// A running `reversid`, killed (with its whole process group) when dropped.
pub struct Server {
    child: Child,
    addr: SocketAddr,
    log: Arc<LogLines>,
    exited: Option<ExitStatus>,
    /// Its TMPDIR, where it keeps journals unless told otherwise: removed after it,
    /// so a killed server leaves nothing behind.
    temp_dir: Scratch,
    /// Its --data-dir (its SQLite store and journals), its own: parallel tests never share
    /// a database. A test's own --data-dir (or --no-store) wins.
    data_dir: Scratch,
}

impl Server {
    /// Starts reversid on a free loopback port with `args` and RUST_LOG=info.
    pub fn start(args: &[&str]) -> Server {
        Server::start_with_log(args, "info")
    }

    /// As [`Server::start`], with this RUST_LOG.
    pub fn start_with_log(args: &[&str], rust_log: &str) -> Server {
        Server::spawn(args, rust_log, Limit::None)
    }

    /// As [`Server::start`], with RLIMIT_NOFILE (soft and hard) lowered to `nofile`.
    pub fn start_with_nofile(args: &[&str], nofile: u64) -> Server {
        Server::spawn(args, "info", Limit::Files(nofile))
    }

    /// As [`Server::start`], but unable to fork: run as user `nobody` with RLIMIT_NPROC 0.
    /// Needs root to switch users; returns `None` without it.
    pub fn start_unable_to_fork(args: &[&str]) -> Option<Server> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return None;
        }
        Some(Server::spawn(args, "info", Limit::NoFork))
    }

    fn spawn(args: &[&str], rust_log: &str, limit: Limit) -> Server {
        let temp_dir = Scratch::new("reversid-tmp");
        let data_dir = Scratch::new("reversid-data");
        // As /tmp is: a server run as another user (Limit::NoFork) makes its directory too.
        let open_to_all =
            <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o1777);
        std::fs::set_permissions(temp_dir.path(), open_to_all.clone())
            .expect("open the server's TMPDIR to every user");
        std::fs::set_permissions(data_dir.path(), open_to_all)
            .expect("open the server's data directory to every user");
        let mut cmd = Command::new(reversid_binary());
        let apply = move || -> io::Result<()> {
            let check = |rc: libc::c_int| {
                if rc == 0 {
                    Ok(())
                } else {
                    Err(io::Error::last_os_error())
                }
            };
            // SAFETY: setrlimit/setgid/setuid are async-signal-safe; nothing else runs
            // between fork and exec.
            unsafe {
                match limit {
                    Limit::None => Ok(()),
                    Limit::Files(n) => check(libc::setrlimit(
                        libc::RLIMIT_NOFILE,
                        &libc::rlimit {
                            rlim_cur: n,
                            rlim_max: n,
                        },
                    )),
                    Limit::NoFork => {
                        check(libc::setgroups(0, std::ptr::null()))?;
                        check(libc::setgid(65534))?;
                        check(libc::setrlimit(
                            libc::RLIMIT_NPROC,
                            &libc::rlimit {
                                rlim_cur: 0,
                                rlim_max: 0,
                            },
                        ))?;
                        check(libc::setuid(65534))
                    }
                }
            }
        };
        // SAFETY: see `apply`.
        unsafe { std::os::unix::process::CommandExt::pre_exec(&mut cmd, apply) };
        cmd.arg("--listen")
            .arg("127.0.0.1:0")
            // Every client of a test comes from one address: the per-address limits and the
            // abandonment penalty are off unless a test sets them (a later value wins), and
            // a first move has the ordinary move clock.
            .args(UNLIMITED)
            .args(AS_BEFORE)
            .arg("--data-dir")
            .arg(data_dir.path())
            .args(args)
            .env("RUST_LOG", rust_log)
            .env("TMPDIR", temp_dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().expect("spawn reversid");
        let log = Arc::new(LogLines::default());
        let stderr = child.stderr.take().expect("piped stderr");
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if std::env::var_os("REVERSID_ECHO").is_some() {
                    eprintln!("reversid: {line}");
                }
                sink.lines.lock().unwrap().push(line);
                sink.grew.notify_all();
            }
        });
        let mut server = Server {
            child,
            addr: "127.0.0.1:0".parse().unwrap(),
            log,
            exited: None,
            temp_dir,
            data_dir,
        };
        let line = server.wait_log("listening on ");
        let addr = line.rsplit("listening on ").next().unwrap().trim();
        server.addr = addr.parse().expect("reversid logs its address");
        server
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The TMPDIR it was started with.
    pub fn temp_dir(&self) -> &Scratch {
        &self.temp_dir
    }

    /// The --data-dir it was started with.
    pub fn data_dir(&self) -> &Scratch {
        &self.data_dir
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Sends `signal` to the supervisor.
    pub fn signal(&self, signal: Signal) {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(self.pid()), signal).expect("kill");
    }

    /// The address of the `--listen-seed` listener for `game`'s seed clients.
    pub fn seed_addr(&self, game: &str) -> SocketAddr {
        let line = self.wait_log(&format!("for {game} clients in their seed's own protocol"));
        let addr = line.split("listening on ").nth(1).expect("an address");
        let addr = addr.split_whitespace().next().expect("an address");
        addr.parse()
            .expect("reversid logs the seed listener's address")
    }

    /// Every line logged so far.
    pub fn logs(&self) -> Vec<String> {
        self.log.lines.lock().unwrap().clone()
    }

    /// Waits until a log line contains `needle`; returns the first such line.
    pub fn wait_log(&self, needle: &str) -> String {
        self.wait_logs(needle, 1).remove(0)
    }

    /// Waits until `count` log lines contain `needle`; returns them.
    pub fn wait_logs(&self, needle: &str, count: usize) -> Vec<String> {
        let deadline = Instant::now() + PATIENCE;
        let mut lines = self.log.lines.lock().unwrap();
        loop {
            let found: Vec<String> = lines
                .iter()
                .filter(|l| l.contains(needle))
                .cloned()
                .collect();
            if found.len() >= count {
                return found;
            }
            let now = Instant::now();
            assert!(
                now < deadline,
                "reversid never logged {count} x {needle:?}; log:\n{}",
                lines.join("\n")
            );
            lines = self.log.grew.wait_timeout(lines, deadline - now).unwrap().0;
        }
    }

    /// Waits for the supervisor to exit.
    pub fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                self.exited = Some(status);
                return status;
            }
            assert!(Instant::now() < deadline, "reversid did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// A connected client that has sent connect.
    pub fn join(&self) -> Client {
        let mut c = Client::connect(self.addr);
        c.send(&Pdu::Connect);
        c
    }

    /// Two clients paired into one game, as (black, white).
    pub fn pair(&self) -> (Client, Client) {
        let mut a = self.join();
        let mut b = self.join();
        let ca = a.expect_connect_ok();
        let cb = b.expect_connect_ok();
        assert_ne!(ca, cb, "both players got {ca}");
        for c in [&mut a, &mut b] {
            c.expect_initial_position();
        }
        if ca == Colour::Black {
            (a, b)
        } else {
            (b, a)
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.exited.is_none() {
            // The supervisor's group. Its sessions have sessions of their own (the
            // terminal's ^C is not for them): they end when the test's clients close.
            let _ =
                nix::sys::signal::kill(nix::unistd::Pid::from_raw(-self.pid()), Signal::SIGKILL);
            let _ = self.child.wait();
        }
    }
}

/// An owned server-to-client PDU, or the end of the connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Msg {
    Error,
    ConnectOk(Colour),
    Turn,
    PlaceError,
    UpdateBoard(Colour, Vec<Square>),
    Winner(Winner),
    /// EOF or reset.
    Closed,
}

impl Msg {
    fn from_pdu(pdu: &Pdu<'_>) -> Msg {
        match pdu {
            Pdu::Error => Msg::Error,
            Pdu::ConnectOk { colour } => Msg::ConnectOk(*colour),
            Pdu::Turn => Msg::Turn,
            Pdu::PlaceError => Msg::PlaceError,
            Pdu::UpdateBoard(u) => Msg::UpdateBoard(u.colour, u.squares.iter().collect()),
            Pdu::Winner(w) => Msg::Winner(*w),
            other => panic!("decoder let a client-to-server PDU through: {other}"),
        }
    }
}

/// A blocking client speaking raw PDUs.
pub struct Client {
    stream: TcpStream,
    buf: Vec<u8>,
    pub colour: Option<Colour>,
    /// The socket's read timeout now.
    timeout: Duration,
}

impl Client {
    pub fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).expect("connect to reversid");
        stream.set_nodelay(true).unwrap();
        Client::from_stream(stream)
    }

    /// Wraps a connected stream.
    pub fn from_stream(stream: TcpStream) -> Client {
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        Client {
            stream,
            buf: Vec::new(),
            colour: None,
            timeout: PATIENCE,
        }
    }

    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    pub fn send(&mut self, pdu: &Pdu<'_>) {
        let mut buf = [0u8; MAX_PDU_LEN];
        let n = pdu.encode(&mut buf).expect("encode");
        self.send_raw(&buf[..n]);
    }

    /// Sends bytes as they are; a failure (the server already closed) is ignored.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let _ = self.stream.write_all(bytes);
    }

    pub fn place(&mut self, x: i16, y: i16) {
        self.send(&Pdu::Place(reversi_pdu::Place { x, y }));
    }

    /// Closes the sending direction (the server sees EOF; replies can still be read).
    pub fn hang_up_write(&self) {
        let _ = self.stream.shutdown(Shutdown::Write);
    }

    /// Closes both directions now.
    pub fn hang_up(&self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }

    /// The next PDU or [`Msg::Closed`]; an error for a malformed PDU or after [`PATIENCE`].
    pub fn recv_result(&mut self) -> Result<Msg, String> {
        self.try_recv_within(PATIENCE)?
            .ok_or_else(|| "nothing from reversid within the patience limit".to_owned())
    }

    /// The next PDU or [`Msg::Closed`]; `None` when nothing came within `timeout`.
    pub fn recv_within(&mut self, timeout: Duration) -> Option<Msg> {
        self.try_recv_within(timeout)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The next PDU or [`Msg::Closed`]; `None` when nothing came within `timeout`; an
    /// error for a malformed PDU.
    pub fn try_recv_within(&mut self, timeout: Duration) -> Result<Option<Msg>, String> {
        let deadline = Instant::now() + timeout;
        loop {
            match decode(&self.buf, Direction::ServerToClient) {
                Ok(Status::Complete((pdu, used))) => {
                    let msg = Msg::from_pdu(&pdu);
                    self.buf.drain(..used);
                    return Ok(Some(msg));
                }
                Ok(Status::Partial) => {}
                Err(e) => {
                    return Err(format!(
                        "reversid sent a malformed PDU: {e} ({:02x?})",
                        self.buf
                    ))
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            // Touch the socket's timeout only when it is well off the time left, so the
            // common read costs no extra system call; a timeout that fires early just loops.
            if self.timeout > left + Duration::from_millis(50) || self.timeout * 2 < left {
                self.timeout = left.max(Duration::from_millis(1));
                self.stream.set_read_timeout(Some(self.timeout)).unwrap();
            }
            let mut chunk = [0u8; 1024];
            match self.stream.read(&mut chunk) {
                Ok(0) => return Ok(Some(Msg::Closed)),
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Ok(Some(Msg::Closed)),
            }
        }
    }

    /// The next PDU or [`Msg::Closed`]; fails the test after [`PATIENCE`].
    pub fn recv(&mut self) -> Msg {
        self.recv_within(PATIENCE)
            .expect("nothing from reversid within the patience limit")
    }

    /// Receives and checks one message.
    pub fn expect(&mut self, want: Msg) {
        let got = self.recv();
        assert_eq!(got, want, "unexpected message for {:?}", self.colour);
    }

    /// Expects EOF (after anything already asserted).
    pub fn expect_closed(&mut self) {
        self.expect(Msg::Closed);
    }

    pub fn expect_connect_ok(&mut self) -> Colour {
        match self.recv() {
            Msg::ConnectOk(c) => {
                self.colour = Some(c);
                c
            }
            other => panic!("expected connect_ok, got {other:?}"),
        }
    }

    /// The two update_boards of spec §8.3.
    pub fn expect_initial_position(&mut self) {
        let sq = |s: &str| s.parse::<Square>().unwrap();
        self.expect(Msg::UpdateBoard(Colour::White, vec![sq("d4"), sq("e5")]));
        self.expect(Msg::UpdateBoard(Colour::Black, vec![sq("d5"), sq("e4")]));
    }

    /// Asserts that nothing arrives for `quiet` (used only where silence is the point).
    pub fn expect_silence(&mut self, quiet: Duration) {
        if let Some(msg) = self.recv_within(quiet) {
            panic!("expected silence, got {msg:?}");
        }
    }
}

/// A small deterministic random source (xorshift64*).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// What a refereed game produced.
#[derive(Debug, Clone)]
pub struct Played {
    pub moves: usize,
    pub winner: Winner,
    /// Place sent to update_board received by the mover, per move.
    pub round_trips: Vec<Duration>,
}

/// Plays a whole game of random legal moves between two paired clients
/// (after the initial position), checking every PDU both receive against the
/// engine: who gets turn, each update_board (placed square first, the flipped
/// set exactly), and the final winner. Ends with both connections closed.
pub fn play_out(black: &mut Client, white: &mut Client, rng: &mut Rng) -> Played {
    let mut game = Game::new();
    let mut round_trips = Vec::new();
    let mut turn_pending = true;
    loop {
        let side = game.side_to_move().expect("the game is not over");
        let (mover, other) = match side {
            Side::Black => (&mut *black, &mut *white),
            Side::White => (&mut *white, &mut *black),
        };
        if turn_pending {
            mover.expect(Msg::Turn);
        }
        let legal: Vec<_> = game.legal_moves().collect();
        let sq = legal[rng.below(legal.len())];
        let sent = Instant::now();
        mover.place(i16::from(sq.x()), i16::from(sq.y()));
        let played = game.play(sq).expect("legal");
        let want: Vec<Square> = played.changed().map(Square::from).collect();
        for (i, client) in [mover, other].into_iter().enumerate() {
            match client.recv() {
                Msg::UpdateBoard(colour, squares) => {
                    if i == 0 {
                        round_trips.push(sent.elapsed());
                    }
                    assert_eq!(colour, Colour::from(side));
                    assert_eq!(squares[0], want[0], "the placed square comes first");
                    let mut got = squares.clone();
                    let mut exp = want.clone();
                    got.sort();
                    exp.sort();
                    assert_eq!(got, exp, "flipped squares of {sq}");
                }
                other => panic!("expected update_board for {sq}, got {other:?}"),
            }
        }
        match played.next {
            Some(_) => turn_pending = true,
            None => {
                let winner = match game.outcome() {
                    Some(reversi_engine::Outcome::Win(s)) => Winner::from(Colour::from(s)),
                    _ => Winner::Draw,
                };
                for c in [&mut *black, &mut *white] {
                    c.expect(Msg::Winner(winner));
                    c.expect_closed();
                }
                return Played {
                    moves: game.moves().len(),
                    winner,
                    round_trips,
                };
            }
        }
    }
}

/// The `p`-quantile (0..=1) of `samples`, which it sorts.
pub fn quantile(samples: &mut [Duration], p: f64) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    samples.sort_unstable();
    let i = ((samples.len() - 1) as f64 * p).round() as usize;
    samples[i]
}
