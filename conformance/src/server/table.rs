//! A game's players at one table: two clients joined to the same game, each
//! start judged line by line against the kit's own copy of the game
//! (TEXT-PROTOCOL.md §5.1), sorted by the team the server gave them.

use reversi_games::{Cell, Game, GameInfo, Team, Viewer};

use std::time::Duration;

use crate::conn::{Board, Conn, Recv, PATIENCE};
use crate::report::Finding;
use crate::server::Target;

/// Two players of one game, `players[t]` playing team `t`.
pub struct Table {
    pub info: &'static GameInfo,
    pub players: Vec<Conn>,
    /// Who joined first (an index into `players`).
    pub first_joined: usize,
}

pub use crate::rules::module;

/// Two clients join `game`; both starts are judged (§4, §5.1).
pub fn seat(target: &Target, game: &str) -> Result<Table, Finding> {
    let info = module(game).info;
    let mut first = Conn::join(target.addr, "first player", game)?;
    first.next_is("GAME WAITING 1")?;
    let second = Conn::join(target.addr, "second player", game)?;
    let mut joined = [first, second];
    let mut teams = [Team::FIRST; 2];
    for (conn, team) in joined.iter_mut().zip(&mut teams) {
        *team = read_header(conn, info)?;
    }
    if teams[0] == teams[1] {
        let team = teams[0].number();
        return Err(Finding::differ(
            "second player",
            "the other team than the first player's",
            format!("GAME TEAM {team}, as the first player"),
        ));
    }
    let first_joined = usize::from(teams[0].0);
    let mut players: Vec<Conn> = joined.into_iter().collect();
    if first_joined == 1 {
        players.swap(0, 1);
    }
    for (t, conn) in players.iter_mut().enumerate() {
        conn.who = info.team_name(Team(t as u8));
    }
    let game = crate::rules::opening(game);
    // Foxes & Dolphins (the real-time game) sets its board up at random.
    let known = (!info.realtime).then_some(game.as_ref());
    for (t, conn) in players.iter_mut().enumerate() {
        read_board(conn, info, known, Viewer::Team(Team(t as u8)))?;
        judge_players(conn, info)?;
        read_first_turn(conn, info, Team(t as u8))?;
    }
    Ok(Table {
        info,
        players,
        first_joined,
    })
}

/// §5.1 steps 1 to 5; returns the team the connection plays.
pub fn read_header(conn: &mut Conn, info: &GameInfo) -> Result<Team, Finding> {
    read_names(conn, info)?;
    let line = conn.next_starts("GAME TEAM ")?;
    let words: Vec<&str> = line.split(' ').collect();
    let team = match words.as_slice() {
        ["GAME", "TEAM", k, name] => k
            .parse()
            .ok()
            .and_then(|k| Team::from_number(k, info.team_count()))
            .filter(|t| info.team_name(*t) == *name),
        _ => None,
    };
    team.ok_or_else(|| {
        conn.differ(
            "GAME TEAM k name, a team of GAME TEAMS",
            format!("{line:?}"),
        )
    })
}

/// §5.1 step 5's `GAME PLAYER k kind name rating` lines, set aside while the start was
/// read: one a team at least (a player each), team 1 first, each well formed.
fn judge_players(conn: &Conn, info: &GameInfo) -> Result<(), Finding> {
    let teams: Vec<u8> = conn
        .players
        .iter()
        .filter_map(|l| player_team(l, info))
        .collect();
    let in_order = teams.windows(2).all(|w| w[0] <= w[1]);
    let every_team = (1..=info.team_count() as u8).all(|k| teams.contains(&k));
    if teams.len() == conn.players.len() && in_order && every_team {
        return Ok(());
    }
    Err(conn.differ(
        "GAME PLAYER k account|guest|anonymous name rating, for every team, team 1 first",
        format!("{:?}", conn.players),
    ))
}

/// The team of a well-formed `GAME PLAYER` line: a name `-` only for an anonymous player,
/// a rating only for an account (`1532`, `1500?` or `-`).
fn player_team(line: &str, info: &GameInfo) -> Option<u8> {
    let words: Vec<&str> = line.split(' ').collect();
    let ["GAME", "PLAYER", k, kind, name, rating] = words.as_slice() else {
        return None;
    };
    let k: u8 = k
        .parse()
        .ok()
        .filter(|k| (1..=info.team_count() as u8).contains(k))?;
    let points = rating.strip_suffix('?').unwrap_or(rating);
    let is_rating = !points.is_empty() && points.bytes().all(|b| b.is_ascii_digit());
    let fits = match *kind {
        "anonymous" => *name == "-" && *rating == "-",
        "guest" => *name != "-" && *rating == "-",
        "account" => *name != "-" && (*rating == "-" || is_rating),
        _ => false,
    };
    fits.then_some(k)
}

/// §5.1 steps 1 to 4 (and §7's first lines for a viewer).
pub fn read_names(conn: &mut Conn, info: &GameInfo) -> Result<(), Finding> {
    conn.next_is(&format!("GAME TYPE {}", info.wire_type))?;
    let board = info.board;
    conn.next_is(&format!(
        "GAME BOARD {} {} {}",
        board.name, board.width, board.height
    ))?;
    if let Some(labels) = board.labels {
        conn.next_is(&format!("GAME COLUMNS {}", labels.columns.join(" ")))?;
        conn.next_is(&format!("GAME ROWS {}", labels.rows.join(" ")))?;
    }
    conn.next_is(&format!("GAME TEAMS {}", info.teams.join(" ")))
}

/// §5.1 step 6: every square drawn once; the board must be `game`'s as
/// `viewer` sees it, when the kit knows it (not for a board set up at random).
pub fn read_board(
    conn: &mut Conn,
    info: &GameInfo,
    game: Option<&dyn Game>,
    viewer: Viewer,
) -> Result<(), Finding> {
    conn.board.clear();
    let squares = usize::from(info.board.width) * usize::from(info.board.height);
    read_draws(conn, squares)?;
    if conn.board.len() != squares {
        return Err(conn.differ(
            format!("{squares} different squares drawn"),
            format!("{} different squares", conn.board.len()),
        ));
    }
    match game {
        Some(game) => same_board(conn, &game.view(viewer)),
        None => Ok(()),
    }
}

/// How long the kit waits for a piece on the last square drawn: it follows
/// its square at once, and nothing else may follow a board (a player not to
/// move is sent nothing more).
const LAST_PIECE: Duration = Duration::from_millis(300);

/// Reads `squares` `DRAW SQUARE` lines, each with the `DRAW PIECE` that may follow it.
fn read_draws(conn: &mut Conn, squares: usize) -> Result<(), Finding> {
    let mut drawn = 0;
    let mut piece_allowed = false;
    loop {
        if drawn == squares && !piece_allowed {
            return Ok(());
        }
        // After the last square only its piece may still come, at once.
        let wait = if drawn == squares {
            LAST_PIECE
        } else {
            PATIENCE
        };
        let line = match conn.recv_within(wait) {
            Recv::Line(line) => line,
            _ if drawn == squares => return Ok(()),
            got => return Err(conn.differ("DRAW SQUARE or DRAW PIECE", got.show())),
        };
        if line.starts_with("DRAW PIECE ") && piece_allowed {
            piece_allowed = false;
        } else if line.starts_with("DRAW SQUARE ") && drawn < squares {
            drawn += 1;
            piece_allowed = true;
        } else if drawn == squares {
            conn.unread(line);
            return Ok(());
        } else {
            let expected = if piece_allowed {
                "DRAW SQUARE or DRAW PIECE"
            } else {
                "DRAW SQUARE"
            };
            return Err(conn.differ(expected, format!("{line:?}")));
        }
    }
}

/// §5.1 steps 7 and 8 for team `team`'s player.
fn read_first_turn(conn: &mut Conn, info: &GameInfo, team: Team) -> Result<(), Finding> {
    if info.realtime {
        return Ok(());
    }
    conn.next_is("GAME TURN 1")?;
    if team == Team::FIRST {
        conn.next_is("READY")?;
    }
    Ok(())
}

/// The board a connection was drawn must be `cells`.
pub fn same_board(conn: &Conn, cells: &[Cell]) -> Result<(), Finding> {
    let expected = board_of(cells);
    if conn.board == expected {
        return Ok(());
    }
    let first = expected
        .iter()
        .find(|(at, square)| conn.board.get(at) != Some(square))
        .map(|(at, square)| (at, Some(square)))
        .or_else(|| {
            conn.board
                .keys()
                .find(|at| !expected.contains_key(at))
                .map(|at| (at, None))
        });
    let Some((at, square)) = first else {
        return Ok(());
    };
    Err(conn.differ(
        format!("square {} {}: {}", at.0, at.1, show(square)),
        format!("square {} {}: {}", at.0, at.1, show(conn.board.get(at))),
    ))
}

fn show(square: Option<&(String, Option<(String, u8)>)>) -> String {
    match square {
        None => "not drawn".to_owned(),
        Some((kind, None)) => format!("{kind}, empty"),
        Some((kind, Some((piece, team)))) => format!("{kind}, {piece} of team {team}"),
    }
}

/// The board `cells` draw.
pub fn board_of(cells: &[Cell]) -> Board {
    cells
        .iter()
        .map(|c| {
            let piece = c.piece.as_ref().map(|p| (p.name.clone(), p.team.number()));
            ((c.at.x, c.at.y), (c.square.to_owned(), piece))
        })
        .collect()
}

/// Reads lines until one does not start with `DRAW `; returns it.
pub fn past_draws(conn: &mut Conn) -> Recv {
    loop {
        match conn.recv() {
            Recv::Line(line) if line.starts_with("DRAW ") => {}
            other => return other,
        }
    }
}

impl Table {
    /// The id `GAME LIST` gives this table's game (§4).
    pub fn game_id(&self, target: &Target) -> Result<String, Finding> {
        let line = self.session_line(target)?;
        Ok(line.split(' ').nth(2).unwrap_or_default().to_owned())
    }

    /// The `GAME SESSION` line `GAME LIST` gives this table's game (§4).
    pub fn session_line(&self, target: &Target) -> Result<String, Finding> {
        let ours = self.players[self.first_joined].local_addr();
        let mut lister = Conn::open(target.addr, "lister")?;
        lister.send("GAME LIST")?;
        loop {
            let line = match lister.recv() {
                Recv::Line(line) => line,
                got => return Err(lister.differ(format!("a GAME SESSION with {ours}"), got.show())),
            };
            let words: Vec<&str> = line.split(' ').collect();
            match words.as_slice() {
                ["GAME", "SESSION", _, _, _, players @ ..] if players.contains(&ours.as_str()) => {
                    return Ok(line)
                }
                ["GAME", "SESSION", ..] => {}
                _ => {
                    return Err(
                        lister.differ(format!("a GAME SESSION with {ours}"), format!("{line:?}"))
                    )
                }
            }
        }
    }

    /// A viewer of this table's game, its start read (§7) up to the board.
    pub fn viewer(&self, target: &Target, who: &str) -> Result<Conn, Finding> {
        let id = self.game_id(target)?;
        let mut viewer = Conn::open(target.addr, who)?;
        viewer.send(&format!("GAME WATCH {id}"))?;
        read_names(&mut viewer, self.info)?;
        viewer.next_is(&format!("GAME WATCHING {id}"))?;
        Ok(viewer)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};

    use super::*;

    /// A connection whose server side has already sent `lines` and closed.
    fn fed(lines: &str) -> Conn {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let conn = Conn::open(listener.local_addr().unwrap(), "X").unwrap();
        let (mut server, _) = listener.accept().unwrap();
        server.write_all(lines.as_bytes()).unwrap();
        drop::<TcpStream>(server);
        conn
    }

    const TICTACTOE: &str = "DRAW SQUARE empty 1 1\nDRAW SQUARE empty 2 1\nDRAW SQUARE empty 3 1\n\
        DRAW SQUARE empty 1 2\nDRAW SQUARE empty 2 2\nDRAW PIECE x 1\nDRAW SQUARE empty 3 2\n\
        DRAW SQUARE empty 1 3\nDRAW SQUARE empty 2 3\nDRAW SQUARE empty 3 3\nGAME TURN 2\n";

    #[test]
    fn a_whole_board_is_read_and_the_next_line_left_unread() {
        let info = module("tictactoe").info;
        let mut game = crate::rules::opening("tictactoe");
        let b2 = game.parse_action("b2").unwrap();
        game.play(Team::FIRST, &b2, 0).unwrap();
        let mut conn = fed(TICTACTOE);
        read_board(&mut conn, info, Some(game.as_ref()), Viewer::Spectator).unwrap();
        conn.next_is("GAME TURN 2").unwrap();
    }

    #[test]
    fn a_board_that_differs_is_reported_by_its_first_square() {
        let info = module("tictactoe").info;
        let game = crate::rules::opening("tictactoe");
        let mut conn = fed(TICTACTOE);
        let Err(Finding::Differ(diff)) =
            read_board(&mut conn, info, Some(game.as_ref()), Viewer::Spectator)
        else {
            panic!("the boards differ at b2");
        };
        assert_eq!(diff.expected, "square 2 2: empty, empty");
        assert_eq!(diff.got, "square 2 2: empty, x of team 1");
    }

    #[test]
    fn a_square_drawn_twice_or_missing_fails() {
        let info = module("tictactoe").info;
        let twice = TICTACTOE.replace("DRAW SQUARE empty 3 3", "DRAW SQUARE empty 1 1");
        let mut conn = fed(&twice);
        assert!(read_board(&mut conn, info, None, Viewer::Spectator).is_err());
        let mut conn = fed("DRAW SQUARE empty 1 1\nGAME TURN 1\n");
        assert!(read_board(&mut conn, info, None, Viewer::Spectator).is_err());
    }

    #[test]
    fn player_lines_are_judged_by_their_form() {
        let info = module("tictactoe").info;
        for (line, team) in [
            ("GAME PLAYER 1 anonymous - -", Some(1)),
            ("GAME PLAYER 2 guest bob -", Some(2)),
            ("GAME PLAYER 2 account Alice 1500?", Some(2)),
            ("GAME PLAYER 1 account Alice 1532", Some(1)),
            ("GAME PLAYER 1 account Alice -", Some(1)),
            ("GAME PLAYER 3 anonymous - -", None),
            ("GAME PLAYER 1 anonymous bob -", None),
            ("GAME PLAYER 1 guest bob 1500", None),
            ("GAME PLAYER 1 account - 1500", None),
            ("GAME PLAYER 1 account Alice ?", None),
            ("GAME PLAYER 1 robot r2 -", None),
            ("GAME PLAYER 1 anonymous -", None),
        ] {
            assert_eq!(player_team(line, info), team, "{line}");
        }
    }
}
