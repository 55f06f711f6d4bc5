//! Game clocks, the lag allowance and rematch offers against the real reversid
//! (TEXT-PROTOCOL.md §5.1, §6.4, §8): `GAME TIME`, a Fischer clock that flags on
//! time and says in the log how late, every team's `GAME CLOCK` falling by the
//! think time and gaining the increment, a late viewer's clocks, a slow link
//! credited its round trip and not the player's thinking, the rematch window
//! (offer, accept, decline, expiry; none with a binary seat), and what a text
//! client gets with the server's default options.

use std::time::{Duration, Instant};

use reversi_pdu::{Colour, Winner};
use reversi_tests::delay::DelayProxy;
use reversi_tests::text::TextClient;
use reversi_tests::{Msg, Server};

/// A client that joins `game` and returns every line (none skipped), without Nagle.
fn join(server: &Server, game: &str) -> TextClient {
    let c = TextClient::connect(server.addr()).keep_every_line();
    c.stream().set_nodelay(true).unwrap();
    let mut c = c;
    c.send(&format!("GAME TYPE {game}"));
    c
}

/// The next line, which must be `GAME CLOCK <team> <ms>`: its ms.
fn clock(c: &mut TextClient, team: u8) -> u64 {
    let prefix = format!("GAME CLOCK {team} ");
    c.next_is(&prefix)[prefix.len()..].parse().unwrap()
}

/// Reads to the next line starting with `prefix`, answering every `GAME PING` at once.
fn expect_answering(c: &mut TextClient, prefix: &str) -> String {
    loop {
        let line = c.expect("");
        if let Some(n) = line.strip_prefix("GAME PING ") {
            c.send(&format!("GAME PONG {n}"));
        }
        if line.starts_with(prefix) {
            return line;
        }
    }
}

/// Two tic-tac-toe players, X first (the server runs with `--fixed-colours`), each read
/// up to its `GAME TIME` line, which is returned.
fn pair(server: &Server) -> (TextClient, TextClient, String) {
    let mut x = join(server, "tictactoe");
    x.next_is("GAME WAITING 1");
    let mut o = join(server, "tictactoe");
    let mut time = String::new();
    for (c, team) in [(&mut x, "GAME TEAM 1 X"), (&mut o, "GAME TEAM 2 O")] {
        c.expect(team);
        c.next_is("GAME PLAYER 1 anonymous - -");
        c.next_is("GAME PLAYER 2 anonymous - -");
        time = c.next_is("GAME TIME ");
        c.next_is("DRAW SQUARE");
    }
    (x, o, time)
}

#[test]
fn s8_a_fischer_clock_flags_on_time_and_the_log_says_how_late() {
    let server = Server::start(&["--time-control", "tictactoe=2s+1", "--fixed-colours"]);
    let (mut x, mut o, time) = pair(&server);
    assert_eq!(time, "GAME TIME fischer 2000 1000");
    for c in [&mut x, &mut o] {
        c.expect("GAME TURN 1");
        assert_eq!(clock(c, 1), 2_000, "{:?}", c.seen);
        assert_eq!(clock(c, 2), 2_000, "every team's clock, team 1 first");
    }
    x.next_is("READY");
    x.send("MOVE b2");
    for c in [&mut x, &mut o] {
        c.expect("GAME TURN 2");
        let left = clock(c, 1);
        assert!((2_800..=3_000).contains(&left), "X charged, +1 s: {left}");
        assert_eq!(clock(c, 2), 2_000);
    }
    o.next_is("READY");
    let told = Instant::now();
    assert_eq!(o.next_is("GAME OVER"), "GAME OVER 1 O ran out of time");
    let fell = told.elapsed();
    assert!(
        // Not before it is due; how late is the log's `flag late`, a benchmark figure,
        // not asserted on a shared machine.
        fell >= Duration::from_millis(1_950) && fell < Duration::from_secs(10),
        "the flag fell {fell:?} after READY"
    );
    o.next_is("RESULT LOSE Your team has lost: O ran out of time");
    x.expect("GAME OVER 1 O ran out of time");
    x.next_is("RESULT WIN");
    o.expect_closed(&[]);
    let line = server.wait_log("game over:");
    assert!(line.contains("end timeout by O"), "{line}");
    assert!(line.contains(" control 2s+1 "), "{line}");
    let late: f64 = line
        .split(" flag late ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("no flag late in {line}"));
    assert!(late >= 0.0, "a flag is never judged early: {line}");
}

#[test]
fn s8_clocks_fall_by_the_think_time_gain_the_increment_and_reach_a_late_viewer() {
    let server = Server::start(&["--time-control", "tictactoe=10s+2", "--fixed-colours"]);
    let (mut x, mut o, _) = pair(&server);
    x.expect("READY");
    std::thread::sleep(Duration::from_millis(300));
    x.send("MOVE b2");
    for c in [&mut x, &mut o] {
        c.expect("GAME TURN 2");
        let left = clock(c, 1);
        assert!(
            (11_650..=11_700).contains(&left),
            "10 s - 0.3 s + 2 s: {left}"
        );
        assert_eq!(clock(c, 2), 10_000, "a stopped clock");
    }
    o.next_is("READY");
    std::thread::sleep(Duration::from_millis(500));
    o.send("MOVE a1");
    let (mut x_left, mut o_left) = (0, 0);
    for c in [&mut x, &mut o] {
        c.expect("GAME TURN 1");
        x_left = clock(c, 1);
        o_left = clock(c, 2);
        assert!((11_450..=11_500).contains(&o_left), "{o_left}");
    }
    x.next_is("READY");
    std::thread::sleep(Duration::from_millis(200));
    let mut viewer = TextClient::connect(server.addr()).keep_every_line();
    viewer.send("GAME WATCH 1");
    viewer.expect("GAME WATCHING 1");
    viewer.next_is("GAME PLAYER 1 anonymous - -");
    viewer.next_is("GAME PLAYER 2 anonymous - -");
    viewer.next_is("GAME TIME fischer 10000 2000");
    viewer.expect("GAME TURN 1");
    let running = clock(&mut viewer, 1);
    assert!(
        running < x_left - 150 && running > x_left - 2_000,
        "X's clock runs: {running} of {x_left}"
    );
    assert_eq!(clock(&mut viewer, 2), o_left, "O's is stopped");
    x.send("GAME QUIT");
    viewer.expect("GAME OVER 2 X left the game");
}

#[test]
fn s8_a_slow_link_is_credited_its_round_trip_not_the_players_thinking() {
    let server = Server::start(&[
        "--time-control",
        "tictactoe=10s+0",
        "--lag-allowance",
        "500",
        "--fixed-colours",
    ]);
    let proxy = DelayProxy::start(server.addr(), Duration::from_millis(100));
    let mut x = join(&server, "tictactoe");
    x.next_is("GAME WAITING 1");
    let mut o = TextClient::connect(proxy.addr()).keep_every_line();
    o.stream().set_nodelay(true).unwrap();
    o.send("GAME TYPE tictactoe");
    // O answers its ping through the slow link: a 200 ms round trip, measured.
    expect_answering(&mut o, "GAME PING 1");
    std::thread::sleep(Duration::from_millis(300));
    expect_answering(&mut x, "READY");
    x.send("MOVE b2");
    expect_answering(&mut o, "READY");
    // O thinks 300 ms; its READY and its move each spent 100 ms on the way.
    std::thread::sleep(Duration::from_millis(300));
    o.send("MOVE a1");
    expect_answering(&mut x, "GAME TURN 1");
    clock(&mut x, 1);
    let charged = 10_000 - clock(&mut x, 2) as i64;
    assert!(
        // Without the credit it would be 500 and more; the upper margin is the machine's
        // scheduling noise, which only ever adds.
        (280..=450).contains(&charged),
        "O was charged {charged} ms for 300 ms of thought (500 without the credit)"
    );
    x.send("GAME QUIT");
    let line = server.wait_log("game over:");
    assert!(line.contains(" lag X:0 O:"), "{line}");
}

/// X wins (seat X plays b2, b1, b3); everyone is read up to the window's timer.
fn x_wins(x: &mut TextClient, o: &mut TextClient) {
    for (mover, square) in [
        ("x", "b2"),
        ("o", "a1"),
        ("x", "b1"),
        ("o", "c1"),
        ("x", "b3"),
    ] {
        let c = if mover == "x" { &mut *x } else { &mut *o };
        c.expect("READY");
        c.send(&format!("MOVE {square}"));
    }
    for c in [x, o] {
        c.expect("GAME OVER 1");
        c.next_is("RESULT");
        assert_eq!(
            c.next_is("GAME TIMER rematch"),
            "GAME TIMER rematch 2000 a rematch may be offered until then"
        );
    }
}

#[test]
fn s6_a_rematch_offered_and_accepted_starts_with_the_teams_turned_round() {
    let server = Server::start(&[
        "--rematch-window",
        "2",
        "--time-control",
        "tictactoe=10s+0",
        "--fixed-colours",
    ]);
    let (mut x, mut o, _) = pair(&server);
    x.expect("READY");
    x.send("GAME OFFER REMATCH");
    x.next_is("ERROR the game is not over");
    x.next_is("READY");
    x.send("MOVE b2");
    o.expect("READY");
    o.send("MOVE a1");
    for (mover, square) in [("x", "b1"), ("o", "c1"), ("x", "b3")] {
        let c = if mover == "x" { &mut x } else { &mut o };
        c.expect("READY");
        c.send(&format!("MOVE {square}"));
    }
    for c in [&mut x, &mut o] {
        c.expect("GAME OVER 1");
        c.next_is("RESULT");
        c.next_is("GAME TIMER rematch 2000 a rematch may be offered until then");
    }
    o.send("GAME ACCEPT REMATCH");
    o.next_is("ERROR no rematch was offered");
    x.send("GAME OFFER REMATCH");
    o.next_is("GAME OFFERED REMATCH 1");
    o.next_is("GAME NEWS X offers a rematch");
    x.send("GAME OFFER REMATCH");
    x.next_is("ERROR you offered already; wait for the answer");
    o.send("GAME ACCEPT REMATCH");
    for (c, team) in [(&mut x, "GAME TEAM 2 O"), (&mut o, "GAME TEAM 1 X")] {
        c.next_is("GAME TYPE TicTacToe");
        c.expect(team);
        c.next_is("GAME PLAYER 1 anonymous - -");
        c.next_is("GAME PLAYER 2 anonymous - -");
        c.next_is("GAME TIME fischer 10000 0");
    }
    o.expect("READY");
    o.send("GAME QUIT");
    x.expect("GAME OVER 2 X left the game");
    server.wait_logs("game over:", 2);
}

#[test]
fn s6_a_declined_rematch_or_a_window_that_runs_out_closes_the_game() {
    let server = Server::start(&["--rematch-window", "2", "--fixed-colours"]);
    let (mut x, mut o, _) = pair(&server);
    x_wins(&mut x, &mut o);
    o.send("GAME OFFER REMATCH");
    x.next_is("GAME OFFERED REMATCH 2");
    x.send("GAME DECLINE REMATCH");
    for c in [&mut x, &mut o] {
        c.expect("GAME NEWS X declines the rematch");
        c.next_is("GAME TIMER rematch 0 no rematch");
        c.expect_closed(&[]);
    }
    let (mut x, mut o, _) = pair(&server);
    x_wins(&mut x, &mut o);
    let opened = Instant::now();
    for c in [&mut x, &mut o] {
        c.next_is("GAME TIMER rematch 0 no rematch");
        c.expect_closed(&[]);
    }
    let open = opened.elapsed();
    assert!(
        open >= Duration::from_millis(1_900),
        "closed after {open:?}"
    );
}

#[test]
fn s6_a_game_with_a_binary_seat_has_no_rematch_window_and_the_same_bytes() {
    // With the lag allowance on, the binary seat's round trip is the kernel's: no bytes.
    let server = Server::start(&[
        "--rematch-window",
        "2",
        "--lag-allowance",
        "500",
        "--time-control",
        "reversi=1s+0",
        "--fixed-colours",
    ]);
    let mut binary = server.join();
    let mut text = join(&server, "reversi");
    assert_eq!(binary.expect_connect_ok(), Colour::Black);
    binary.expect_initial_position();
    binary.expect(Msg::Turn);
    binary.expect(Msg::Winner(Winner::White));
    binary.expect_closed();
    text.expect("GAME TIME fischer 1000 0");
    text.expect("GAME OVER 2 black ran out of time");
    text.next_is("RESULT WIN");
    text.expect_closed(&[]);
    let line = server.wait_log("game over:");
    assert!(line.contains(" lag black:0 white:0 "), "{line}");
}

#[test]
fn s11_with_the_default_options_a_player_gets_the_time_its_clock_and_a_ping() {
    let server = Server::start(&[
        "--first-move-timeout",
        "30",
        "--lag-allowance",
        "500",
        "--rematch-window",
        "20",
        "--fixed-colours",
    ]);
    let (mut x, mut o, time) = pair(&server);
    assert_eq!(time, "GAME TIME move 600000 30000");
    let squares = |c: &TextClient| c.seen.iter().filter(|l| l.starts_with("DRAW")).count();
    for c in [&mut x, &mut o] {
        c.expect("GAME TURN 1");
        assert_eq!(squares(c), 9, "the whole board after GAME TIME");
        assert_eq!(clock(c, 1), 30_000, "the first move's limit");
    }
    x.next_is("READY");
    x.next_is("GAME PING 1");
    o.next_is("GAME PING 1");
    x.send("GAME PONG 1");
    o.send("GAME PONG 1");
    x.send("GAME QUIT");
    x.next_is("GAME OVER 2 X left the game");
    o.expect("GAME OVER 2 X left the game");
}

#[test]
fn s8_holding_pongs_back_gains_at_most_the_allowance_and_half_of_it_a_move() {
    let server = Server::start(&[
        "--time-control",
        "tictactoe=10s+0",
        "--lag-allowance",
        "500",
        "--fixed-colours",
    ]);
    let (mut x, mut o, _) = pair(&server);
    // O holds its first pong 2 s: it looks 2 s away (a sample is capped at 1 s).
    let ping = o.expect("GAME PING ");
    std::thread::sleep(Duration::from_secs(2));
    o.send(&format!("GAME PONG {}", &ping["GAME PING ".len()..]));
    let x_moves = ["b2", "a3", "b1", "c2"];
    let o_moves = ["a1", "c1", "b3", "a2"];
    let think = Duration::from_millis(800);
    for (xm, om) in x_moves.iter().zip(o_moves) {
        expect_answering(&mut x, "READY");
        x.send(&format!("MOVE {xm}"));
        expect_answering(&mut o, "READY");
        std::thread::sleep(think);
        o.send(&format!("MOVE {om}"));
    }
    expect_answering(&mut x, "GAME TURN 1");
    clock(&mut x, 1);
    let charged = 10_000 - clock(&mut x, 2);
    let thought = 4 * think.as_millis() as u64;
    // The quota (2A) once, and its gain (A/2) a move.
    let most_gained = 1_000 + 250 * 4;
    assert!(
        charged + most_gained >= thought && charged <= thought + 50,
        "O thought {thought} ms and was charged {charged} ms"
    );
    assert!(charged < thought, "the round trip it claimed was credited");
    x.send("GAME QUIT");
}
