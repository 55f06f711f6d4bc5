//! Leaving, dropping and malformed input, before and after pairing: the
//! offender gets error (or nothing) and is closed, the opponent wins, and the
//! supervisor keeps serving.

use reversi_pdu::{Colour, Pdu, Winner};
use reversi_tests::{play_out, Client, Msg, Rng, Server};

/// Every malformed client-to-server byte string of spec §5.3/§11.3 that a
/// server can receive, plus server-to-client ids (M4).
const MALFORMED: &[&[u8]] = &[
    &[0x00, 0x03, 0x00, 0x03],                         // M1: msg_size 3
    &[0x00, 0x00, 0x00, 0x00],                         // M1: msg_size 0
    &[0x01, 0x09, 0x00, 0x06],                         // M1: 265, from the header alone
    &[0xff, 0xff, 0x00, 0x04],                         // M1: 65535 read unsigned
    &[0x00, 0x04, 0x00, 0x08],                         // M2: unknown id 8
    &[0x00, 0x04, 0xff, 0xfe],                         // M2: unknown id -2
    &[0x00, 0x04, 0x00, 0x04],                         // M3: place with msg_size 4
    &[0x00, 0x0c, 0x00, 0x04],                         // M3: place with msg_size 12
    &[0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], // M3: connect with msg_size 8
    &[0x00, 0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00], // M3: quit with msg_size 8
    &[0x00, 0x04, 0x00, 0x03],                         // M4: turn
    &[0x00, 0x04, 0x00, 0x05],                         // M4: place_error
    &[0x00, 0x08, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00], // M4: connect_ok
    &[0x00, 0x08, 0x00, 0x07, 0x00, 0x01, 0x00, 0x00], // M4: winner
    &[
        0x00, 0x0c, 0x00, 0x06, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x02,
    ], // M4: update_board
];

#[test]
fn every_malformed_pdu_in_a_game_loses_it_for_the_sender() {
    let server = Server::start(&[]);
    for (i, bytes) in MALFORMED.iter().enumerate() {
        let (mut black, mut white) = server.pair();
        black.expect(Msg::Turn);
        // Alternate the offender between the mover and the waiting player.
        let (offender, victim, victim_colour) = if i % 2 == 0 {
            (&mut black, &mut white, Colour::White)
        } else {
            (&mut white, &mut black, Colour::Black)
        };
        offender.send_raw(bytes);
        offender.expect(Msg::Error);
        offender.expect_closed();
        victim.expect(Msg::Winner(Winner::from(victim_colour)));
        victim.expect_closed();
    }
    let ends = server.wait_logs("end malformed", MALFORMED.len());
    assert_eq!(ends.len(), MALFORMED.len());
    // The supervisor is still serving.
    let (mut black, mut white) = server.pair();
    play_out(&mut black, &mut white, &mut Rng::new(1));
}

#[test]
fn a_second_connect_in_a_game_is_a_violation() {
    let server = Server::start(&[]);
    let (mut black, mut white) = server.pair();
    black.expect(Msg::Turn);
    white.send(&Pdu::Connect);
    white.expect(Msg::Error);
    white.expect_closed();
    black.expect(Msg::Winner(Winner::Black));
    black.expect_closed();
}

#[test]
fn quit_error_and_drop_on_either_side_give_the_opponent_the_win() {
    let server = Server::start(&[]);
    #[derive(Clone, Copy, Debug)]
    enum Leave {
        Quit,
        Error,
        Close,
        PartialThenClose,
    }
    for how in [
        Leave::Quit,
        Leave::Error,
        Leave::Close,
        Leave::PartialThenClose,
    ] {
        for leaver_is_black in [true, false] {
            let (mut black, mut white) = server.pair();
            black.expect(Msg::Turn);
            let (leaver, stayer, stayer_colour) = if leaver_is_black {
                (&mut black, &mut white, Colour::White)
            } else {
                (&mut white, &mut black, Colour::Black)
            };
            match how {
                Leave::Quit => leaver.send(&Pdu::Quit),
                Leave::Error => leaver.send(&Pdu::Error),
                Leave::Close => leaver.hang_up(),
                Leave::PartialThenClose => {
                    leaver.send_raw(&[0, 8, 0, 4, 0]);
                    leaver.hang_up();
                }
            }
            stayer.expect(Msg::Winner(Winner::from(stayer_colour)));
            stayer.expect_closed();
            if !matches!(how, Leave::Close | Leave::PartialThenClose) {
                // The leaver is sent nothing, only closed.
                leaver.expect_closed();
            }
        }
    }
    server.wait_logs("end quit", 4);
    server.wait_logs("end drop", 4);
}

#[test]
fn handshake_violations_get_error_and_close() {
    let server = Server::start(&[]);
    let not_connect: &[&[u8]] = &[
        &[0x00, 0x04, 0x00, 0x02],                         // quit
        &[0x00, 0x04, 0xff, 0xff],                         // error
        &[0x00, 0x08, 0x00, 0x04, 0x00, 0x03, 0x00, 0x02], // place
    ];
    for bytes in not_connect.iter().chain(MALFORMED) {
        let mut c = Client::connect(server.addr());
        c.send_raw(bytes);
        c.expect(Msg::Error);
        c.expect_closed();
    }
    // EOF during the handshake: closed, nothing sent.
    let mut c = Client::connect(server.addr());
    c.send_raw(&[0, 4]);
    c.hang_up_write();
    c.expect_closed();
    let (mut black, mut white) = server.pair();
    play_out(&mut black, &mut white, &mut Rng::new(2));
}

#[test]
fn queued_clients_that_leave_are_never_paired() {
    let server = Server::start(&["--fixed-colours"]);
    // quit, error, close, and a violation (second connect) while queued.
    let leave: [&dyn Fn(&mut Client); 4] = [
        &|c| c.send(&Pdu::Quit),
        &|c| c.send(&Pdu::Error),
        &|c| c.hang_up(),
        &|c| c.send(&Pdu::Connect),
    ];
    for (i, how) in leave.iter().enumerate() {
        let mut gone = server.join();
        server.wait_logs("queued (1 waiting)", i + 1);
        how(&mut gone);
        if i == 3 {
            gone.expect(Msg::Error);
        }
        if i != 2 {
            gone.expect_closed();
        } else {
            server.wait_log("left the queue (connection closed)");
        }
    }
    server.wait_logs("left before being paired", 2);
    server.wait_log("left the queue (connection closed)");
    // The next two are paired with each other, the first as black.
    let mut a = server.join();
    server.wait_logs("queued (1 waiting)", 5);
    let mut b = server.join();
    assert_eq!(a.expect_connect_ok(), Colour::Black);
    assert_eq!(b.expect_connect_ok(), Colour::White);
}

#[test]
fn random_garbage_from_either_side_never_hangs_or_kills_the_supervisor() {
    let server = Server::start(&[]);
    let mut rng = Rng::new(99);
    for round in 0..40 {
        // Half the rounds start with a plausible header so the decoder gets past byte 4.
        let mut garbage: Vec<u8> = (0..1 + rng.below(40))
            .map(|_| rng.next_u64() as u8)
            .collect();
        if round % 2 == 0 {
            garbage.splice(0..0, [0, 8, 0, 4]);
        }
        if round % 4 < 2 {
            // Before pairing: error or a silent close, never anything else.
            let mut c = Client::connect(server.addr());
            c.send_raw(&garbage);
            c.hang_up_write();
            loop {
                match c.recv() {
                    Msg::Error => {}
                    Msg::Closed => break,
                    other => panic!("{other:?} to a client that sent {garbage:02x?}"),
                }
            }
            continue;
        }
        let (mut black, mut white) = server.pair();
        black.expect(Msg::Turn);
        let (offender, victim, victim_colour) = if round % 8 < 4 {
            (&mut black, &mut white, Colour::White)
        } else {
            (&mut white, &mut black, Colour::Black)
        };
        offender.send_raw(&garbage);
        offender.hang_up_write();
        // Whatever the garbage meant, the game ends with the victim winning (or, if it
        // happened to hold a legal move, with the victim still told the result).
        let mut last = None;
        loop {
            match victim.recv() {
                Msg::Closed => break,
                msg => last = Some(msg),
            }
        }
        assert_eq!(
            last,
            Some(Msg::Winner(Winner::from(victim_colour))),
            "{garbage:02x?}"
        );
    }
    let (mut black, mut white) = server.pair();
    play_out(&mut black, &mut white, &mut Rng::new(5));
}

/// The supervisor's peak resident memory, in KiB.
fn peak_memory_kib(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("a VmHWM line");
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn a_client_streaming_garbage_is_cut_off_without_being_buffered() {
    use std::io::Write;
    use std::time::{Duration, Instant};

    let server = Server::start(&[]);
    let before = peak_memory_kib(server.pid());
    let mut flood = std::net::TcpStream::connect(server.addr()).unwrap();
    flood
        .set_write_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let chunk = vec![0u8; 1 << 20];
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut sent = 0usize;
    let cut_off = loop {
        if Instant::now() > deadline {
            break false;
        }
        match flood.write(&chunk) {
            Ok(n) => sent += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => break true,
        }
    };
    let grew = peak_memory_kib(server.pid()).saturating_sub(before);
    assert!(
        grew < 16 * 1024,
        "supervisor grew by {grew} KiB after {sent} bytes of garbage"
    );
    assert!(cut_off, "still accepting garbage after {sent} bytes");
    let (mut black, mut white) = server.pair();
    play_out(&mut black, &mut white, &mut Rng::new(11));
}
