//! TEXT-PROTOCOL.md §11: the spec's own transcript of a whole Tic-Tac-Toe
//! game, replayed line by line (the nine squares' lines judged as a board).

use reversi_games::Viewer;

use crate::conn::Conn;
use crate::report::Judged;
use crate::server::ending::CLOSE;
use crate::server::table::{module, read_board};
use crate::server::{served, Check, Target};

pub const CHECKS: &[Check] = &[Check {
    section: "text §11",
    what: "the Tic-Tac-Toe transcript, line by line",
    run: tictactoe,
}];

const START: &[&str] = &[
    "GAME TYPE TicTacToe",
    "GAME BOARD TicTacToeBoard 3 3",
    "GAME COLUMNS a b c",
    "GAME ROWS 1 2 3",
    "GAME TEAMS X O",
];

const WHY: &str = "O played an illegal move: b2 is taken";

fn tictactoe(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let mut x = Conn::join(target.addr, "X", "tictactoe")?;
    x.next_is("GAME WAITING 1")?;
    let mut o = Conn::join(target.addr, "O", "TicTacToe")?;
    let module = module("tictactoe");
    let game = crate::rules::new_game(module);
    for (conn, team) in [(&mut x, "GAME TEAM 1 X"), (&mut o, "GAME TEAM 2 O")] {
        for line in START {
            conn.next_is(line)?;
        }
        conn.next_is(team)?;
        conn.next_is("DRAW SQUARE empty 1 1")?;
        conn.unread("DRAW SQUARE empty 1 1".into());
        read_board(conn, module.info, Some(game.as_ref()), Viewer::Spectator)?;
        conn.next_is("GAME TURN 1")?;
    }
    x.next_is("READY")?;
    x.send("MOVE b2")?;
    for conn in [&mut x, &mut o] {
        for line in [
            "GAME MOVED 1 b2",
            "DRAW SQUARE empty 2 2",
            "DRAW PIECE x 1",
            "GAME TURN 2",
        ] {
            conn.next_is(line)?;
        }
    }
    o.next_is("READY")?;
    o.send("MOVE 1 2 2")?;
    o.next_is("ERROR b2 is taken")?;
    o.next_is(&format!("GAME OVER 1 {WHY}"))?;
    x.next_is(&format!("GAME OVER 1 {WHY}"))?;
    x.next_is(&format!("RESULT WIN Your team has won: {WHY}"))?;
    o.next_is(&format!("RESULT LOSE Your team has lost: {WHY}"))?;
    x.closed_within(CLOSE)?;
    o.closed_within(CLOSE)
}
