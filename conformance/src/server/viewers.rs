//! TEXT-PROTOCOL.md §7: viewers get the start, every move and the end, never
//! `READY` or `RESULT`, cannot play, and are closed when the game ends; a
//! viewer arriving late gets the board as it stands.

use reversi_games::Viewer;

use crate::report::Judged;
use crate::server::ending::CLOSE;
use crate::server::referee::play_script;
use crate::server::table::{read_board, seat};
use crate::server::{served, Check, Target};

pub const CHECKS: &[Check] = &[
    Check {
        section: "text §7",
        what: "a viewer gets the start, every move and GAME OVER without RESULT, then the close",
        run: a_whole_game,
    },
    Check {
        section: "text §7",
        what: "a viewer cannot play, and GAME QUIT stops watching",
        run: cannot_play,
    },
    Check {
        section: "text §7",
        what: "a viewer arriving mid-capture gets the board as it stands",
        run: mid_capture,
    },
];

fn a_whole_game(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let mut table = seat(target, "tictactoe")?;
    let mut game = crate::rules::opening("tictactoe");
    let mut viewers = [table.viewer(target, "viewer")?];
    read_board(
        &mut viewers[0],
        table.info,
        Some(game.as_ref()),
        Viewer::Spectator,
    )?;
    viewers[0].next_is("GAME TURN 1")?;
    play_script(
        &mut table,
        &mut viewers,
        game.as_mut(),
        &["a1", "a2", "b1", "b2", "c1"],
    )?;
    viewers[0].closed_within(CLOSE)
}

fn cannot_play(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let table = seat(target, "tictactoe")?;
    let mut viewer = table.viewer(target, "viewer")?;
    viewer.skip_to("GAME TURN 1")?;
    viewer.send("MOVE b2")?;
    viewer.next_is("ERROR viewers cannot play (GAME QUIT to stop watching)")?;
    viewer.send("GAME QUIT")?;
    viewer.closed()
}

fn mid_capture(target: &Target) -> Judged {
    served(target, "draughts")?;
    let mut table = seat(target, "draughts")?;
    let mut game = crate::rules::opening("draughts");
    let opening = ["9-14", "22-18", "5-9", "24-20", "14-17", "21x14"];
    play_script(&mut table, &mut [], game.as_mut(), &opening)?;
    let mut viewers = [table.viewer(target, "late viewer")?];
    read_board(
        &mut viewers[0],
        table.info,
        Some(game.as_ref()),
        Viewer::Spectator,
    )?;
    viewers[0].next_is("GAME TURN 2")?;
    play_script(&mut table, &mut viewers, game.as_mut(), &["14x5"])?;
    for conn in table.players {
        conn.close();
    }
    Ok(())
}
