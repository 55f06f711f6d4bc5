//! The clients playing together against the real reversid (docs/design/play-together.md
//! §14, C-terminal and C-bot): the terminal client creates a challenge and shows its code,
//! a bot joins by that code and both clocks run; the terminal client takes its seat back
//! by itself when a proxy cuts its TCP connection mid-game, and the game goes on.
//! Skipped with a note when tmux is missing (scripts/install-tools.sh tmux).

mod client_support;

use client_support::Reversi;
use reversi_tests::cut::CutProxy;
use reversi_tests::text::TextClient;
use reversi_tests::tmux::{self, Tmux};
use reversi_tests::{reversi_binary, Server};

const WIDTH: u16 = 100;
const HEIGHT: u16 = 32;

fn skip() -> bool {
    if tmux::available() {
        return false;
    }
    reversi_tests::skipped("tmux is not installed (scripts/install-tools.sh tmux)");
    true
}

/// `reversi ARGS` full screen in tmux.
fn screen(args: &[&str]) -> Tmux {
    Tmux::start(
        &reversi_binary(),
        args,
        &[("TERM", "xterm-256color")],
        WIDTH,
        HEIGHT,
    )
}

/// The first `DDDD-DDDD-DDDD` on `text`.
fn code_on(text: &str) -> Option<String> {
    let is_code = |w: &str| {
        let groups: Vec<&str> = w.split('-').collect();
        groups.len() == 3
            && groups
                .iter()
                .all(|g| g.len() == 4 && g.bytes().all(|b| b.is_ascii_digit()))
    };
    text.split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .find(|w| is_code(w))
        .map(str::to_owned)
}

#[test]
fn c_terminal_invites_and_a_bot_joins_by_the_code_on_a_fischer_clock() {
    if skip() {
        return;
    }
    let server = Server::start(&["--fixed-colours"]);
    let addr = server.addr().to_string();
    let inviter = screen(&[
        "play",
        &addr,
        "--game",
        "tictactoe",
        "--invite",
        "--time",
        "1+0",
        "--side",
        "x",
    ]);
    let shown = inviter.wait_for(&[
        "Give your friend this code",
        "reversi play --join",
        "#join=",
    ]);
    let code = code_on(&shown).unwrap_or_else(|| panic!("no code on the screen:\n{shown}"));
    let mut bot = Reversi::start(&[
        "bot",
        &addr,
        "--game",
        "tictactoe",
        "--join",
        &code,
        "--move-time",
        "50",
    ]);
    // The game starts with both clocks at a minute, the creator's (X) running.
    let playing = inviter.wait_for(&["Your move", "X (team 1, you):", "running", "O (team 2):"]);
    assert!(playing.contains("(stopped)"), "{playing}");
    inviter.keys(&[":"]);
    inviter.type_text("b2");
    inviter.keys(&["Enter"]);
    inviter.wait_for(&["O (team 2) played"]);
    // The code was used: a second join is refused with the server's words.
    let mut late = TextClient::connect(server.addr());
    late.send(&format!("GAME JOIN {code}"));
    let refused = late.expect("ERROR");
    assert!(refused.contains("already accepted"), "{refused}");
    inviter.keys(&["q", "q"]);
    bot.end_script("");
}

#[test]
fn c_terminal_reconnects_by_itself_when_its_connection_is_cut() {
    if skip() {
        return;
    }
    let server = Server::start(&["--fixed-colours", "--grace", "30"]);
    let proxy = CutProxy::start(server.addr());
    let through = proxy.addr().to_string();
    let player = screen(&["play", &through, "--game", "tictactoe"]);
    server.wait_log("queued (1 waiting) for tictactoe");
    let mut opponent = TextClient::join(server.addr(), "tictactoe");
    opponent.expect("GAME TEAM 2");
    player.wait_for(&["Your move"]);
    proxy.cut();
    // The server holds the seat and says so; the client comes back with its token.
    opponent.expect("GAME AWAY 1 ");
    player.wait_for(&["connection lost, reconnecting"]);
    opponent.expect("GAME BACK 1");
    player.wait_for(&["back in game", "Your move"]);
    player.keys(&[":"]);
    player.type_text("b2");
    player.keys(&["Enter"]);
    assert_eq!(opponent.expect("GAME MOVED 1"), "GAME MOVED 1 b2");
    player.keys(&["q", "q"]);
}

#[test]
fn c_bot_invites_another_joins_by_its_code_and_neither_loses_on_time() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let server = Server::start(&[]);
    let addr = server.addr().to_string();
    let bot = |extra: &[&str]| {
        Command::new(reversi_binary())
            .args(["bot", &addr, "--game", "reversi", "--move-time", "30"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start reversi bot")
    };
    let mut creator = bot(&["--invite", "--time", "30s+0"]);
    let mut lines = BufReader::new(creator.stdout.take().unwrap()).lines();
    // One line a script can read, before anything else.
    let first = lines.next().unwrap().unwrap();
    let code = first
        .strip_prefix("code ")
        .unwrap_or_else(|| panic!("{first:?}"));
    assert_eq!(code_on(code).as_deref(), Some(code));
    let joiner = bot(&["--join", code]).wait_with_output().unwrap();
    let told: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(creator.wait().unwrap().success());
    assert!(joiner.status.success(), "{joiner:?}");
    let joined = String::from_utf8_lossy(&joiner.stdout).into_owned();
    for said in [told.join("\n"), joined] {
        assert!(said.contains("game 1:"), "{said}");
        assert!(!said.contains("time"), "a bot lost on time: {said}");
    }
}

#[test]
fn c_terminal_lobby_offers_a_choice_among_the_public_challenges() {
    if skip() {
        return;
    }
    let server = Server::start(&["--fixed-colours"]);
    let addr = server.addr().to_string();
    let invite = || {
        let mut inviter = TextClient::connect(server.addr());
        inviter.send("GAME INVITE tictactoe public");
        let code = inviter.expect("GAME CODE ");
        (inviter, code_on(&code).expect("a code"))
    };
    let (mut first, _) = invite();
    let (mut second, second_code) = invite();
    let player = screen(&["play", &addr, "--game", "tictactoe", "--lobby"]);
    let listed = player.wait_for(&["2 public challenges", "which? 1 to 2"]);
    assert!(listed.contains(&second_code), "{listed}");
    save_screen("lobby-choice.txt", &listed);
    player.type_text("2");
    player.keys(&["Enter"]);
    // The second challenge's creator gets the game; the first still waits.
    second.expect("GAME TYPE");
    player.wait_for(&["O (team 2"]);
    first.send("GAME LOBBY");
    assert_eq!(first.expect("GAME CHALLENGES "), "GAME CHALLENGES 1");
    player.keys(&["q", "q"]);
}

/// Keeps a screen for the report, where the notes' folder is.
fn save_screen(name: &str, text: &str) {
    let dir = std::path::Path::new("/work/notes/screens");
    if dir.is_dir() {
        let _ = std::fs::write(dir.join(name), text);
    }
}

#[test]
fn c_terminal_line_mode_accepts_a_rematch_after_the_result() {
    if skip() {
        return;
    }
    let server = Server::start(&["--fixed-colours", "--rematch-window", "20"]);
    let addr = server.addr().to_string();
    let player = Tmux::start(
        &reversi_binary(),
        &["play", &addr, "--game", "tictactoe"],
        &[("TERM", "dumb")],
        WIDTH,
        HEIGHT,
    );
    server.wait_log("queued (1 waiting) for tictactoe");
    let mut opponent = TextClient::join(server.addr(), "tictactoe");
    opponent.expect("GAME TEAM 2");
    // X takes the bottom row while O answers on the one above.
    for (mine, theirs) in [("a1", Some("a2")), ("b1", Some("b2")), ("c1", None)] {
        player.wait_for(&["the server waits for your move"]);
        player.type_text(mine);
        player.keys(&["Enter"]);
        assert_eq!(
            opponent.expect("GAME MOVED 1"),
            format!("GAME MOVED 1 {mine}")
        );
        if let Some(theirs) = theirs {
            opponent.expect("READY");
            opponent.send(&format!("MOVE {theirs}"));
        }
    }
    opponent.expect("GAME OVER 1");
    player.wait_for(&["rematch offers (or accepts) a rematch"]);
    opponent.send("GAME OFFER REMATCH");
    player.wait_for(&["offers a rematch"]);
    player.type_text("rematch");
    player.keys(&["Enter"]);
    // The next game of the series, sides swapped: the person is O now.
    opponent.expect("GAME TYPE");
    let next = player.wait_for(&["game 2"]);
    save_screen("line-mode-rematch.txt", &next);
    player.type_text("quit");
    player.keys(&["Enter"]);
}

#[test]
fn c_bot_accepts_a_rematch_offer_and_plays_its_series_on_one_connection() {
    let server = Server::start(&["--fixed-colours", "--rematch-window", "20"]);
    let addr = server.addr().to_string();
    let mut opponent = TextClient::join(server.addr(), "tictactoe");
    let bot = Reversi::start(&[
        "bot",
        &addr,
        "--game",
        "tictactoe",
        "--games",
        "2",
        "--move-time",
        "20",
    ]);
    for game in 1..=2 {
        opponent.expect("GAME TEAM ");
        // The opponent plays the first empty square whenever told READY, to the end.
        loop {
            let line = loop {
                let line = opponent.recv().expect("the game goes on");
                if line == "READY" || line.starts_with("GAME OVER") {
                    break line;
                }
            };
            if line.starts_with("GAME OVER") {
                break;
            }
            let (x, y) = *(opponent.board.iter())
                .find(|(_, (_, piece))| piece.is_none())
                .expect("an empty square")
                .0;
            opponent.send(&format!("MOVE 1 {x} {y}"));
        }
        if game == 1 {
            opponent.send("GAME OFFER REMATCH");
        }
    }
    let done = bot.finish();
    assert_eq!(done.code, Some(0), "{done:?}");
    assert!(done.stdout.contains("game 2:"), "{}", done.stdout);
}
