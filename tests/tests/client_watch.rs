//! `reversi watch` against the real reversid: the running games listed,
//! a text game and a binary Reversi game each watched to their end, and a
//! game that is not there.

mod client_support;

use client_support::Reversi;
use reversi_tests::Server;

/// The game id of the session the server says it started.
fn started_game(server: &Server) -> String {
    let line = server.wait_log("started: game ");
    let rest = line.split("started: game ").nth(1).unwrap();
    rest.split_whitespace().next().unwrap().to_owned()
}

/// Watches game `id` (or the first, with `None`) in line mode to its end.
fn watch(server: &Server, id: Option<&str>) -> client_support::Finished {
    let addr = server.addr().to_string();
    let mut args = vec!["watch", &addr];
    args.extend(id);
    Reversi::scripted(&args, "").finish()
}

#[test]
fn a_text_game_is_watched_to_its_end() {
    let server = Server::start(&[]);
    let addr = server.addr().to_string();
    let bot = ["bot", "--game", "reversi", &addr, "--move-time", "60"];
    let one = Reversi::start(&bot);
    let two = Reversi::start(&bot);
    let id = started_game(&server);
    let seen = watch(&server, Some(&id));
    assert_eq!(seen.code, Some(0), "{seen:?}");
    assert!(
        seen.stdout
            .contains(&format!("Reversi on ReversiBoard 8x8: watching game {id}")),
        "{seen:?}"
    );
    assert!(seen.stdout.contains("game over: "), "{seen:?}");
    assert!(seen.stdout.contains(" played "), "{seen:?}");
    assert!(
        seen.stdout.contains("   a  b  c  d  e  f  g  h"),
        "{seen:?}"
    );
    for bot in [one.finish(), two.finish()] {
        assert_eq!(bot.code, Some(0), "{bot:?}");
    }
}

#[test]
fn a_binary_reversi_game_is_watched_and_the_first_is_the_default() {
    let server = Server::start(&[]);
    let addr = server.addr().to_string();
    let bot = ["bot", &addr, "--move-time", "60"];
    let one = Reversi::start(&bot);
    let two = Reversi::start(&bot);
    let id = started_game(&server);
    let seen = watch(&server, None);
    assert_eq!(seen.code, Some(0), "{seen:?}");
    assert!(seen.stdout.contains("games running on"), "{seen:?}");
    assert!(
        seen.stdout.contains(&format!("watching game {id}")),
        "{seen:?}"
    );
    // A win for a team, named as GAME TEAMS names it, or a draw: bots at 60 ms can draw.
    assert!(
        seen.stdout.contains("game over: black (team 1) won")
            || seen.stdout.contains("game over: white (team 2) won")
            || seen.stdout.contains("game over: a draw"),
        "{seen:?}"
    );
    // Reversi's rows count from the top: row 1 is drawn first.
    assert!(
        seen.stdout
            .contains("   a  b  c  d  e  f  g  h\n1  .  .  .  .  .  .  .  .  1\n"),
        "{seen:?}"
    );
    for bot in [one.finish(), two.finish()] {
        assert_eq!(bot.code, Some(0), "{bot:?}");
    }
}

#[test]
fn nothing_to_watch_and_a_game_that_is_not_there() {
    let server = Server::start(&[]);
    let addr = server.addr().to_string();
    let listed = Reversi::scripted(&["watch", &addr, "--list"], "").finish();
    assert_eq!(listed.code, Some(0), "{listed:?}");
    assert_eq!(
        listed.stdout.trim(),
        format!("no game is running on {addr}")
    );
    let missing = watch(&server, Some("99"));
    assert_eq!(missing.code, Some(1), "{missing:?}");
    assert!(
        missing.stderr.contains("no game 99 is running"),
        "{missing:?}"
    );
}
