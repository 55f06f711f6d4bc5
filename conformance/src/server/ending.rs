//! TEXT-PROTOCOL.md §6: the end by the rules, forfeits with their normative
//! texts, and rematches (with viewers, §7).

use std::time::{Duration, Instant};

use reversi_games::{Team, Viewer};

use crate::conn::{Conn, Recv};
use crate::report::{Finding, Judged};
use crate::server::referee::play_script;
use crate::server::table::{read_board, read_header, seat, Table};
use crate::server::turns::expect_forfeit;
use crate::server::{served, Check, Target};

pub const CHECKS: &[Check] = &[
    Check {
        section: "text §6.1",
        what: "a game over by the rules: GAME OVER, RESULT, then the close",
        run: by_the_rules,
    },
    Check {
        section: "text §6.2",
        what: "GAME QUIT: <team> left the game, the quitter loses and is closed",
        run: quit,
    },
    Check {
        section: "text §6.2",
        what: "a closed connection: <team> was disconnected",
        run: disconnected,
    },
    Check {
        section: "text §6.2",
        what: "a line longer than 1024 bytes in a game: <team> broke the protocol",
        run: overlong,
    },
    Check {
        section: "text §6.3",
        what: "a rematch starts 3 s after the end, teams turned round, every connection open, the same GAME SESSION",
        run: rematch,
    },
    Check {
        section: "text §6.3",
        what: "viewers stay through a rematch",
        run: viewers_stay,
    },
    Check {
        section: "text §6.3",
        what: "leaving between games ends the series: nobody is sent anything more",
        run: leaving_between_games,
    },
];

/// §6.1's close comes within 2 seconds; a little more for the network.
pub const CLOSE: Duration = Duration::from_millis(2500);

/// §6.3's pause between two games.
const REMATCH_DELAY: Duration = Duration::from_secs(3);

fn by_the_rules(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let mut table = seat(target, "tictactoe")?;
    let mut game = crate::rules::opening("tictactoe");
    play_script(
        &mut table,
        &mut [],
        game.as_mut(),
        &["a1", "a2", "b1", "b2", "c1"],
    )?;
    for conn in &mut table.players {
        conn.closed_within(CLOSE)?;
    }
    Ok(())
}

fn quit(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let mut table = seat(target, "tictactoe")?;
    table.players[0].send("GAME QUIT")?;
    expect_forfeit(&mut table, Team::FIRST, "X left the game")?;
    table.players[0].closed_within(CLOSE)
}

fn disconnected(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let mut table = seat(target, "tictactoe")?;
    let x = table.players.remove(0);
    x.close();
    let o = &mut table.players[0];
    o.next_is("GAME OVER 2 X was disconnected")?;
    o.next_is("RESULT WIN Your team has won: X was disconnected")?;
    o.closed_within(CLOSE)
}

fn overlong(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let mut table = seat(target, "tictactoe")?;
    table.players[0].send(&format!("MOVE {}", "b".repeat(1100)))?;
    table.players[0].next_is("ERROR line longer than 1024 bytes")?;
    expect_forfeit(
        &mut table,
        Team::FIRST,
        "X broke the protocol: line longer than 1024 bytes",
    )
}

/// A draughts game both sides agree to draw at once (black offers, moves,
/// white accepts): an end by the rules, after which a rematch is due.
fn agreed_draw(target: &Target) -> Result<Table, Finding> {
    served(target, "draughts")?;
    let mut table = seat(target, "draughts")?;
    let black = &mut table.players[0];
    black.send("GAME OFFER DRAW")?;
    black.skip_to("READY")?;
    black.send("MOVE 11-15")?;
    let white = &mut table.players[1];
    white.skip_to("READY")?;
    white.send("GAME ACCEPT DRAW")?;
    for conn in &mut table.players {
        conn.skip_to("GAME OVER DRAW agreed")?;
        conn.next_is("RESULT DRAW The game is drawn: agreed")?;
    }
    Ok(table)
}

/// Waits for the next game's `GAME TYPE`, which must come after §6.3's pause.
fn next_game(conn: &mut Conn, ended: Instant) -> Judged {
    match conn.recv_within(REMATCH_DELAY * 2) {
        Recv::Line(line) if line == "GAME TYPE Draughts" => {}
        Recv::Closed => {
            return Err(Finding::Skipped(
                "the server closed after the game: are rematches off (--no-rematch)?".into(),
            ))
        }
        got => return Err(conn.differ("\"GAME TYPE Draughts\" (the rematch)", got.show())),
    }
    let waited = ended.elapsed();
    if waited + Duration::from_millis(500) < REMATCH_DELAY {
        return Err(conn.differ(
            "the rematch 3 s after the end",
            format!("after {} ms", waited.as_millis()),
        ));
    }
    conn.unread("GAME TYPE Draughts".into());
    Ok(())
}

fn rematch(target: &Target) -> Judged {
    let mut table = agreed_draw(target)?;
    let ended = Instant::now();
    let before = table.session_line(target)?;
    for (t, conn) in table.players.iter_mut().enumerate() {
        next_game(conn, ended)?;
        let team = read_header(conn, table.info)?;
        let turned = Team(1 - t as u8);
        if team != turned {
            return Err(conn.differ(
                format!("GAME TEAM {} (teams turned round)", turned.number()),
                format!("GAME TEAM {}", team.number()),
            ));
        }
        read_board(conn, table.info, None, Viewer::Team(team))?;
        conn.next_is("GAME TURN 1")?;
    }
    // The player that was white moves first now.
    table.players[1].next_is("READY")?;
    // §4: the series is one running game: its id, type and players (in
    // joining order) are kept; only the seconds have grown.
    let after = table.session_line(target)?;
    let without_seconds = |line: &str| {
        let mut words: Vec<&str> = line.split(' ').collect();
        words.remove(4);
        words.join(" ")
    };
    if without_seconds(&after) == without_seconds(&before) {
        Ok(())
    } else {
        Err(Finding::differ(
            "lister",
            format!("{before:?}, the seconds grown"),
            format!("{after:?}"),
        ))
    }
}

fn viewers_stay(target: &Target) -> Judged {
    served(target, "draughts")?;
    // The viewer must watch before the game ends: seat, watch, then draw.
    let mut table = seat(target, "draughts")?;
    let id = table.game_id(target)?;
    let mut viewer = table.viewer(target, "viewer")?;
    read_board(&mut viewer, table.info, None, Viewer::Spectator)?;
    viewer.next_is("GAME TURN 1")?;
    table.players[0].send("GAME OFFER DRAW")?;
    table.players[0].skip_to("READY")?;
    table.players[0].send("MOVE 11-15")?;
    table.players[1].skip_to("READY")?;
    table.players[1].send("GAME ACCEPT DRAW")?;
    viewer.skip_to("GAME OVER DRAW agreed")?;
    let ended = Instant::now();
    next_game(&mut viewer, ended)?;
    crate::server::table::read_names(&mut viewer, table.info)?;
    viewer.next_is(&format!("GAME WATCHING {id}"))?;
    read_board(&mut viewer, table.info, None, Viewer::Spectator)?;
    viewer.next_is("GAME TURN 1")
}

fn leaving_between_games(target: &Target) -> Judged {
    let mut table = agreed_draw(target)?;
    table.players[0].send("GAME QUIT")?;
    table.players[1].closed_within(CLOSE)?;
    table.players[0].closed_within(CLOSE)
}
