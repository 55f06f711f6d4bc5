//! TEXT-PROTOCOL.md §10.1 and §10.2: what a game's end says, and Reversi's
//! passes, each on a game whose moves are given (found with an independent
//! Reversi, and checked against the kit's own copy of the rules first).

use crate::report::Judged;
use crate::server::referee::{kit_ends, play_script};
use crate::server::table::seat;
use crate::server::{served, Check, Target};

pub const CHECKS: &[Check] = &[
    Check {
        section: "text §10.1",
        what: "three in a line is named from the lowest row up, the first line of rows, columns, diagonals",
        run: tictactoe_lines,
    },
    Check {
        section: "text §10.2",
        what: "the disc count counts the discs on the board only, the winner's first: 13-0",
        run: disc_count,
    },
    Check {
        section: "text §10.2",
        what: "a pass is news of the move that caused it, then GAME TURN and READY for the same team",
        run: pass,
    },
    Check {
        section: "text §10.2",
        what: "a drawn game: GAME OVER DRAW 32-32",
        run: draw,
    },
];

/// Plays `moves` on `game` and holds the server to the end `over`.
fn scripted(target: &Target, game: &str, moves: &[&str], over: &str) -> Judged {
    served(target, game)?;
    let mut kit = crate::rules::opening(game);
    let mut check = kit.clone();
    for m in moves {
        let team = check.turn().expect("the script's game is not over");
        let action = check.parse_action(m).expect("the script's moves read");
        check
            .play(team, &action, 0)
            .expect("the script's moves are legal");
    }
    kit_ends(check.as_ref(), over)?;
    let mut table = seat(target, game)?;
    play_script(&mut table, &mut [], kit.as_mut(), moves)?;
    for conn in table.players {
        conn.close();
    }
    Ok(())
}

fn tictactoe_lines(target: &Target) -> Judged {
    let two_lines = ["b1", "b2", "c1", "c3", "a2", "b3", "a3", "c2", "a1"];
    scripted(
        target,
        "tictactoe",
        &two_lines,
        "GAME OVER 1 three in a line: a1 b1 c1",
    )?;
    let diagonal = ["c1", "a1", "b2", "a2", "a3"];
    scripted(
        target,
        "tictactoe",
        &diagonal,
        "GAME OVER 1 three in a line: c1 b2 a3",
    )
}

fn disc_count(target: &Target) -> Judged {
    let moves = ["e6", "f4", "e3", "f6", "g5", "d6", "e7", "f5", "c5"];
    scripted(target, "reversi", &moves, "GAME OVER 1 13-0")
}

/// Black has no move after white's b6 and again after a1.
const PASSES: &str =
    "c4 c3 c2 c5 c6 e3 f6 b7 e2 f3 d6 e1 a8 e6 f4 g5 g4 f5 h4 d3 g3 g2 h1 f2 d1 h6 d7 d2 h5 \
    c1 g1 e7 h7 b3 d8 c7 b1 c8 a3 a4 b4 a5 a6 g6 f1 f8 b5 h2 g7 h3 e8 f7 b8 g8 h8 a7 b2 b6 a1 a2";

fn pass(target: &Target) -> Judged {
    let moves: Vec<&str> = PASSES.split_whitespace().collect();
    scripted(target, "reversi", &moves, "GAME OVER 2 38-26")
}

const DRAWN: &str =
    "c4 e3 f6 c5 c6 g7 f3 b6 f5 c3 e2 e6 e7 f7 d7 c7 b5 d6 c2 c1 b8 c8 h8 g5 f4 a6 b2 g2 g4 \
    h4 d2 a8 a5 a3 b3 e1 a1 a2 d1 b4 e8 f2 g6 f8 g8 a4 b1 h7 h6 h5 g1 d3 h3 f1 g3 h1 d8 h2 a7 b7";

fn draw(target: &Target) -> Judged {
    let moves: Vec<&str> = DRAWN.split_whitespace().collect();
    scripted(target, "reversi", &moves, "GAME OVER DRAW 32-32")
}
