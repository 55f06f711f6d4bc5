//! TEXT-PROTOCOL.md §14: seed 000's own protocol, on the listener the server
//! opens for it (`--listen-seed duell=ADDR`); the kit is told its address.

use std::net::SocketAddr;
use std::time::Duration;

use reversi_games::Viewer;

use crate::conn::Conn;
use crate::report::{Finding, Judged};
use crate::server::ending::CLOSE;
use crate::server::table::{module, read_board};
use crate::server::{Check, Target};

pub const CHECKS: &[Check] = &[
    Check {
        section: "text §14",
        what: "a seed client joins without a line and is sent only the seed's messages",
        run: only_the_seeds_messages,
    },
    Check {
        section: "text §14",
        what: "a seed client's GAME QUIT loses in §6.2's words",
        run: quit,
    },
    Check {
        section: "text §14",
        what: "a line that is not text gets ERROR, then READY, in a game",
        run: not_text,
    },
    Check {
        section: "text §14",
        what: "an aborted game reaches a seed client as ERROR",
        run: aborted,
    },
    Check {
        section: "text §14 (foxes.md)",
        what: "seed 002's lines are read strictly: an empty line is ignored, data a message does not take is refused",
        run: foxes_lines,
    },
];

fn listener(target: &Target) -> Result<SocketAddr, Finding> {
    target.seed_duell.ok_or_else(|| {
        Finding::Skipped("no seed listener for duell was given (--seed-duell)".into())
    })
}

/// Two seed clients, south (the first to arrive) and north, each start read
/// up to the board; south's `READY` follows at once.
fn pair(target: &Target) -> Result<[Conn; 2], Finding> {
    let addr = listener(target)?;
    let mut south = Conn::open(addr, "south")?;
    // The first must be queued before the second arrives.
    south.silent_for(Duration::from_millis(300))?;
    let mut north = Conn::open(addr, "north")?;
    let info = module("duell").info;
    let game = crate::rules::opening("duell");
    for conn in [&mut south, &mut north] {
        conn.next_is("GAME TYPE Conquest")?;
        conn.next_is("GAME BOARD ConquestBoard 9 8")?;
        read_board(conn, info, Some(game.as_ref()), Viewer::Spectator)?;
    }
    south.next_is("READY")?;
    Ok([south, north])
}

fn only_the_seeds_messages(target: &Target) -> Judged {
    let [mut south, mut north] = pair(target)?;
    south.send("MOVE 2 1 1 1 6")?;
    north.next_starts("DRAW SQUARE ")?;
    north.skip_to("READY")?;
    south.lines_until_quiet(Duration::from_millis(300));
    for conn in [&south, &north] {
        if let Some(line) = conn.seen.iter().find(|l| is_addition(l)) {
            return Err(conn.differ("only seed 000's messages", format!("{line:?}")));
        }
    }
    Ok(())
}

/// Whether a line is one of the text protocol's additions (§3), which a seed
/// client is never sent.
fn is_addition(line: &str) -> bool {
    line.starts_with("GAME ") && !line.starts_with("GAME TYPE ") && !line.starts_with("GAME BOARD ")
}

fn not_text(target: &Target) -> Judged {
    let [mut south, _north] = pair(target)?;
    south.send_raw(b"MOVE \xff\xfe 1\n")?;
    south.next_is("ERROR line is not text (UTF-8 without control characters)")?;
    south.next_is("READY")?;
    south.send("MOVE 2 1 1 1 6")?;
    south.next_starts("DRAW SQUARE ")?;
    Ok(())
}

fn quit(target: &Target) -> Judged {
    let [mut south, mut north] = pair(target)?;
    south.send("GAME QUIT")?;
    south.next_is("RESULT LOSE Your team has lost: south left the game")?;
    south.closed_within(CLOSE)?;
    north.next_is("RESULT WIN Your team has won: south left the game")?;
    north.closed_within(CLOSE)
}

fn aborted(target: &Target) -> Judged {
    let clock = target.first_move_clock()?;
    let [mut south, mut north] = pair(target)?;
    south.silent_for(clock.saturating_sub(Duration::from_millis(500)))?;
    for conn in [&mut south, &mut north] {
        conn.next_is("ERROR south did not make its first move in time")?;
        conn.closed_within(CLOSE)?;
    }
    Ok(())
}

/// foxes.md, "Messages": the fox player (the first to join) may move after
/// `BFN`; an empty line gets nothing, `FBR` (blanks after it allowed) the
/// board again, `FBR x` and a move of five numbers `BGF` and `BFN`.
fn foxes_lines(target: &Target) -> Judged {
    let addr = target.seed_foxes.ok_or_else(|| {
        Finding::Skipped("no seed listener for foxes was given (--seed-foxes)".into())
    })?;
    let mut fox = Conn::open(addr, "fox player")?;
    fox.send("PBJ")?;
    fox.silent_for(Duration::from_millis(300))?;
    let mut dolphin = Conn::open(addr, "dolphin player")?;
    dolphin.send("PBJ")?;
    fox.next_is("BPT F")?;
    fox.next_starts("BGB ")?;
    fox.next_is("BFN")?;
    fox.send_raw(b"\nFBR\n")?;
    fox.next_starts("BGB ")?;
    fox.send("FBR x")?;
    fox.next_is("BGF")?;
    fox.next_is("BFN")?;
    fox.send("FBR ")?;
    fox.next_starts("BGB ")?;
    fox.send("FBM 1 1 1 2 9")?;
    fox.next_is("BGF")?;
    fox.next_is("BFN")?;
    dolphin.next_is("BPT D")
}
