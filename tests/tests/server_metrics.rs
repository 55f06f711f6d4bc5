//! The server's metrics (spec/DEPLOY.md): `GET /metrics` counts a game and a refusal,
//! and a real Prometheus (Debian's package) scrapes them and answers a query.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reversi_tests::scratch::Scratch;
use reversi_tests::{play_out, Rng, Server, PATIENCE};

/// Where Debian's package puts the Prometheus server.
const PROMETHEUS: &str = "/usr/bin/prometheus";

/// The whole answer to `GET path` on `addr` (the connection closes after it).
fn http_get(addr: SocketAddr, path: &str) -> String {
    http_get_from(addr, path, "127.0.0.1")
}

/// As [`http_get`], from the loopback address `from` (another address than the
/// players', so that their limits do not touch it).
fn http_get_from(addr: SocketAddr, path: &str, from: &str) -> String {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    let local: SocketAddr = format!("{from}:0").parse().unwrap();
    socket.bind(&local.into()).expect("bind a loopback address");
    socket
        .connect(&addr.into())
        .expect("connect for an HTTP request");
    let mut stream: TcpStream = socket.into();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .expect("read an HTTP answer");
    answer
}

/// The value of the sample named exactly `series` (name and labels) in `metrics`.
fn sample(metrics: &str, series: &str) -> Option<f64> {
    metrics.lines().find_map(|line| {
        let value = line.strip_prefix(series)?.strip_prefix(' ')?;
        value.parse().ok()
    })
}

/// Plays one whole Reversi game on `server` and waits for its end to be seen.
fn play_one_game(server: &Server) {
    let (mut black, mut white) = server.pair();
    play_out(&mut black, &mut white, &mut Rng::new(11));
    server.wait_log("exited with status 0");
}

#[test]
fn metrics_count_games_connections_and_refusals() {
    let server = Server::start(&["--metrics", "--max-pending-per-address", "2"]);
    let before = http_get(server.addr(), "/metrics");
    assert!(before.starts_with("HTTP/1.1 200 OK\r\n"), "{before}");
    assert!(before.contains("Content-Type: application/openmetrics-text"));
    assert_eq!(
        sample(&before, "reversid_sessions{game=\"reversi\"}"),
        Some(0.0)
    );
    play_one_game(&server);
    // Two waiting from one address are the most: a third is refused.
    let _one = TcpStream::connect(server.addr()).unwrap();
    let _two = TcpStream::connect(server.addr()).unwrap();
    let mut third = TcpStream::connect(server.addr()).unwrap();
    third.set_read_timeout(Some(PATIENCE)).unwrap();
    let _ = third.read(&mut [0; 64]);
    let after = http_get_from(server.addr(), "/metrics", "127.0.0.2");
    for (series, want) in [
        ("reversid_games_started_total{game=\"reversi\"}", 1.0),
        (
            "reversid_games_finished_total{game=\"reversi\",end=\"completed\"}",
            1.0,
        ),
        ("reversid_connections_total{protocol=\"binary\"}", 2.0),
        ("reversid_refusals_total{reason=\"address_waiting\"}", 1.0),
        ("reversid_session_setup_seconds_count", 1.0),
        (
            "reversid_game_duration_seconds_count{game=\"reversi\"}",
            1.0,
        ),
        ("reversid_sessions{game=\"reversi\"}", 0.0),
        // The two idle connections, and this request's own.
        ("reversid_pending_connections", 3.0),
    ] {
        assert_eq!(sample(&after, series), Some(want), "{series} in:\n{after}");
    }
}

#[test]
fn sessions_report_their_move_latencies_and_the_store_queue_is_shown() {
    let server = Server::start(&["--metrics"]);
    let (mut black, mut white) = server.pair();
    let played = play_out(&mut black, &mut white, &mut Rng::new(5));
    server.wait_log("exited with status 0");
    // The session reports as it ends, the supervisor reads it in a later turn.
    let series = "reversid_move_latency_seconds_count";
    let deadline = Instant::now() + PATIENCE;
    let metrics = loop {
        let metrics = http_get(server.addr(), "/metrics");
        if sample(&metrics, series).is_some_and(|n| n > 0.0) || Instant::now() > deadline {
            break metrics;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(
        sample(&metrics, series),
        Some(played.moves as f64),
        "{metrics}"
    );
    // Every move took under a second, from its arrival to its announcement.
    let under_a_second = "reversid_move_latency_seconds_bucket{le=\"0.32768\"}";
    assert_eq!(
        sample(&metrics, under_a_second),
        Some(played.moves as f64),
        "{metrics}"
    );
    let queue = sample(&metrics, "reversid_store_queue_depth").expect("the store's queue is shown");
    assert!(
        queue <= 1.0,
        "one game at most waits for the writer: {queue}"
    );
}

#[test]
fn metrics_are_not_served_unless_asked_for() {
    let server = Server::start(&[]);
    let answer = http_get(server.addr(), "/metrics");
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
}

/// A Prometheus server of the test's own, killed when dropped.
struct Prometheus {
    child: Child,
    addr: SocketAddr,
    _dir: Scratch,
}

impl Prometheus {
    /// Starts Prometheus scraping `target` every second, or says why the test skips.
    fn start(target: SocketAddr) -> Option<Prometheus> {
        if !Path::new(PROMETHEUS).exists() {
            reversi_tests::skipped(&format!(
                "{PROMETHEUS} is not installed (scripts/install-tools.sh prometheus)"
            ));
            return None;
        }
        let dir = Scratch::new("prometheus");
        let config = dir.path().join("prometheus.yml");
        std::fs::write(
            &config,
            format!(
                "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  \
                 - job_name: reversid\n    static_configs:\n      - targets: ['{target}']\n"
            ),
        )
        .expect("write the Prometheus configuration");
        let addr = free_port();
        let log = std::fs::File::create(dir.path().join("prometheus.log")).unwrap();
        let child = Command::new(PROMETHEUS)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address={addr}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start prometheus");
        Some(Prometheus {
            child,
            addr,
            _dir: dir,
        })
    }

    /// Asks `query` until the answer contains `want`, for up to `within`; the last answer.
    fn query_until(&self, query: &str, want: &str, within: Duration) -> String {
        let deadline = Instant::now() + within;
        let mut last = String::new();
        while Instant::now() < deadline {
            if let Ok(mut stream) = TcpStream::connect(self.addr) {
                stream.set_read_timeout(Some(PATIENCE)).unwrap();
                let request = format!(
                    "GET /api/v1/query?query={query} HTTP/1.1\r\nHost: {}\r\n\
                     Connection: close\r\n\r\n",
                    self.addr
                );
                let _ = stream.write_all(request.as_bytes());
                last.clear();
                let _ = stream.read_to_string(&mut last);
                if last.contains(want) {
                    return last;
                }
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        last
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback address no one listens on now.
fn free_port() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}

#[test]
fn prometheus_scrapes_the_server_and_answers_a_query() {
    let server = Server::start(&["--metrics"]);
    let Some(prometheus) = Prometheus::start(server.addr()) else {
        return;
    };
    play_one_game(&server);
    let answer = prometheus.query_until(
        "reversid_games_finished_total",
        "\"end\":\"completed\"",
        Duration::from_secs(30),
    );
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
    let json: serde_json::Value =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {answer}"));
    assert_eq!(json["status"], "success", "{answer}");
    let result = &json["data"]["result"][0];
    assert_eq!(result["metric"]["game"], "reversi", "{answer}");
    assert_eq!(result["metric"]["job"], "reversid", "{answer}");
    assert_eq!(result["value"][1], "1", "{answer}");
}
