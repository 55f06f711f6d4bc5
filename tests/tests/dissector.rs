//! The Wireshark dissector, spec/wireshark/reversi.lua, against a real game:
//! reversid on loopback, dumpcap recording it, two raw-TCP players sending a
//! coalesced pair of PDUs, a PDU split over two writes and a malformed PDU;
//! then tshark's reading of the capture is compared, field by field and with
//! the Info column, to what the players sent and received.
//!
//! Skips (and says so) without tshark and dumpcap: `scripts/install-tools.sh
//! tshark` installs them, and CI does.

use std::path::Path;
use std::time::Duration;

use reversi_engine::Game;
use reversi_pdu::{
    Colour, Direction, Pdu, Place, Square, Squares, UpdateBoard, Winner, MAX_PDU_LEN,
};
use reversi_tests::capture::{on_path, tshark_fields, Capture};
use reversi_tests::{Client, Msg, Server};

/// A PDU the client refuses to decode: msg_size 8 with an unknown id, 9.
const MALFORMED: [u8; 8] = [0x00, 0x08, 0x00, 0x09, 0x00, 0x01, 0x00, 0x02];

/// What the dissector should show for one PDU: its fields and its Info text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shown {
    id: i16,
    player: Option<i16>,
    squares: Vec<(i16, i16)>,
    info: String,
}

impl Shown {
    fn of(pdu: &Pdu<'_>) -> Shown {
        let (player, squares) = match pdu {
            Pdu::ConnectOk { colour } => (Some(colour.to_wire()), vec![]),
            Pdu::Winner(winner) => (Some(winner.to_wire()), vec![]),
            Pdu::Place(Place { x, y }) => (None, vec![(*x, *y)]),
            Pdu::UpdateBoard(update) => (
                Some(update.colour.to_wire()),
                update
                    .squares
                    .iter()
                    .map(|s| (i16::from(s.x()), i16::from(s.y())))
                    .collect(),
            ),
            _ => (None, vec![]),
        };
        // The codec's one-line rendering is the Info text the dissector must give.
        let info = pdu.to_string();
        Shown {
            id: pdu.id().to_wire(),
            player,
            squares,
            info,
        }
    }

    fn of_msg(msg: &Msg) -> Shown {
        match msg {
            Msg::Error => Shown::of(&Pdu::Error),
            Msg::ConnectOk(colour) => Shown::of(&Pdu::ConnectOk { colour: *colour }),
            Msg::Turn => Shown::of(&Pdu::Turn),
            Msg::PlaceError => Shown::of(&Pdu::PlaceError),
            Msg::UpdateBoard(colour, squares) => Shown::of(&Pdu::UpdateBoard(UpdateBoard {
                colour: *colour,
                squares: Squares::new(squares).unwrap(),
            })),
            Msg::Winner(winner) => Shown::of(&Pdu::Winner(*winner)),
            Msg::Closed => panic!("the end of a connection is not a PDU"),
        }
    }
}

/// A raw-TCP player that remembers every PDU it sent and received.
struct Player {
    client: Client,
    sent: Vec<Shown>,
    received: Vec<Shown>,
}

impl Player {
    fn connect(server: &Server) -> Player {
        let mut player = Player {
            client: Client::connect(server.addr()),
            sent: Vec::new(),
            received: Vec::new(),
        };
        player.send(&[Pdu::Connect]);
        player
    }

    fn port(&self) -> u16 {
        self.client.stream().local_addr().unwrap().port()
    }

    /// Sends `pdus` in one write.
    fn send(&mut self, pdus: &[Pdu<'_>]) {
        let bytes = self.encode(pdus);
        self.client.send_raw(&bytes);
    }

    /// Sends one PDU in two writes, split after `at` bytes, far enough apart
    /// to leave in two segments (the socket has TCP_NODELAY).
    fn send_split(&mut self, pdu: &Pdu<'_>, at: usize) {
        let bytes = self.encode(std::slice::from_ref(pdu));
        self.client.send_raw(&bytes[..at]);
        std::thread::sleep(Duration::from_millis(100));
        self.client.send_raw(&bytes[at..]);
    }

    fn send_malformed(&mut self) {
        self.sent.push(Shown {
            id: 9,
            player: None,
            squares: vec![],
            info: "id 9 [malformed: unknown PDU id 9]".to_owned(),
        });
        self.client.send_raw(&MALFORMED);
    }

    fn encode(&mut self, pdus: &[Pdu<'_>]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for pdu in pdus {
            let mut buf = [0u8; MAX_PDU_LEN];
            let len = pdu.encode(&mut buf).unwrap();
            bytes.extend_from_slice(&buf[..len]);
            self.sent.push(Shown::of(pdu));
        }
        bytes
    }

    /// Receives one PDU, which `want` must accept.
    fn recv(&mut self, what: &str, want: impl Fn(&Msg) -> bool) -> Msg {
        let msg = self.client.recv();
        assert!(want(&msg), "expected {what}, got {msg:?}");
        self.received.push(Shown::of_msg(&msg));
        msg
    }

    fn recv_update(&mut self) {
        self.recv("update_board", |m| matches!(m, Msg::UpdateBoard(..)));
    }

    fn expect_closed(&mut self) {
        assert_eq!(self.client.recv(), Msg::Closed);
    }
}

/// Plays the first legal move of `game` as a place PDU.
fn first_legal(game: &mut Game) -> Pdu<'static> {
    let sq = game.legal_moves().next().expect("a legal move");
    game.play(sq).expect("legal");
    Pdu::Place(Place::from(Square::from(sq)))
}

/// One captured frame as tshark read it.
struct Frame {
    src_port: u16,
    dst_port: u16,
    tcp_len: usize,
    ids: Vec<i16>,
    players: Vec<i16>,
    xs: Vec<i16>,
    ys: Vec<i16>,
    info: String,
    expert: String,
    lines: Vec<String>,
}

const FIELDS: [&str; 10] = [
    "tcp.srcport",
    "tcp.dstport",
    "tcp.len",
    "reversi.id",
    "reversi.player",
    "reversi.x",
    "reversi.y",
    "_ws.col.Info",
    "_ws.expert.message",
    "reversi.line",
];

fn numbers<T: std::str::FromStr>(text: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().expect("a number from tshark"))
        .collect()
}

/// tshark's reading of `capture`, with these preferences (`-o` values) too.
fn frames(capture: &Path, preferences: &[&str]) -> Vec<Frame> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/wireshark/reversi.lua");
    // Heuristics first, so no dissector registered for one of the ephemeral
    // ports can claim the connection before ours sees its first bytes.
    let mut options = vec!["-o", "tcp.try_heuristic_first:TRUE"];
    for preference in preferences {
        options.extend(["-o", preference]);
    }
    let rows = tshark_fields(capture, &script, &options, &FIELDS).unwrap_or_else(|e| {
        panic!(
            "{e}\n(as root, tshark runs Lua scripts only if init.lua sets \
             run_user_scripts_when_superuser = true, as Debian's does)"
        )
    });
    rows.into_iter()
        .map(|row| {
            let cell = |i: usize| row.get(i).map(String::as_str).unwrap_or("");
            Frame {
                src_port: cell(0).parse().expect("tcp.srcport"),
                dst_port: cell(1).parse().expect("tcp.dstport"),
                tcp_len: cell(2).parse().expect("tcp.len"),
                ids: numbers(cell(3)),
                players: numbers(cell(4)),
                xs: numbers(cell(5)),
                ys: numbers(cell(6)),
                info: cell(7).to_owned(),
                expert: cell(8).to_owned(),
                lines: cell(9)
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
            }
        })
        .collect()
}

/// Checks that the frames from `from` to `to` carry exactly `pdus`, in order.
fn check_stream(frames: &[Frame], from: u16, to: u16, pdus: &[Shown], what: &str) {
    let ours: Vec<&Frame> = frames
        .iter()
        .filter(|f| f.src_port == from && f.dst_port == to && !f.ids.is_empty())
        .collect();
    let flat =
        |pick: fn(&Frame) -> Vec<i16>| -> Vec<i16> { ours.iter().flat_map(|f| pick(f)).collect() };
    assert_eq!(
        flat(|f| f.ids.clone()),
        pdus.iter().map(|p| p.id).collect::<Vec<_>>(),
        "{what}: reversi.id"
    );
    assert_eq!(
        flat(|f| f.players.clone()),
        pdus.iter().filter_map(|p| p.player).collect::<Vec<_>>(),
        "{what}: reversi.player"
    );
    let squares: Vec<(i16, i16)> = pdus.iter().flat_map(|p| p.squares.clone()).collect();
    assert_eq!(
        flat(|f| f.xs.clone()),
        squares.iter().map(|s| s.0).collect::<Vec<_>>(),
        "{what}: reversi.x"
    );
    assert_eq!(
        flat(|f| f.ys.clone()),
        squares.iter().map(|s| s.1).collect::<Vec<_>>(),
        "{what}: reversi.y"
    );
    // A frame holding several PDUs lists them in Info separated by ", ".
    let info: Vec<&str> = ours.iter().map(|f| f.info.as_str()).collect();
    let want: Vec<&str> = pdus.iter().map(|p| p.info.as_str()).collect();
    assert_eq!(info.join(", "), want.join(", "), "{what}: Info column");
}

/// Starts capturing `port`, or says why the test skips and returns `None`:
/// tshark or dumpcap missing, or no right to capture.
fn capture_or_skip(port: u16) -> Option<Capture> {
    if !on_path("tshark") || !on_path("dumpcap") {
        reversi_tests::skipped(
            "tshark and dumpcap are not installed (scripts/install-tools.sh tshark installs them)",
        );
        return None;
    }
    Capture::start(port)
        .map_err(|e| reversi_tests::skipped(&format!("cannot capture on lo: {e}")))
        .ok()
}

/// A client connected to a fake server that the test scripts, both raw,
/// with the capture running.
struct FakeSession {
    capture: Capture,
    listener: std::net::TcpListener,
    client: Client,
    server: Client,
    client_port: u16,
    server_port: u16,
}

impl FakeSession {
    /// A new client connection, and the fake server's end of it.
    fn connect(&self) -> (Client, Client) {
        let client = Client::connect(self.listener.local_addr().unwrap());
        let port = client.stream().local_addr().unwrap().port();
        // The capture's probes are queued first: take the client's connection.
        loop {
            let (stream, peer) = self.listener.accept().unwrap();
            if peer.port() == port {
                return (client, Client::from_stream(stream));
            }
        }
    }
}

fn fake_session() -> Option<FakeSession> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let server_port = listener.local_addr().unwrap().port();
    let capture = capture_or_skip(server_port)?;
    let client = Client::connect(listener.local_addr().unwrap());
    let client_port = client.stream().local_addr().unwrap().port();
    let server = loop {
        let (stream, peer) = listener.accept().unwrap();
        if peer.port() == client_port {
            break Client::from_stream(stream);
        }
    };
    Some(FakeSession {
        capture,
        listener,
        client,
        server,
        client_port,
        server_port,
    })
}

#[test]
fn tshark_decodes_a_captured_game() {
    let server = Server::start(&["--fixed-colours"]);
    let Some(mut capture) = capture_or_skip(server.addr().port()) else {
        return;
    };

    let mut black = Player::connect(&server);
    server.wait_log("queued (1 waiting)");
    let mut white = Player::connect(&server);
    for (player, colour) in [(&mut black, Colour::Black), (&mut white, Colour::White)] {
        player.recv("connect_ok", |m| *m == Msg::ConnectOk(colour));
        player.recv_update();
        player.recv_update();
    }
    let mut game = Game::new();

    // Black: one PDU in one write.
    black.recv("turn", |m| *m == Msg::Turn);
    let place = first_legal(&mut game);
    black.send(&[place]);
    black.recv_update();
    white.recv_update();

    // White: one PDU split over two writes, 3 bytes then 5.
    white.recv("turn", |m| *m == Msg::Turn);
    let place = first_legal(&mut game);
    white.send_split(&place, 3);
    white.recv_update();
    black.recv_update();

    // Black: two PDUs in one write, an off-board place then a legal one.
    black.recv("turn", |m| *m == Msg::Turn);
    let place = first_legal(&mut game);
    black.send(&[Pdu::Place(Place { x: -1, y: 9 }), place]);
    black.recv("place_error", |m| *m == Msg::PlaceError);
    black.recv_update();
    white.recv_update();

    // White: a malformed PDU; the server answers error, black wins.
    white.recv("turn", |m| *m == Msg::Turn);
    white.send_malformed();
    white.recv("error", |m| *m == Msg::Error);
    white.expect_closed();
    black.recv("winner", |m| *m == Msg::Winner(Winner::Black));
    black.expect_closed();

    let path = capture.finish(Duration::from_millis(500));
    let frames = frames(path, &[]);
    let port = server.addr().port();
    for (name, player) in [("black", &black), ("white", &white)] {
        check_stream(
            &frames,
            player.port(),
            port,
            &player.sent,
            &format!("{name} to server"),
        );
        check_stream(
            &frames,
            port,
            player.port(),
            &player.received,
            &format!("server to {name}"),
        );
    }

    // The cases themselves really happened on the wire.
    let from = |port: u16| frames.iter().filter(move |f| f.src_port == port);
    assert!(
        from(white.port()).any(|f| f.tcp_len == 3 && f.ids.is_empty()),
        "no 3-byte segment: the split place was not split"
    );
    assert!(
        from(black.port()).any(|f| f.ids == [4, 4]),
        "no segment with both places: the pair was not coalesced"
    );
    let malformed: Vec<&Frame> = from(white.port()).filter(|f| f.ids == [9]).collect();
    assert_eq!(malformed.len(), 1, "the malformed PDU's frame");
    assert!(
        malformed[0].expert.contains("unknown PDU id 9"),
        "no expert warning on the malformed PDU: {:?}",
        malformed[0].expert
    );
}

/// Frames a fake server and a client send, one fault of spec §5.3 each.
/// The last one, msg_size out of range, ends what can be read of a stream.
const SERVER_FAULTS: [&[u8]; 6] = [
    &[0, 8, 0, 1, 0, 3, 0, 0],              // M5: connect_ok for player 3
    &[0, 8, 0, 7, 0, 1, 0, 1],              // M6: winner with padding 1
    &[0, 12, 0, 6, 0, 2, 0, 0, 0, 8, 0, 0], // M7: update_board square (8, 0)
    &[0, 8, 0, 4, 0, 3, 0, 2],              // M4: place, from the server
    &[0, 6, 0, 3, 0, 0],                    // M3: turn with msg_size 6
    &[0, 3, 0, 3],                          // M1: msg_size 3
];
const CLIENT_FAULTS: [&[u8]; 2] = [
    &[0, 4, 0, 0],    // connect, well-formed: it marks the stream as binary
    &[0, 4, 0x7f, 0], // M2: unknown id 32512
];

#[test]
fn tshark_flags_every_kind_of_malformed_pdu_as_the_codec_does() {
    let Some(mut session) = fake_session() else {
        return;
    };
    for bytes in CLIENT_FAULTS {
        session.client.send_raw(bytes);
        std::thread::sleep(Duration::from_millis(20));
    }
    for bytes in SERVER_FAULTS {
        session.server.send_raw(bytes);
        // Separate segments, so each fault is read from where it starts.
        std::thread::sleep(Duration::from_millis(20));
    }
    session.client.hang_up();
    session.server.hang_up();

    let (port, client_port) = (session.server_port, session.client_port);
    let frames = frames(session.capture.finish(Duration::from_millis(500)), &[]);
    let said = |from: u16, to: u16| -> Vec<String> {
        frames
            .iter()
            .filter(|f| f.src_port == from && f.dst_port == to && !f.ids.is_empty())
            .map(|f| f.expert.clone())
            .collect()
    };
    let codec = |bytes: &[u8], direction| match reversi_pdu::decode(bytes, direction) {
        Err(error) => error.to_string(),
        Ok(status) => format!("accepted as {status:?}"),
    };
    // The well-formed connect raises nothing; each fault exactly the codec's error.
    assert_eq!(
        said(client_port, port),
        [
            "".to_owned(),
            codec(CLIENT_FAULTS[1], Direction::ClientToServer)
        ],
        "client to server"
    );
    let want: Vec<String> = SERVER_FAULTS
        .iter()
        .map(|bytes| codec(bytes, Direction::ServerToClient))
        .collect();
    assert_eq!(said(port, client_port), want, "server to client");
}

#[test]
fn on_the_port_text_and_binary_are_told_apart_as_the_server_does() {
    let Some(mut session) = fake_session() else {
        return;
    };
    // Opens with a printable line: the text protocol.
    session.client.send_raw(b"HELLO alice\nMOVE d3\n");
    std::thread::sleep(Duration::from_millis(20));
    session.server.send_raw(b"OK\n");
    // Opens with a blank, as a person at nc may: text too.
    let (mut blank, blank_server) = session.connect();
    blank.send_raw(b" GAME LIST\n1234\n");
    // Opens with neither text nor connect: binary all the same.
    let (mut binary, binary_server) = session.connect();
    binary.send_raw(&[0, 8, 0, 4, 0, 3, 0, 2]);
    std::thread::sleep(Duration::from_millis(20));
    for end in [
        &session.client,
        &session.server,
        &blank,
        &blank_server,
        &binary,
        &binary_server,
    ] {
        end.hang_up();
    }

    let (port, client_port) = (session.server_port, session.client_port);
    let blank_port = blank.stream().local_addr().unwrap().port();
    let binary_port = binary.stream().local_addr().unwrap().port();
    let path = session.capture.finish(Duration::from_millis(500));
    let from = |frames: &[Frame], port: u16| -> (Vec<i16>, Vec<String>) {
        let ours = frames.iter().filter(|f| f.src_port == port);
        let ids = ours.clone().flat_map(|f| f.ids.clone()).collect();
        (ids, ours.flat_map(|f| f.lines.clone()).collect())
    };
    // On any port, only a connection opening with connect is claimed.
    let anywhere = frames(path, &[]);
    assert!(anywhere
        .iter()
        .all(|f| f.ids.is_empty() && f.lines.is_empty()));
    // On the configured port, each is read as what the server would take it for.
    let preference = format!("reversi.port:{port}");
    let on_port = frames(path, &[&preference]);
    let lines = |strings: &[&str]| strings.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        from(&on_port, client_port),
        (vec![], lines(&["HELLO alice", "MOVE d3"]))
    );
    assert_eq!(from(&on_port, port).1, lines(&["OK"]));
    assert_eq!(
        from(&on_port, blank_port),
        (vec![], lines(&[" GAME LIST", "1234"]))
    );
    assert_eq!(from(&on_port, binary_port), (vec![4], vec![]));
}
