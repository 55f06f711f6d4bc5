//! `reversi play` (binary Reversi) full screen, through tmux: the same
//! screen as every other game. Black plays a whole game at the screen, typing
//! each move after `:` (and one illegal move, refused with the reason);
//! white is a line-mode script over the binary protocol too.
//! Skipped with a note when tmux is missing (scripts/install-tools.sh tmux).

mod client_support;

use client_support::Reversi;
use reversi_games::{registry, Bot, RandomBot, Team};
use reversi_tests::tmux::{self, Tmux};
use reversi_tests::{reversi_binary, Server};

#[test]
fn a_whole_game_of_binary_reversi_at_the_screen() {
    if !tmux::available() {
        reversi_tests::skipped("tmux is not installed (scripts/install-tools.sh tmux)");
        return;
    }
    let module = registry::find("reversi").unwrap();
    let mut game = (module.new_game)(&Default::default());
    let mut bot = RandomBot::new(13);
    while let Some(team) = game.turn() {
        let action = bot.choose(&*game, team, Default::default()).unwrap();
        game.play(team, &action, 0).unwrap();
    }
    let moves = game.history();
    let outcome = game.outcome().unwrap().clone();

    let server = Server::start(&["--fixed-colours"]);
    let addr = server.addr().to_string();
    let screen = Tmux::start(
        &reversi_binary(),
        &["play", &addr],
        &[("TERM", "xterm-256color")],
        100,
        32,
    );
    server.wait_log("queued (1 waiting)");
    let script: String = moves
        .iter()
        .filter(|m| m.team == Team::SECOND)
        .map(|m| format!("{}\n", m.notation))
        .collect();
    let opponent = Reversi::scripted(&["play", &addr], &script);
    let first = screen.wait_for(&[
        "Reversi on ReversiBoard 8x8: you play black (team 1)",
        "Your move.",
        "legal: d3 c4 f5 e6",
    ]);
    println!("the first screen\n{first}");
    screen.keys(&[":"]);
    screen.type_text("a1");
    screen.keys(&["Enter"]);
    screen.wait_for(&["refused: illegal move: a1 flips nothing", "Your move."]);
    for (ply, moved) in moves.iter().enumerate() {
        if moved.team == Team::FIRST {
            screen.wait_for(&[&format!("moves ({ply})"), "Your move."]);
            screen.keys(&[":"]);
            screen.type_text(&moved.notation);
            screen.keys(&["Enter"]);
        }
    }
    let verdict = match outcome.standing(Team::FIRST) {
        reversi_games::Standing::Win => "YOU WIN",
        reversi_games::Standing::Lose => "YOU LOSE",
        reversi_games::Standing::Draw => "DRAW",
    };
    let last = format!("moves ({})", moves.len());
    let end = screen.wait_for(&[&last, verdict, outcome.why()]);
    println!("the last screen\n{end}");
    // The binary server closes after winner; the screen stays until q.
    screen.keys(&["q"]);
    assert_eq!(screen.wait_exit(), 0, "{}", screen.screen());
    let other = opponent.finish();
    assert_eq!(other.code, Some(0), "{other:?}");
    assert!(other.stdout.contains(outcome.why()), "{other:?}");
}
