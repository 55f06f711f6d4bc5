//! Upgrading in place (spec/DEPLOY.md "Upgrading in place"): `reversid ctl upgrade`
//! executes the binary at --upgrade-binary in the supervisor's own process. Games running
//! keep playing to their end and are still listed, watched, reaped and recorded; players
//! queued are paired after it; a client connecting all along is never refused; and a
//! binary that fails its trial leaves the old supervisor serving.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use reversi_tests::scratch::Scratch;
use reversi_tests::text::TextClient;
use reversi_tests::{play_out, reversid_binary, Client, Rng, Server, PATIENCE};

/// A server whose upgrades execute `next`, a link the test points at a binary.
struct Upgradable {
    server: Server,
    pid_file: PathBuf,
    next: PathBuf,
    records: PathBuf,
    upgrades: usize,
    _dir: Scratch,
}

impl Upgradable {
    fn start(max_sessions: usize, extra: &[&str]) -> Upgradable {
        let dir = Scratch::new("upgrade");
        let pid_file = dir.path().join("reversid.pid");
        let next = dir.path().join("reversid-next");
        let records = dir.path().join("records");
        std::fs::create_dir(&records).unwrap();
        std::os::unix::fs::symlink(reversid_binary(), &next).unwrap();
        let max = max_sessions.to_string();
        let mut args = vec![
            "--pid-file",
            pid_file.to_str().unwrap(),
            "--upgrade-binary",
            next.to_str().unwrap(),
            "--record-dir",
            records.to_str().unwrap(),
            "--max-sessions",
            &max,
            "--move-timeout",
            "300",
            // At the session cap the games' first moves get the handshake timeout
            // (TEXT-PROTOCOL.md §8.11): the test plays its games one after another.
            "--handshake-timeout",
            "300",
        ];
        args.extend_from_slice(extra);
        Upgradable {
            server: Server::start(&args),
            pid_file,
            next,
            records,
            upgrades: 0,
            _dir: dir,
        }
    }

    /// Points the upgrade at `binary`.
    fn install(&self, binary: &Path) {
        std::fs::remove_file(&self.next).unwrap();
        std::os::unix::fs::symlink(binary, &self.next).unwrap();
    }

    /// `reversid ctl upgrade`; waits until the new image took over.
    fn upgrade(&mut self) {
        ctl_upgrade(&self.pid_file);
        self.upgrades += 1;
        self.server.wait_logs("took over (pid", self.upgrades);
    }

    /// The number of game records written.
    fn records(&self) -> usize {
        std::fs::read_dir(&self.records).unwrap().count()
    }
}

fn ctl_upgrade(pid_file: &Path) {
    let out = Command::new(reversid_binary())
        .args(["ctl", "upgrade", "--pid-file"])
        .arg(pid_file)
        .output()
        .expect("run reversid ctl");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("told to upgrade"), "{said}");
}

/// A client that connects again and again, asks the version and reads the answer:
/// how long the slowest answer took, and how many of them failed.
struct Prober {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<(Duration, usize, usize)>,
}

impl Prober {
    fn start(addr: SocketAddr) -> Prober {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let (mut longest, mut tries, mut failures) = (Duration::ZERO, 0, 0);
            while !stopped.load(Ordering::SeqCst) {
                let asked = Instant::now();
                tries += 1;
                match ask_version(addr) {
                    Ok(()) => longest = longest.max(asked.elapsed()),
                    Err(e) => {
                        eprintln!("probe {tries}: {e}");
                        failures += 1;
                    }
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            (longest, tries, failures)
        });
        Prober { stop, thread }
    }

    fn finish(self) -> (Duration, usize, usize) {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.join().unwrap()
    }
}

fn ask_version(addr: SocketAddr) -> Result<(), String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    stream
        .write_all(b"GAME VERSION\nGAME QUIT\n")
        .map_err(|e| format!("send: {e}"))?;
    let mut line = String::new();
    BufReader::new(stream)
        .read_line(&mut line)
        .map_err(|e| format!("read: {e}"))?;
    match line.starts_with("GAME VERSION") {
        true => Ok(()),
        false => Err(format!("answered {line:?}")),
    }
}

/// `games` pairs that start games, then `queued` more players waiting at the session cap.
fn open_games(
    server: &Server,
    games: usize,
    queued: usize,
) -> (Vec<(Client, Client)>, Vec<Client>) {
    let pairs: Vec<(Client, Client)> = (0..games).map(|_| server.pair()).collect();
    server.wait_logs("started: game", games);
    let waiting: Vec<Client> = (0..queued).map(|_| server.join()).collect();
    if queued > 0 {
        server.wait_log(&format!("queued ({queued} waiting)"));
    }
    (pairs, waiting)
}

/// The games the store archived, summed over every image's "store: N games archived".
fn archived(logs: &[String]) -> usize {
    logs.iter()
        .filter_map(|l| {
            l.split("store: ")
                .nth(1)?
                .split(" games archived")
                .next()?
                .parse::<usize>()
                .ok()
        })
        .sum()
}

/// The running games a text client is told of.
fn listed(addr: SocketAddr) -> String {
    let mut c = TextClient::connect(addr);
    c.send("GAME LIST");
    c.expect("GAME SESSIONS")
}

/// Plays every game to its end; then the queued players, paired as places free up.
fn play_everything(pairs: Vec<(Client, Client)>, waiting: Vec<Client>, rng: &mut Rng) -> usize {
    let mut played = 0;
    for (mut black, mut white) in pairs {
        assert!(play_out(&mut black, &mut white, rng).moves > 0);
        played += 1;
    }
    let mut waiting = waiting.into_iter();
    while let (Some(mut a), Some(mut b)) = (waiting.next(), waiting.next()) {
        let (ca, cb) = (a.expect_connect_ok(), b.expect_connect_ok());
        assert_ne!(ca, cb);
        for c in [&mut a, &mut b] {
            c.expect_initial_position();
        }
        let (mut black, mut white) = match ca == reversi_pdu::Colour::Black {
            true => (a, b),
            false => (b, a),
        };
        assert!(play_out(&mut black, &mut white, rng).moves > 0);
        played += 1;
    }
    played
}

/// The whole scenario: `games` games running and `queued` players waiting at the cap,
/// a viewer watching and a client probing, `upgrades` upgrades; every game played to its
/// end and recorded once. Returns the longest a probe waited.
fn games_survive_upgrades(
    games: usize,
    queued: usize,
    upgrades: usize,
    extra: &[&str],
) -> Duration {
    let mut up = Upgradable::start(games, extra);
    let addr = up.server.addr();
    let (pairs, waiting) = open_games(&up.server, games, queued);
    // A text client half-way through its pre-game talk is carried over too.
    let mut talking = TextClient::connect(addr);
    talking.send("GAME VERSION");
    talking.expect("GAME VERSION");
    let prober = Prober::start(addr);
    for _ in 0..upgrades {
        up.upgrade();
        assert_eq!(listed(addr), format!("GAME SESSIONS {games}"));
    }
    let (longest, tries, failures) = prober.finish();
    // Every image listens on the very sockets the first one bound.
    let listening: Vec<String> = up
        .server
        .logs()
        .into_iter()
        .filter(|l| l.contains("listening on"))
        .map(|l| l.split("] ").nth(1).unwrap_or_default().to_owned())
        .collect();
    let first = listening.len() / (upgrades + 1);
    for image in listening.chunks(first) {
        assert_eq!(image, &listening[..first]);
    }
    assert_eq!(failures, 0, "{failures} of {tries} probes failed");
    talking.send("GAME LIST");
    assert_eq!(
        talking.expect("GAME SESSIONS"),
        format!("GAME SESSIONS {games}")
    );
    // A game started before the upgrades is watched through its own listener.
    let mut viewer = TextClient::connect(addr);
    viewer.send("GAME WATCH 1");
    viewer.expect("GAME WATCHING 1");
    let played = play_everything(pairs, waiting, &mut Rng::new(28));
    assert_eq!(played, games + queued / 2);
    viewer.expect("GAME OVER");
    up.server.wait_logs("exited with status 0", played);
    // Reaped by the image that runs now, each once; each game recorded once.
    let deadline = Instant::now() + PATIENCE;
    while up.records() < played && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(up.records(), played);
    assert_eq!(listed(addr), "GAME SESSIONS 0");
    let logs = up.server.logs();
    assert_eq!(
        logs.iter().filter(|l| l.contains("game over:")).count(),
        played
    );
    assert!(!logs.iter().any(|l| l.contains("refused")), "{logs:#?}");
    // Each game stored once in the archive too: what every image stored, said as it
    // handed over or stopped.
    up.server.signal(reversi_tests::Signal::SIGTERM);
    assert!(up.server.wait_exit().success());
    assert_eq!(archived(&up.server.logs()), played);
    eprintln!(
        "{games} games, {queued} queued, {upgrades} upgrades: {tries} probes, the slowest {:.1} ms",
        longest.as_secs_f64() * 1000.0
    );
    longest
}

#[test]
fn twenty_games_play_on_through_an_upgrade_and_the_queue_is_carried_over() {
    games_survive_upgrades(20, 4, 1, &[]);
}

#[test]
fn sessions_forked_by_the_supervisor_itself_survive_two_upgrades() {
    // Their exit signal is a real-time one, which kills by default: it stays blocked
    // across exec until the new image has its handler.
    games_survive_upgrades(
        6,
        2,
        2,
        &["--fork-directly", "--listen-seed", "duell=127.0.0.1:0"],
    );
}

#[test]
#[ignore = "200 games and three upgrades: slow on a loaded machine"]
fn two_hundred_games_three_upgrades() {
    let longest = games_survive_upgrades(200, 20, 3, &[]);
    eprintln!(
        "the longest a new connection waited across 3 upgrades with 200 games: {:.1} ms",
        longest.as_secs_f64() * 1000.0
    );
}

#[test]
fn a_binary_that_fails_its_trial_leaves_the_old_supervisor_serving() {
    let mut up = Upgradable::start(10, &[]);
    let (mut black, mut white) = up.server.pair();
    let pid = up.server.pid();
    for broken in ["/bin/false", "/bin/echo"] {
        up.install(Path::new(broken));
        ctl_upgrade(&up.pid_file);
        let line = up.server.wait_log(&format!(
            "trial: it {}",
            if broken == "/bin/false" {
                "said nothing"
            } else {
                "did not say"
            }
        ));
        assert!(line.contains("this reversid carries on"), "{line}");
    }
    up.install(Path::new("/nonexistent/reversid"));
    ctl_upgrade(&up.pid_file);
    up.server.wait_log("upgrade refused: cannot run /");
    // Still the same server, still serving: the running game and a new one.
    assert_eq!(up.server.pid(), pid);
    assert!(!up.server.logs().iter().any(|l| l.contains("took over")));
    assert_eq!(listed(up.server.addr()), "GAME SESSIONS 1");
    let (mut b2, mut w2) = up.server.pair();
    play_out(&mut black, &mut white, &mut Rng::new(1));
    // And the right binary takes over after all.
    up.install(&reversid_binary());
    up.upgrade();
    play_out(&mut b2, &mut w2, &mut Rng::new(2));
    up.server.wait_logs("exited with status 0", 2);
}

#[test]
fn a_drained_host_stays_drained_after_an_upgrade() {
    let mut up = Upgradable::start(10, &[]);
    let out = Command::new(reversid_binary())
        .args(["ctl", "drain", "--pid-file"])
        .arg(&up.pid_file)
        .output()
        .expect("run reversid ctl drain");
    assert!(out.status.success());
    up.server.wait_log("draining: no new games");
    up.upgrade();
    let mut late = up.server.join();
    late.expect(reversi_tests::Msg::Error);
    up.server.wait_log("refused: draining");
}

#[test]
fn the_pid_file_and_data_directory_stay_locked_across_an_upgrade() {
    let mut up = Upgradable::start(10, &[]);
    up.upgrade();
    // A second reversid with the same files must be refused at once, not start serving.
    let second = |args: &[&std::ffi::OsStr]| {
        let mut child = Command::new(reversid_binary())
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .env("TMPDIR", up.server.temp_dir().path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run a second reversid");
        let deadline = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("a second reversid started with {args:?}: a lock was lost");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(!status.success());
        let mut said = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut said).unwrap();
        said
    };
    let other = up._dir.path().join("other.pid");
    let data = up.server.data_dir().path().as_os_str();
    let said = second(&[
        "--no-store".as_ref(),
        "--pid-file".as_ref(),
        up.pid_file.as_os_str(),
    ]);
    assert!(said.contains("another reversid is running"), "{said}");
    let said = second(&[
        "--pid-file".as_ref(),
        other.as_os_str(),
        "--data-dir".as_ref(),
        data,
    ]);
    assert!(said.contains("another reversid uses it"), "{said}");
}

#[test]
fn a_player_dropped_before_an_upgrade_takes_its_seat_back_after_it() {
    let mut up = Upgradable::start(10, &["--grace", "60", "--fixed-colours"]);
    let mut x = TextClient::join(up.server.addr(), "tictactoe");
    x.next_is("GAME WAITING 1");
    let mut o = TextClient::join(up.server.addr(), "tictactoe");
    o.expect("GAME TEAM 2 O");
    let token = o.next_is("GAME TOKEN ");
    let token = token.split(' ').nth(2).unwrap().to_owned();
    x.expect("READY");
    x.send("MOVE b2");
    o.expect("READY");
    let _ = o.stream().shutdown(std::net::Shutdown::Both);
    x.expect("GAME AWAY 2");
    up.upgrade();
    // The resume token is the new image's to check, and the seat the session's to give.
    let mut back = TextClient::connect(up.server.addr());
    back.send(&format!("GAME RESUME {token}"));
    back.expect("GAME RESUMED 1");
    back.expect("READY");
    back.send("MOVE a1");
    x.expect("GAME MOVED 2 a1");
}

#[test]
fn a_client_waiting_in_a_challenge_is_told_to_come_back() {
    let mut up = Upgradable::start(10, &[]);
    let mut inviter = TextClient::connect(up.server.addr());
    inviter.send("GAME INVITE tictactoe");
    inviter.next_is("GAME CODE ");
    up.upgrade();
    inviter.expect("ERROR server upgrading: challenge closed; connect again");
    inviter.expect_closed(&[]);
}

#[test]
fn a_signed_in_player_queued_across_an_upgrade_plays_as_its_account() {
    let mut up = Upgradable::start(10, &["--fixed-colours"]);
    let sign_up = |name: &str| {
        let mut c = TextClient::connect(up.server.addr()).keep_every_line();
        c.send(&format!("GAME REGISTER {name} a long enough password"));
        c.expect(&format!("GAME SIGNEDIN {name}"));
        c
    };
    let mut alice = sign_up("Alice");
    alice.send("GAME TYPE tictactoe");
    alice.expect("GAME WAITING 1");
    let mut guest = TextClient::connect(up.server.addr()).keep_every_line();
    guest.send("GAME NAME zoë");
    guest.expect("GAME GUEST zoë");
    up.upgrade();
    // Both keep who they are: the queued account, and the guest still in its handshake.
    guest.send("GAME TYPE tictactoe");
    alice.expect("GAME PLAYER 1 account Alice");
    alice.expect("GAME PLAYER 2 guest zoë");
    guest.expect("GAME PLAYER 1 account Alice");
}
