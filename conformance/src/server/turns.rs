//! TEXT-PROTOCOL.md §5: the start, turns, moves in both forms, illegal and
//! malformed input, draw offers; and draughts.md's moves and multi-jumps.

use std::time::Duration;

use reversi_games::{Action, Point, Team};

use crate::conn::Recv;
use crate::report::{Finding, Judged};
use crate::server::referee::{forfeit_lines, judge_move, play_script};
use crate::server::table::{seat, Table};
use crate::server::{served, Check, Target};

pub const CHECKS: &[Check] = &[
    Check {
        section: "text §5.1",
        what: "every game's start, line by line, in order",
        run: starts,
    },
    Check {
        section: "text §5.2",
        what: "GAME TURN goes to every player, READY only to the mover",
        run: ready_to_the_mover,
    },
    Check {
        section: "text §5.3",
        what: "a move in either form is announced in the game's notation",
        run: both_forms,
    },
    Check {
        section: "text §5.3",
        what: "notation is read in any case",
        run: any_case,
    },
    Check {
        section: "text §5.3",
        what: "notation is read in any case, in every game",
        run: any_case_foxes,
    },
    Check {
        section: "text §5.3",
        what: "an illegal move in a retry game gets ERROR, then READY",
        run: retry,
    },
    Check {
        section: "text §5.3",
        what: "a move out of turn gets ERROR it is not your turn and nothing else",
        run: out_of_turn,
    },
    Check {
        section: "text §5.3",
        what: "lines that are no move get ERROR and READY and never lose; a move off the board loses",
        run: only_a_move_loses,
    },
    Check {
        section: "text §5.3",
        what: "a move naming more squares than the game's moves is an illegal move",
        run: too_many_squares,
    },
    Check {
        section: "text §5.4",
        what: "a draw offer and a declined one are news, then GAME TURN and READY; an accepted one ends the game",
        run: draw_offers,
    },
    Check {
        section: "text §10 (draughts.md)",
        what: "a multi-jump entered jump by jump: each jump is told to all, GAME MOVED once",
        run: jump_by_jump,
    },
    Check {
        section: "text §10 (draughts.md)",
        what: "a capture by its first and last squares, in coordinate form",
        run: capture_by_its_ends,
    },
];

/// How long a check listens to be sure nothing more comes.
const QUIET: Duration = Duration::from_millis(300);

fn starts(target: &Target) -> Judged {
    for module in reversi_games::registry::all() {
        let name = module.info.name;
        match served(target, name) {
            Err(Finding::Skipped(_)) => continue,
            other => other?,
        }
        let table = seat(target, name)?;
        for conn in table.players {
            conn.close();
        }
    }
    Ok(())
}

fn ready_to_the_mover(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let mut table = seat(target, "tictactoe")?;
    let mut game = crate::rules::opening("tictactoe");
    play_script(&mut table, &mut [], game.as_mut(), &["b2"])?;
    table.players[0].silent_for(QUIET)
}

fn both_forms(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let mut table = seat(target, "tictactoe")?;
    table.players[0].send("MOVE 1 2 2")?;
    for conn in &mut table.players {
        conn.next_is("GAME MOVED 1 b2")?;
    }
    table.players[0].skip_to("GAME TURN 2")?;
    table.players[1].skip_to("READY")?;
    table.players[1].send("MOVE a1")?;
    for conn in &mut table.players {
        conn.next_is("GAME MOVED 2 a1")?;
    }
    Ok(())
}

fn any_case(target: &Target) -> Judged {
    let cases = [
        ("tictactoe", "MOVE B2", "GAME MOVED 1 b2"),
        ("duell", "MOVE A1-A6", "GAME MOVED 1 a1-a6"),
        ("draughts", "MOVE 9X13", "GAME MOVED 1 9-13"),
        ("reversi", "MOVE D3", "GAME MOVED 1 d3"),
    ];
    for (game, line, moved) in cases {
        match served(target, game) {
            Err(Finding::Skipped(_)) => continue,
            other => other?,
        }
        let mut table = seat(target, game)?;
        table.players[0].send(line)?;
        table.players[0].next_is(moved)?;
    }
    Ok(())
}

/// Foxes & Dolphins: a step of the foxes, chosen from the drawn board,
/// written with an upper-case `X` between its squares.
fn any_case_foxes(target: &Target) -> Judged {
    served(target, "foxes")?;
    let mut table = seat(target, "foxes")?;
    let foxes = &mut table.players[0];
    foxes.skip_to("READY")?;
    let cells = crate::server::foxes::cells(&foxes.board);
    let (from, to) = crate::server::foxes::a_step(&cells, Team::FIRST)?;
    foxes.send(&format!("MOVE {},{}X{},{}", from.x, from.y, to.x, to.y))?;
    // A tide may come first (its DRAW lines and GAME NEWS); the answer to the move is GAME MOVED or ERROR.
    let line = loop {
        match foxes.recv() {
            Recv::Line(line) if line.starts_with("DRAW ") || line.starts_with("GAME NEWS ") => {}
            Recv::Line(line) => break line,
            got => return Err(foxes.differ("GAME MOVED 1 …", got.show())),
        }
    };
    let plain = format!("GAME MOVED 1 {},{}-{},{}", from.x, from.y, to.x, to.y);
    let eats = format!("GAME MOVED 1 {},{}x{},{}", from.x, from.y, to.x, to.y);
    if line == plain || line == eats {
        Ok(())
    } else {
        Err(foxes.differ(format!("{plain:?}"), format!("{line:?}")))
    }
}

fn retry(target: &Target) -> Judged {
    served(target, "reversi")?;
    let mut table = seat(target, "reversi")?;
    let black = &mut table.players[0];
    black.send("MOVE a1")?;
    black.next_starts("ERROR ")?;
    black.next_is("READY")?;
    black.send("MOVE d3")?;
    black.next_is("GAME MOVED 1 d3")?;
    Ok(())
}

fn out_of_turn(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let mut table = seat(target, "tictactoe")?;
    table.players[1].send("MOVE a1")?;
    table.players[1].next_is("ERROR it is not your turn")?;
    table.players[1].silent_for(QUIET)?;
    table.players[0].silent_for(QUIET)?;
    table.players[0].send("MOVE a1")?;
    table.players[0].next_is("GAME MOVED 1 a1")
}

fn only_a_move_loses(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let mut table = seat(target, "tictactoe")?;
    let x = &mut table.players[0];
    let no_moves = [
        ("MOVE d4", Some("ERROR \"d4\" is not a square (a1 to c3)")),
        ("MOVE zz", None),
        ("MOVE 2 1 1", None),
        ("MOVE 0", None),
        ("PLEASE MOVE", None),
        (
            "GAME OFFER DRAW",
            Some("ERROR Tic-Tac-Toe has no draw offers"),
        ),
    ];
    for (line, error) in no_moves {
        x.send(line)?;
        match error {
            Some(error) => x.next_is(error)?,
            None => drop(x.next_starts("ERROR ")?),
        }
        x.next_is("READY")?;
    }
    x.send("MOVE 1 4 4")?;
    x.next_is("ERROR square 4 4 is not on the board")?;
    expect_forfeit(
        &mut table,
        Team::FIRST,
        "X played an illegal move: square 4 4 is not on the board",
    )
}

fn too_many_squares(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let mut table = seat(target, "tictactoe")?;
    table.players[0].send("MOVE 2 1 1 2 2")?;
    table.players[0].next_is("ERROR a move names exactly one square")?;
    expect_forfeit(
        &mut table,
        Team::FIRST,
        "X played an illegal move: a move names exactly one square",
    )
}

/// Every player gets §6.2's lines for `loser` forfeiting with `why`.
pub fn expect_forfeit(table: &mut Table, loser: Team, why: &str) -> Judged {
    let (over, results) = forfeit_lines(loser, why);
    for (conn, result) in table.players.iter_mut().zip(&results) {
        conn.next_is(&over)?;
        conn.next_is(result)?;
    }
    Ok(())
}

fn draw_offers(target: &Target) -> Judged {
    served(target, "draughts")?;
    let mut table = seat(target, "draughts")?;
    let [black, white] = &mut table.players[..] else {
        unreachable!("draughts has two teams")
    };
    black.send("GAME DECLINE DRAW")?;
    black.next_is("ERROR no draw has been offered")?;
    black.next_is("READY")?;
    black.send("GAME OFFER DRAW")?;
    for conn in [&mut *black, &mut *white] {
        conn.next_is("GAME NEWS black offers a draw")?;
        conn.next_is("GAME TURN 1")?;
    }
    black.next_is("READY")?;
    black.send("GAME OFFER DRAW")?;
    black.next_is("ERROR you have already offered a draw")?;
    black.next_is("READY")?;
    black.send("MOVE 11-15")?;
    white.skip_to("READY")?;
    white.send("GAME DECLINE DRAW")?;
    for conn in [&mut *white, &mut *black] {
        conn.skip_to("GAME NEWS white declines the draw")?;
        conn.next_is("GAME TURN 2")?;
    }
    white.next_is("READY")?;
    white.send("GAME OFFER DRAW")?;
    for conn in [&mut *white, &mut *black] {
        conn.next_is("GAME NEWS white offers a draw")?;
        conn.next_is("GAME TURN 2")?;
    }
    white.next_is("READY")?;
    white.send("MOVE 22-18")?;
    black.skip_to("READY")?;
    black.send("GAME ACCEPT DRAW")?;
    for conn in [&mut *black, &mut *white] {
        conn.skip_to("GAME NEWS black accepts the draw")?;
        conn.next_is("GAME OVER DRAW agreed")?;
        conn.next_is("RESULT DRAW The game is drawn: agreed")?;
    }
    for conn in table.players {
        conn.close();
    }
    Ok(())
}

/// The opening of draughts.md's multi-jump example: white then captures
/// 21x14x5 (14 = (3, 5), 5 = (1, 7)).
const BEFORE_THE_JUMP: &[&str] = &["9-14", "22-18", "5-9", "24-20", "14-17"];

fn jump_by_jump(target: &Target) -> Judged {
    served(target, "draughts")?;
    let mut table = seat(target, "draughts")?;
    let mut viewers = [table.viewer(target, "viewer")?];
    crate::server::table::read_board(
        &mut viewers[0],
        table.info,
        None,
        reversi_games::Viewer::Spectator,
    )?;
    viewers[0].next_is("GAME TURN 1")?;
    let mut game = crate::rules::opening("draughts");
    play_script(&mut table, &mut viewers, game.as_mut(), BEFORE_THE_JUMP)?;
    play_script(&mut table, &mut viewers, game.as_mut(), &["21x14"])?;
    // draughts.md's words, whatever the kit's copy of the rules says.
    let first_jump = [
        "DRAW SQUARE dark 2 4",
        "DRAW SQUARE dark 1 3",
        "DRAW SQUARE dark 3 5",
        "DRAW PIECE man 2",
        "GAME NEWS white jumps on: the piece on 14 must capture again",
        "GAME TURN 2",
    ];
    for conn in [&table.players[0], &viewers[0]] {
        let tail = &conn.seen[conn.seen.len().saturating_sub(first_jump.len())..];
        if tail != first_jump {
            return Err(conn.differ(format!("{first_jump:?}"), format!("{tail:?}")));
        }
    }
    table.players[0].send("MOVE 9-13")?;
    table.players[0].next_is("ERROR it is not your turn")?;
    play_script(&mut table, &mut viewers, game.as_mut(), &["14x5"])?;
    let moved = game.history().last().map(|m| m.notation.clone());
    if moved.as_deref() == Some("21x14x5") {
        Ok(())
    } else {
        Err(Finding::differ(
            "the kit's own rules",
            "21x14x5 recorded",
            format!("{moved:?}"),
        ))
    }
}

fn capture_by_its_ends(target: &Target) -> Judged {
    served(target, "draughts")?;
    let mut table = seat(target, "draughts")?;
    let mut game = crate::rules::opening("draughts");
    play_script(&mut table, &mut [], game.as_mut(), BEFORE_THE_JUMP)?;
    let ends = Action::Move(vec![Point::new(1, 3), Point::new(1, 7)]);
    judge_move(
        &mut table,
        &mut [],
        game.as_mut(),
        (Team::SECOND, &ends, "MOVE 2 1 3 1 7"),
    )
}
