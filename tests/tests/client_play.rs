//! `reversi play` and `reversi bot` against the real `reversid` over the
//! binary protocol, through the one game-independent client: a whole
//! scripted game through piped stdin (with a pass, an illegal move, a
//! mistyped one, moves, hint and help), quitting, and two bots playing.

mod client_support;

use client_support::{game_with_a_pass, Reversi};
use reversi_engine::{Game, Outcome, Side};
use reversi_tests::Server;

/// Starts the black player, waits until the server has queued it, then the
/// white one, so that --fixed-colours gives black to the first.
fn two_players(server: &Server, black_script: &str, white_script: &str) -> (Reversi, Reversi) {
    let addr = server.addr().to_string();
    let black = Reversi::scripted(&["play", &addr], black_script);
    server.wait_log("queued (1 waiting)");
    let white = Reversi::scripted(&["play", &addr], white_script);
    (black, white)
}

#[test]
fn two_scripted_players_finish_a_game_with_a_pass() {
    let moves = game_with_a_pass();
    let mut game = Game::new();
    for &(_, square) in &moves {
        game.play(square).unwrap();
    }
    let script = |side: Side| -> String {
        let mine: Vec<String> = moves
            .iter()
            .filter(|(s, _)| *s == side)
            .map(|(_, sq)| format!("{sq}\n"))
            .collect();
        mine.concat()
    };
    // Black's first turn also tries an illegal move, a typo, moves, hint and help; its
    // first real move is typed in capitals.
    let first = moves[0].1.to_string().to_uppercase();
    let black_moves = script(Side::Black);
    let rest = black_moves.split_once('\n').unwrap().1;
    let black_script = format!("a1\nz9\nmoves\nhint\nhelp\n{first}\n{rest}");
    let server = Server::start(&["--fixed-colours"]);
    let (black, white) = two_players(&server, &black_script, &script(Side::White));
    let (b, w) = (black.finish(), white.finish());
    assert_eq!(b.code, Some(0), "black: {b:?}");
    assert_eq!(w.code, Some(0), "white: {w:?}");

    let (nb, nw) = (game.count(Side::Black), game.count(Side::White));
    // The game's own score, the winner's discs first.
    let (black_says, white_says) = match game.outcome() {
        Some(Outcome::Win(Side::Black)) => (
            format!("YOU WIN: Your team has won: {nb}-{nw}"),
            format!("YOU LOSE: Your team has lost: {nb}-{nw}"),
        ),
        Some(Outcome::Win(Side::White)) => (
            format!("YOU LOSE: Your team has lost: {nw}-{nb}"),
            format!("YOU WIN: Your team has won: {nw}-{nb}"),
        ),
        _ => (
            format!("DRAW: The game is drawn: {nb}-{nw}"),
            format!("DRAW: The game is drawn: {nb}-{nw}"),
        ),
    };
    assert!(
        b.stdout.contains(&format!("{black_says}\n")),
        "{}",
        b.stdout
    );
    assert!(
        w.stdout.contains(&format!("{white_says}\n")),
        "{}",
        w.stdout
    );
    for out in [&b.stdout, &w.stdout] {
        assert!(out.contains("waiting for 1 more player..."));
        assert!(
            out.contains("has no move and passes"),
            "the pass is reported:\n{out}"
        );
        assert!(out.contains("   a  b  c  d  e  f  g  h"));
    }
    assert!(b
        .stdout
        .contains("Reversi on ReversiBoard 8x8: you play black (team 1)"));
    assert!(w
        .stdout
        .contains("Reversi on ReversiBoard 8x8: you play white (team 2)"));
    assert!(
        b.stdout.contains("refused: illegal move: a1 flips nothing"),
        "{}",
        b.stdout
    );
    assert!(
        b.stdout.contains("refused: \"z9\" is not a square"),
        "{}",
        b.stdout
    );
    assert!(
        b.stdout.contains("legal moves: d3 c4 f5 e6"),
        "{}",
        b.stdout
    );
    assert!(b.stdout.contains("hint: "), "{}", b.stdout);
    assert!(b.stdout.contains("commands (one a line):"));
    assert!(b.stderr.is_empty() && w.stderr.is_empty(), "{b:?} {w:?}");
}

#[test]
fn quitting_forfeits_and_the_opponent_is_told() {
    let server = Server::start(&["--fixed-colours"]);
    let addr = server.addr().to_string();
    let mut black = Reversi::start(&["play", &addr]);
    server.wait_log("queued (1 waiting)");
    let white = Reversi::start(&["play", &addr]);
    // A quit in the queue leaves it: black's comes in the game.
    black.wait_stdout("you play black");
    black.end_script("quit\n");
    let (b, w) = (black.finish(), white.finish());
    assert_eq!(b.code, Some(0), "{b:?}");
    assert!(b.stdout.contains("you left the game"), "{b:?}");
    assert_eq!(w.code, Some(0), "{w:?}");
    assert!(
        w.stdout.contains(
            "YOU WIN: Your team has won: the opponent left or ran out of time, with the board at 2-2"
        ),
        "{w:?}"
    );
}

#[test]
fn stdin_eof_quits_at_the_players_turn() {
    let server = Server::start(&["--fixed-colours"]);
    let addr = server.addr().to_string();
    let black = Reversi::scripted(&["play", &addr], "f5\n");
    server.wait_log("queued (1 waiting)");
    let mut white = Reversi::start(&["play", &addr]);
    // The end of a script in the queue leaves it: white's ends in the game.
    white.wait_stdout("you play white");
    white.end_script("");
    let (b, w) = (black.finish(), white.finish());
    // White's script is empty: it quits when its turn comes, after f5.
    assert_eq!(w.code, Some(0), "{w:?}");
    assert!(w.stdout.contains("you left the game"), "{w:?}");
    assert!(
        b.stdout.contains(
            "YOU WIN: Your team has won: the opponent left or ran out of time, with the board at 4-1"
        ),
        "{b:?}"
    );
}

#[test]
fn stdin_eof_or_quit_in_the_queue_leaves_it_at_once() {
    let server = Server::start(&["--log-burst", "100"]);
    let addr = server.addr().to_string();
    let scripts = ["", "quit\n", "\nquit\nf5\n"];
    for script in scripts {
        // No opponent ever comes: the client must not wait for one.
        let left = Reversi::scripted(&["play", &addr], script).finish();
        assert_eq!(left.code, Some(0), "{script:?}: {left:?}");
        assert!(left.stdout.contains("you left the queue"), "{left:?}");
    }
    server.wait_logs(": left ", scripts.len());
}

#[test]
fn two_bots_play_two_games() {
    let server = Server::start(&[]);
    let addr = server.addr().to_string();
    let args = ["bot", &addr, "--level", "1", "--games", "2"];
    let one = Reversi::start(&args);
    let two = Reversi::start(&[&args[..], &["--seed", "9"]].concat());
    let (one, two) = (one.finish(), two.finish());
    for bot in [&one, &two] {
        assert_eq!(bot.code, Some(0), "{bot:?}");
        let lines: Vec<&str> = bot.stdout.lines().collect();
        assert_eq!(lines.len(), 3, "{bot:?}");
        assert!(lines[0].starts_with("game 1: "));
        assert!(lines[1].starts_with("game 2: "));
        assert!(lines[2].starts_with("2 games: "));
        assert!(!bot.stdout.contains("not finished"), "{bot:?}");
    }
    // The two see the same games from opposite sides.
    let record = |out: &str| {
        let last = out.lines().last().unwrap().to_owned();
        let (_, counts) = last.split_once(": ").unwrap();
        let counts: Vec<u32> = counts
            .split([',', ';'])
            .take(3)
            .map(|c| c.trim().split(' ').next().unwrap().parse().unwrap())
            .collect();
        counts
    };
    let (one, two) = (record(&one.stdout), record(&two.stdout));
    assert_eq!((one[0], one[1], one[2]), (two[2], two[1], two[0]));
}
