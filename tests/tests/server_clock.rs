//! The clocks and the game's own timers over the text protocol, against the real
//! reversid: `GAME CLOCK` after each `GAME TURN` with the time the move has, the
//! time left to a viewer who arrives, the flag falling when it runs out; and
//! Foxes & Dolphins' `GAME TIMER` lines for its tide and its quiet limit.

use std::time::{Duration, Instant};

use reversi_tests::text::TextClient;
use reversi_tests::Server;

/// The milliseconds of a `GAME CLOCK <team> <ms>` line for `team`.
fn clock_ms(c: &mut TextClient, team: u8) -> u64 {
    let prefix = format!("GAME CLOCK {team} ");
    let line = c.next_is(&prefix);
    line[prefix.len()..].parse().unwrap()
}

#[test]
fn each_turn_tells_the_move_clock_and_the_flag_falls_when_it_runs_out() {
    let server = Server::start(&["--move-timeout", "1", "--fixed-colours"]);
    let mut black = TextClient::join(server.addr(), "reversi");
    black.next_is("GAME WAITING 1");
    let mut white = TextClient::join(server.addr(), "reversi");
    for c in [&mut black, &mut white] {
        c.expect("GAME TURN 1");
        assert_eq!(
            clock_ms(c, 1),
            1_000,
            "right after the turn: the move limit"
        );
    }
    black.next_is("READY");
    black.send("MOVE d3");
    for c in [&mut black, &mut white] {
        c.expect("GAME MOVED 1 d3");
        c.expect("GAME TURN 2");
        assert_eq!(clock_ms(c, 2), 1_000, "each move has the whole limit");
    }
    white.next_is("READY");
    let white_told = Instant::now();
    // A viewer arriving now is told the time white has left.
    server.wait_log("started: game 1");
    let mut viewer = TextClient::connect(server.addr());
    viewer.send("GAME WATCH 1");
    viewer.expect("GAME WATCHING 1");
    viewer.expect("GAME TURN 2");
    let left = clock_ms(&mut viewer, 2);
    assert!(left < 1_000, "{left} ms left: the clock runs");
    // An ERROR neither restarts the clock nor tells it again.
    white.send("MOVE");
    white.next_is("ERROR");
    white.next_is("READY");
    assert_eq!(
        white.expect("GAME OVER"),
        "GAME OVER 1 white ran out of time"
    );
    let fell = white_told.elapsed();
    assert!(
        fell >= Duration::from_millis(900) && fell < Duration::from_secs(3),
        "the flag fell {fell:?} after the clock was told"
    );
    white.next_is("RESULT LOSE");
    black.expect("RESULT WIN");
    viewer.expect("GAME OVER 1 white ran out of time");
    viewer.expect_closed(&[]);
    for c in [&white, &black] {
        let clocks = c.seen.iter().filter(|l| l.starts_with("GAME CLOCK"));
        assert_eq!(clocks.count(), 2, "{:?}", c.seen);
    }
}

#[test]
fn a_game_without_a_move_limit_sends_no_clock() {
    let server = Server::start(&["--move-timeout", "0"]);
    let mut x = TextClient::join(server.addr(), "tictactoe");
    x.next_is("GAME WAITING 1");
    let mut o = TextClient::join(server.addr(), "tictactoe");
    let mover = x.expect("GAME TEAM ");
    let (first, second) = if mover == "GAME TEAM 1 X" {
        (&mut x, &mut o)
    } else {
        (&mut o, &mut x)
    };
    first.expect("GAME TURN 1");
    first.next_is("READY");
    first.send("MOVE b2");
    second.expect("GAME TURN 2");
    second.next_is("READY");
}

#[test]
fn foxes_tells_its_tide_and_quiet_timers_and_no_clock() {
    let server = Server::start(&[
        "--game-option",
        "foxes.tide-ms=300",
        "--game-option",
        "foxes.quiet-ms=1000",
    ]);
    let mut a = TextClient::join(server.addr(), "foxes");
    a.next_is("GAME WAITING 1");
    let mut b = TextClient::join(server.addr(), "foxes");
    for c in [&mut a, &mut b] {
        c.expect("GAME TEAM");
        // After the board: the game's timers, then READY. Game time began when the
        // session set the game up, a moment before this line.
        let tide = c.expect("GAME TIMER");
        let (ms, text) = tide["GAME TIMER tide ".len()..].split_once(' ').unwrap();
        let ms: u64 = ms.parse().unwrap();
        assert!(ms > 0 && ms <= 300, "{tide}");
        assert_eq!(text, "the tide turns");
        c.next_is("GAME TIMER quiet ");
        assert!(c
            .seen
            .last()
            .unwrap()
            .ends_with(" the game ends on numbers if nothing is eaten"));
        c.next_is("READY");
    }
    // Each tide: its news, then the next tide's timer.
    for c in [&mut a, &mut b] {
        c.expect("GAME NEWS tide: the water rises (floodstate 1)");
        let next = c.next_is("GAME TIMER tide ");
        assert!(next.ends_with(" the tide turns"), "{next}");
    }
    // Nothing eaten for a second: the game ends on numbers, as the quiet timer said.
    let over = a.expect("GAME OVER");
    assert!(over.contains("nothing eaten for 1 s"), "{over}");
    b.expect("GAME OVER");
    for c in [&a, &b] {
        assert!(
            !c.seen.iter().any(|l| l.starts_with("GAME CLOCK")),
            "real time has no move clock: {:?}",
            c.seen
        );
    }
}
