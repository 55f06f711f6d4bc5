//! TLS on the game port (spec/TLS.md) against the real reversid, with a throwaway CA
//! and certificates made here: a text game and a WebSocket inside TLS, a good
//! certificate, a wrong name and an expired one refused by the client, openssl
//! s_client, the certificate reloaded on SIGHUP while a game goes on, and a ClientHello
//! refused with an alert when TLS is not configured.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, SanType};
use reversi_tests::scratch::Scratch;
use reversi_tests::text::TextClient;
use reversi_tests::Server;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore};

/// A certificate authority of the test's own.
struct Ca {
    cert: rcgen::Certificate,
    key: KeyPair,
}

impl Ca {
    fn new(name: &str) -> Ca {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let cert = params.self_signed(&key).unwrap();
        Ca { cert, key }
    }

    /// A server certificate for `names` (and 127.0.0.1), valid from `from` to `until`
    /// (years), as PEM: (chain, key).
    fn issue(&self, names: &[&str], (from, until): (i32, i32)) -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let mut params = CertificateParams::new(names).unwrap();
        params
            .subject_alt_names
            .push(SanType::IpAddress([127, 0, 0, 1].into()));
        params.not_before = rcgen::date_time_ymd(from, 1, 1);
        params.not_after = rcgen::date_time_ymd(until, 1, 1);
        let cert = params.signed_by(&key, &self.cert, &self.key).unwrap();
        (cert.pem(), key.serialize_pem())
    }

    fn der(&self) -> CertificateDer<'static> {
        self.cert.der().clone()
    }
}

/// Valid now, for a while.
const VALID: (i32, i32) = (2020, 2090);
/// Over long ago.
const EXPIRED: (i32, i32) = (2001, 2002);

/// Writes a certificate and key into `dir`: their paths.
fn write_pem(dir: &Path, (cert, key): &(String, String)) -> (PathBuf, PathBuf) {
    let (cert_path, key_path) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert_path, cert).unwrap();
    std::fs::write(&key_path, key).unwrap();
    (cert_path, key_path)
}

/// reversid serving TLS with `issued`; the scratch directory holds the files.
fn tls_server(issued: &(String, String)) -> (Server, Scratch) {
    tls_server_with(issued, &[])
}

/// A server with TLS from `issued`, and `extra` options.
fn tls_server_with(issued: &(String, String), extra: &[&str]) -> (Server, Scratch) {
    let dir = Scratch::new("tls");
    let (cert, key) = write_pem(dir.path(), issued);
    let mut args = vec![
        "--tls-cert",
        cert.to_str().unwrap(),
        "--tls-key",
        key.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    (Server::start(&args), dir)
}

fn client_config(ca: &Ca) -> Arc<ClientConfig> {
    let mut roots = RootCertStore::empty();
    roots.add(ca.der()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    Arc::new(config)
}

/// Connects to `addr` over TLS trusting `ca` only, for server name `name`, and returns
/// a plaintext socket whose other end a thread relays through the TLS connection (as
/// stunnel would), so the suites' plain clients speak inside TLS. The handshake is done
/// before it returns: its error is the client's refusal.
fn tunnel(addr: SocketAddr, ca: &Ca, name: &str) -> Result<TcpStream, rustls::Error> {
    tunnel_after(addr, b"", ca, name)
}

/// As [`tunnel`], sending `preface` (a balancer's PROXY header) before the ClientHello.
fn tunnel_after(
    addr: SocketAddr,
    preface: &[u8],
    ca: &Ca,
    name: &str,
) -> Result<TcpStream, rustls::Error> {
    let name = ServerName::try_from(name.to_owned()).unwrap();
    let mut tls = ClientConnection::new(client_config(ca), name).unwrap();
    let mut socket = TcpStream::connect(addr).unwrap();
    socket.set_nodelay(true).unwrap();
    socket.write_all(preface).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    while tls.is_handshaking() {
        if let Err(e) = tls.complete_io(&mut socket) {
            return Err(
                match e.into_inner().map(|e| e.downcast::<rustls::Error>()) {
                    Some(Ok(e)) => *e,
                    other => panic!("the handshake failed, not for a TLS reason: {other:?}"),
                },
            );
        }
    }
    socket.set_read_timeout(None).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let ours = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (theirs, _) = listener.accept().unwrap();
    ours.set_nodelay(true).unwrap();
    theirs.set_nodelay(true).unwrap();
    std::thread::spawn(move || relay(tls, socket, theirs));
    Ok(ours)
}

/// Pumps plaintext between `plain` and the TLS connection until both sides close.
fn relay(mut tls: ClientConnection, mut socket: TcpStream, mut plain: TcpStream) {
    let mut buf = vec![0u8; 16 * 1024];
    let (mut from_server, mut from_plain) = (true, true);
    while from_server || from_plain {
        loop {
            match tls.reader().read(&mut buf) {
                Ok(0) | Err(_) if from_server && !tls.wants_read() => break,
                Ok(0) => {
                    from_server = false;
                    let _ = plain.shutdown(Shutdown::Write);
                    break;
                }
                Ok(n) => {
                    if plain.write_all(&buf[..n]).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(_) => {
                    from_server = false;
                    let _ = plain.shutdown(Shutdown::Write);
                    break;
                }
            }
        }
        while tls.wants_write() {
            if tls.write_tls(&mut socket).is_err() {
                return;
            }
        }
        let on = |fd: i32, open: bool| if open { fd } else { -1 };
        let mut fds = [
            libc::pollfd {
                fd: on(socket.as_raw_fd(), from_server),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: on(plain.as_raw_fd(), from_plain),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: poll(2) on two pollfds we own.
        if unsafe { libc::poll(fds.as_mut_ptr(), 2, 10_000) } <= 0 {
            return;
        }
        if fds[0].revents != 0 {
            match tls.read_tls(&mut socket) {
                Ok(0) => {
                    from_server = false;
                    let _ = plain.shutdown(Shutdown::Write);
                }
                Ok(_) => {
                    if tls.process_new_packets().is_err() {
                        return;
                    }
                }
                Err(_) => return,
            }
        }
        if fds[1].revents != 0 {
            match plain.read(&mut buf) {
                Ok(0) | Err(_) => {
                    from_plain = false;
                    tls.send_close_notify();
                }
                Ok(n) => tls.writer().write_all(&buf[..n]).unwrap(),
            }
        }
    }
}

/// A text client inside TLS.
fn text_over_tls(server: &Server, ca: &Ca, game: &str) -> TextClient {
    let stream = tunnel(server.addr(), ca, "localhost").expect("the handshake succeeds");
    let mut client = TextClient::from_stream(stream);
    client.send(&format!("GAME TYPE {game}"));
    client
}

/// Plays Tic-Tac-Toe between `x` and `o` (X first) to X's win down column a.
fn x_wins(x: &mut TextClient, o: &mut TextClient) {
    x.expect("GAME TEAM 1 X");
    o.expect("GAME TEAM 2 O");
    let moves = ["a1", "b1", "a2", "b2", "a3"];
    for (i, m) in moves.iter().enumerate() {
        let (mover, other) = if i % 2 == 0 {
            (&mut *x, &mut *o)
        } else {
            (&mut *o, &mut *x)
        };
        mover.expect("READY");
        mover.send(&format!("MOVE {m}"));
        let moved = format!("GAME MOVED {} {m}", i % 2 + 1);
        mover.expect(&moved);
        other.expect(&moved);
    }
    x.expect("RESULT WIN");
    o.expect("RESULT LOSE");
}

#[test]
fn a_text_game_is_played_inside_tls_beside_a_plain_one() {
    let ca = Ca::new("test CA");
    let (server, _dir) = tls_server(&ca.issue(&["localhost"], VALID));
    let mut x = text_over_tls(&server, &ca, "tictactoe");
    x.expect("GAME WAITING 1");
    let mut o = text_over_tls(&server, &ca, "tictactoe");
    o.expect("GAME TYPE TicTacToe");
    // A plaintext pair on the same port at the same time.
    let mut px = TextClient::join(server.addr(), "tictactoe");
    px.expect("GAME WAITING 1");
    let mut po = TextClient::join(server.addr(), "tictactoe");
    x_wins(&mut x, &mut o);
    x_wins(&mut px, &mut po);
    // The session saw the client's own address, not the terminator's.
    let over = server.wait_log("game over:");
    assert!(over.contains("127.0.0.1"), "{over}");
    assert!(server.wait_log("TLS terminator").contains("started"));
}

#[test]
fn a_challenge_s_link_is_https_when_the_server_serves_tls() {
    let ca = Ca::new("test CA");
    let (server, _dir) = tls_server(&ca.issue(&["localhost"], VALID));
    let stream = tunnel(server.addr(), &ca, "localhost").expect("the handshake succeeds");
    let mut alice = TextClient::from_stream(stream);
    alice.send("GAME INVITE tictactoe");
    let code = alice.next_is("GAME CODE ");
    let code = code.split_whitespace().nth(2).expect("a code").to_owned();
    assert_eq!(
        alice.next_is("GAME LINK "),
        format!("GAME LINK https://{}/#join={code}", server.addr())
    );
}

#[test]
fn behind_a_balancer_the_tls_client_keeps_the_address_its_proxy_header_gave() {
    let ca = Ca::new("test CA");
    let (server, _dir) = tls_server_with(
        &ca.issue(&["localhost"], VALID),
        &["--proxy-from", "127.0.0.1/32"],
    );
    let header = |client: &str| format!("PROXY TCP4 {client} 127.0.0.1 4321 8765\r\n");
    let join = |client: &str| {
        let stream = tunnel_after(server.addr(), header(client).as_bytes(), &ca, "localhost");
        let mut c = TextClient::from_stream(stream.unwrap());
        c.send("GAME TYPE tictactoe");
        c
    };
    let mut x = join("203.0.113.7");
    x.expect("GAME WAITING 1");
    let mut o = join("198.51.100.9");
    x_wins(&mut x, &mut o);
    let over = server.wait_log("game over:");
    assert!(
        over.contains("203.0.113.7") && over.contains("198.51.100.9"),
        "{over}"
    );
}

#[test]
fn the_page_and_its_websocket_are_served_inside_tls() {
    let ca = Ca::new("test CA");
    let (server, _dir) = tls_server(&ca.issue(&["localhost"], VALID));
    // The page itself, as https:// serves it.
    let mut page = tunnel(server.addr(), &ca, "localhost").unwrap();
    page.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    page.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    page.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(answer.contains("app.js"), "{answer}");
    let stream = tunnel(server.addr(), &ca, "localhost").unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let url = format!("wss://localhost:{}/ws", server.addr().port());
    // The tunnel is the TLS: tungstenite speaks plain WebSocket over it.
    let request = url.replace("wss://", "ws://");
    let (mut ws, _) = tungstenite::client(request.as_str(), stream).unwrap();
    ws.send(tungstenite::Message::text("GAME VERSION")).unwrap();
    loop {
        match ws.read().unwrap() {
            tungstenite::Message::Text(text) if text.starts_with("GAME VERSION") => break,
            tungstenite::Message::Text(_) | tungstenite::Message::Ping(_) => {}
            other => panic!("expected GAME VERSION, got {other:?}"),
        }
    }
}

#[test]
fn the_client_refuses_a_wrong_name_and_an_expired_certificate() {
    let ca = Ca::new("test CA");
    let (server, _dir) = tls_server(&ca.issue(&["localhost"], VALID));
    match tunnel(server.addr(), &ca, "games.example") {
        Err(rustls::Error::InvalidCertificate(e)) => {
            assert!(format!("{e:?}").contains("NotValidForName"), "{e:?}")
        }
        other => panic!("a wrong name must be refused: {:?}", other.map(drop)),
    }
    let other_ca = Ca::new("someone else's CA");
    assert!(
        matches!(
            tunnel(server.addr(), &other_ca, "localhost"),
            Err(rustls::Error::InvalidCertificate(_))
        ),
        "a certificate from an unknown CA must be refused"
    );
    let (expired, _dir) = tls_server(&ca.issue(&["localhost"], EXPIRED));
    match tunnel(expired.addr(), &ca, "localhost") {
        Err(rustls::Error::InvalidCertificate(e)) => {
            assert!(format!("{e:?}").contains("Expired"), "{e:?}")
        }
        other => panic!(
            "an expired certificate must be refused: {:?}",
            other.map(drop)
        ),
    }
}

#[test]
fn openssl_s_client_speaks_the_text_protocol() {
    if std::process::Command::new("openssl")
        .arg("version")
        .output()
        .is_err()
    {
        return reversi_tests::skipped("no openssl binary");
    }
    let ca = Ca::new("test CA");
    let (server, dir) = tls_server(&ca.issue(&["localhost"], VALID));
    let ca_path = dir.path().join("ca.pem");
    std::fs::write(&ca_path, ca.cert.pem()).unwrap();
    let mut child = std::process::Command::new("openssl")
        .args([
            "s_client",
            "-quiet",
            "-verify_return_error",
            "-servername",
            "localhost",
        ])
        .arg("-connect")
        .arg(server.addr().to_string())
        .arg("-CAfile")
        .arg(&ca_path)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"GAME VERSION\n").unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut buf = [0u8; 256];
    while !String::from_utf8_lossy(&seen).contains('\n') && Instant::now() < deadline {
        match out.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let seen = String::from_utf8_lossy(&seen);
    assert!(seen.starts_with("GAME VERSION 1 reversid"), "{seen:?}");
}

#[test]
fn sighup_reloads_the_certificate_while_a_game_goes_on() {
    let (old_ca, new_ca) = (Ca::new("old CA"), Ca::new("new CA"));
    let (server, dir) = tls_server(&old_ca.issue(&["localhost"], VALID));
    let mut x = text_over_tls(&server, &old_ca, "tictactoe");
    x.expect("GAME WAITING 1");
    let mut o = text_over_tls(&server, &old_ca, "tictactoe");
    x.expect("GAME TEAM 1 X");
    o.expect("GAME TEAM 2 O");
    x.expect("READY");
    x.send("MOVE a1");
    o.expect("GAME MOVED 1 a1");
    write_pem(dir.path(), &new_ca.issue(&["localhost"], VALID));
    server.signal(Signal::SIGHUP);
    server.wait_log("TLS certificate reloaded");
    // The game goes on over the connections set up with the old certificate.
    o.expect("READY");
    o.send("MOVE b1");
    x.expect("GAME MOVED 2 b1");
    // New connections get the new certificate.
    assert!(tunnel(server.addr(), &old_ca, "localhost").is_err());
    let mut fresh = TextClient::from_stream(tunnel(server.addr(), &new_ca, "localhost").unwrap());
    fresh.send("GAME VERSION");
    fresh.expect("GAME VERSION 1");
}

#[test]
fn a_client_hello_without_tls_configured_gets_an_alert() {
    let server = Server::start(&[]);
    let ca = Ca::new("test CA");
    match tunnel(server.addr(), &ca, "localhost") {
        Err(rustls::Error::AlertReceived(alert)) => {
            assert_eq!(alert, rustls::AlertDescription::HandshakeFailure)
        }
        other => panic!("expected a handshake_failure alert: {:?}", other.map(drop)),
    }
}

#[test]
fn the_terminal_client_plays_over_tls_trusting_a_given_ca() {
    use std::process::{Command, Stdio};
    let ca = Ca::new("test CA");
    let (server, dir) = tls_server(&ca.issue(&["localhost"], VALID));
    let ca_path = dir.path().join("ca.pem");
    std::fs::write(&ca_path, ca.cert.pem()).unwrap();
    let addr = format!("localhost:{}", server.addr().port());
    let reversi = reversi_tests::reversi_binary();
    // The public roots do not know the test's CA: refused before any game.
    let refused = Command::new(&reversi)
        .args(["play", "--tls", "--game", "tictactoe", &addr])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(said.contains("certificate"), "{said}");
    // With --tls-ca it plays X's moves from stdin against a plaintext O.
    let mut x = Command::new(&reversi)
        .args(["play", "--game", "tictactoe", &addr, "--tls-ca"])
        .arg(&ca_path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    x.stdin.take().unwrap().write_all(b"a1\na2\na3\n").unwrap();
    server.wait_log("queued (1 waiting)");
    let mut o = TextClient::join(server.addr(), "tictactoe");
    for m in ["b1", "b2"] {
        o.expect("READY");
        o.send(&format!("MOVE {m}"));
    }
    o.expect("RESULT LOSE");
    let out = x.wait_with_output().unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(shown.contains("YOU WIN"), "{shown}");
}

/// The figure of spec/TLS.md: TLS set-ups per second, and the move round trip over TLS
/// against plain TCP, in one run on one server. Run it alone (debug build):
/// `cargo test -p reversi-tests --test server_tls -- --ignored --nocapture figure`.
#[test]
#[ignore = "a measurement, not a check: prints the figure"]
fn figure_tls_setups_and_move_round_trips() {
    let ca = Ca::new("test CA");
    let limits = [
        "--game-starts-per-address",
        "100000",
        "--max-pending-per-address",
        "1000",
    ];
    let (server, _dir) = tls_server_with(&ca.issue(&["localhost"], VALID), &limits);
    let setups = 200;
    let started = Instant::now();
    for _ in 0..setups {
        let mut c = TextClient::from_stream(tunnel(server.addr(), &ca, "localhost").unwrap());
        c.send("GAME VERSION");
        c.expect("GAME VERSION 1");
    }
    let tls_rate = setups as f64 / started.elapsed().as_secs_f64();
    let started = Instant::now();
    for _ in 0..setups {
        let mut c = TextClient::connect(server.addr());
        c.send("GAME VERSION");
        c.expect("GAME VERSION 1");
    }
    let plain_rate = setups as f64 / started.elapsed().as_secs_f64();
    let plain = |_: &Server| TextClient::join(server.addr(), "tictactoe");
    let tls = |s: &Server| text_over_tls(s, &ca, "tictactoe");
    let (mut over_tls, mut over_tcp) = (Vec::new(), Vec::new());
    for _ in 0..20 {
        over_tcp.extend(timed_game(&server, &plain));
        over_tls.extend(timed_game(&server, &tls));
    }
    let median = |v: &mut Vec<Duration>| reversi_tests::quantile(v, 0.5);
    let p99 = |v: &mut Vec<Duration>| reversi_tests::quantile(v, 0.99);
    println!(
        "TLS set-ups (handshake + GAME VERSION answered): {tls_rate:.0}/s; plain TCP connects: {plain_rate:.0}/s"
    );
    println!(
        "move round trip, {} moves each: TLS median {:?} p99 {:?}; plain TCP median {:?} p99 {:?}",
        over_tls.len(),
        median(&mut over_tls),
        p99(&mut over_tls),
        median(&mut over_tcp),
        p99(&mut over_tcp),
    );
}

/// One Tic-Tac-Toe game between two clients made by `connect`: each move's round trip
/// (MOVE sent to GAME MOVED back to its mover).
fn timed_game(server: &Server, connect: &dyn Fn(&Server) -> TextClient) -> Vec<Duration> {
    let mut x = connect(server);
    x.expect("GAME WAITING 1");
    let mut o = connect(server);
    x.expect("GAME TEAM 1 X");
    o.expect("GAME TEAM 2 O");
    let mut trips = Vec::new();
    for (i, m) in ["a1", "b1", "a2", "b2", "a3"].iter().enumerate() {
        let (mover, other) = if i % 2 == 0 {
            (&mut x, &mut o)
        } else {
            (&mut o, &mut x)
        };
        mover.expect("READY");
        let sent = Instant::now();
        mover.send(&format!("MOVE {m}"));
        let moved = format!("GAME MOVED {} {m}", i % 2 + 1);
        mover.expect(&moved);
        trips.push(sent.elapsed());
        other.expect(&moved);
    }
    x.expect("RESULT WIN");
    o.expect("RESULT LOSE");
    trips
}

#[test]
fn a_terminator_that_ends_is_started_again_for_the_next_tls_client() {
    let ca = Ca::new("test CA");
    let (server, _dir) = tls_server(&ca.issue(&["localhost"], VALID));
    let version = |server: &Server| {
        let mut c = TextClient::from_stream(tunnel(server.addr(), &ca, "localhost").unwrap());
        c.send("GAME VERSION");
        c.expect("GAME VERSION 1");
    };
    version(&server);
    let started = server.wait_log("TLS terminator");
    let pid: i32 = started
        .split("TLS terminator ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("no pid in {started:?}"));
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), Signal::SIGTERM).unwrap();
    server.wait_log("started again for the next TLS client");
    version(&server);
    // Started, told SIGTERM, collected, started again.
    let lines = server.wait_logs("TLS terminator", 4);
    assert!(lines.iter().any(|l| l.contains("SIGTERM")), "{lines:?}");
    assert_eq!(
        lines.iter().filter(|l| l.ends_with("started")).count(),
        2,
        "{lines:?}"
    );
}
