//! The terminal client and the bots with names and accounts against the real reversid
//! (spec/TEXT-PROTOCOL.md §4.4, §5.1): an account and its API token made from the
//! terminal (`reversi account register`, `reversi token new`, the password on stdin),
//! a bot signed in with `--token` that plays, a `--name` shown in the opponent's
//! `GAME PLAYER` line, the names on the board screen, and the finished game in
//! `reversi history` and `reversi export`. The screens are saved to
//! /work/notes/screens/ when that folder exists. Skipped with a note when tmux is
//! missing (scripts/install-tools.sh tmux).

mod client_support;

use client_support::Reversi;
use reversi_tests::text::TextClient;
use reversi_tests::tmux::{self, Tmux};
use reversi_tests::{reversi_binary, Server};

const PASSWORD: &str = "correct horse battery";

/// Keeps a screen for the report, where the notes' folder is.
fn save(name: &str, text: &str) {
    let dir = std::path::Path::new("/work/notes/screens");
    if dir.is_dir() {
        let _ = std::fs::write(dir.join(name), text);
    }
}

/// `reversi ARGS` with the password on stdin; its stdout, after a successful exit.
fn with_password(args: &[&str]) -> String {
    let done = Reversi::scripted(args, &format!("{PASSWORD}\n")).finish();
    assert_eq!(done.code, Some(0), "reversi {args:?}: {done:?}");
    done.stdout
}

/// Registers `name` and makes an API token for it, from the terminal; the token.
fn account_with_token(addr: &str, name: &str) -> String {
    let made = with_password(&["account", "register", name, "--addr", addr]);
    assert!(made.contains(&format!("signed in as {name}")), "{made}");
    let told = with_password(&["token", "new", name, "a bot", "--addr", addr]);
    assert!(!made.contains(PASSWORD) && !told.contains(PASSWORD));
    let token = (told.split(|c: char| c.is_whitespace() || c == '"'))
        .find(|w| w.starts_with("rvt_"))
        .unwrap_or_else(|| panic!("no token in {told:?}"));
    token.to_owned()
}

#[test]
fn a_guest_bots_name_reaches_its_opponents_player_line() {
    let server = Server::start(&["--fixed-colours"]);
    let addr = server.addr().to_string();
    let mut opponent = TextClient::join(server.addr(), "tictactoe").keep_every_line();
    let mut bot = Reversi::start(&[
        "bot",
        &addr,
        "--game",
        "tictactoe",
        "--name",
        "carol",
        "--move-time",
        "20",
    ]);
    opponent.expect("GAME TEAM 1");
    assert_eq!(
        opponent.expect("GAME PLAYER 1 "),
        "GAME PLAYER 1 anonymous - -"
    );
    assert_eq!(
        opponent.expect("GAME PLAYER 2 "),
        "GAME PLAYER 2 guest carol -"
    );
    opponent.send("GAME QUIT");
    bot.end_script("");
    let done = bot.finish();
    assert_eq!(done.code, Some(0), "{done:?}");
}

#[test]
fn a_bot_signed_in_by_token_plays_a_guest_whose_screen_names_both_then_history_and_export() {
    if !tmux::available() {
        reversi_tests::skipped("tmux is not installed (scripts/install-tools.sh tmux)");
        return;
    }
    let server = Server::start(&["--fixed-colours"]);
    let addr = server.addr().to_string();
    let token = account_with_token(&addr, "Alice");

    let person = Tmux::start(
        &reversi_binary(),
        &["play", &addr, "--game", "tictactoe", "--name", "bob"],
        &[("TERM", "xterm-256color")],
        100,
        32,
    );
    server.wait_log("queued (1 waiting) for tictactoe");
    let mut bot = Reversi::start(&[
        "bot",
        &addr,
        "--game",
        "tictactoe",
        "--token",
        &token,
        "--move-time",
        "20",
    ]);
    let board = person.wait_for(&["Your move", "bob~", "Alice"]);
    save("accounts-board-with-names.txt", &board);
    person.keys(&[":"]);
    person.type_text("b2");
    person.keys(&["Enter"]);
    person.wait_for(&["O, Alice (team 2) played"]);
    person.keys(&["q", "q"]);
    bot.end_script("");
    let done = bot.finish();
    assert_eq!(done.code, Some(0), "{done:?}");
    assert!(
        !server.logs().iter().any(|l| l.contains(&token)),
        "the token reached the log"
    );

    // The archive has it, under the account's name and the guest's.
    // The store writes a finished game off the supervisor's loop: ask until it is there.
    let deadline = std::time::Instant::now() + client_support::LIMIT;
    let history = loop {
        let history = Reversi::start(&["history", "Alice", "--addr", &addr]).finish();
        assert_eq!(history.code, Some(0), "{history:?}");
        if history.stdout.contains("tictactoe") || std::time::Instant::now() > deadline {
            break history;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    save("accounts-history.txt", &history.stdout);
    let row = (history.stdout.lines())
        .find(|l| l.contains("tictactoe"))
        .unwrap_or_else(|| panic!("no game in the history:\n{}", history.stdout));
    assert!(row.contains("bob~") && row.contains("Alice"), "{row}");
    let id = row.split_whitespace().next().unwrap();
    let export = Reversi::start(&["export", id, "--format", "json", "--addr", &addr]).finish();
    save("accounts-export.json", &export.stdout);
    assert_eq!(export.code, Some(0), "{export:?}");
    assert!(export.stdout.contains("Alice"), "{}", export.stdout);

    // The replay: every position in turn off a terminal, one move a key on it.
    let replay = Reversi::start(&["replay", id, "--addr", &addr]).finish();
    assert_eq!(replay.code, Some(0), "{replay:?}");
    for page in [
        "start of the game (2 moves)",
        "move 1 of 2: X (bob~) played b2",
        "move 2 of 2",
    ] {
        assert!(replay.stdout.contains(page), "{}", replay.stdout);
    }
    let stepping = Tmux::start(
        &reversi_binary(),
        &["replay", id, "--addr", &addr],
        &[("TERM", "xterm-256color")],
        100,
        32,
    );
    stepping.wait_for(&["start of the game"]);
    stepping.keys(&["Enter"]);
    let first = stepping.wait_for(&["move 1 of 2", "X (bob~):", "spent"]);
    save("accounts-replay.txt", &first);
    stepping.type_text("q");
    stepping.keys(&["Enter"]);
}

#[test]
fn two_bots_signed_in_by_token_play_a_rated_challenge_that_moves_both_ratings() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let server = Server::start(&[]);
    let addr = server.addr().to_string();
    let (alice, zed) = (
        account_with_token(&addr, "Alice"),
        account_with_token(&addr, "Zed"),
    );
    let bot = |token: &str, extra: &[&str]| {
        Command::new(reversi_binary())
            .args(["bot", &addr, "--game", "tictactoe", "--move-time", "20"])
            .args(["--token", token])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start reversi bot")
    };
    let mut creator = bot(&alice, &["--invite", "--rated"]);
    let mut lines = BufReader::new(creator.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let code = first
        .strip_prefix("code ")
        .unwrap_or_else(|| panic!("{first:?}"));
    let joiner = bot(&zed, &["--join", code]).wait_with_output().unwrap();
    assert!(joiner.status.success(), "{joiner:?}");
    assert!(creator.wait().unwrap().success());

    let deadline = std::time::Instant::now() + client_support::LIMIT;
    let history = loop {
        let history = Reversi::start(&["history", "Zed", "--addr", &addr]).finish();
        if history.stdout.contains("rated") || std::time::Instant::now() > deadline {
            break history.stdout;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let row = (history.lines())
        .find(|l| l.contains("tictactoe"))
        .unwrap_or_else(|| panic!("no game in the history:\n{history}"));
    // The challenge's side was random: either may have played first.
    assert!(
        row.contains("rated") && row.contains("Alice") && row.contains("Zed"),
        "{row}"
    );
    save("accounts-rated-history.txt", &history);
    // Signed in again, each has a tictactoe rating now (provisional after one game).
    let signed = with_password(&["account", "signin", "Zed", "--addr", &addr]);
    assert!(signed.contains("tictactoe="), "{signed}");
}
