//! Several hosts (spec/DEPLOY.md §4; docs/design/play-together.md §11): reversid hosts
//! that share a private PostgreSQL learn of each other through it, and serve their own
//! players alone while it is down, and relay a returning player whose token names another
//! host there (directly, and behind HAProxy), and a joiner whose code is another host's
//! challenge, whose public ones every host lists; lone waiters of two hosts (text, binary,
//! WebSocket, the seeds' Duell and Foxes clients) meet on one; an account signed in on one
//! host joins a rated challenge of the other (its identity relayed, believed from a host only);
//! a relayed client whose host is lost mid-game is told so and closed; a WebSocket's resume and join are relayed too. Skipped, with a message, where PostgreSQL's
//! programs (or, for its test, HAProxy) are not installed (scripts/install-tools.sh).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use reversi_tests::postgres;
use reversi_tests::scratch::Scratch;
use reversi_tests::text::TextClient;
use reversi_tests::{Server, AS_BEFORE, PATIENCE, UNLIMITED};

/// The database the hosts share.
const DB: &str = "reversid";
/// How long a test waits for the cluster to settle: a lost host is noticed by the next
/// heartbeat (5 s), and a reconnect follows a back-off that may have grown meanwhile.
const CLUSTER_PATIENCE: Duration = Duration::from_secs(60);

/// A private PostgreSQL with an empty database, or `None` (and a message) without one.
fn database() -> Option<postgres::Server> {
    match postgres::Server::start() {
        Ok(server) => {
            server.create_db(DB).expect("create the cluster's database");
            Some(server)
        }
        Err(why) => {
            reversi_tests::skipped(&why);
            None
        }
    }
}

/// A host of the cluster on `db`, named `id`.
fn host(db: &postgres::Server, id: &str) -> Server {
    host_with(db, id, &[])
}

/// A host of the cluster on `db`, named `id`, with more options.
fn host_with(db: &postgres::Server, id: &str, more: &[&str]) -> Server {
    let conninfo = db.params(DB);
    let mut args = vec!["--host-id", id, "--cluster", &conninfo];
    args.extend_from_slice(UNLIMITED);
    args.extend_from_slice(AS_BEFORE);
    args.extend_from_slice(more);
    Server::start(&args)
}

/// The loopback address a relaying host speaks from: the other host trusts its PROXY
/// headers (`--proxy-from`), while the tests' own clients (127.0.0.1) send none.
const RELAYING_IP: &str = "127.0.0.2";

/// A free port on [`RELAYING_IP`].
fn free_port() -> u16 {
    free_port_on(RELAYING_IP)
}

/// A free port on loopback address `ip`.
fn free_port_on(ip: &str) -> u16 {
    let listener = std::net::TcpListener::bind((ip, 0)).expect("bind a loopback address");
    listener.local_addr().unwrap().port()
}

/// The address host A relays from when B must trust it (H-haproxy).
const A_RELAYING_IP: &str = "127.0.0.4";

/// Host A, which plays the game (trusting B's relays), and host B, which a returning
/// player reaches and which relays it to A; both joined.
fn two_hosts(db: &postgres::Server, a_args: &[&str], b_args: &[&str]) -> (Server, Server) {
    let trusted = format!("{RELAYING_IP}/32");
    let mut args = vec!["--proxy-from", &trusted, "--grace", "60", "--fixed-colours"];
    args.extend_from_slice(a_args);
    let a = host_with(db, "A", &args);
    let b_addr = format!("{RELAYING_IP}:{}", free_port());
    let mut args = vec!["--listen", &b_addr, "--advertise", &b_addr];
    args.extend_from_slice(b_args);
    let b = host_with(db, "B", &args);
    for server in [&a, &b] {
        wait_health(server, "ok: cluster of 2 hosts");
    }
    (a, b)
}

/// X (joined first) and O on `server`, past the start of a Tic-Tac-Toe game; O's token.
fn tictactoe(server: &Server) -> (TextClient, TextClient, String) {
    let mut x = TextClient::join(server.addr(), "tictactoe");
    x.next_is("GAME WAITING 1");
    let mut o = TextClient::join(server.addr(), "tictactoe");
    let mut tokens = Vec::new();
    for (c, team) in [(&mut x, "GAME TEAM 1 X"), (&mut o, "GAME TEAM 2 O")] {
        c.expect(team);
        let line = c.next_is("GAME TOKEN ");
        tokens.push(line.split(' ').nth(2).unwrap().to_owned());
    }
    x.expect("READY");
    (x, o, tokens.remove(1))
}

/// The records written in `dir` once there is one.
fn recorded(dir: &Scratch) -> Vec<String> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let records: Vec<String> = dir
            .entries()
            .into_iter()
            .filter(|name| !name.starts_with('.'))
            .collect();
        if !records.is_empty() || Instant::now() > deadline {
            return records;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn s4_a_token_of_another_host_is_relayed_there_and_the_game_goes_on() {
    let Some(db) = database() else { return };
    let records = Scratch::new("cluster-records");
    let dir = records.path().to_str().unwrap();
    let (a, b) = two_hosts(&db, &["--record-dir", dir], &[]);
    let (mut x, mut o, token) = tictactoe(&a);
    assert!(token.starts_with('A'), "a token of host A: {token}");
    x.send("MOVE b2");
    o.expect("READY");
    let _ = o.stream().shutdown(std::net::Shutdown::Both);
    x.expect("GAME AWAY 2 60000");
    // Back through host B, with a move right behind the request.
    let mut o = TextClient::connect(b.addr());
    o.send_raw(format!("GAME RESUME {token}\nMOVE a1\n").as_bytes());
    o.expect("GAME RESUMED 1");
    o.expect(&format!("GAME TOKEN {token} 60000"));
    b.wait_log("relayed to 127.0.0.1:");
    x.expect("GAME BACK 2");
    x.expect("GAME MOVED 2 a1");
    for (mover, m) in [("x", "b1"), ("o", "a2"), ("x", "b3")] {
        let c = if mover == "x" { &mut x } else { &mut o };
        c.expect("READY");
        c.send(&format!("MOVE {m}"));
        x.expect("GAME MOVED");
    }
    assert_eq!(
        x.expect("GAME OVER"),
        "GAME OVER 1 three in a line: b1 b2 b3"
    );
    o.expect("RESULT LOSE");
    let over = a.wait_log("game over: tictactoe");
    assert!(over.contains("moves 5 transcript b2 a1 b1 a2 b3"), "{over}");
    assert_eq!(recorded(&records).len(), 1, "one record, on host A");
    // The session saw the client's own address, carried by B's PROXY header.
    a.wait_log("127.0.0.1:");
}

#[test]
fn s4_a_token_of_a_host_nobody_knows_is_refused() {
    let Some(db) = database() else { return };
    let (_a, b) = two_hosts(&db, &[], &[]);
    let mut c = TextClient::connect(b.addr());
    c.send(&format!("GAME RESUME Z{}", "0".repeat(26)));
    c.expect("ERROR no running game has this token");
}

/// From the relayed connection's first byte to the resumed seat's `READY`, through host
/// B's relay to host A: 200 resumes, each replacing the last connection. A figure for the
/// report, not a timed test on a shared machine:
/// `cargo test -p reversi-tests --test cluster -- --ignored --nocapture`.
#[test]
#[ignore]
fn s4_resumes_through_the_relay_p50_p99() {
    let Some(db) = database() else { return };
    let (a, b) = two_hosts(&db, &[], &[]);
    let (mut x, mut o, token) = tictactoe(&a);
    x.send("MOVE b2");
    o.expect("READY");
    let mut samples = Vec::new();
    for _ in 0..200 {
        let started = Instant::now();
        let mut next = TextClient::connect(b.addr());
        next.send(&format!("GAME RESUME {token}"));
        next.expect("READY");
        samples.push(started.elapsed());
        o = next;
    }
    let p50 = reversi_tests::quantile(&mut samples, 0.5);
    let p99 = reversi_tests::quantile(&mut samples, 0.99);
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!("\nresume through the relay, connect to READY: p50 {p50:?}, p99 {p99:?}\n")
            .as_bytes(),
    );
    o.send("MOVE a1");
    x.expect("GAME MOVED 2 a1");
}

/// The body of `GET /health`.
fn health(addr: SocketAddr) -> String {
    let mut stream = TcpStream::connect(addr).expect("connect for GET /health");
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    write!(stream, "GET /health HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read /health");
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default()
}

/// Waits until `GET /health`'s cluster line starts with `want`; returns the line.
fn wait_health(server: &Server, want: &str) -> String {
    let deadline = Instant::now() + CLUSTER_PATIENCE;
    loop {
        let body = health(server.addr());
        let line = body.lines().nth(1).unwrap_or_default().to_owned();
        assert_eq!(body.lines().next(), Some("taking games"), "{body}");
        if line.starts_with(want) {
            return line;
        }
        assert!(
            Instant::now() < deadline,
            "/health never said {want:?}; it says {body:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn s4_hosts_join_serve_alone_while_postgresql_is_down_and_join_again() {
    let Some(db) = database() else { return };
    let a = host(&db, "A");
    let b = host(&db, "B");
    wait_health(&a, "ok: cluster of 2 hosts");
    wait_health(&b, "ok: cluster of 2 hosts");
    a.wait_log(&format!("cluster: host B at {}", b.addr()));

    db.stop().expect("stop PostgreSQL");
    for server in [&a, &b] {
        let line = wait_health(server, "alone: PostgreSQL unreachable since ");
        assert!(line.ends_with(')'), "{line}");
        server.wait_log("; serving this host's players alone");
        // Alone, a host still plays its own players' games.
        let (mut black, mut white) = server.pair();
        let played =
            reversi_tests::play_out(&mut black, &mut white, &mut reversi_tests::Rng::new(7));
        assert!(played.moves > 0);
    }

    db.start_again().expect("start PostgreSQL again");
    for server in [&a, &b] {
        wait_health(server, "ok: cluster of 2 hosts");
        server.wait_log("cluster: PostgreSQL back;");
    }
}

#[test]
fn s4_a_host_without_postgresql_starts_and_serves_alone() {
    let Some(db) = database() else { return };
    let conninfo = db.params(DB);
    db.stop().expect("stop PostgreSQL");
    let mut args = vec!["--cluster", &conninfo];
    args.extend_from_slice(AS_BEFORE);
    let alone = Server::start(&args);
    wait_health(&alone, "alone: PostgreSQL unreachable since ");
    alone.wait_log("; serving this host's players alone");
}

/// Where Debian's package puts HAProxy.
const HAPROXY: &str = "/usr/sbin/haproxy";
/// The address HAProxy connects to the hosts from: they trust its headers.
const BALANCER_IP: &str = "127.0.0.3";

/// An HAProxy in front of `hosts` (in this order, `balance first`), checking them as
/// deploy/haproxy.cfg does, sending PROXY v2 headers from [`BALANCER_IP`]; its front
/// address. `None` (and a message) where HAProxy is not installed.
fn balancer(hosts: &[SocketAddr], dir: &Scratch) -> Option<(std::process::Child, SocketAddr)> {
    balancer_with(hosts, dir, 100)
}

/// [`balancer`], with `maxconn` connections per host.
fn balancer_with(
    hosts: &[SocketAddr],
    dir: &Scratch,
    maxconn: u32,
) -> Option<(std::process::Child, SocketAddr)> {
    if !std::path::Path::new(HAPROXY).exists() {
        reversi_tests::skipped(&format!(
            "{HAPROXY} is not installed (scripts/install-tools.sh haproxy)"
        ));
        return None;
    }
    let front = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap();
    let servers: String = hosts
        .iter()
        .enumerate()
        .map(|(i, addr)| format!("    server h{i} {addr} source {BALANCER_IP}\n"))
        .collect();
    let config = format!(
        "defaults\n    mode tcp\n    timeout connect 2s\n    timeout client 60s\n    \
         timeout server 60s\n    timeout queue 10s\n\
         frontend players\n    bind {front}\n    default_backend reversid\n\
         backend reversid\n    balance first\n    option httpchk\n    \
         http-check send meth GET uri /health ver HTTP/1.1 hdr Host reversid\n    \
         http-check expect status 200\n    default-server send-proxy-v2 maxconn {maxconn}\n    \
         default-server check inter 200ms fall 2 rise 2\n{servers}"
    );
    let path = dir.path().join("haproxy.cfg");
    std::fs::write(&path, config).unwrap();
    let child = std::process::Command::new(HAPROXY)
        .arg("-db")
        .arg("-f")
        .arg(&path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start haproxy");
    Some((child, front))
}

/// Where host B (of [`two_hosts`]) listens, on [`RELAYING_IP`].
fn b_listener(b: &Server) -> SocketAddr {
    let found = b.logs().iter().find_map(|l| {
        let addr = l.split("listening on ").nth(1)?;
        addr.starts_with(RELAYING_IP)
            .then(|| addr.parse::<SocketAddr>().ok())?
    });
    found.expect("B listens on 127.0.0.2")
}

/// Kills the balancer when the test ends, however it ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn s4_a_player_back_through_haproxy_on_the_other_host_is_relayed_to_its_game() {
    let Some(db) = database() else { return };
    let dir = Scratch::new("cluster-haproxy");
    let balancer_block = format!("{BALANCER_IP}/32");
    let trusts_balancer = ["--proxy-from", balancer_block.as_str()];
    let (a, b) = two_hosts(&db, &trusts_balancer, &trusts_balancer);
    // B first: a player sent through the front lands there, away from its game on A.
    let Some((child, front)) = balancer(&[b_listener(&b), a.addr()], &dir) else {
        return;
    };
    let _haproxy = Killed(child);
    let (mut x, mut o, token) = tictactoe(&a);
    x.send("MOVE b2");
    o.expect("READY");
    let _ = o.stream().shutdown(std::net::Shutdown::Both);
    x.expect("GAME AWAY 2 60000");
    let deadline = Instant::now() + CLUSTER_PATIENCE;
    let mut o = loop {
        // HAProxy takes a host in after two passed checks: until then it refuses.
        if let Ok(stream) = TcpStream::connect(front) {
            let mut o = TextClient::from_stream(stream);
            o.send(&format!("GAME RESUME {token}"));
            if o.recv().is_some_and(|line| line.starts_with("GAME TYPE")) {
                break o;
            }
        }
        assert!(Instant::now() < deadline, "no resume through HAProxy");
        std::thread::sleep(Duration::from_millis(100));
    };
    o.expect("GAME RESUMED 1");
    b.wait_log("relayed to 127.0.0.1:");
    x.expect("GAME BACK 2");
    o.expect("READY");
    o.send("MOVE a1");
    x.expect("GAME MOVED 2 a1");
}

/// `GAME LOBBY`'s `GAME CHALLENGE` lines.
fn lobby(c: &mut TextClient) -> Vec<String> {
    c.send("GAME LOBBY");
    let mut listed = Vec::new();
    loop {
        let line = c.recv().expect("the lobby's answer");
        if line.starts_with("GAME CHALLENGES ") {
            return listed;
        }
        if line.starts_with("GAME CHALLENGE ") {
            listed.push(line);
        }
    }
}

/// Waits until `c`'s lobby lists `code` (`listed`) or not.
fn wait_lobby(c: &mut TextClient, code: &str, listed: bool) -> Vec<String> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let lines = lobby(c);
        if lines.iter().any(|l| l.contains(code)) == listed {
            return lines;
        }
        assert!(Instant::now() < deadline, "lobby {lines:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A public Tic-Tac-Toe challenge of `c`; its code.
fn invite_public(c: &mut TextClient) -> String {
    c.send("GAME INVITE tictactoe public");
    let line = c.next_is("GAME CODE ");
    c.next_is("GAME LINK ");
    c.next_is("GAME WAITING 1");
    line.split(' ').nth(2).unwrap().to_owned()
}

/// X wins a started Tic-Tac-Toe game on the diagonal's column b.
fn x_wins(x: &mut TextClient, o: &mut TextClient) {
    for (mover, m) in [
        ("x", "b2"),
        ("o", "a1"),
        ("x", "b1"),
        ("o", "a2"),
        ("x", "b3"),
    ] {
        let c = if mover == "x" { &mut *x } else { &mut *o };
        c.expect("READY");
        c.send(&format!("MOVE {m}"));
    }
    assert_eq!(
        x.expect("GAME OVER"),
        "GAME OVER 1 three in a line: b1 b2 b3"
    );
    o.expect("RESULT LOSE");
}

#[test]
fn s4_a_code_made_on_one_host_is_listed_and_joined_on_the_other_and_played_there() {
    let Some(db) = database() else { return };
    let records = Scratch::new("cluster-code-records");
    let dir = records.path().to_str().unwrap();
    let (a, b) = two_hosts(&db, &["--record-dir", dir], &[]);
    let mut x = TextClient::connect(a.addr());
    let code = invite_public(&mut x);
    let mut o = TextClient::connect(b.addr());
    let listed = wait_lobby(&mut o, &code, true);
    assert_eq!(listed.len(), 1, "one public challenge, of A: {listed:?}");
    let words: Vec<&str> = listed[0].split(' ').collect();
    assert_eq!(words[..3], ["GAME", "CHALLENGE", code.as_str()]);
    assert!(
        words[3].parse::<u64>().is_ok_and(|s| s <= 900),
        "{listed:?}"
    );
    assert_eq!(words[4], "tictactoe");
    assert!(listed[0].ends_with(" side=random public"), "{listed:?}");
    o.send(&format!("GAME JOIN {code}"));
    x.expect("GAME TEAM 1 X");
    o.expect("GAME TEAM 2 O");
    b.wait_log("relayed to 127.0.0.1:");
    x_wins(&mut x, &mut o);
    a.wait_log("game over: tictactoe");
    assert_eq!(recorded(&records).len(), 1, "one record, on host A");
    // Used: both hosts answer alike, B from what A published.
    for host in [&b, &a] {
        let mut late = TextClient::connect(host.addr());
        late.send(&format!("GAME JOIN {code}"));
        assert_eq!(
            late.next_is("ERROR "),
            format!("ERROR challenge {code} was already accepted")
        );
    }
    assert!(wait_lobby(&mut TextClient::connect(b.addr()), &code, false).is_empty());
}

#[test]
fn s4_a_challenge_withdrawn_on_one_host_leaves_the_others_lobby_and_is_refused_there() {
    let Some(db) = database() else { return };
    let (a, b) = two_hosts(&db, &[], &[]);
    let mut x = TextClient::connect(a.addr());
    let code = invite_public(&mut x);
    let mut o = TextClient::connect(b.addr());
    wait_lobby(&mut o, &code, true);
    x.send("GAME QUIT");
    drop(x);
    wait_lobby(&mut o, &code, false);
    o.send(&format!("GAME JOIN {code}"));
    assert_eq!(
        o.next_is("ERROR "),
        format!("ERROR challenge {code} was withdrawn by its creator")
    );
}

#[test]
fn s4_two_lone_text_waiters_on_two_hosts_meet_on_the_older_ones_host() {
    let Some(db) = database() else { return };
    let (a, b) = two_hosts(&db, &[], &[]);
    let mut x = TextClient::join(a.addr(), "tictactoe");
    x.next_is("GAME WAITING 1");
    a.wait_log("cluster: 1 waiting alone for tictactoe; told the other hosts");
    let mut o = TextClient::join(b.addr(), "tictactoe");
    o.next_is("GAME WAITING 1");
    b.wait_log("alone for tictactoe; sent to host A");
    x.expect("GAME TEAM 1 X");
    o.expect("GAME TEAM 2 O");
    x_wins(&mut x, &mut o);
    let over = a.wait_log("game over: tictactoe");
    assert!(over.contains("moves 5 transcript b2 a1 b1 a2 b3"), "{over}");
    assert!(
        !b.logs().iter().any(|l| l.contains("game over")),
        "no game on B"
    );
}

#[test]
fn s4_two_lone_binary_reversi_clients_on_two_hosts_meet() {
    let Some(db) = database() else { return };
    let (a, b) = two_hosts(&db, &[], &[]);
    let mut first = a.join();
    a.wait_log("cluster: 1 waiting alone for reversi; told the other hosts");
    let mut second = b.join();
    b.wait_log("alone for reversi; sent to host A");
    // --fixed-colours: the first to wait plays black.
    assert_eq!(first.expect_connect_ok(), reversi_pdu::Colour::Black);
    assert_eq!(second.expect_connect_ok(), reversi_pdu::Colour::White);
    for c in [&mut first, &mut second] {
        c.expect_initial_position();
    }
    let played = reversi_tests::play_out(&mut first, &mut second, &mut reversi_tests::Rng::new(3));
    assert!(played.moves > 0);
    a.wait_log("game over: reversi");
}

/// A WebSocket to `server`'s `/ws`.
fn websocket(server: &Server) -> tungstenite::WebSocket<TcpStream> {
    let stream = TcpStream::connect(server.addr()).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let url = format!("ws://{}/ws", server.addr());
    tungstenite::client(url.as_str(), stream).unwrap().0
}

/// Reads messages until a text one starts with `prefix`.
fn until(ws: &mut tungstenite::WebSocket<TcpStream>, prefix: &str) -> String {
    loop {
        match ws.read().unwrap() {
            tungstenite::Message::Text(text) if text.starts_with(prefix) => {
                return text.to_string()
            }
            tungstenite::Message::Close(frame) => panic!("closed ({frame:?}) before {prefix:?}"),
            _ => {}
        }
    }
}

#[test]
fn s4_a_websocket_resume_through_the_other_host_reaches_the_game() {
    let Some(db) = database() else { return };
    let (a, b) = two_hosts(&db, &[], &[]);
    let (mut x, mut o, token) = tictactoe(&a);
    x.send("MOVE b2");
    o.expect("READY");
    let _ = o.stream().shutdown(std::net::Shutdown::Both);
    x.expect("GAME AWAY 2 60000");
    // The page reloaded, its WebSocket opened on host B.
    let mut page = websocket(&b);
    let resume = tungstenite::Message::text(format!("GAME RESUME {token}"));
    page.send(resume).unwrap();
    until(&mut page, "GAME RESUMED 1");
    b.wait_log("relayed to 127.0.0.1:");
    x.expect("GAME BACK 2");
    until(&mut page, "READY");
    page.send(tungstenite::Message::text("MOVE a1")).unwrap();
    x.expect("GAME MOVED 2 a1");
}

#[test]
fn s4_a_websocket_joins_a_code_of_the_other_host() {
    let Some(db) = database() else { return };
    let (a, b) = two_hosts(&db, &[], &[]);
    let mut x = TextClient::connect(a.addr());
    let code = invite_public(&mut x);
    wait_lobby(&mut TextClient::connect(b.addr()), &code, true);
    let mut page = websocket(&b);
    page.send(tungstenite::Message::text(format!("GAME JOIN {code}")))
        .unwrap();
    until(&mut page, "GAME TEAM 2 O");
    x.expect("GAME TEAM 1 X");
    x.expect("READY");
    x.send("MOVE b2");
    until(&mut page, "GAME MOVED 1 b2");
    a.wait_log("a challenge of tictactoe is accepted");
}

/// One player of the HAProxy figure: joins Tic-Tac-Toe through `front`, plays the first
/// free square at each `READY`, and once, at a `READY` after the first move, drops its
/// connection and comes back through `front` with its token. The time from the new
/// connection's first byte to its `READY`, if it came back.
fn dropping_player(front: SocketAddr) -> Result<Duration, String> {
    let connect = || {
        TcpStream::connect(front)
            .map(TextClient::from_stream)
            .map_err(|e| format!("connect: {e}"))
    };
    let mut c = connect()?;
    c.send("GAME TYPE tictactoe");
    let (mut token, mut taken, mut back) = (None, Vec::<String>::new(), None);
    loop {
        let line = c.recv().ok_or(format!("closed; back {back:?}"))?;
        let words: Vec<&str> = line.split(' ').collect();
        match words.as_slice() {
            ["GAME", "TOKEN", t, ..] => token = Some(t.to_string()),
            ["GAME", "MOVED", _, square] => taken.push(square.to_string()),
            ["GAME", "OVER", ..] => return back.ok_or(format!("over before a drop: {line}")),
            ["ERROR", ..] => return Err(line),
            ["READY"] => {
                if let (None, Some(token), false) = (back, &token, taken.is_empty()) {
                    let _ = c.stream().shutdown(std::net::Shutdown::Both);
                    let started = Instant::now();
                    c = connect()?;
                    c.send(&format!("GAME RESUME {token}"));
                    loop {
                        match c.recv() {
                            Some(line) if line == "READY" => break,
                            Some(line) if line.starts_with("ERROR") => return Err(line),
                            Some(_) => {}
                            None => return Err("closed while resuming".into()),
                        }
                    }
                    back = Some(started.elapsed());
                }
                let square = ["b2", "a1", "a2", "a3", "b1", "b3", "c1", "c2", "c3"]
                    .into_iter()
                    .find(|s| !taken.iter().any(|t| t == s))
                    .ok_or("no free square")?;
                taken.push(square.to_owned());
                c.send(&format!("MOVE {square}"));
            }
            _ => {}
        }
    }
}

/// H-haproxy (docs/design/play-together.md §14): two hosts behind HAProxy (`balance
/// first`, 25 connections a host, so games fill both and a pair straddles them), 200
/// Tic-Tac-Toe games, 20 at once; each player drops once and comes back through the
/// front, landing on either host. A figure, not a timed test on a shared machine:
/// `flock -o /tmp/bench.lock cargo test -p reversi-tests --test cluster -- --ignored
/// --nocapture s4_haproxy`.
#[test]
#[ignore]
fn s4_haproxy_200_games_on_two_hosts_each_player_dropped_once() {
    let Some(db) = database() else { return };
    let dir = Scratch::new("cluster-haproxy-200");
    let (records_a, records_b) = (Scratch::new("h200-a"), Scratch::new("h200-b"));
    let balancer_block = format!("{BALANCER_IP}/32");
    // A relays too (lone waiters may move either way): from an address of its own, which B
    // trusts, as B's own tests' clients (127.0.0.1) send no header.
    let a_addr = format!("{A_RELAYING_IP}:{}", free_port_on(A_RELAYING_IP));
    let a_args = [
        "--proxy-from",
        &balancer_block,
        "--listen",
        &a_addr,
        "--advertise",
        &a_addr,
        "--record-dir",
        records_a.path().to_str().unwrap(),
    ];
    let a_block = format!("{A_RELAYING_IP}/32");
    let b_args = [
        "--proxy-from",
        &balancer_block,
        "--proxy-from",
        &a_block,
        "--grace",
        "60",
        "--record-dir",
        records_b.path().to_str().unwrap(),
    ];
    let (a, b) = two_hosts(&db, &a_args, &b_args);
    let Some((child, front)) = balancer_with(&[b_listener(&b), a.addr()], &dir, 25) else {
        return;
    };
    let _haproxy = Killed(child);
    // HAProxy takes a host in after two passed checks (200 ms apart).
    let deadline = Instant::now() + CLUSTER_PATIENCE;
    loop {
        if let Ok(stream) = TcpStream::connect(front) {
            let mut probe = TextClient::from_stream(stream);
            probe.send("GAME LOBBY");
            if probe
                .recv()
                .is_some_and(|l| l.starts_with("GAME CHALLENGES"))
            {
                break;
            }
        }
        assert!(Instant::now() < deadline, "HAProxy never took a host in");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(2));
    let started = Instant::now();
    let (mut samples, mut failures) = (Vec::new(), Vec::new());
    for _wave in 0..10 {
        let players: Vec<_> = (0..40)
            .map(|_| std::thread::spawn(move || dropping_player(front)))
            .collect();
        for player in players {
            match player.join().expect("a player's thread") {
                Ok(back) => samples.push(back),
                Err(why) => failures.push(why),
            }
        }
    }
    let elapsed = started.elapsed();
    let over = |s: &Server| {
        s.logs()
            .iter()
            .filter(|l| l.contains("game over: tictactoe"))
            .count()
    };
    let relayed = |s: &Server| {
        s.logs()
            .iter()
            .filter(|l| l.contains("relayed to "))
            .count()
    };
    let moved = |s: &Server| {
        s.logs()
            .iter()
            .filter(|l| l.contains("; sent to host "))
            .count()
    };
    let (games_a, games_b) = (over(&a), over(&b));
    // A record is written as its session ends, after its last line.
    let records = || {
        [&records_a, &records_b]
            .iter()
            .flat_map(|d| d.entries())
            .filter(|name| !name.starts_with('.'))
            .count()
    };
    let deadline = Instant::now() + PATIENCE;
    while records() < games_a + games_b && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let records = records();
    let p50 = reversi_tests::quantile(&mut samples, 0.5);
    let p99 = reversi_tests::quantile(&mut samples, 0.99);
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!(
            "\nH-haproxy: {} games in {elapsed:?} (A {games_a}, B {games_b}), {records} records; \
             {} connections relayed, {} lone waiters moved; {} players back, first byte to READY \
             p50 {p50:?}, p99 {p99:?}\n",
            games_a + games_b,
            relayed(&a) + relayed(&b),
            moved(&a) + moved(&b),
            samples.len(),
        )
        .as_bytes(),
    );
    failures.sort();
    failures.dedup();
    if !failures.is_empty() {
        for (name, s) in [("A", &a), ("B", &b)] {
            for line in s.logs().iter().filter(|l| {
                [
                    "refused", "abort", "timeout", "cannot", "error", "forfeit", "left",
                ]
                .iter()
                .any(|w| l.contains(w))
            }) {
                eprintln!("{name}: {line}");
            }
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
    assert_eq!(games_a + games_b, 200);
    assert_eq!(records, 200);
    assert_eq!(samples.len(), 400, "every player came back once");
}

#[test]
fn s4_a_lone_websocket_waiter_meets_a_text_one_on_the_other_host() {
    let Some(db) = database() else { return };
    let (a, b) = two_hosts(&db, &[], &[]);
    let mut x = TextClient::join(a.addr(), "tictactoe");
    x.next_is("GAME WAITING 1");
    a.wait_log("cluster: 1 waiting alone for tictactoe; told the other hosts");
    let mut page = websocket(&b);
    page.send(tungstenite::Message::text("GAME TYPE tictactoe"))
        .unwrap();
    until(&mut page, "GAME WAITING 1");
    b.wait_log("alone for tictactoe; sent to host A");
    x.expect("GAME TEAM 1 X");
    until(&mut page, "GAME TEAM 2 O");
    x.expect("READY");
    x.send("MOVE b2");
    until(&mut page, "GAME MOVED 1 b2");
    until(&mut page, "READY");
    page.send(tungstenite::Message::text("MOVE a1")).unwrap();
    x.expect("GAME MOVED 2 a1");
}

/// Reads a seed 000 client's lines up to and including the next `READY` or `RESULT`.
fn seed_000_until_ready(c: &mut TextClient) -> String {
    loop {
        let line = c
            .recv()
            .unwrap_or_else(|| panic!("closed; seen {:?}", c.seen));
        if line == "READY" || line.starts_with("RESULT") {
            return line;
        }
    }
}

/// Plays a seed 000 Duell game between `south` (first) and `north` to its end, both
/// sides by the module's own bot; the two `RESULT` lines.
fn seed_000_play_out(south: &mut TextClient, north: &mut TextClient) -> [String; 2] {
    use reversi_games::{Action, Team};
    let module = reversi_games::registry::find("duell").unwrap();
    let mut game = (module.new_game)(&Default::default());
    let mut bot = (module.own_bot().unwrap())(7);
    assert_eq!(seed_000_until_ready(south), "READY");
    for plies in 0.. {
        assert!(plies < 2000, "the game does not end");
        let team = game.turn().expect("the server said READY");
        let action = bot.choose(&*game, team, Duration::from_millis(2)).unwrap();
        game.play(team, &action, 0).unwrap();
        let Action::Move(points) = &action else {
            panic!("{action:?} is not a move");
        };
        let squares: Vec<String> = points.iter().map(|p| format!("{} {}", p.x, p.y)).collect();
        let (mover, other) = match team == Team::FIRST {
            true => (&mut *south, &mut *north),
            false => (&mut *north, &mut *south),
        };
        mover.send(&format!("MOVE {} {}", points.len(), squares.join(" ")));
        let heard = seed_000_until_ready(other);
        if heard.starts_with("RESULT") {
            return [heard, seed_000_until_ready(mover)];
        }
    }
    unreachable!()
}

#[test]
fn s5_two_lone_seed_000_duell_clients_on_two_hosts_meet_and_play_to_the_end() {
    let Some(db) = database() else { return };
    let records = Scratch::new("cluster-duell-records");
    let dir = records.path().to_str().unwrap();
    let seed = ["--listen-seed", "duell=127.0.0.1:0"];
    let (a, b) = two_hosts(&db, &[&seed[..], &["--record-dir", dir]].concat(), &seed);
    // Seed 000's clients say nothing first: queued on arrival.
    let mut south = TextClient::connect(a.seed_addr("duell"));
    a.wait_log("cluster: 1 waiting alone for duell; told the other hosts");
    let mut north = TextClient::connect(b.seed_addr("duell"));
    b.wait_log("alone for duell; sent to host A");
    // Nothing was said to north on B: its first lines are the game's, from A.
    for c in [&mut south, &mut north] {
        assert_eq!(c.recv().unwrap(), "GAME TYPE Conquest");
        assert_eq!(c.recv().unwrap(), "GAME BOARD ConquestBoard 9 8");
    }
    let results = seed_000_play_out(&mut south, &mut north);
    assert!(
        results.iter().any(|r| r.starts_with("RESULT WIN"))
            && results.iter().any(|r| r.starts_with("RESULT LOSE"))
            || results.iter().all(|r| r.starts_with("RESULT DRAW")),
        "{results:?}"
    );
    assert_eq!(south.board, north.board);
    a.wait_log("game over: duell");
    assert_eq!(recorded(&records).len(), 1, "one record, on host A");
    assert!(
        !b.logs().iter().any(|l| l.contains("game over")),
        "no game on B"
    );
}

/// Plays a seed 002 client of `species` (its player's letter `me`) to the end with the
/// module's bot, a step each time it is told it may move; the winner it is told.
fn seed_002_play_out(
    mut c: TextClient,
    species: reversi_games::foxes::Species,
    me: char,
) -> String {
    use reversi_games::foxes::{Board, FoxesBot};
    let mut bot = FoxesBot::new(u64::from(me));
    let (mut board, mut may_move) = (None, false);
    loop {
        let line = c
            .recv()
            .unwrap_or_else(|| panic!("closed; seen {:?}", c.seen));
        let bytes = line.as_bytes();
        assert!(
            bytes.len() >= 3 && bytes[0] == b'B',
            "not the board's: {line:?}"
        );
        match (bytes[1] == me as u8, bytes[2]) {
            (false, b'B') => board = Some(Board::from_letters(&line[4..]).unwrap()),
            (true, b'N') => may_move = true,
            (true, b'S') => return line[4..].to_owned(),
            _ => {}
        }
        let Some(board) = board.as_ref().filter(|_| may_move) else {
            continue;
        };
        if let Some(step) = bot.plan(board, species) {
            let (from, to) = (step.from, step.to);
            c.send(&format!("{me}BM {} {} {} {}", from.x, from.y, to.x, to.y));
            may_move = false;
        }
    }
}

#[test]
fn s5_two_lone_seed_002_foxes_clients_on_two_hosts_meet_and_play_to_the_end() {
    use reversi_games::foxes::Species;
    let Some(db) = database() else { return };
    let records = Scratch::new("cluster-foxes-records");
    let dir = records.path().to_str().unwrap();
    let (a, b) = two_hosts(
        &db,
        &[reversi_tests::QUICK_FOXES, &["--record-dir", dir]].concat(),
        reversi_tests::QUICK_FOXES,
    );
    let mut fox = TextClient::connect(a.seed_addr("foxes"));
    fox.send("PBJ");
    a.wait_log("cluster: 1 waiting alone for foxes; told the other hosts");
    // The seed's own client joins with PCJ: B writes its join again as PBJ, which means the same.
    let mut dolphin = TextClient::connect(b.seed_addr("foxes"));
    dolphin.send("PCJ");
    b.wait_log("alone for foxes; sent to host A");
    assert_eq!(
        fox.recv().unwrap(),
        "BPT F",
        "the first to wait plays the foxes"
    );
    assert_eq!(dolphin.recv().unwrap(), "BPT D");
    let foxes = std::thread::spawn(move || seed_002_play_out(fox, Species::Fox, 'F'));
    let dolphins = seed_002_play_out(dolphin, Species::Dolphin, 'D');
    assert_eq!(foxes.join().unwrap(), dolphins, "both told the same winner");
    a.wait_log("game over: foxes");
    assert_eq!(recorded(&records).len(), 1, "one record, on host A");
    assert!(
        !b.logs().iter().any(|l| l.contains("game over")),
        "no game on B"
    );
}

const PASSWORD: &str = "correct horse battery";

/// Two hosts that share one PostgreSQL store (`--database`) besides the cluster's bus:
/// an account is the same on both.
fn two_hosts_one_store(db: &postgres::Server, a_args: &[&str]) -> (Server, Server) {
    db.create_db("store").expect("create the store's database");
    let store = db.params("store");
    let shared = ["--database", store.as_str()];
    two_hosts(db, &[&shared[..], a_args].concat(), &shared)
}

/// A text connection to `server` that registers `name` (and is signed in as it).
fn registered(server: &Server, name: &str) -> TextClient {
    let mut c = TextClient::connect(server.addr());
    c.send(&format!("GAME REGISTER {name} {PASSWORD}"));
    assert_eq!(c.next_is("GAME SIGNEDIN "), format!("GAME SIGNEDIN {name}"));
    c
}

/// `c` makes a rated Tic-Tac-Toe challenge in which it plays X; its code.
fn invite_rated(c: &mut TextClient) -> String {
    c.send("GAME INVITE tictactoe side=1 rated");
    let line = c.next_is("GAME CODE ");
    line.split_whitespace().nth(2).unwrap().to_owned()
}

/// `name`'s Tic-Tac-Toe rating as a sign-in on `server` reads it.
fn tictactoe_rating(server: &Server, name: &str) -> u32 {
    let mut c = TextClient::connect(server.addr());
    c.send(&format!("GAME SIGNIN {name} {PASSWORD}"));
    let signed = c.next_is("GAME SIGNEDIN ");
    signed
        .strip_prefix(&format!("GAME SIGNEDIN {name} tictactoe="))
        .and_then(|r| r.trim_end_matches('?').parse().ok())
        .unwrap_or_else(|| panic!("{name} has no tictactoe rating: {signed}"))
}

/// `c` joins the private challenge `code` of another host once its host has mirrored it
/// (a private code is in no lobby to wait for); the first line after the join.
fn join_once_mirrored(c: &mut TextClient, code: &str) -> String {
    let deadline = Instant::now() + CLUSTER_PATIENCE;
    loop {
        c.send(&format!("GAME JOIN {code}"));
        let line = c.recv().expect("an answer to GAME JOIN");
        if !line.starts_with("ERROR no challenge") || Instant::now() > deadline {
            return line;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn s5_an_account_signed_in_on_one_host_joins_a_rated_challenge_of_the_other() {
    let Some(db) = database() else { return };
    let (a, b) = two_hosts_one_store(&db, &[]);
    let mut alice = registered(&a, "Alice");
    let code = invite_rated(&mut alice);
    // Bob signs in on B; his join is relayed to A with his account (TLV 0xE1).
    let mut bob = registered(&b, "Bob");
    let joined = join_once_mirrored(&mut bob, &code);
    assert!(!joined.starts_with("ERROR"), "{joined}");
    bob.expect("GAME TEAM 2 O");
    alice.expect("GAME TEAM 1 X");
    b.wait_log("relayed to 127.0.0.1:");
    x_wins(&mut alice, &mut bob);
    a.wait_log("game over: tictactoe");
    // One rated game in the shared store, naming both accounts, read from either host.
    let deadline = Instant::now() + CLUSTER_PATIENCE;
    let history = loop {
        let mut c = TextClient::connect(b.addr());
        c.send("GAME HISTORY Bob");
        let first = c.recv().unwrap();
        if first.starts_with("GAME ARCHIVED ") {
            c.expect("GAME HISTORY 1");
            break first;
        }
        assert!(Instant::now() < deadline, "not archived: {first}");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(history.ends_with(" 1-0 rated Alice Bob"), "{history}");
    assert!(tictactoe_rating(&a, "Alice") > 1500);
    assert!(tictactoe_rating(&b, "Bob") < 1500);
    assert!(
        !b.logs().iter().any(|l| l.contains("game over")),
        "no game on B"
    );
}

/// A PROXY v2 header (TCP over IPv4) naming `client`, with a relaying host's TLVs: the
/// protocol (0xE0, text) and an identity in words (0xE1).
fn header_with_identity(client: SocketAddr, server: SocketAddr, words: &str) -> Vec<u8> {
    let (SocketAddr::V4(c), SocketAddr::V4(s)) = (client, server) else {
        panic!("IPv4 only here");
    };
    let mut block = Vec::new();
    block.extend_from_slice(&c.ip().octets());
    block.extend_from_slice(&s.ip().octets());
    block.extend_from_slice(&c.port().to_be_bytes());
    block.extend_from_slice(&s.port().to_be_bytes());
    block.extend_from_slice(&[0xE0, 0, 1, 1, 0xE1]);
    block.extend_from_slice(&(words.len() as u16).to_be_bytes());
    block.extend_from_slice(words.as_bytes());
    let mut header = b"\r\n\r\n\0\r\nQUIT\n\x21\x11".to_vec();
    header.extend_from_slice(&(block.len() as u16).to_be_bytes());
    header.extend_from_slice(&block);
    header
}

/// A connection to `server` from loopback address `ip`.
fn connect_from(ip: &str, server: &Server) -> TcpStream {
    let domain = socket2::Domain::IPV4;
    let socket = socket2::Socket::new(domain, socket2::Type::STREAM, None).unwrap();
    let from: SocketAddr = format!("{ip}:0").parse().unwrap();
    socket.bind(&from.into()).unwrap();
    socket.connect(&server.addr().into()).unwrap();
    socket.into()
}

#[test]
fn s5_an_identity_from_a_proxy_that_is_no_host_is_ignored_and_from_a_client_refused() {
    /// A balancer A trusts (`--proxy-from`) that is no host of the cluster.
    const BALANCER_IP: &str = "127.0.0.5";
    let Some(db) = database() else { return };
    let trusted = format!("{BALANCER_IP}/32");
    let (a, _b) = two_hosts_one_store(&db, &["--proxy-from", &trusted]);
    let mut alice = registered(&a, "Alice");
    let code = invite_rated(&mut alice);
    let client: SocketAddr = "203.0.113.7:50000".parse().unwrap();
    let forged = header_with_identity(client, a.addr(), "account 2 Mallory");
    // From the trusted balancer: the header names the client, the identity is ignored.
    let mut stream = connect_from(BALANCER_IP, &a);
    stream.write_all(&forged).unwrap();
    let mut mallory = TextClient::from_stream(stream);
    mallory.send(&format!("GAME JOIN {code}"));
    assert_eq!(
        mallory.next_is("ERROR "),
        "ERROR a rated game needs an account; sign in first (GAME SIGNIN)"
    );
    a.wait_log("an identity (TLV 0xE1) from a proxy that is no host of the cluster; ignored");
    // From anyone else: a PROXY header at all is refused as a spoof.
    let mut stream = connect_from("127.0.0.1", &a);
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    stream.write_all(&forged).unwrap();
    stream
        .write_all(format!("GAME JOIN {code}\n").as_bytes())
        .unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    assert!(
        !String::from_utf8_lossy(&answer).contains("GAME TEAM"),
        "{answer:?}"
    );
    a.wait_log("refused: a PROXY header from an address that is not a trusted proxy");
    // The challenge is still open for an account.
    let mut bob = registered(&a, "Bob");
    bob.send(&format!("GAME JOIN {code}"));
    alice.expect("GAME TEAM 1 X");
    bob.expect("GAME TEAM 2 O");
}

/// Aborts `server`'s end of every connection from `peer_ip` with `ss -K` (its peer gets a
/// reset, as from a host lost mid-game); false (and a message) where `ss -K` cannot.
fn abort_connections_from(server: &Server, peer_ip: &str) -> bool {
    let port = format!(":{}", server.addr().port());
    let out = std::process::Command::new("ss")
        .args(["-K", "-t", "dst", peer_ip, "sport", "=", &port])
        .output();
    match out {
        Ok(out) if String::from_utf8_lossy(&out.stdout).contains(peer_ip) => true,
        Ok(out) => {
            let why = String::from_utf8_lossy(&out.stderr).into_owned();
            reversi_tests::skipped(&format!("ss -K aborted no connection: {why}"));
            false
        }
        Err(e) => {
            reversi_tests::skipped(&format!("no ss: {e}"));
            false
        }
    }
}

#[test]
fn s5_a_relayed_client_whose_host_is_lost_mid_game_is_told_and_closed() {
    let Some(db) = database() else { return };
    let (a, b) = two_hosts(&db, &[], &[]);
    let mut x = TextClient::connect(a.addr());
    let code = invite_public(&mut x);
    let mut o = TextClient::connect(b.addr());
    wait_lobby(&mut o, &code, true);
    o.send(&format!("GAME JOIN {code}"));
    x.expect("GAME TEAM 1 X");
    o.expect("GAME TEAM 2 O");
    x.expect("READY");
    x.send("MOVE b2");
    o.expect("READY");
    // B's relay to A is reset mid-game; O keeps its own connection open.
    if !abort_connections_from(&a, RELAYING_IP) {
        return;
    }
    assert_eq!(
        o.next_is("ERROR "),
        "ERROR the connection to the host of this game was lost"
    );
    o.expect_closed(&[]);
}

#[test]
fn s5_a_guests_name_travels_with_a_lone_waiter_moved_to_the_other_host() {
    let Some(db) = database() else { return };
    // No store: names are taken unchecked on both hosts, so a guest's name means the same.
    let (a, b) = two_hosts(&db, &["--no-store"], &["--no-store"]);
    let mut x = TextClient::connect(a.addr()).keep_every_line();
    x.send("GAME TYPE tictactoe");
    x.next_is("GAME WAITING 1");
    a.wait_log("cluster: 1 waiting alone for tictactoe; told the other hosts");
    let mut o = TextClient::connect(b.addr());
    o.send("GAME NAME carol");
    assert_eq!(o.next_is("GAME GUEST "), "GAME GUEST carol");
    o.send("GAME TYPE tictactoe");
    b.wait_log("alone for tictactoe; sent to host A");
    x.expect("GAME TEAM 1 X");
    assert_eq!(x.expect("GAME PLAYER 2 "), "GAME PLAYER 2 guest carol -");
}
