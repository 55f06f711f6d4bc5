//! reversid behind a load balancer (spec/DEPLOY.md). With `--proxy-from
//! 127.0.0.1/32` every connection a test opens from 127.0.0.1 is a trusted
//! proxy's and starts with the PROXY header a balancer would send, naming a
//! client of the test's choosing; connections bound to 127.0.0.2 stand for
//! everyone else.

use std::io::Write;
use std::net::{IpAddr, SocketAddr, TcpStream};

use reversi_pdu::Pdu;
use reversi_tests::text::TextClient;
use reversi_tests::{Client, Msg, Server};

const TRUSTED: [&str; 2] = ["--proxy-from", "127.0.0.1/32"];

/// A v2 LOCAL header: the balancer's own connection (a health check).
const LOCAL: &[u8] = b"\r\n\r\n\0\r\nQUIT\n\x20\x00\x00\x00";

fn addr(text: &str) -> SocketAddr {
    text.parse().unwrap()
}

/// A version 1 header: `client` relayed to `server`.
fn v1(client: SocketAddr, server: SocketAddr) -> Vec<u8> {
    let family = if client.is_ipv4() { "TCP4" } else { "TCP6" };
    let server_ip = match (client.ip(), server.ip()) {
        (IpAddr::V6(_), IpAddr::V4(v4)) => IpAddr::V6(v4.to_ipv6_mapped()),
        (_, ip) => ip,
    };
    format!(
        "PROXY {family} {} {server_ip} {} {}\r\n",
        client.ip(),
        client.port(),
        server.port()
    )
    .into_bytes()
}

/// A version 2 header for TCP over IPv4: `client` relayed to `server`.
fn v2(client: SocketAddr, server: SocketAddr) -> Vec<u8> {
    let (SocketAddr::V4(c), SocketAddr::V4(s)) = (client, server) else {
        panic!("v2 headers here are IPv4");
    };
    let mut out = b"\r\n\r\n\0\r\nQUIT\n\x21\x11\x00\x0c".to_vec();
    out.extend_from_slice(&c.ip().octets());
    out.extend_from_slice(&s.ip().octets());
    out.extend_from_slice(&c.port().to_be_bytes());
    out.extend_from_slice(&s.port().to_be_bytes());
    out
}

/// A connection from the trusted proxy that has sent `header`.
fn relayed(server: &Server, header: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(server.addr()).expect("connect");
    stream.write_all(header).expect("send the header");
    stream
}

/// A connection from 127.0.0.2, an address no `--proxy-from` names.
fn untrusted(server: &Server) -> TcpStream {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    socket.bind(&addr("127.0.0.2:0").into()).unwrap();
    socket.connect(&server.addr().into()).unwrap();
    socket.into()
}

#[test]
fn the_headers_clients_play_and_are_logged_under_their_own_addresses() {
    let server = Server::start(&[TRUSTED[0], TRUSTED[1], "--fixed-colours"]);
    let (black, white) = (addr("203.0.113.7:50000"), addr("[2001:db8::9]:50001"));
    // The header and the connect in one segment, as a balancer may forward them.
    let mut first = v2(black, server.addr());
    first.extend_from_slice(&[0x00, 0x04, 0x00, 0x00]);
    let mut a = Client::from_stream(relayed(&server, &first));
    let mut b = Client::from_stream(relayed(&server, &v1(white, server.addr())));
    b.send(&Pdu::Connect);
    a.expect_connect_ok();
    b.expect_connect_ok();
    let line = server.wait_log("session ");
    assert!(
        line.contains("reversi 203.0.113.7:50000 vs [2001:db8::9]:50001"),
        "{line}"
    );
}

#[test]
fn per_address_limits_count_the_relayed_address_not_the_proxys() {
    let server = Server::start(&[TRUSTED[0], TRUSTED[1], "--max-pending-per-address", "2"]);
    let crowd = |port| addr(&format!("198.51.100.9:{port}"));
    let _waiting: Vec<TcpStream> = (1..=2)
        .map(|port| relayed(&server, &v2(crowd(port), server.addr())))
        .collect();
    let mut third = TextClient::from_stream(relayed(&server, &v1(crowd(3), server.addr())));
    third.send("GAME VERSION");
    third.next_is("ERROR your address already has 2 connections waiting");
    third.expect_closed(&[]);
    server.wait_log("198.51.100.9:3: refused: your address already has 2 connections waiting");
    // Another client behind the same proxy is not held to the crowd's count.
    let other = addr("198.51.100.10:1");
    let mut fourth = TextClient::from_stream(relayed(&server, &v1(other, server.addr())));
    fourth.send("GAME VERSION");
    fourth.next_is("GAME VERSION");
}

#[test]
fn a_header_from_an_untrusted_address_is_a_spoof() {
    for args in [&TRUSTED[..], &[]] {
        let server = Server::start(args);
        let mut text = TextClient::from_stream(untrusted(&server));
        text.send_raw(&v1(addr("192.0.2.1:1"), server.addr()));
        text.next_is("ERROR a PROXY header from an address that is not a trusted proxy");
        text.expect_closed(&[]);
        let mut binary = Client::from_stream(untrusted(&server));
        binary.send_raw(&v2(addr("192.0.2.1:2"), server.addr()));
        binary.expect(Msg::Error);
        binary.expect_closed();
        let lines = server.wait_logs("refused: a PROXY header from an address that is not", 2);
        assert!(lines.iter().all(|l| l.contains("127.0.0.2:")), "{lines:?}");
        // Without a header the same address plays as usual.
        let mut plain = TextClient::from_stream(untrusted(&server));
        plain.send("GAME VERSION");
        plain.next_is("GAME VERSION");
    }
}

#[test]
fn a_trusted_address_must_send_a_header_and_a_valid_one() {
    let server = Server::start(&TRUSTED);
    let mut bare = server.join();
    bare.expect(Msg::Error);
    bare.expect_closed();
    server.wait_log("refused: a trusted proxy (--proxy-from) sent no PROXY header");
    let mut bad = Client::from_stream(relayed(&server, b"PROXY TCP4 1.2.3.04 5.6.7.8 1 2\r\n"));
    bad.expect(Msg::Error);
    bad.expect_closed();
    server.wait_log("refused: bad header from a trusted proxy: PROXY line has an address");
}

#[test]
fn health_checks_are_neither_logged_nor_counted() {
    let server = Server::start(&[TRUSTED[0], TRUSTED[1], "--max-pending-per-address", "1"]);
    // HAProxy's checks: a connection closed without a byte, or a LOCAL header and close.
    for _ in 0..20 {
        drop(TcpStream::connect(server.addr()).unwrap());
        drop(relayed(&server, LOCAL));
    }
    // A check that asks something (tcp-check): served as the proxy's own connection,
    // and three of them at once are not held to one waiting connection per address.
    let held: Vec<TextClient> = (0..3)
        .map(|_| {
            let mut check = TextClient::from_stream(relayed(&server, LOCAL));
            check.send("GAME VERSION");
            check.next_is("GAME VERSION");
            check
        })
        .collect();
    drop(held);
    // Something logged after the checks: every check before it has been accepted.
    let mut spoof = TextClient::from_stream(untrusted(&server));
    spoof.send_raw(&v1(addr("192.0.2.1:1"), server.addr()));
    server.wait_log("127.0.0.2");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let about_checks: Vec<String> = server
        .logs()
        .into_iter()
        .filter(|l| l.contains("127.0.0.1:") && !l.contains("listening on"))
        .collect();
    assert!(about_checks.is_empty(), "{about_checks:?}");
}

#[test]
fn seed_protocols_see_the_relayed_address() {
    let server = Server::start(&[
        TRUSTED[0],
        TRUSTED[1],
        "--listen-seed",
        "duell=127.0.0.1:0",
        "--listen-seed",
        "foxes=127.0.0.1:0",
    ]);
    // Seed 000's client sends nothing of its own: it is queued once the header is read.
    let duell = server.seed_addr("duell");
    let mut conquest = TcpStream::connect(duell).unwrap();
    conquest
        .write_all(&v1(addr("203.0.113.20:7000"), duell))
        .unwrap();
    server.wait_log("203.0.113.20:7000: queued (1 waiting) for duell");
    let foxes = server.seed_addr("foxes");
    let mut player = TcpStream::connect(foxes).unwrap();
    let mut join = v2(addr("203.0.113.21:7001"), foxes);
    join.extend_from_slice(b"PBJ\n");
    player.write_all(&join).unwrap();
    server.wait_log("203.0.113.21:7001: queued (1 waiting) for foxes");
}
