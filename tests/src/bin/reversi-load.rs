//! reversi-load: a load generator for reversid. See `reversi-load --help`.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use reversi_engine::{Game, Outcome, Side};
use reversi_pdu::{Colour, Pdu, Winner};
use reversi_tests::{play_out, quantile, Client, Msg, Rng, Server};

/// Plays many concurrent games of random legal moves against reversid and reports
/// throughput, latency and memory.
///
/// Three phases, in one run:
///
///  1. floor: round trips of 8 bytes over a bare loopback TCP echo served by another
///     process, the lowest a move round trip could be;
///  2. latency: one game at a time (--latency-games), move round trip = place sent to the
///     mover's update_board received;
///  3. load: --concurrency bot pairs (two threads each, one per player, so pairing order
///     does not matter) play --games games in all; reports games/s, session set-up time
///     (TCP connect to connect_ok, per player) and move round trip under load, the peak
///     number of sessions running at once, the supervisor's RSS and the private memory
///     (USS: Private_Clean + Private_Dirty of /proc/PID/smaps_rollup) of a session child.
///
/// --setup-only makes each player hang up at connect_ok, so the load phase measures
/// session set-ups per second (accept, handshake, pair, fork, first PDUs) alone.
///
/// --think delays each move so that sessions overlap: `--concurrency 2000 --games 2000
/// --think 200` holds about 2000 sessions at once.
///
/// Examples:
///   reversi-load --spawn --concurrency 64 --games 5000
///   reversi-load --addr 127.0.0.1:8765 --server-pid 1234 --concurrency 2000 --games 2000 --think 200
///
/// --requeue-after S makes a player that has waited S seconds without an opponent quit
/// and connect again, as a person would: behind a load balancer that fills one host
/// before the next (deploy/haproxy.cfg), a player can be left alone on a host that
/// gets nobody else (spec/DEPLOY.md), and reconnecting brings it where the others are.
/// (A player paired just as its quit leaves gives its opponent a forfeit win, which that
/// opponent reports as an error: rare, and only with this option.)
///
/// --hold N opens N idle sessions first (pairs that never move, held by helper processes of
/// at most 4,000 sessions each, since a process may open only so many sockets) and keeps them
/// while the load phase runs: set-ups per second with N live sessions.
///
/// --memory-per-game starts one game of every game type over the text protocol and prints
/// the private memory (USS) of each session child, then exits.
///
/// With --spawn, reversid is taken from the same directory as this binary (build both with
/// `cargo build --release -p reversi-server -p reversi-tests`). Every bad PDU or protocol
/// surprise counts as an error; the exit status is 1 if there was any.
#[derive(Parser, Debug)]
#[command(name = "reversi-load", verbatim_doc_comment)]
struct Args {
    /// A running server to load (see also --server-pid).
    #[arg(long, conflicts_with = "spawn")]
    addr: Option<SocketAddr>,
    /// The running server's pid, for the memory figures.
    #[arg(long)]
    server_pid: Option<i32>,
    /// Start reversid on a free loopback port (the default when --addr is not given).
    #[arg(long)]
    spawn: bool,
    /// Bot pairs playing at once.
    #[arg(long, default_value_t = 32)]
    concurrency: usize,
    /// Games to play in the load phase.
    #[arg(long, default_value_t = 2000)]
    games: usize,
    /// Milliseconds each bot waits before each move (0: play at once).
    #[arg(long, default_value_t = 0)]
    think: u64,
    /// Games played one at a time for the quiet move round trip.
    #[arg(long, default_value_t = 20)]
    latency_games: usize,
    /// Round trips over the bare echo.
    #[arg(long, default_value_t = 2000)]
    echo_samples: usize,
    /// Each player hangs up right after connect_ok: measures session set-up alone.
    #[arg(long)]
    setup_only: bool,
    /// Idle sessions opened before the load phase and held through it.
    #[arg(long, default_value_t = 0)]
    hold: usize,
    /// Start one game of every game type and print each session child's private memory.
    #[arg(long)]
    memory_per_game: bool,
    /// Open this many games whose players flood illegal places and never read, and print
    /// the kernel's TCP memory (/proc/net/sockstat) before and after --flood-seconds of it.
    #[arg(long)]
    flood_games: Option<usize>,
    /// How long the flood lasts.
    #[arg(long, default_value_t = 5)]
    flood_seconds: u64,
    /// (Internal) serve the echo floor: print the port, echo one connection, exit.
    #[arg(long, hide = true)]
    serve_echo: bool,
    /// (Internal) open this many idle sessions at --addr, print "held", wait for stdin to close.
    #[arg(long, hide = true)]
    hold_worker: Option<usize>,
    /// (Internal, a benchmark's control) fork this many idle children, each mapping the
    /// same --shared-kib of this process's memory, print "held", wait for stdin to close:
    /// as many processes and shared pages as held sessions, with no game and no socket.
    #[arg(long, hide = true)]
    hold_processes: Option<usize>,
    /// The anonymous memory each --hold-processes child maps, shared with the others.
    #[arg(long, default_value_t = 3000, hide = true)]
    shared_kib: usize,
    /// A file whose first --file-kib KiB each --hold-processes child maps too, as
    /// sessions map their binary's and libc's pages.
    #[arg(long, hide = true)]
    shared_file: Option<std::path::PathBuf>,
    #[arg(long, default_value_t = 0, hide = true)]
    file_kib: usize,
    /// Seconds a player waits for an opponent before it quits and connects again
    /// (default: it waits, and counts as an error after 10 s).
    #[arg(long, value_name = "SECS")]
    requeue_after: Option<f64>,
    /// Seed of the bots' move choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// What the bots count together.
#[derive(Default)]
struct Counters {
    /// Players in a game now, and the most at once.
    in_game: AtomicUsize,
    peak: AtomicUsize,
    /// Players that waited past --requeue-after and connected again.
    requeued: AtomicUsize,
}

#[derive(Default)]
struct Stats {
    setups: Vec<Duration>,
    round_trips: Vec<Duration>,
    errors: Vec<String>,
    games_done: usize,
}

fn main() {
    let args = Args::parse();
    if args.serve_echo {
        return serve_echo();
    }
    if let Some(n) = args.hold_processes {
        let file = args
            .shared_file
            .as_deref()
            .map(|path| (path, args.file_kib));
        return hold_processes(n, args.shared_kib, file);
    }
    raise_nofile();
    if let (Some(n), Some(addr)) = (args.hold_worker, args.addr) {
        return hold_worker(addr, n);
    }
    let spawned = if args.addr.is_none() {
        let max = (args.hold + args.concurrency * 2 + 16).to_string();
        Some(Server::start_with_log(
            &[
                "--max-sessions",
                &max,
                "--max-pending",
                "65536",
                "--handshake-timeout",
                "60",
                "--move-timeout",
                "0",
            ],
            // The start-up lines, not one a connection (supervisor) or a session (session).
            "warn,reversid=info,reversid::supervisor=warn,reversid::session=warn",
        ))
    } else {
        None
    };
    let addr = args
        .addr
        .unwrap_or_else(|| spawned.as_ref().unwrap().addr());
    let server_pid = args.server_pid.or(spawned.as_ref().map(Server::pid));
    println!("reversid at {addr}");
    if args.memory_per_game {
        return memory_per_game(addr, server_pid);
    }
    if let Some(n) = args.flood_games {
        return flood(addr, n, Duration::from_secs(args.flood_seconds));
    }
    let _held = Holders::start(addr, args.hold, server_pid);

    // The floor and the quiet games are measured in alternation, so both see the same
    // background load on a shared machine.
    let mut echo = Echo::start();
    let mut floor = Vec::new();
    let mut quiet = Vec::new();
    let mut rng = Rng::new(args.seed);
    let rounds = args.latency_games.max(1);
    for round in 0..rounds {
        let share = args.echo_samples / rounds + usize::from(round < args.echo_samples % rounds);
        echo.sample(share, &mut floor);
        if round < args.latency_games {
            let (mut black, mut white) = pair(addr);
            quiet.extend(play_out(&mut black, &mut white, &mut rng).round_trips);
        }
    }
    println!(
        "echo floor      : p50 {:>9.1?}  p99 {:>9.1?}  ({} round trips)",
        quantile(&mut floor, 0.5),
        quantile(&mut floor, 0.99),
        floor.len()
    );
    let floor50 = quantile(&mut floor, 0.5);
    let quiet50 = quantile(&mut quiet, 0.5);
    println!(
        "move RTT, quiet: p50 {:>9.1?}  p99 {:>9.1?}  ({} moves; p50 = {:.2} x echo floor)",
        quiet50,
        quantile(&mut quiet, 0.99),
        quiet.len(),
        quiet50.as_secs_f64() / floor50.as_secs_f64().max(1e-9)
    );

    let stats = Arc::new(Mutex::new(Stats::default()));
    let started = Arc::new(AtomicUsize::new(0));
    let counters = Arc::new(Counters::default());
    let t0 = Instant::now();
    let mut handles = Vec::new();
    for bot in 0..args.concurrency * 2 {
        let (stats, started, counters) = (
            Arc::clone(&stats),
            Arc::clone(&started),
            Arc::clone(&counters),
        );
        let requeue = args.requeue_after.map(Duration::from_secs_f64);
        let games = args.games * 2;
        let think = Duration::from_millis(args.think);
        let setup_only = args.setup_only;
        let seed = args.seed ^ (bot as u64 + 1) << 20;
        handles.push(
            std::thread::Builder::new()
                .stack_size(128 * 1024)
                .spawn(move || {
                    let mut rng = Rng::new(seed);
                    while started.fetch_add(1, Ordering::SeqCst) < games {
                        let outcome =
                            play_one(addr, &mut rng, think, setup_only, requeue, &counters);
                        let mut s = stats.lock().unwrap();
                        match outcome {
                            Ok((setup, rtts)) => {
                                s.setups.push(setup);
                                s.round_trips.extend(rtts);
                                s.games_done += 1;
                            }
                            Err(e) => s.errors.push(e),
                        }
                    }
                })
                .expect("spawn bot thread"),
        );
    }
    let done = Arc::new(AtomicBool::new(false));
    let sampler = server_pid.map(|pid| {
        let (counters, done) = (Arc::clone(&counters), Arc::clone(&done));
        let want = args.concurrency;
        std::thread::spawn(move || sample_memory(pid, &counters.in_game, want, &done))
    });
    for h in handles {
        let _ = h.join();
    }
    done.store(true, Ordering::SeqCst);
    let elapsed = t0.elapsed();
    let memory = sampler.and_then(|h| h.join().ok()).flatten();
    let mut s = stats.lock().unwrap();
    let games = s.games_done / 2;
    println!(
        "load            : {games} games by {} pairs in {:.2?}: {:.0} games/s, {:.0} session set-ups/s",
        args.concurrency,
        elapsed,
        games as f64 / elapsed.as_secs_f64(),
        games as f64 / elapsed.as_secs_f64()
    );
    println!(
        "set-up          : p50 {:>9.1?}  p99 {:>9.1?}  (TCP connect to connect_ok, per player)",
        quantile(&mut s.setups, 0.5),
        quantile(&mut s.setups, 0.99)
    );
    println!(
        "move RTT, load : p50 {:>9.1?}  p99 {:>9.1?}  ({} moves)",
        quantile(&mut s.round_trips, 0.5),
        quantile(&mut s.round_trips, 0.99),
        s.round_trips.len()
    );
    println!(
        "peak sessions   : {}",
        counters.peak.load(Ordering::SeqCst) / 2
    );
    if let Some(after) = args.requeue_after {
        println!(
            "requeued        : {} (players alone for {after} s that connected again)",
            counters.requeued.load(Ordering::SeqCst)
        );
    }
    if let Some((rss, uss, children)) = memory {
        println!("supervisor RSS  : {} KiB", rss);
        println!(
            "session USS     : {} KiB (median of {children} session children)",
            uss
        );
    }
    println!("errors          : {}", s.errors.len());
    for e in s.errors.iter().take(10) {
        println!("  {e}");
    }
    if !s.errors.is_empty() {
        std::process::exit(1);
    }
}

/// Idle sessions kept open by helper processes (this binary with --hold-worker) until dropped.
struct Holders {
    workers: Vec<std::process::Child>,
}

/// Sessions one helper process holds: two sockets each, well under the usual 20,000 descriptors.
const HOLD_PER_WORKER: usize = 4000;

impl Holders {
    fn start(addr: SocketAddr, n: usize, server_pid: Option<i32>) -> Holders {
        let t0 = Instant::now();
        let mut workers = Vec::new();
        let mut left = n;
        while left > 0 {
            let k = left.min(HOLD_PER_WORKER);
            left -= k;
            let worker = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--addr", &addr.to_string(), "--hold-worker", &k.to_string()])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("start a hold worker");
            workers.push(worker);
        }
        for worker in &mut workers {
            let mut line = String::new();
            std::io::BufRead::read_line(
                &mut std::io::BufReader::new(worker.stdout.as_mut().unwrap()),
                &mut line,
            )
            .unwrap();
            assert!(line.starts_with("held"), "a hold worker failed: {line:?}");
        }
        if n > 0 {
            println!(
                "held sessions   : {n} idle sessions opened in {:.2?} by {} processes",
                t0.elapsed(),
                workers.len()
            );
            if let Some(pid) = server_pid {
                let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
                    .map_or(0, |c| c.split_whitespace().count());
                let status =
                    std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
                println!(
                    "                  {children} session processes running; supervisor RSS {} KiB",
                    field_kib(&status, "VmRSS:").unwrap_or(0)
                );
            }
        }
        Holders { workers }
    }
}

impl Drop for Holders {
    fn drop(&mut self) {
        for worker in &mut self.workers {
            drop(worker.stdin.take());
            let _ = worker.wait();
        }
    }
}

/// Connects to `addr` from loopback source address number `source` (127.1.x.y) when the server
/// is on IPv4 loopback: each source address has its own 28,000 ephemeral ports, and connect(2)
/// slows down sharply as the ports of one source address fill up, which would measure the
/// client, not the server.
fn connect_from(addr: SocketAddr, source: usize) -> std::io::Result<TcpStream> {
    let SocketAddr::V4(v4) = addr else {
        return TcpStream::connect(addr);
    };
    if !v4.ip().is_loopback() {
        return TcpStream::connect(addr);
    }
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
    // Leave the port to connect(), which picks it by the whole address pair.
    let on: libc::c_int = 1;
    // SAFETY: setsockopt with a valid int option.
    unsafe {
        libc::setsockopt(
            std::os::fd::AsRawFd::as_raw_fd(&socket),
            libc::IPPROTO_IP,
            libc::IP_BIND_ADDRESS_NO_PORT,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
    let [hi, lo] = u16::try_from(source % 65_000).unwrap_or(0).to_be_bytes();
    let ip = std::net::Ipv4Addr::new(127, 1, hi, lo.max(1));
    socket.bind(&SocketAddr::from((ip, 0)).into())?;
    socket.connect(&addr.into())?;
    Ok(socket.into())
}

/// Opens `n` idle sessions and holds them until standard input closes.
fn hold_worker(addr: SocketAddr, n: usize) {
    let mut held = Vec::with_capacity(2 * n);
    for i in 0..n {
        // A new source address every 10,000 connections.
        let source = 1000 + std::process::id() as usize % 1000 * 10 + i / 5000;
        let mut a = Client::from_stream(connect_from(addr, source).expect("connect"));
        a.send(&Pdu::Connect);
        let mut b = Client::from_stream(connect_from(addr, source).expect("connect"));
        b.send(&Pdu::Connect);
        a.expect_connect_ok();
        b.expect_connect_ok();
        held.push(a);
        held.push(b);
    }
    println!("held {n}");
    std::io::stdout().flush().unwrap();
    let mut rest = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut rest);
}

/// Forks `n` children that sleep, each mapping every page of `kib` KiB this process
/// wrote before the fork (so each page has `n` + 1 mappings, as the fork server's pages
/// have one a session) and the first KiB of `file` (as a binary's pages), until standard
/// input closes; then kills and reaps them.
fn hold_processes(n: usize, kib: usize, file: Option<(&std::path::Path, usize)>) {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::{fork, pause, ForkResult};
    const PAGE: usize = 4096;
    let mut shared = vec![0u8; kib * 1024];
    for page in shared.chunks_mut(PAGE) {
        page[0] = 1;
    }
    let mapped = file.map(|(path, kib)| map_file(path, kib));
    let mut children = Vec::with_capacity(n);
    for _ in 0..n {
        // SAFETY: this process has one thread, and the child only reads memory and pauses.
        match unsafe { fork() } {
            Ok(ForkResult::Child) => {
                let sum: usize = shared.iter().step_by(PAGE).map(|&b| b as usize).sum();
                let pages = mapped.unwrap_or(&[]).iter().step_by(PAGE);
                let sum = sum + pages.map(|&b| b as usize).sum::<usize>();
                std::hint::black_box(sum);
                loop {
                    pause();
                }
            }
            Ok(ForkResult::Parent { child }) => children.push(child),
            Err(e) => {
                eprintln!("fork failed after {} children: {e}", children.len());
                break;
            }
        }
    }
    println!("held {}", children.len());
    std::io::stdout().flush().unwrap();
    let mut rest = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut rest);
    for &child in &children {
        let _ = kill(child, Signal::SIGKILL);
    }
    for child in children {
        let _ = nix::sys::wait::waitpid(child, None);
    }
}

/// The first `kib` KiB of `path` (at most all of it), mapped read-only for as long as
/// the process lives.
fn map_file(path: &std::path::Path, kib: usize) -> &'static [u8] {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let size = file.metadata().expect("the file's size").len() as usize;
    let len = (kib * 1024).min(size);
    if len == 0 {
        return &[];
    }
    // SAFETY: a new private read-only mapping, never unmapped, of a file nobody writes
    // while the benchmark runs.
    unsafe {
        let at = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_PRIVATE,
            file.as_raw_fd(),
            0,
        );
        assert_ne!(at, libc::MAP_FAILED, "mmap {}", path.display());
        std::slice::from_raw_parts(at as *const u8, len)
    }
}

/// The kernel's TCP memory in KiB (`mem` of /proc/net/sockstat is in pages).
fn tcp_memory_kib() -> u64 {
    let text = std::fs::read_to_string("/proc/net/sockstat").unwrap_or_default();
    let pages: u64 = text
        .lines()
        .find(|l| l.starts_with("TCP:"))
        .and_then(|l| l.split_whitespace().skip_while(|w| *w != "mem").nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    pages * 4
}

/// `n` games whose players send illegal places as fast as the server takes them and
/// never read a byte: the attack that grew kernel buffers without bound.
fn flood(addr: SocketAddr, n: usize, length: Duration) {
    let before = tcp_memory_kib();
    let mut players = Vec::new();
    for _ in 0..n {
        for _ in 0..2 {
            let mut c = Client::from_stream(connect_from(addr, 7).expect("connect"));
            c.send(&Pdu::Connect);
            players.push(c);
        }
    }
    for c in &players {
        c.stream().set_nonblocking(true).unwrap();
    }
    let place = [0u8, 8, 0, 4, 0, 0, 0, 0];
    let burst = place.repeat(512);
    let t0 = Instant::now();
    let mut sent = 0usize;
    while t0.elapsed() < length {
        for c in &players {
            let mut stream = c.stream();
            if let Ok(k) = stream.write(&burst) {
                sent += k;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let during = tcp_memory_kib();
    println!(
        "flood           : {n} games, {} MiB of places sent in {length:?}, nothing read",
        sent >> 20
    );
    println!(
        "kernel TCP mem  : {before} KiB before, {during} KiB after {length:?} ({} KiB a socket, both ends)",
        during.saturating_sub(before) / (2 * n as u64).max(1)
    );
}

/// One game of every game type over the text protocol, and each session child's USS.
fn memory_per_game(addr: SocketAddr, server_pid: Option<i32>) {
    let Some(pid) = server_pid else {
        eprintln!("--memory-per-game needs --server-pid (or --spawn)");
        std::process::exit(2);
    };
    for module in reversi_games::registry::all() {
        let name = module.info.name;
        let mut players: Vec<_> = (0..module.info.team_count())
            .map(|_| reversi_tests::text::TextClient::join(addr, name))
            .collect();
        for p in &mut players {
            p.expect("GAME TEAM ");
        }
        let children =
            std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
        let newest = children
            .split_whitespace()
            .filter_map(|c| c.parse::<u32>().ok())
            .max();
        let uss = newest
            .and_then(|child| std::fs::read_to_string(format!("/proc/{child}/smaps_rollup")).ok())
            .and_then(|t| {
                Some(field_kib(&t, "Private_Clean:")? + field_kib(&t, "Private_Dirty:")?)
            });
        match uss {
            Some(kib) => println!("session USS     : {kib:>6} KiB  {name}"),
            None => println!("session USS     :      ?      {name} (no child found)"),
        }
        for p in &mut players {
            p.send("GAME QUIT");
        }
    }
}

/// One player's game: connect, play random legal moves, check everything against the engine.
fn play_one(
    addr: SocketAddr,
    rng: &mut Rng,
    think: Duration,
    setup_only: bool,
    requeue: Option<Duration>,
    counters: &Counters,
) -> Result<(Duration, Vec<Duration>), String> {
    let (t0, mut me, colour) = loop {
        let t0 = Instant::now();
        let stream =
            connect_from(addr, 1 + source_of_thread()).map_err(|e| format!("connect: {e}"))?;
        drop(stream.set_nodelay(true));
        let mut me = Client::from_stream(stream);
        me.send(&Pdu::Connect);
        let first = match requeue {
            Some(after) => me.try_recv_within(after)?,
            None => Some(me.recv_result()?),
        };
        match first {
            Some(Msg::ConnectOk(c)) => break (t0, me, c),
            Some(other) => return Err(format!("expected connect_ok, got {other:?}")),
            None => {
                me.send(&Pdu::Quit);
                counters.requeued.fetch_add(1, Ordering::SeqCst);
            }
        }
    };
    let setup = t0.elapsed();
    if setup_only {
        return Ok((setup, Vec::new()));
    }
    let now = counters.in_game.fetch_add(1, Ordering::SeqCst) + 1;
    counters.peak.fetch_max(now, Ordering::SeqCst);
    let result = play_side(&mut me, colour, rng, think);
    counters.in_game.fetch_sub(1, Ordering::SeqCst);
    result.map(|rtts| (setup, rtts))
}

fn play_side(
    me: &mut Client,
    colour: Colour,
    rng: &mut Rng,
    think: Duration,
) -> Result<Vec<Duration>, String> {
    let mut game = Game::new();
    let mut rtts = Vec::new();
    let mut sent: Option<Instant> = None;
    let mut initial = 0;
    loop {
        match me.recv_result()? {
            Msg::UpdateBoard(..) if initial < 2 => initial += 1,
            Msg::UpdateBoard(c, squares) => {
                let side = Side::from(c);
                if game.side_to_move() != Some(side) {
                    return Err(format!("update_board for {c} out of turn"));
                }
                let sq = reversi_engine::Square::from(squares[0]);
                let played = game
                    .play(sq)
                    .map_err(|e| format!("server played {sq}: {e}"))?;
                if played.changed().count() != squares.len() {
                    return Err(format!(
                        "update_board for {sq} has {} squares",
                        squares.len()
                    ));
                }
                if c == colour {
                    let t = sent.take().ok_or("update_board for a move never sent")?;
                    rtts.push(t.elapsed());
                }
            }
            Msg::Turn => {
                if game.side_to_move() != Some(Side::from(colour)) {
                    return Err("turn out of turn".into());
                }
                if !think.is_zero() {
                    std::thread::sleep(think);
                }
                let legal: Vec<_> = game.legal_moves().collect();
                let sq = legal[rng.below(legal.len())];
                sent = Some(Instant::now());
                me.place(i16::from(sq.x()), i16::from(sq.y()));
            }
            Msg::Winner(w) => {
                let want = match game.outcome() {
                    Some(Outcome::Win(Side::Black)) => Winner::Black,
                    Some(Outcome::Win(Side::White)) => Winner::White,
                    Some(Outcome::Draw) => Winner::Draw,
                    None => return Err(format!("winner {w:?} before the game is over")),
                };
                if w != want {
                    return Err(format!("winner {w:?}, engine says {want:?}"));
                }
                return match me.recv_result()? {
                    Msg::Closed => Ok(rtts),
                    other => Err(format!("{other:?} after winner")),
                };
            }
            other => return Err(format!("unexpected {other:?}")),
        }
    }
}

fn pair(addr: SocketAddr) -> (Client, Client) {
    let mut a = Client::connect(addr);
    a.send(&Pdu::Connect);
    let mut b = Client::connect(addr);
    b.send(&Pdu::Connect);
    let ca = a.expect_connect_ok();
    b.expect_connect_ok();
    a.expect_initial_position();
    b.expect_initial_position();
    if ca == Colour::Black {
        (a, b)
    } else {
        (b, a)
    }
}

/// A bare loopback TCP echo served by another process (this binary with --serve-echo), like
/// a session: the floor for a round trip between two processes.
struct Echo {
    stream: TcpStream,
    server: std::process::Child,
}

impl Drop for Echo {
    fn drop(&mut self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
        let _ = self.server.wait();
    }
}

fn serve_echo() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind echo");
    println!("{}", listener.local_addr().unwrap().port());
    std::io::stdout().flush().unwrap();
    if let Ok((mut s, _)) = listener.accept() {
        let _ = s.set_nodelay(true);
        let mut buf = [0u8; 64];
        while let Ok(n) = s.read(&mut buf) {
            if n == 0 || s.write_all(&buf[..n]).is_err() {
                break;
            }
        }
    }
}

impl Echo {
    fn start() -> Echo {
        let mut server = std::process::Command::new(std::env::current_exe().unwrap())
            .arg("--serve-echo")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start the echo process");
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(server.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let port: u16 = line.trim().parse().expect("echo port");
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect echo");
        stream.set_nodelay(true).unwrap();
        Echo { stream, server }
    }

    /// `n` round trips of an 8-byte message (a place's size).
    fn sample(&mut self, n: usize, out: &mut Vec<Duration>) {
        let msg = [0u8, 8, 0, 4, 0, 3, 0, 2];
        let mut back = [0u8; 8];
        for _ in 0..n {
            let t = Instant::now();
            self.stream.write_all(&msg).unwrap();
            self.stream.read_exact(&mut back).unwrap();
            out.push(t.elapsed());
        }
    }
}

/// Waits until most sessions run, then reads the supervisor's RSS and the median USS of its
/// session children (KiB).
fn sample_memory(
    pid: i32,
    in_game: &AtomicUsize,
    pairs: usize,
    done: &AtomicBool,
) -> Option<(u64, u64, usize)> {
    // Players in a game: two per session; wait for most of them (or the end of the run).
    while in_game.load(Ordering::SeqCst) < pairs.max(1) * 2 * 9 / 10 {
        if done.load(Ordering::SeqCst) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = field_kib(&status, "VmRSS:")?;
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).ok()?;
    let mut uss: Vec<u64> = children
        .split_whitespace()
        .take(50)
        .filter_map(|child| std::fs::read_to_string(format!("/proc/{child}/smaps_rollup")).ok())
        .filter_map(|text| {
            Some(field_kib(&text, "Private_Clean:")? + field_kib(&text, "Private_Dirty:")?)
        })
        .collect();
    uss.sort_unstable();
    let median = *uss.get(uss.len() / 2)?;
    Some((rss, median, uss.len()))
}

fn field_kib(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    line[name.len()..].split_whitespace().next()?.parse().ok()
}

/// A small number per bot thread, to spread its connections over source addresses.
fn source_of_thread() -> usize {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::thread::current().id().hash(&mut h);
    (h.finish() % 500) as usize
}

fn raise_nofile() {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit with a valid struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}
