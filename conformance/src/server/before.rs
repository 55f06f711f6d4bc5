//! TEXT-PROTOCOL.md §4: before a game: joining, listing, watching, the
//! version, and the errors of a waiting or queued connection.

use crate::conn::{Conn, Recv};
use crate::report::Judged;
use crate::server::table::seat;
use crate::server::{served, Check, Target};

pub const CHECKS: &[Check] = &[
    Check {
        section: "text §4",
        what: "GAME VERSION is answered GAME VERSION 1 and the server's name",
        run: version,
    },
    Check {
        section: "text §4",
        what: "an unknown game is refused with the games served, and the connection stays waiting",
        run: unknown_game,
    },
    Check {
        section: "text §4",
        what: "any other line gets ERROR and the connection stays waiting",
        run: other_lines,
    },
    Check {
        section: "text §4",
        what: "a queued client gets GAME WAITING, may list, and is refused GAME TYPE, GAME WATCH and MOVE",
        run: queued,
    },
    Check {
        section: "text §4",
        what: "GAME QUIT closes a waiting connection without a line",
        run: quit_while_waiting,
    },
    Check {
        section: "text §4",
        what: "GAME LIST gives one GAME SESSION a game, its players in joining order, then GAME SESSIONS",
        run: list,
    },
    Check {
        section: "text §4",
        what: "GAME WATCH of a game that is not running is refused and the connection stays waiting",
        run: watch_nothing,
    },
    Check {
        section: "text §4",
        what: "a first move sent right behind the join is kept for the game",
        run: move_behind_join,
    },
];

fn version(target: &Target) -> Judged {
    let mut conn = Conn::open(target.addr, "client")?;
    conn.send("GAME VERSION")?;
    let line = conn.next_starts("GAME VERSION 1 ")?;
    if line.len() > "GAME VERSION 1 ".len() {
        Ok(())
    } else {
        Err(conn.differ("GAME VERSION 1 <server>", format!("{line:?}")))
    }
}

fn unknown_game(target: &Target) -> Judged {
    let mut conn = Conn::open(target.addr, "client")?;
    conn.send("GAME TYPE chess")?;
    conn.next_starts("ERROR no game \"chess\" here; games: ")?;
    conn.send("GAME VERSION")?;
    conn.next_starts("GAME VERSION 1 ")?;
    Ok(())
}

fn other_lines(target: &Target) -> Judged {
    let mut conn = Conn::open(target.addr, "client")?;
    conn.send("1234")?;
    conn.next_starts("ERROR ")?;
    conn.send("MOVE d3")?;
    conn.next_starts("ERROR ")?;
    conn.send("GAME VERSION")?;
    conn.next_starts("GAME VERSION 1 ")?;
    Ok(())
}

fn queued(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let mut conn = Conn::join(target.addr, "queued client", "tictactoe")?;
    conn.next_is("GAME WAITING 1")?;
    conn.send("GAME LIST")?;
    conn.skip_to("GAME SESSIONS ")?;
    conn.send("GAME TYPE tictactoe")?;
    conn.next_starts("ERROR waiting for a game already")?;
    conn.send("GAME WATCH 1")?;
    conn.next_starts("ERROR waiting for a game already")?;
    conn.send("MOVE b2")?;
    conn.next_is("ERROR the game has not started")?;
    conn.send("GAME QUIT")?;
    conn.closed()
}

fn quit_while_waiting(target: &Target) -> Judged {
    let mut conn = Conn::open(target.addr, "client")?;
    conn.send("GAME QUIT")?;
    conn.closed()
}

fn list(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let table = seat(target, "tictactoe")?;
    let first = table.first_joined;
    let joined = [
        table.players[first].local_addr(),
        table.players[1 - first].local_addr(),
    ];
    let mut lister = Conn::open(target.addr, "lister")?;
    lister.send("GAME LIST")?;
    let mut sessions = 0;
    let mut ours = None;
    loop {
        let line = match lister.recv() {
            Recv::Line(line) => line,
            got => return Err(lister.differ("GAME SESSION … or GAME SESSIONS n", got.show())),
        };
        let words: Vec<&str> = line.split(' ').collect();
        match words.as_slice() {
            ["GAME", "SESSION", _id, _type, seconds, players @ ..]
                if seconds.parse::<u64>().is_ok() =>
            {
                sessions += 1;
                if players.contains(&joined[0].as_str()) {
                    ours = Some(line.clone());
                }
            }
            ["GAME", "SESSIONS", n] if n.parse() == Ok(sessions) => break,
            _ => {
                return Err(lister.differ(
                    format!("GAME SESSION … or GAME SESSIONS {sessions}"),
                    format!("{line:?}"),
                ))
            }
        }
    }
    let line =
        ours.ok_or_else(|| lister.differ(format!("a GAME SESSION with {}", joined[0]), "none"))?;
    let tail = format!(" TicTacToe {{s}} {} {}", joined[0], joined[1]);
    let words: Vec<&str> = line.split(' ').collect();
    let ok = words.len() == 7
        && words[3] == "TicTacToe"
        && words[5] == joined[0]
        && words[6] == joined[1];
    if ok {
        Ok(())
    } else {
        Err(lister.differ(format!("GAME SESSION <id>{tail}"), format!("{line:?}")))
    }
}

fn watch_nothing(target: &Target) -> Judged {
    let mut conn = Conn::open(target.addr, "client")?;
    conn.send("GAME WATCH 18446744073709551615")?;
    conn.next_is("ERROR no game 18446744073709551615 is running (GAME LIST shows them)")?;
    conn.send("GAME VERSION")?;
    conn.next_starts("GAME VERSION 1 ")?;
    Ok(())
}

fn move_behind_join(target: &Target) -> Judged {
    served(target, "tictactoe")?;
    let mut first = Conn::join(target.addr, "X", "tictactoe")?;
    first.next_is("GAME WAITING 1")?;
    let mut second = Conn::open(target.addr, "O")?;
    second.send_raw(b"GAME TYPE tictactoe\nMOVE b2\n")?;
    // Tic-Tac-Toe gives X to the first to join: the second's early move is
    // out of turn, which the game itself answers (§5.3).
    second.skip_to("ERROR it is not your turn")?;
    first.skip_to("READY")?;
    first.send("MOVE a1")?;
    first.next_is("GAME MOVED 1 a1")?;
    Ok(())
}
