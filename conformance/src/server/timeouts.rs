//! TEXT-PROTOCOL.md §8: the timeouts a check can wait out. The kit is told
//! the server's settings (`--handshake-timeout`, `--move-timeout`,
//! `--first-move-timeout`); a check whose timeout it was not told, or that is
//! longer than 10 s, is skipped.

use std::time::{Duration, Instant};

use reversi_games::Team;

use crate::conn::{Conn, Recv};
use crate::report::{Finding, Judged};
use crate::server::ending::CLOSE;
use crate::server::referee::play_script;
use crate::server::table::seat;
use crate::server::turns::expect_forfeit;
use crate::server::{served, Check, Target};

pub const CHECKS: &[Check] = &[
    Check {
        section: "text §8",
        what: "the handshake timeout closes a connection that neither joins nor watches, without a line",
        run: handshake,
    },
    Check {
        section: "text §8",
        what: "the move clock: the mover's team loses, <team> ran out of time",
        run: move_clock,
    },
    Check {
        section: "text §8",
        what: "every GAME TURN is followed by GAME CLOCK with the time the move has",
        run: clock_lines,
    },
    Check {
        section: "text §8",
        what: "an ERROR does not restart the move clock",
        run: error_keeps_the_clock,
    },
    Check {
        section: "text §8",
        what: "the first-move clock: GAME ABORTED <team> did not make its first move in time",
        run: first_move_clock,
    },
    Check {
        section: "text §8",
        what: "a draw offer does not end the first-move clock",
        run: offer_is_no_first_move,
    },
    Check {
        section: "text §7",
        what: "a viewer arriving after a forfeit gets the board and GAME OVER, no GAME TURN",
        run: late_viewer,
    },
];

/// Slack for a timer that fires on time, judged over the network.
const SLACK: Duration = Duration::from_millis(1500);

fn handshake(target: &Target) -> Judged {
    let timeout = match target.handshake_timeout {
        Some(t) if t <= Duration::from_secs(10) => t,
        Some(_) => {
            return Err(Finding::Skipped(
                "--handshake-timeout must be at most 10 s to be checked".into(),
            ))
        }
        None => {
            return Err(Finding::Skipped(
                "the server's --handshake-timeout was not given".into(),
            ))
        }
    };
    let mut silent = Conn::open(target.addr, "silent client")?;
    let mut lister = Conn::open(target.addr, "lister")?;
    lister.send("GAME LIST")?;
    lister.skip_to("GAME SESSIONS ")?;
    silent.closed_within(timeout + SLACK)?;
    lister.closed_within(SLACK)
}

fn move_clock(target: &Target) -> Judged {
    let clock = target.move_clock()?;
    served(target, "tictactoe")?;
    let mut table = seat(target, "tictactoe")?;
    let mut game = crate::rules::opening("tictactoe");
    // Both make their first move, so that only the move clock is left.
    play_script(&mut table, &mut [], game.as_mut(), &["b2", "a1", "c3"])?;
    table.players[1].silent_for(clock.saturating_sub(Duration::from_millis(500)))?;
    expect_forfeit(&mut table, Team::SECOND, "O ran out of time")
}

fn clock_lines(target: &Target) -> Judged {
    let clock = target.move_clock()?;
    let first = target.first_move_clock()?;
    served(target, "tictactoe")?;
    let mut table = seat(target, "tictactoe")?;
    let mut game = crate::rules::opening("tictactoe");
    // X's first move, O's first, X's second: two first-move clocks, then the move clock.
    play_script(&mut table, &mut [], game.as_mut(), &["b2", "a1"])?;
    let expected = [(1, first), (2, first), (1, clock)]
        .map(|(team, limit)| format!("GAME CLOCK {team} {}", limit.as_millis()));
    let x = &table.players[0];
    let got: Vec<&str> = x
        .countdowns
        .iter()
        .map(String::as_str)
        .filter(|l| l.starts_with("GAME CLOCK"))
        .collect();
    // Each line is sent as the move's clock starts: at most what the move has.
    let fits = |got: &str, want: &str| {
        let split = |l: &str| {
            let (head, ms) = l.rsplit_once(' ')?;
            Some((head.to_owned(), ms.parse::<u128>().ok()?))
        };
        matches!((split(got), split(want)), (Some((g, gms)), Some((w, wms)))
            if g == w && gms <= wms && gms + 1000 >= wms)
    };
    if got.len() == expected.len() && got.iter().zip(&expected).all(|(g, w)| fits(g, w)) {
        Ok(())
    } else {
        Err(x.differ(expected.join(", "), got.join(", ")))
    }
}

fn error_keeps_the_clock(target: &Target) -> Judged {
    let clock = target.move_clock()?;
    served(target, "tictactoe")?;
    let mut table = seat(target, "tictactoe")?;
    let mut game = crate::rules::opening("tictactoe");
    play_script(&mut table, &mut [], game.as_mut(), &["b2", "a1"])?;
    // X's READY has just come: half the clock later, a line that is no move.
    let ready = Instant::now();
    let x = &mut table.players[0];
    x.silent_for(clock / 2)?;
    x.send("MOVE zz")?;
    x.next_starts("ERROR ")?;
    x.next_is("READY")?;
    let (over, _) = crate::server::referee::forfeit_lines(Team::FIRST, "X ran out of time");
    match x.recv_within(clock + SLACK) {
        Recv::Line(line) if line == over && ready.elapsed() < clock + SLACK / 2 => Ok(()),
        Recv::Line(line) if line == over => Err(x.differ(
            format!("{over:?} {} ms after READY", clock.as_millis()),
            format!(
                "it, {} ms after READY: the ERROR restarted the clock",
                ready.elapsed().as_millis()
            ),
        )),
        got => Err(x.differ(format!("{over:?}"), got.show())),
    }
}

fn first_move_clock(target: &Target) -> Judged {
    let clock = target.first_move_clock()?;
    served(target, "tictactoe")?;
    let mut table = seat(target, "tictactoe")?;
    table.players[0].silent_for(clock.saturating_sub(Duration::from_millis(500)))?;
    for conn in &mut table.players {
        conn.next_is("GAME ABORTED X did not make its first move in time")?;
        conn.closed_within(CLOSE)?;
    }
    Ok(())
}

fn offer_is_no_first_move(target: &Target) -> Judged {
    let clock = target.first_move_clock()?;
    let longest = clock.max(target.move_timeout.unwrap_or(clock)) + SLACK;
    served(target, "draughts")?;
    let mut table = seat(target, "draughts")?;
    let black = &mut table.players[0];
    black.send("GAME OFFER DRAW")?;
    black.skip_to("READY")?;
    match black.recv_within(longest) {
        crate::conn::Recv::Line(line)
            if line == "GAME ABORTED black did not make its first move in time" =>
        {
            Ok(())
        }
        got => Err(black.differ(
            "\"GAME ABORTED black did not make its first move in time\"",
            got.show(),
        )),
    }
}

/// A draughts game that black loses on time after both made their first
/// move; a viewer arrives in the pause before the rematch.
fn late_viewer(target: &Target) -> Judged {
    let clock = target.move_clock()?;
    served(target, "draughts")?;
    let mut table = seat(target, "draughts")?;
    let id = table.game_id(target)?;
    let mut game = crate::rules::opening("draughts");
    play_script(&mut table, &mut [], game.as_mut(), &["11-15", "22-18"])?;
    let black = &mut table.players[0];
    black.silent_for(clock.saturating_sub(Duration::from_millis(500)))?;
    expect_forfeit(&mut table, Team::FIRST, "black ran out of time")?;
    let mut viewer = Conn::open(target.addr, "late viewer")?;
    viewer.send(&format!("GAME WATCH {id}"))?;
    crate::server::table::read_names(&mut viewer, table.info)?;
    viewer.next_is(&format!("GAME WATCHING {id}"))?;
    crate::server::table::read_board(
        &mut viewer,
        table.info,
        Some(game.as_ref()),
        reversi_games::Viewer::Spectator,
    )?;
    viewer.next_is("GAME OVER 2 black ran out of time")?;
    for conn in table.players {
        conn.close();
    }
    Ok(())
}
