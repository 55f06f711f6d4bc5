//! Who plays, and what records keep of the game, against the real reversid
//! (TEXT-PROTOCOL.md §5.1, §5.5, §7, §12): anonymous players get `GAME PLAYER` lines
//! between `GAME TEAM`/`GAME WATCHING` and `GAME TIME`, and look as before everywhere
//! else (`GAME LIST`, the log, records name their addresses); records carry the time
//! control and each move's clock; a player who comes back is told the moves so far.

use std::net::Shutdown;
use std::time::{Duration, Instant};

use reversi_tests::scratch::Scratch;
use reversi_tests::text::TextClient;
use reversi_tests::{Server, PATIENCE};

const ANONYMOUS: [&str; 2] = ["GAME PLAYER 1 anonymous - -", "GAME PLAYER 2 anonymous - -"];

/// Two Tic-Tac-Toe players that are told every line, X (joined first) and O, each read up
/// to its `GAME TEAM` line.
fn pair(server: &Server) -> (TextClient, TextClient) {
    let mut x = TextClient::join(server.addr(), "tictactoe").keep_every_line();
    x.next_is("GAME WAITING 1");
    let mut o = TextClient::join(server.addr(), "tictactoe").keep_every_line();
    x.expect("GAME TEAM 1 X");
    o.expect("GAME TEAM 2 O");
    (x, o)
}

/// X and O play `moves` in turn, X first, each waiting for its READY.
fn play(x: &mut TextClient, o: &mut TextClient, moves: &[&str]) {
    for (i, m) in moves.iter().enumerate() {
        let mover = if i % 2 == 0 { &mut *x } else { &mut *o };
        mover.expect("READY");
        mover.send(&format!("MOVE {m}"));
        let moved = format!("GAME MOVED {} {m}", i % 2 + 1);
        x.expect(&moved);
        o.expect(&moved);
    }
}

/// The one record written in `dir`, once it is there.
fn record(dir: &Scratch) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let names: Vec<String> = (dir.entries().into_iter())
            .filter(|name| !name.starts_with('.'))
            .collect();
        if let [name] = names.as_slice() {
            return std::fs::read_to_string(dir.path().join(name)).unwrap();
        }
        assert!(Instant::now() < deadline, "no record in time: {names:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn s5_1_anonymous_players_are_named_as_such_to_players_and_viewers_and_listed_as_before() {
    let server = Server::start(&["--fixed-colours"]);
    let (mut x, mut o) = pair(&server);
    for c in [&mut x, &mut o] {
        c.next_is(ANONYMOUS[0]);
        c.next_is(ANONYMOUS[1]);
        c.next_is("GAME TIME move ");
        c.next_is("DRAW SQUARE");
    }
    let mut viewer = TextClient::connect(server.addr()).keep_every_line();
    viewer.send("GAME LIST");
    let session = viewer.next_is("GAME SESSION 1 TicTacToe ");
    let players: Vec<&str> = session.split(' ').skip(5).collect();
    assert_eq!(players.len(), 2, "{session}");
    assert!(
        (players.iter()).all(|p| p.starts_with("127.0.0.1:") && !p.contains('@')),
        "anonymous players are their addresses, as before: {session}"
    );
    viewer.next_is("GAME SESSIONS 1");
    viewer.send("GAME WATCH 1");
    viewer.expect("GAME WATCHING 1");
    viewer.next_is(ANONYMOUS[0]);
    viewer.next_is(ANONYMOUS[1]);
    viewer.next_is("GAME TIME move ");
    x.expect("READY");
    x.send("GAME QUIT");
    o.expect("GAME OVER 2 X left the game");
    let line = server.wait_log("game over:");
    assert!(
        line.contains(&format!("X {} O {} end quit", players[0], players[1])),
        "the log names the addresses: {line}"
    );
}

#[test]
fn s12_records_carry_the_time_control_and_each_moves_clock() {
    let records = Scratch::new("players-records");
    let dir = records.path().to_str().unwrap();
    let server = Server::start(&[
        "--time-control",
        "tictactoe=5+3",
        "--record-dir",
        dir,
        "--fixed-colours",
    ]);
    let (mut x, mut o) = pair(&server);
    play(&mut x, &mut o, &["b2", "a1"]);
    x.expect("READY");
    x.send("GAME QUIT");
    o.expect("GAME OVER 2");
    let text = record(&records);
    assert!(text.contains("[TimeControl \"300+3\"]\n\n"), "{text}");
    let moves: Vec<&str> = text.lines().skip_while(|l| !l.is_empty()).skip(1).collect();
    assert_eq!(moves.len(), 2, "{text}");
    for (line, start) in moves
        .iter()
        .zip(["X b2 {[%clk 0:05:0", "O a1 {[%clk 0:05:0"])
    {
        // Under a second's thinking and 3 s of increment: 5:00 to 5:03.
        assert!(line.starts_with(start) && line.ends_with("]}"), "{text}");
    }
    let addresses: Vec<String> = (text.lines())
        .filter(|l| l.starts_with("[X ") || l.starts_with("[O "))
        .map(str::to_owned)
        .collect();
    assert!(
        addresses.iter().all(|l| l.contains("\"127.0.0.1:")),
        "anonymous players are recorded by address: {addresses:?}"
    );
}

#[test]
fn s5_5_a_player_who_comes_back_is_told_the_moves_so_far_before_the_board() {
    let server = Server::start(&["--grace", "60", "--fixed-colours"]);
    let (mut x, mut o) = pair(&server);
    let token = o.expect("GAME TOKEN ");
    let token = token.split(' ').nth(2).unwrap().to_owned();
    play(&mut x, &mut o, &["b2", "a1", "c3"]);
    let _ = o.stream().shutdown(Shutdown::Both);
    x.expect("GAME AWAY 2 ");
    let mut back = TextClient::connect(server.addr()).keep_every_line();
    back.send(&format!("GAME RESUME {token}"));
    back.expect("GAME TEAM 2 O");
    for line in [
        ANONYMOUS[0],
        ANONYMOUS[1],
        "GAME TIME move 600000 ",
        "GAME RESUMED 1",
        "GAME TOKEN ",
        "GAME MOVED 1 b2",
        "GAME MOVED 2 a1",
        "GAME MOVED 1 c3",
        "DRAW SQUARE empty 1 1",
    ] {
        back.next_is(line);
    }
    back.expect("READY");
    back.send("MOVE a2");
    x.expect("GAME MOVED 2 a2");
}
