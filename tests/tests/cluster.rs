//! Several hosts (spec/DEPLOY.md §4; docs/design/play-together.md §11): reversid hosts
//! that share a private PostgreSQL learn of each other through it, and serve their own
//! players alone while it is down. Skipped, with a message, where PostgreSQL's programs
//! are not installed (scripts/install-tools.sh postgresql).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use reversi_tests::postgres;
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
    let conninfo = db.params(DB);
    let mut args = vec!["--host-id", id, "--cluster", &conninfo];
    args.extend_from_slice(UNLIMITED);
    args.extend_from_slice(AS_BEFORE);
    Server::start(&args)
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
