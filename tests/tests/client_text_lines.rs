//! `reversi play --game NAME` in line mode (stdin not a terminal, or
//! TERM=dumb): a scripted game with mistakes in it, a dumb terminal, and a
//! server that is not there.

mod client_support;

use std::net::TcpListener;

use client_support::Reversi;
use reversi_tests::tmux::{self, Tmux};
use reversi_tests::{reversi_binary, Server};

#[test]
fn a_scripted_game_with_mistakes_in_it() {
    let server = Server::start(&["--fixed-colours"]);
    let addr = server.addr().to_string();
    let play = ["play", "--game", "tictactoe", &addr];
    // X asks for help and the board, mistypes, names a square that is not
    // there (refused here by the rules, not sent: an illegal move would
    // lose), then wins.
    let x = Reversi::scripted(&play, "help\nboard\n1 2 3\nz9\nb2\na1\n3 1\nMOVE 1 1 3\n");
    server.wait_log("queued (1 waiting)");
    let o = Reversi::scripted(&play, "a2\nc3\nb1\n");
    let (x, o) = (x.finish(), o.finish());
    assert_eq!(x.code, Some(0), "{x:?}");
    assert_eq!(o.code, Some(0), "{o:?}");
    for wanted in [
        "TicTacToe on TicTacToeBoard 3x3: you play X (team 1)",
        "commands (one a line):",
        "refused: 3 numbers: a move's squares take two each",
        "refused: illegal move: \"z9\" is not a square",
        "X (team 1, you) played a3",
        "YOU WIN: Your team has won: three in a line",
        "3 (X) .  O  3",
    ] {
        assert!(x.stdout.contains(wanted), "{wanted:?} missing: {x:?}");
    }
    assert!(o.stdout.contains("YOU LOSE"), "{o:?}");
    assert!(x.stderr.is_empty() && o.stderr.is_empty(), "{x:?} {o:?}");
}

#[test]
fn stdin_eof_or_quit_in_the_queue_leaves_it_at_once() {
    let server = Server::start(&["--log-burst", "100"]);
    let addr = server.addr().to_string();
    let scripts = ["", "quit\n", "\nquit\nb2\n"];
    for game in ["tictactoe", "reversi"] {
        for script in scripts {
            // No opponent ever comes: the client must not wait for one.
            let left = Reversi::scripted(&["play", "--game", game, &addr], script).finish();
            assert_eq!(left.code, Some(0), "{game} {script:?}: {left:?}");
            assert!(left.stdout.contains("you left the queue"), "{left:?}");
        }
    }
    server.wait_logs(": left ", 2 * scripts.len());
}

#[test]
fn a_dumb_terminal_gets_lines_without_colour() {
    if !tmux::available() {
        reversi_tests::skipped("tmux is not installed (scripts/install-tools.sh tmux)");
        return;
    }
    let server = Server::start(&["--fixed-colours"]);
    let addr = server.addr().to_string();
    let play = ["play", "--game", "tictactoe", &addr];
    let screen = Tmux::start(&reversi_binary(), &play, &[("TERM", "dumb")], 80, 30);
    server.wait_log("queued (1 waiting)");
    let o = Reversi::start(&play);
    screen.wait_for(&["the server waits for your move", "2  .  .  .  2"]);
    screen.type_text("b2\n");
    screen.wait_for(&["X (team 1, you) played b2"]);
    screen.type_text("quit\n");
    screen.wait_for(&["you left the game"]);
    assert!(!screen.screen_with_escapes().contains('\x1b'));
    assert_eq!(screen.wait_exit(), 0);
    assert!(o.finish().stdout.contains("YOU WIN"));
}

#[test]
fn a_server_that_is_not_there_is_named() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    for args in [
        vec!["play", "--game", "tictactoe", &addr],
        vec!["watch", &addr],
        vec!["bot", "--game", "tictactoe", &addr],
    ] {
        let out = Reversi::scripted(&args, "").finish();
        assert_eq!(out.code, Some(2), "{args:?}: {out:?}");
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {out:?}");
        assert!(
            out.stderr
                .contains(&format!("could not connect to {addr}: ")),
            "{args:?}: {out:?}"
        );
    }
}
