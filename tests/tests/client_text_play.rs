//! `reversi play --game NAME` full screen, driven through tmux as a person
//! would drive it: a whole game of every turn-based game, the full-screen
//! player typing its moves, a script in line mode playing the other side;
//! then the cursor keys, resizing, help and NO_COLOR on Tic-Tac-Toe.
//! Skipped with a note when tmux is missing (scripts/install-tools.sh tmux).

mod client_support;

use client_support::Reversi;
use reversi_games::{registry, Bot, Outcome, RandomBot, Team};
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

/// A complete game of `name` by random movers: each move's team (from 1)
/// and notation, and the outcome.
fn random_game(name: &str, seed: u64) -> (Vec<(u8, String)>, Outcome) {
    let module = registry::find(name).unwrap();
    let mut game = (module.new_game)(&Default::default());
    let mut bot = RandomBot::new(seed);
    while let Some(team) = game.turn() {
        let action = bot.choose(&*game, team, Default::default()).unwrap();
        game.play(team, &action, 0).unwrap();
    }
    let moves = game
        .history()
        .into_iter()
        .map(|m| (m.team.number(), m.notation))
        .collect();
    (moves, game.outcome().unwrap().clone())
}

/// The full-screen client of the first team, on `server`, in tmux.
fn screen_player(server: &Server, name: &str, env: &[(&str, &str)]) -> Tmux {
    let addr = server.addr().to_string();
    let mut all_env = vec![("TERM", "xterm-256color")];
    all_env.extend_from_slice(env);
    let tmux = Tmux::start(
        &reversi_binary(),
        &["play", "--game", name, &addr],
        &all_env,
        WIDTH,
        HEIGHT,
    );
    server.wait_log(&format!("queued (1 waiting) for {name}"));
    tmux
}

/// Plays a whole random game of `name`: team 1 at the full screen, typing
/// each move after `:`, team 2 a line-mode script. Checks that the screen
/// ends with the right verdict and the game's own account of its end.
fn play_through_the_screen(name: &str, seed: u64) {
    if skip() {
        return;
    }
    let (moves, outcome) = random_game(name, seed);
    let server = Server::start(&["--fixed-colours"]);
    let screen = screen_player(&server, name, &[]);
    let script: String = moves
        .iter()
        .filter(|(team, _)| *team == 2)
        .map(|(_, notation)| format!("{notation}\n"))
        .collect();
    let addr = server.addr().to_string();
    let opponent = Reversi::scripted(&["play", "--game", name, &addr], &script);
    for (ply, (team, notation)) in moves.iter().enumerate() {
        if *team == 1 {
            screen.wait_for(&[&format!("moves ({ply})"), "Your move."]);
            screen.keys(&[":"]);
            screen.type_text(notation);
            screen.keys(&["Enter"]);
        }
    }
    let verdict = match outcome.standing(Team::FIRST) {
        reversi_games::Standing::Win => "YOU WIN",
        reversi_games::Standing::Lose => "YOU LOSE",
        reversi_games::Standing::Draw => "DRAW",
    };
    let last = format!("moves ({})", moves.len());
    let end = screen.wait_for(&[&last, verdict, outcome.why(), "q leaves"]);
    println!("{name}: the last screen\n{end}");
    screen.keys(&["q"]);
    assert_eq!(screen.wait_exit(), 0, "{}", screen.screen());
    let other = opponent.finish();
    assert_eq!(other.code, Some(0), "{other:?}");
    assert!(other.stdout.contains(outcome.why()), "{other:?}");
}

#[test]
fn a_whole_game_of_tictactoe() {
    play_through_the_screen("tictactoe", 3);
}

#[test]
fn a_whole_game_of_reversi_over_text() {
    play_through_the_screen("reversi", 5);
}

#[test]
fn a_whole_game_of_draughts() {
    play_through_the_screen("draughts", 7);
}

#[test]
fn a_whole_game_of_duell() {
    play_through_the_screen("duell", 11);
}

/// X builds its moves with the cursor keys; O is a script. X: b2 (Enter
/// twice on the centre), a1 (arrows, space, m), c1 (hjkl, Enter twice),
/// a3 (typed as numbers): three in a line c1 b2 a3.
#[test]
fn moves_built_with_the_cursor_win_a_game_of_tictactoe() {
    if skip() {
        return;
    }
    let server = Server::start(&["--fixed-colours"]);
    let screen = screen_player(&server, "tictactoe", &[]);
    let addr = server.addr().to_string();
    let opponent = Reversi::scripted(&["play", "--game", "tictactoe", &addr], "a2\nc3\nb1\n");
    screen.wait_for(&["Your move.", "cursor at b2"]);
    screen.keys(&["Enter"]);
    screen.wait_for(&["squares: b2 (Enter or m sends)"]);
    screen.keys(&["Enter"]);
    screen.wait_for(&["moves (2)", "Your move."]);
    // Esc forgets a picked square.
    screen.keys(&["Left", "Down", "Space"]);
    screen.wait_for(&["squares: a1"]);
    screen.keys(&["Escape"]);
    screen.wait_for(&["none picked"]);
    screen.keys(&["Space", "m"]);
    screen.wait_for(&["moves (4)", "Your move."]);
    screen.keys(&["l", "l", "Enter", "Enter"]);
    screen.wait_for(&["moves (6)", "Your move."]);
    screen.keys(&[":"]);
    screen.type_text("1 3");
    screen.keys(&["Enter"]);
    let end = screen.wait_for(&["YOU WIN", "three in a line"]);
    for row in ["3 (X) .  O  3", "2  O  X  .  2", "1  X  O  X  1"] {
        assert!(end.contains(row), "{row:?} missing:\n{end}");
    }
    screen.keys(&["q"]);
    assert_eq!(screen.wait_exit(), 0);
    let other = opponent.finish();
    assert!(other.stdout.contains("YOU LOSE"), "{other:?}");
}

/// Issue 23 item 2: a misclick must not lose the game. Space then Enter on
/// a taken square, a square off the board and a word that is no move are
/// all refused here with the reason; the game goes on and a legal move is
/// sent.
#[test]
fn a_move_the_rules_forbid_is_refused_here_and_the_game_goes_on() {
    if skip() {
        return;
    }
    let server = Server::start(&["--fixed-colours"]);
    let screen = screen_player(&server, "tictactoe", &[]);
    let addr = server.addr().to_string();
    let opponent = Reversi::scripted(&["play", "--game", "tictactoe", &addr], "a1\nc3\n");
    screen.wait_for(&["Your move.", "cursor at b2"]);
    screen.keys(&["Enter", "Enter"]);
    screen.wait_for(&["moves (2)", "Your move."]);
    // The cursor is still on b2, now X's.
    screen.keys(&["Space", "Enter"]);
    screen.wait_for(&["refused: illegal move: b2"]);
    screen.keys(&["Escape", ":"]);
    screen.type_text("4 4");
    screen.keys(&["Enter"]);
    screen.wait_for(&["refused: illegal move:", "Your move."]);
    screen.keys(&[":"]);
    screen.type_text("hello");
    screen.keys(&["Enter"]);
    screen.wait_for(&["refused: illegal move: \"hello\" is not a square"]);
    screen.keys(&[":"]);
    screen.type_text("c1");
    screen.keys(&["Enter"]);
    let later = screen.wait_for(&["moves (4)", "Your move."]);
    assert!(!later.contains("YOU LOSE"), "{later}");
    screen.keys(&["q", "q"]);
    assert_eq!(screen.wait_exit(), 0);
    drop(opponent);
}

/// Issue 23 item 4: the screen's legend gives the square kinds the fills
/// the line mode and `bot --show` give them (the order on the board, not
/// the order drawn), and white's men a glyph of their own, with colour.
#[test]
fn the_draughts_legend_is_the_one_the_line_mode_shows() {
    if skip() {
        return;
    }
    let server = Server::start(&["--fixed-colours"]);
    let screen = screen_player(&server, "draughts", &[]);
    let addr = server.addr().to_string();
    // White's move is held until black has moved: black never does.
    let opponent = Reversi::scripted(&["play", "--game", "draughts", &addr], "22-18\n");
    let shown = screen.wait_for(&["Your move.", " M  man: black (team 1, you)"]);
    for line in [
        " m  man: white (team 2)",
        " .  dark square",
        "    light square",
    ] {
        assert!(shown.contains(line), "{line:?} missing:\n{shown}");
    }
    screen.keys(&["q", "q"]);
    assert_eq!(screen.wait_exit(), 0);
    let other = opponent.finish();
    assert!(
        other
            .stdout
            .contains("m man: white (team 2, you), '.' dark square, ' ' light square"),
        "{other:?}"
    );
}

#[test]
fn the_screen_follows_a_resize_help_and_no_color() {
    if skip() {
        return;
    }
    let server = Server::start(&["--fixed-colours"]);
    let screen = screen_player(&server, "tictactoe", &[("NO_COLOR", "1")]);
    let addr = server.addr().to_string();
    let opponent = Reversi::start(&["play", "--game", "tictactoe", &addr]);
    let wide = screen.wait_for(&["Your move.", "TicTacToeBoard 3x3"]);
    // Without colours the cursor is in brackets, and no colour is sent.
    assert!(wide.contains("2  . [.] .  2"), "{wide}");
    let raw = screen.screen_with_escapes();
    assert!(
        !raw.contains("\x1b[38;") && !raw.contains("\x1b[48;"),
        "{raw:?}"
    );
    // Narrow: the board goes above the game's state.
    screen.resize(44, 40);
    let narrow = screen.wait_for(&["┌TicTacToeBoard 3x3─", "cursor at b2"]);
    let board_row = narrow.lines().position(|l| l.contains("2  . [.] .  2"));
    let state_row = narrow.lines().position(|l| l.contains("Your move."));
    assert!(board_row < state_row, "{narrow}");
    screen.keys(&["?"]);
    screen.wait_for(&[
        "help (Esc or ? closes)",
        "square by square",
        "Rules of Tic-Tac-Toe",
    ]);
    screen.keys(&["Escape", "q"]);
    screen.wait_for(&["press q again to leave"]);
    screen.keys(&["q"]);
    assert_eq!(screen.wait_exit(), 0);
    drop(opponent);
}

#[test]
fn a_board_too_big_for_the_terminal_says_so_until_it_is_resized() {
    if skip() {
        return;
    }
    let server = Server::start(&["--fixed-colours"]);
    let screen = screen_player(&server, "foxes", &[]);
    let addr = server.addr().to_string();
    let _opponent = Reversi::start(&["play", "--game", "foxes", &addr]);
    screen.resize(80, 24);
    let small = screen.wait_for(&["terminal too small for this board: need 68 x 36 (or 98 x 31)"]);
    assert!(small.contains("have 80 x 24"), "{small}");
    assert!(
        !small.contains("┌FoxesBoard 20x20"),
        "no cut board:\n{small}"
    );
    screen.resize(120, 40);
    let big = screen.wait_for(&["┌FoxesBoard 20x20─", "cursor at 10 10"]);
    assert!(!big.contains("too small"), "{big}");
    for row in ["│20 ", "│ 1 "] {
        assert!(big.contains(row), "{row:?} missing:\n{big}");
    }
    screen.keys(&["q", "q"]);
    assert_eq!(screen.wait_exit(), 0);
}

#[test]
fn colours_show_teams_and_squares() {
    if skip() {
        return;
    }
    let server = Server::start(&["--fixed-colours"]);
    let screen = screen_player(&server, "reversi", &[]);
    let addr = server.addr().to_string();
    let _opponent = Reversi::start(&["play", "--game", "reversi", &addr]);
    screen.wait_for(&["Your move.", "black (team 1, you)"]);
    let raw = screen.screen_with_escapes();
    // Green squares, black and white discs, the cursor in yellow.
    for colour in ["48;5;28m", "48;5;16m", "48;5;231m", "48;5;226m"] {
        assert!(raw.contains(colour), "{colour} missing: {raw:?}");
    }
    screen.keys(&["q", "q"]);
    assert_eq!(screen.wait_exit(), 0);
}

#[test]
fn a_game_the_server_does_not_have_leaves_the_screen_at_once() {
    if skip() {
        return;
    }
    let server = Server::start(&[]);
    let err = std::env::temp_dir().join(format!("reversi-chess-{}.err", std::process::id()));
    let command = format!(
        "'{}' play --game chess {} 2>'{}'",
        reversi_binary().display(),
        server.addr(),
        err.display()
    );
    let sh = std::path::Path::new("/bin/sh");
    let screen = Tmux::start(sh, &["-c", &command], &[("TERM", "xterm-256color")], 80, 24);
    assert_eq!(screen.wait_exit(), 1);
    let said = std::fs::read_to_string(&err).unwrap();
    let _ = std::fs::remove_file(&err);
    assert!(
        said.starts_with("reversi: the server refused: no game \"chess\" here"),
        "{said}"
    );
}

/// Issue 23 items 3 and 6: a fake text server sends a clock of 11 s and a
/// game timer; the screen shows both counting down, and the clock's
/// warning, LOW, in words with NO_COLOR once under ten seconds.
#[test]
fn the_clock_counts_down_and_warns_in_words() {
    use std::io::{BufRead, BufReader, Write};
    if skip() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let screen = Tmux::start(
        &reversi_binary(),
        &["play", "--game", "tictactoe", &addr],
        &[("TERM", "xterm-256color"), ("NO_COLOR", "1")],
        WIDTH,
        HEIGHT,
    );
    let (stream, _) = listener.accept().unwrap();
    let mut lines = BufReader::new(stream.try_clone().unwrap());
    let mut join = String::new();
    lines.read_line(&mut join).unwrap();
    assert_eq!(join.trim(), "GAME TYPE tictactoe");
    let mut start = String::from(
        "GAME TYPE TicTacToe\nGAME BOARD TicTacToeBoard 3 3\nGAME TEAMS X O\nGAME TEAM 1 X\n",
    );
    for y in 1..=3 {
        for x in 1..=3 {
            start.push_str(&format!("DRAW SQUARE empty {x} {y}\n"));
        }
    }
    start.push_str("GAME TURN 1\nGAME CLOCK 1 11000\nGAME CLOCK 2 30000\n");
    start.push_str("GAME TIMER quiet 120000 the game ends on numbers\nREADY\n");
    (&stream).write_all(start.as_bytes()).unwrap();
    let first = screen.wait_for(&["Your move.", "clock X (team 1, you): 1", "running"]);
    assert!(
        first.contains("clock O (team 2): 30 s (stopped)"),
        "{first}"
    );
    assert!(first.contains("quiet in 1:5"), "{first}");
    assert!(
        first.contains("pieces on the board: X (team 1, you) 0, O (team 2) 0"),
        "{first}"
    );
    let low = screen.wait_for(&["running, LOW"]);
    println!("the clock under ten seconds:\n{low}");
    screen.keys(&["q", "q"]);
    assert_eq!(screen.wait_exit(), 0);
}
