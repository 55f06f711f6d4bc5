//! Clients written from a seed document alone, against the real reversid.
//!
//! Seed 000's Conquest client connects and sends nothing: on a `--listen-seed`
//! listener it is queued at once, and it is spoken to in the seed's own
//! messages only (GAME TYPE, GAME BOARD, DRAW, READY, ERROR, RESULT).

use std::time::Duration;

use reversi_games::registry;
use reversi_games::{Action, Team};
use reversi_tests::text::TextClient;
use reversi_tests::Server;

/// The messages seed 000 defines; nothing else may reach a seed client.
const SEED_MESSAGES: &[&str] = &[
    "GAME TYPE ",
    "GAME BOARD ",
    "DRAW SQUARE ",
    "DRAW PIECE ",
    "READY",
    "ERROR ",
    "RESULT ",
];

/// Reads up to and including the next READY or RESULT; checks every line is the seed's.
fn until_ready(c: &mut TextClient) -> String {
    loop {
        let line = c
            .recv()
            .unwrap_or_else(|| panic!("closed; seen {:?}", c.seen));
        assert!(
            SEED_MESSAGES.iter().any(|m| line.starts_with(m)),
            "not a seed 000 message: {line:?}"
        );
        if line == "READY" || line.starts_with("RESULT") {
            return line;
        }
    }
}

fn move_line(action: &Action) -> String {
    let Action::Move(points) = action else {
        panic!("{action:?} is not a move");
    };
    let squares: Vec<String> = points.iter().map(|p| format!("{} {}", p.x, p.y)).collect();
    format!("MOVE {} {}", points.len(), squares.join(" "))
}

#[test]
fn seed_000_conquest_clients_play_a_whole_game() {
    let server = Server::start(&["--listen-seed", "duell=127.0.0.1:0"]);
    let addr = server.seed_addr("duell");
    let mut south = TextClient::connect(addr);
    server.wait_log("queued (1 waiting) for duell");
    let mut north = TextClient::connect(addr);
    for c in [&mut south, &mut north] {
        assert_eq!(c.recv().unwrap(), "GAME TYPE Conquest");
        assert_eq!(c.recv().unwrap(), "GAME BOARD ConquestBoard 9 8");
    }
    // The seed's transcript: a bad move gets ERROR, then READY again.
    assert_eq!(until_ready(&mut south), "READY");
    south.send("MOVE 2 1 1 9 9");
    assert!(south.next_is("ERROR").len() > 6);
    assert_eq!(south.next_is("READY"), "READY");
    // Both sides played by the module's own bot, through the seed's MOVE only.
    let module = registry::find("duell").unwrap();
    let mut game = (module.new_game)(&Default::default());
    let mut bot = (module.own_bot().unwrap())(7);
    let mut plies = 0;
    let result = loop {
        let team = game.turn().expect("the server said READY");
        let action = bot.choose(&*game, team, Duration::from_millis(2)).unwrap();
        game.play(team, &action, 0).unwrap();
        plies += 1;
        let (mover, other) = if team == Team::FIRST {
            (&mut south, &mut north)
        } else {
            (&mut north, &mut south)
        };
        mover.send(&move_line(&action));
        let heard = until_ready(other);
        if heard.starts_with("RESULT") {
            break (heard, until_ready(mover));
        }
        assert!(plies < 2000, "the game does not end");
    };
    assert!(
        game.outcome().is_some(),
        "the server ended a game the module has not"
    );
    let standings = [&result.0, &result.1];
    assert!(
        standings.iter().any(|r| r.starts_with("RESULT WIN"))
            && standings.iter().any(|r| r.starts_with("RESULT LOSE"))
            || standings.iter().all(|r| r.starts_with("RESULT DRAW")),
        "{standings:?}"
    );
    assert_eq!(south.board, north.board);
    server.wait_log("game over: duell");
}

#[test]
fn a_seed_000_client_that_quits_resigns() {
    let server = Server::start(&["--listen-seed", "conquest=127.0.0.1:0"]);
    let addr = server.seed_addr("duell");
    let mut south = TextClient::connect(addr);
    server.wait_log("queued (1 waiting) for duell");
    let mut north = TextClient::connect(addr);
    assert_eq!(until_ready(&mut south), "READY");
    south.send("GAME QUIT");
    assert_eq!(
        until_ready(&mut south),
        "RESULT LOSE Your team has lost: south left the game"
    );
    assert_eq!(
        until_ready(&mut north),
        "RESULT WIN Your team has won: south left the game"
    );
}
