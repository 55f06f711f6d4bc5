//! The control socket (spec/DEPLOY.md "Control socket") and `reversid tournament …`
//! (spec/TOURNAMENTS.md §7): the operator creates a tournament, registers four accounts and
//! starts it from the command line, the players play it over the text protocol, and the
//! standings are read back; the socket is its user's alone, not taken by a second server,
//! and answers again after an upgrade in place; `reversid ctl` without a pid file uses it.

use std::net::SocketAddr;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use reversi_tests::scratch::Scratch;
use reversi_tests::text::TextClient;
use reversi_tests::{reversid_binary, Server, PATIENCE};

const PASSWORD: &str = "correct horse battery";
const SQUARES: [&str; 9] = ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"];

/// What `reversid tournament ARGS --data-dir DIR` did: success, stdout, stderr.
fn tournament(data_dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(reversid_binary())
        .arg("tournament")
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .output()
        .expect("run reversid tournament");
    let text = |b: &[u8]| String::from_utf8_lossy(b).trim_end().to_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

/// What `reversid tournament ARGS` printed; it must succeed.
fn said(data_dir: &Path, args: &[&str]) -> String {
    let (ok, out, err) = tournament(data_dir, args);
    assert!(ok, "reversid tournament {args:?}: {err}");
    out
}

/// A connection signed in as `name` (registered first when `new`).
fn signed_in(addr: SocketAddr, name: &str, new: bool) -> TextClient {
    let verb = if new { "REGISTER" } else { "SIGNIN" };
    loop {
        let mut c = TextClient::connect(addr);
        c.send(&format!("GAME {verb} {name} {PASSWORD}"));
        let line = c.recv().expect("an answer to the sign-in");
        if line.starts_with("ERROR too many sign-in attempts") {
            std::thread::sleep(Duration::from_secs(1));
            continue;
        }
        assert_eq!(line, format!("GAME SIGNEDIN {name}"));
        return c;
    }
}

/// Plays `games` games of tournament 1 as `name`: the first free square every turn.
fn player(addr: SocketAddr, name: &str, games: usize) {
    for _ in 0..games {
        let mut c = signed_in(addr, name, false);
        c.send("GAME TOURNAMENT PLAY 1");
        c.next_is("GAME NEWS waiting for your games of tournament 1");
        c.expect("GAME PAIRED 1 ");
        let mut taken = std::collections::HashSet::new();
        loop {
            let line = c.recv().expect("the game goes on to its end");
            if let Some(rest) = line.strip_prefix("GAME MOVED ") {
                taken.insert(rest.split_whitespace().nth(1).unwrap().to_owned());
            } else if line == "READY" {
                let free = SQUARES.iter().find(|s| !taken.contains(**s)).unwrap();
                c.send(&format!("MOVE {free}"));
            } else if line.starts_with("GAME OVER") {
                break;
            }
        }
    }
}

#[test]
fn the_operator_runs_a_tournament_from_the_command_line() {
    let server = Server::start(&["--grace", "30"]);
    let (addr, dir) = (server.addr(), server.data_dir().path().to_owned());
    let players = ["Ann", "Bob", "Cat", "Dan"];
    for name in players {
        drop(signed_in(addr, name, true));
    }
    assert_eq!(said(&dir, &["list"]), "no tournaments");
    assert_eq!(
        said(
            &dir,
            &[
                "create",
                "--name",
                "Club night",
                "--game",
                "tictactoe",
                "--format",
                "rr",
                "--time",
                "move:30"
            ]
        ),
        "created tournament 1 \"Club night\": tictactoe, round-robin, time move:30; \
         created, registration not open yet; 0 players"
    );
    said(&dir, &["open", "1"]);
    // Named in any case: registered as the account spells itself (who signs in as it).
    for name in players {
        let out = said(&dir, &["register", "1", &name.to_lowercase()]);
        assert!(out.contains(" in tournament 1 "), "{out}");
    }
    let (ok, _, err) = tournament(&dir, &["register", "1", "Eve"]);
    assert!(!ok && err == "reversid tournament: no account Eve", "{err}");
    // A bad order: the server's reason on stderr, a failure status, nothing changed.
    let (ok, out, err) = tournament(&dir, &["start", "9"]);
    assert!(!ok && out.is_empty(), "{out}");
    assert_eq!(err, "reversid tournament: no tournament 9");
    let (ok, _, err) = tournament(&dir, &["register", "1", "no body"]);
    assert!(!ok && err.contains("one word"), "{err}");
    assert!(said(&dir, &["start", "1"]).ends_with("playing round 1 of 3; 4 players"));

    let threads: Vec<_> = players
        .iter()
        .map(|&name| std::thread::spawn(move || player(addr, name, 3)))
        .collect();
    for t in threads {
        t.join().expect("a player played its three games");
    }
    let deadline = Instant::now() + PATIENCE;
    while !said(&dir, &["list"]).contains("; finished;") {
        assert!(Instant::now() < deadline, "{}", said(&dir, &["list"]));
        std::thread::sleep(Duration::from_millis(200));
    }
    let shown = said(&dir, &["show", "1"]);
    println!("{shown}");
    let table: Vec<&str> = shown.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(table.len(), 5, "a header and four players: {shown}");
    let points: f64 = table[1..]
        .iter()
        .map(|row| {
            row.split_whitespace()
                .nth(2)
                .unwrap()
                .parse::<f64>()
                .unwrap()
        })
        .sum();
    assert_eq!(points, 6.0, "six games, a point each: {shown}");
    let games = shown.lines().filter(|l| l.starts_with("round ")).count();
    assert_eq!(games, 6, "{shown}");
    assert!(shown.contains(", ended (replay: /games/"), "{shown}");
    let csv = said(&dir, &["export", "1", "--csv"]);
    assert!(csv.lines().count() == 5 && csv.contains("Ann"), "{csv}");
    let json = said(&dir, &["export", "1", "--json"]);
    assert!(json.contains("\"phase\":\"finished\""), "{json}");
    for name in players {
        assert!(json.contains(&format!("\"account\":\"{name}\"")), "{json}");
    }
}

#[test]
fn the_operator_makes_a_bots_account_and_the_bot_signs_in_with_its_token() {
    let server = Server::start(&[]);
    let dir = server.data_dir().path();
    let account = |name: &str| {
        let out = Command::new(reversid_binary())
            .args(["account", "create", name, "--data-dir"])
            .arg(dir)
            .output()
            .expect("run reversid account");
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.success(), text(&out.stdout), text(&out.stderr))
    };
    let (ok, out, err) = account("ClassBot1");
    assert!(ok, "{err}");
    assert!(out.starts_with("created account ClassBot1\n"), "{out}");
    let token = out
        .lines()
        .find_map(|l| l.strip_prefix("API token: "))
        .expect("the token printed");
    let mut bot = TextClient::connect(server.addr());
    bot.send(&format!("GAME SIGNIN {token}"));
    assert_eq!(bot.recv().as_deref(), Some("GAME SIGNEDIN ClassBot1"));
    let (ok, _, err) = account("classbot1");
    assert!(!ok, "a taken name");
    assert_eq!(
        err.trim_end(),
        "reversid account: classbot1: that name is taken"
    );
}

/// Starts reversid with `args` expecting it to refuse to start; its stderr.
fn refused_start(args: &[&str]) -> String {
    let mut child = Command::new(reversid_binary())
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn reversid");
    let deadline = Instant::now() + PATIENCE;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("a second reversid started on {args:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn the_socket_is_the_servers_users_alone_and_a_second_server_does_not_take_it() {
    let server = Server::start(&[]);
    let dir = server.data_dir().path().to_owned();
    let socket = dir.join("control.sock");
    let mode = std::fs::metadata(&socket).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    // Answered: the loop runs, so the data directory's lock is held.
    assert_eq!(said(&dir, &["list"]), "no tournaments");
    let err = refused_start(&["--data-dir", dir.to_str().unwrap()]);
    assert!(err.contains("another reversid uses it"), "{err}");
    let err = refused_start(&["--no-store", "--control", socket.to_str().unwrap()]);
    assert!(
        err.contains("another reversid uses it (it answers there"),
        "{err}"
    );
    assert_eq!(said(&dir, &["list"]), "no tournaments");
    // `reversid ctl` without --pid-file goes by the socket.
    for (order, logged) in [
        ("drain", "draining: no new games"),
        ("resume", "taking new games again"),
    ] {
        let out = ctl(&dir, order);
        assert!(out.contains("(by its control socket)"), "{out}");
        server.wait_log(logged);
    }
}

/// `reversid ctl ORDER --data-dir DIR`'s output; it must succeed.
fn ctl(data_dir: &Path, order: &str) -> String {
    let out = Command::new(reversid_binary())
        .args(["ctl", order, "--data-dir"])
        .arg(data_dir)
        .output()
        .expect("run reversid ctl");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_socket_answers_again_after_an_upgrade_in_place() {
    let scratch = Scratch::new("control-upgrade");
    let pid_file = scratch.path().join("reversid.pid");
    let next = scratch.path().join("reversid-next");
    std::os::unix::fs::symlink(reversid_binary(), &next).unwrap();
    let server = Server::start(&[
        "--pid-file",
        pid_file.to_str().unwrap(),
        "--upgrade-binary",
        next.to_str().unwrap(),
    ]);
    let dir = server.data_dir().path().to_owned();
    said(
        &dir,
        &[
            "create",
            "--name",
            "Before",
            "--game",
            "tictactoe",
            "--format",
            "swiss",
            "--rounds",
            "3",
            "--time",
            "5+3",
        ],
    );
    let out = Command::new(reversid_binary())
        .args(["ctl", "upgrade", "--pid-file"])
        .arg(&pid_file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    server.wait_log("took over (pid");
    let listed = said(&dir, &["list"]);
    assert!(
        listed.starts_with("tournament 1 \"Before\": tictactoe, Swiss over 3 rounds"),
        "{listed}"
    );
    said(&dir, &["open", "1"]);
    assert!(said(&dir, &["list"]).contains("registration open"));
    // Asked by the socket itself, again: the new image's socket answers too.
    ctl(&dir, "upgrade");
    server.wait_logs("took over (pid", 2);
    assert!(said(&dir, &["list"]).contains("registration open"));
}

#[test]
fn a_crashed_servers_socket_is_removed_at_the_next_start_and_a_clean_exit_leaves_none() {
    let dir = Scratch::new("control-stale");
    let data = dir.path().to_str().unwrap();
    let socket = dir.path().join("control.sock");
    let mut crashed = Server::start(&["--data-dir", data]);
    crashed.signal(nix::sys::signal::Signal::SIGKILL);
    crashed.wait_exit();
    assert!(socket.exists(), "a killed server leaves its socket file");
    let mut next = Server::start(&["--data-dir", data]);
    next.wait_log("removing a stale control socket");
    assert_eq!(said(dir.path(), &["list"]), "no tournaments");
    next.signal(nix::sys::signal::Signal::SIGTERM);
    assert!(next.wait_exit().success());
    assert!(!socket.exists(), "a server that exits removes its socket");
}
