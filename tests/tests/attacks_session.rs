//! The attack suite's short versions against a running game (the session process):
//! viewers that come and go, too many viewers, a player that floods out of turn.
//! Loose enough for a debug build on a busy machine; `reversi-attack` measures the
//! real figures on a release build.

mod attacks_support;

use std::time::{Duration, Instant};

use attacks_support::{
    loopback, newest_game_id, open_descriptors, session_pid, text_players, watch, LineFlood,
};
use reversi_tests::Server;

/// A viewer that closes is forgotten at once: the session's descriptors stay flat
/// over many watch-and-close cycles.
#[test]
fn a_closed_viewers_descriptor_is_released_at_once() {
    let server = Server::start(&["--fixed-colours"]);
    let _players = text_players(server.addr(), "tictactoe");
    let id = newest_game_id(server.addr());
    let pid = session_pid(&server, id);
    drop(watch(server.addr(), loopback(0), id).expect("watches"));
    std::thread::sleep(Duration::from_millis(100));
    let before = open_descriptors(pid);
    for i in 0..300 {
        let viewer = watch(server.addr(), loopback(i % 50), id)
            .unwrap_or_else(|why| panic!("viewer {i} refused: {why}"));
        drop(viewer);
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut after = open_descriptors(pid);
    while after > before + 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        after = open_descriptors(pid);
    }
    assert!(
        after <= before + 2,
        "the session went from {before} descriptors to {after}"
    );
}

/// Past the viewers a game takes in all or from one address, a viewer is told why in
/// its protocol and closed; a place freed by a viewer that left is taken again.
#[test]
fn viewers_past_the_caps_are_refused_with_a_reason() {
    let server = Server::start(&[
        "--fixed-colours",
        "--max-viewers",
        "3",
        "--max-viewers-per-address",
        "2",
    ]);
    let _players = text_players(server.addr(), "tictactoe");
    let id = newest_game_id(server.addr());
    let a1 = watch(server.addr(), loopback(0), id).expect("first from a");
    let _a2 = watch(server.addr(), loopback(0), id).expect("second from a");
    let refused = refusal(watch(server.addr(), loopback(0), id));
    assert_eq!(
        refused,
        format!("ERROR your address watches game {id} 2 times, as many as it may")
    );
    let _b1 = watch(server.addr(), loopback(1), id).expect("first from b");
    let refused = refusal(watch(server.addr(), loopback(2), id));
    assert_eq!(
        refused,
        format!("ERROR game {id} has 3 viewers, as many as it takes")
    );
    drop(a1);
    let deadline = Instant::now() + Duration::from_secs(5);
    while watch(server.addr(), loopback(2), id).is_err() {
        assert!(Instant::now() < deadline, "the freed place is never taken");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn refusal<T>(watched: Result<T, String>) -> String {
    match watched {
        Ok(_) => panic!("a viewer past the cap was taken"),
        Err(line) => line,
    }
}

/// A player that sends MOVE out of turn as fast as it can (and reads every reply) is
/// read a budget a turn: the opponent's first-move clock still fires on time.
#[test]
fn an_out_of_turn_flood_does_not_hold_up_the_clock() {
    let server = Server::start(&["--fixed-colours", "--first-move-timeout", "1"]);
    let (mut honest, flooder) = text_players(server.addr(), "tictactoe");
    honest.expect("READY");
    let ready = Instant::now();
    let flood = LineFlood::start(flooder.stream().try_clone().unwrap(), "MOVE b2\n");
    honest.expect("GAME ABORTED");
    let late = ready.elapsed().saturating_sub(Duration::from_secs(1));
    let sent = flood.stop();
    assert!(sent > 100_000, "the flooder sent only {sent} bytes");
    assert!(
        late < Duration::from_millis(300),
        "the clock fired {late:?} late"
    );
}

/// Two connections to the Duell listener that never say a word are seated at once
/// (seed 000's clients speak only after the server) and their game is aborted at the
/// handshake timeout, not at the first-move clock's 30 s.
#[test]
fn a_game_of_silent_seed_clients_ends_at_the_handshake_timeout() {
    let server = Server::start(&[
        "--listen-seed",
        "duell=127.0.0.1:0",
        "--handshake-timeout",
        "1",
    ]);
    let start = Instant::now();
    let silent: Vec<_> = (0..2)
        .map(|_| std::net::TcpStream::connect(server.seed_addr("duell")).unwrap())
        .collect();
    for stream in silent {
        let mut client = reversi_tests::text::TextClient::from_stream(stream);
        client.set_timeout(Duration::from_secs(10));
        client.expect("ERROR south did not make its first move in time");
    }
    let took = start.elapsed();
    assert!(took < Duration::from_secs(5), "aborted after {took:?}");
}

/// The players are served before the viewers: a mover's echo of its own move is written
/// before the last viewer's copy, however many viewers watch (before, it waited for all).
#[test]
fn players_hear_of_a_move_before_the_viewers_do() {
    let server = Server::start(&["--fixed-colours", "--max-viewers", "2000"]);
    let (mut x, mut o) = text_players(server.addr(), "tictactoe");
    let id = newest_game_id(server.addr());
    let crowd: Vec<_> = (0..600)
        .map(|i| watch(server.addr(), attacks_support::spread(i), id).expect("watches"))
        .collect();
    let mut last = watch(server.addr(), loopback(0), id).expect("the last viewer");
    last.stream().set_nonblocking(true).unwrap();
    let mut first = 0;
    for (n, (mover, square)) in [(0, "b2"), (1, "a1"), (0, "c1"), (1, "a3")]
        .into_iter()
        .enumerate()
    {
        let player = if mover == 0 { &mut x } else { &mut o };
        player.expect("READY");
        player.send(&format!("MOVE {square}"));
        player.expect("GAME MOVED");
        if moves_seen(&mut last) <= n {
            first += 1;
            last.stream().set_nonblocking(false).unwrap();
            last.expect("GAME MOVED");
            last.stream().set_nonblocking(true).unwrap();
        }
    }
    assert!(
        first > 0,
        "in 4 moves the mover never heard before the last viewer"
    );
    drop(crowd);
}

/// How many `GAME MOVED` lines `viewer` has read, after reading what has arrived.
fn moves_seen(viewer: &mut reversi_tests::text::TextClient) -> usize {
    while viewer.recv().is_some() {}
    viewer
        .seen
        .iter()
        .filter(|l| l.starts_with("GAME MOVED"))
        .count()
}

/// The CPU time process `pid` has used.
fn cpu_time(pid: i32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<u64> = after_name
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|f| f.parse().ok())
        .collect();
    let ticks: u64 = fields.iter().sum();
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_millis(ticks * 1000 / per_second)
}

/// A player that left a game its team mate plays on is closed and then costs nothing:
/// the session sleeps until something happens.
#[test]
fn a_game_played_on_after_a_player_left_does_not_spin() {
    let server = Server::start(&["--fixed-colours", "--team-size", "2"]);
    let mut players: Vec<_> = (0..4)
        .map(|_| reversi_tests::text::TextClient::join(server.addr(), "tictactoe"))
        .collect();
    for p in &mut players {
        p.expect("GAME TURN 1");
    }
    let id = newest_game_id(server.addr());
    let pid = session_pid(&server, id);
    let mut quitter = players.pop().expect("four players");
    quitter.send("GAME QUIT");
    quitter.drain();
    drop(quitter);
    // Past the 2 s a leaving connection is given to close.
    std::thread::sleep(Duration::from_millis(2500));
    let before = cpu_time(pid);
    std::thread::sleep(Duration::from_secs(1));
    let used = cpu_time(pid) - before;
    assert!(
        used < Duration::from_millis(300),
        "the session used {used:?} of CPU in 1 s"
    );
}
