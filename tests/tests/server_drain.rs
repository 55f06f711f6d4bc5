//! Draining a host (spec/DEPLOY.md §7): told by `reversid ctl drain` or SIGUSR1, it
//! takes no new games while its running games finish, and its health check fails so
//! a balancer sends new players elsewhere.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::Command;

use reversi_tests::scratch::Scratch;
use reversi_tests::{play_out, reversid_binary, Msg, Rng, Server, Signal, PATIENCE};

/// The status line of the answer to `GET path` on `addr`, and the whole answer.
fn http_get(addr: SocketAddr, path: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).expect("connect for an HTTP request");
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .expect("read an HTTP answer");
    let status = answer.lines().next().unwrap_or_default().to_owned();
    (status, answer)
}

/// `reversid ctl ORDER --pid-file PID_FILE`: its stdout, after checking it succeeded.
fn ctl(order: &str, pid_file: &Path) -> String {
    let out = Command::new(reversid_binary())
        .args(["ctl", order, "--pid-file"])
        .arg(pid_file)
        .output()
        .expect("run reversid ctl");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "reversid ctl {order}: {stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The value of the sample named exactly `series` in the server's metrics.
fn sample(server: &Server, series: &str) -> Option<f64> {
    let (_, metrics) = http_get(server.addr(), "/metrics");
    metrics.lines().find_map(|line| {
        let value = line.strip_prefix(series)?.strip_prefix(' ')?;
        value.parse().ok()
    })
}

#[test]
fn a_drained_host_finishes_its_game_and_turns_new_players_away() {
    let dir = Scratch::new("drain");
    let pid_file = dir.path().join("reversid.pid");
    let server = Server::start(&["--metrics", "--pid-file", pid_file.to_str().unwrap()]);
    assert_eq!(http_get(server.addr(), "/health").0, "HTTP/1.1 200 OK");
    let (mut black, mut white) = server.pair();
    let mut queued = server.join();
    server.wait_log("queued (1 waiting)");

    let said = ctl("drain", &pid_file);
    assert!(said.contains("told to drain"), "{said}");
    server.wait_log("draining: no new games; 1 sessions running finish; 1 queued players");
    // The player who waited is told to go, and so is one who comes now.
    queued.expect(Msg::Error);
    queued.expect_closed();
    let mut late = server.join();
    late.expect(Msg::Error);
    late.expect_closed();
    let (status, answer) = http_get(server.addr(), "/health");
    assert_eq!(status, "HTTP/1.1 503 Service Unavailable", "{answer}");

    // The running game is played to its end: no game lost.
    let played = play_out(&mut black, &mut white, &mut Rng::new(5));
    assert!(played.moves > 0);
    server.wait_log("exited with status 0");
    let finished = "reversid_games_finished_total{game=\"reversi\",end=\"completed\"}";
    assert_eq!(sample(&server, finished), Some(1.0));
    assert_eq!(
        sample(&server, "reversid_games_started_total{game=\"reversi\"}"),
        Some(1.0)
    );
    assert_eq!(
        sample(&server, "reversid_refusals_total{reason=\"draining\"}"),
        Some(2.0)
    );
    assert_eq!(sample(&server, "reversid_draining"), Some(1.0));

    let said = ctl("resume", &pid_file);
    assert!(said.contains("told to take games again"), "{said}");
    server.wait_log("taking new games again");
    assert_eq!(http_get(server.addr(), "/health").0, "HTTP/1.1 200 OK");
    let (mut black, mut white) = server.pair();
    play_out(&mut black, &mut white, &mut Rng::new(6));
}

#[test]
fn sigusr1_drains_and_sigusr2_resumes() {
    let server = Server::start(&[]);
    server.signal(Signal::SIGUSR1);
    server.wait_log("draining: no new games");
    assert_eq!(
        http_get(server.addr(), "/health").0,
        "HTTP/1.1 503 Service Unavailable"
    );
    server.signal(Signal::SIGUSR2);
    server.wait_log("taking new games again");
    assert_eq!(http_get(server.addr(), "/health").0, "HTTP/1.1 200 OK");
}

#[test]
fn ctl_refuses_a_pid_file_no_server_holds() {
    let dir = Scratch::new("drain-stale");
    let pid_file = dir.path().join("stale.pid");
    std::fs::write(&pid_file, "1\n").unwrap();
    let out = Command::new(reversid_binary())
        .args(["ctl", "drain", "--pid-file"])
        .arg(&pid_file)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no reversid holds this pid file"),
        "{stderr}"
    );
}

/// Where Debian's package puts HAProxy.
const HAPROXY: &str = "/usr/sbin/haproxy";

/// An HAProxy of the test's own in front of `hosts`, checking them as deploy/haproxy.cfg
/// does (GET /health, expecting 200), more often; killed when dropped.
struct Balancer {
    child: std::process::Child,
    front: SocketAddr,
    _dir: Scratch,
}

impl Balancer {
    fn start(hosts: &[SocketAddr]) -> Option<Balancer> {
        if !Path::new(HAPROXY).exists() {
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
            .map(|(i, addr)| format!("    server h{i} {addr}\n"))
            .collect();
        let config = format!(
            "defaults\n    mode tcp\n    timeout connect 2s\n    timeout client 60s\n    \
             timeout server 60s\n    timeout queue 10s\n    retries 2\n    option redispatch 1\n\
             frontend players\n    bind {front}\n    default_backend reversid\n\
             backend reversid\n    balance first\n    option httpchk\n    \
             http-check send meth GET uri /health ver HTTP/1.1 hdr Host reversid\n    \
             http-check expect status 200\n    default-server send-proxy-v2 maxconn 100\n    \
             default-server check inter 200ms fall 2 rise 2\n{servers}"
        );
        let dir = Scratch::new("haproxy");
        let path = dir.path().join("haproxy.cfg");
        std::fs::write(&path, config).unwrap();
        let child = Command::new(HAPROXY)
            .arg("-db")
            .arg("-f")
            .arg(&path)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start haproxy");
        let deadline = std::time::Instant::now() + PATIENCE;
        while TcpStream::connect(front).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "haproxy does not listen"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Some(Balancer {
            child,
            front,
            _dir: dir,
        })
    }

    /// Two players paired through the balancer, as (black, white).
    fn pair(&self) -> (reversi_tests::Client, reversi_tests::Client) {
        use reversi_pdu::{Colour, Pdu};
        let mut a = reversi_tests::Client::connect(self.front);
        a.send(&Pdu::Connect);
        let mut b = reversi_tests::Client::connect(self.front);
        b.send(&Pdu::Connect);
        let colour = a.expect_connect_ok();
        b.expect_connect_ok();
        for c in [&mut a, &mut b] {
            c.expect_initial_position();
        }
        match colour {
            Colour::Black => (a, b),
            _ => (b, a),
        }
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How many of `server`'s log lines contain `needle`.
fn count(server: &Server, needle: &str) -> usize {
    server.logs().iter().filter(|l| l.contains(needle)).count()
}

#[test]
fn haproxy_sends_no_new_player_to_a_drained_host_and_its_game_finishes() {
    let dir = Scratch::new("drain-haproxy");
    let pid_a = dir.path().join("a.pid");
    let trust = ["--proxy-from", "127.0.0.1/32"];
    let a = Server::start(&[trust[0], trust[1], "--pid-file", pid_a.to_str().unwrap()]);
    let b = Server::start(&trust);
    let Some(balancer) = Balancer::start(&[a.addr(), b.addr()]) else {
        return;
    };
    // `balance first`: the first host takes the first game.
    let (mut black, mut white) = balancer.pair();
    a.wait_log("session ");
    assert_eq!(count(&b, "session "), 0);

    ctl("drain", &pid_a);
    a.wait_log("draining: no new games; 1 sessions running");
    // Two failed checks 200 ms apart mark it down; leave it ample time.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let (mut black2, mut white2) = balancer.pair();
    b.wait_log("session ");
    assert_eq!(count(&a, "refused: draining"), 0, "{:#?}", a.logs());
    assert_eq!(count(&a, "queued ("), 2, "{:#?}", a.logs());

    // Both games are played to their end: none is lost.
    play_out(&mut black, &mut white, &mut Rng::new(7));
    a.wait_log("exited with status 0");
    play_out(&mut black2, &mut white2, &mut Rng::new(8));
    b.wait_log("exited with status 0");
}
