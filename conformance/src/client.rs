//! Checks a client: the kit acts as a text-protocol server for one game of a
//! turn-based game, plays the other side itself with random legal moves, and
//! judges what the connecting client sends: that it joins correctly, moves
//! only after `READY`, sends legal moves in a form of §5.3, answers the
//! `READY` that follows an `ERROR` with a move (the kit refuses the client's
//! first move on purpose), and closes after the end.

use std::io::ErrorKind;
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use reversi_games::{registry, Action, Cell, Game, GameInfo, Point, Team, Update, Viewer};

use crate::conn::{Conn, Recv};
use crate::report::{Entry, Finding, Judged, Report, Verdict};
use crate::rng::Rng;

/// The checks of a client, in the order a game reaches them.
pub const CHECKS: [(&str, &str); CHECK_COUNT] = [
    ("client §4", "joins with GAME TYPE and the game's name"),
    ("client §1", "ignores a line it does not understand"),
    ("client §5.2", "sends no move before its READY"),
    ("client §5.3", "every move is legal and in a form of §5.3"),
    (
        "client §5.3",
        "answers the READY after an ERROR with a move",
    ),
    (
        "client §6.1",
        "closes the connection after the end, sending nothing more",
    ),
];

const CHECK_COUNT: usize = 6;
const JOIN: usize = 0;
const UNKNOWN_LINES: usize = 1;
const WAITS: usize = 2;
const LEGAL: usize = 3;
const AFTER_ERROR: usize = 4;
const CLOSES: usize = 5;

/// A line no version of the protocol sends, which a client MUST ignore (§1).
const UNKNOWN_LINE: &str = "GAME CONFORMANCE-KIT a line of a later version: ignore it";

/// How long the kit waits for the client to connect, and then for each line.
const CLIENT_PATIENCE: Duration = Duration::from_secs(60);
/// How long the kit listens for a move sent out of turn before it moves.
const LISTEN: Duration = Duration::from_millis(300);
/// §6.1: the client has 2 seconds to close after the end.
const CLOSE: Duration = Duration::from_millis(2500);

/// The game a client is checked with: a turn-based game the kit knows.
pub fn game(name: &str) -> Result<&'static registry::Module, String> {
    match registry::find(name) {
        Some(m) if !m.info.realtime => Ok(m),
        Some(m) => Err(format!(
            "{} plays in real time; the client check plays turn-based games",
            m.info.name
        )),
        None => Err(format!("no game {name:?} here")),
    }
}

/// Waits for one client on `listener`, plays one game of `module` with it
/// and reports every check.
pub fn check_one(listener: &TcpListener, module: &'static registry::Module, seed: u64) -> Report {
    let mut verdicts: [Option<Judged>; CHECK_COUNT] = Default::default();
    let stopped = match accept(listener) {
        Ok(stream) => Session::new(stream, module, seed).map(|mut s| s.run(&mut verdicts)),
        Err(finding) => Err(finding),
    };
    let stopped = match stopped {
        Ok(Ok(())) => None,
        Ok(Err(f)) | Err(f) => Some(f),
    };
    report(verdicts, stopped)
}

fn report(verdicts: [Option<Judged>; CHECK_COUNT], stopped: Option<Finding>) -> Report {
    let mut report = Report::default();
    let mut stopped = stopped;
    for ((section, what), verdict) in CHECKS.into_iter().zip(verdicts) {
        let judged = verdict.unwrap_or_else(|| {
            Err(stopped.take().unwrap_or_else(|| {
                Finding::differ("client", "the game to get this far", "it ended before")
            }))
        });
        let name = format!("{section} {what}");
        report.entries.push(Entry {
            section,
            what,
            verdict: Verdict::of(&name, judged),
        });
    }
    report
}

fn accept(listener: &TcpListener) -> Result<TcpStream, Finding> {
    listener
        .set_nonblocking(true)
        .map_err(|e| Finding::differ("kit", "a listener", e.to_string()))?;
    let deadline = Instant::now() + CLIENT_PATIENCE;
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                let _ = stream.set_nonblocking(false);
                return Ok(stream);
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(Finding::differ("client", "a connection", e.to_string())),
        }
    }
}

/// One game with the client under test, which plays team 2 (so that it
/// must first wait while the kit, team 1, moves).
struct Session {
    conn: Conn,
    info: &'static GameInfo,
    game: Box<dyn Game>,
    rng: Rng,
    seat: Team,
    /// Whether the kit has refused a move yet (it refuses the first).
    refused: bool,
}

impl Session {
    fn new(
        stream: TcpStream,
        module: &'static registry::Module,
        seed: u64,
    ) -> Result<Session, Finding> {
        Ok(Session {
            conn: Conn::from_stream(stream, "client")?,
            info: module.info,
            game: crate::rules::new_game(module),
            rng: Rng::new(seed),
            seat: Team::SECOND,
            refused: false,
        })
    }

    fn run(&mut self, verdicts: &mut [Option<Judged>; CHECK_COUNT]) -> Judged {
        verdicts[JOIN] = Some(self.join());
        verdicts[JOIN].clone().unwrap()?;
        self.start()?;
        let mut waited = Ok(());
        let mut legal = Ok(());
        while let Some(team) = self.game.turn() {
            if team == self.seat {
                legal = legal.and(self.clients_move(verdicts)?);
                verdicts[LEGAL] = Some(legal.clone());
            } else {
                waited = waited.and(self.kits_move()?);
                verdicts[WAITS] = Some(waited.clone());
            }
        }
        verdicts[CLOSES] = Some(self.closes());
        Ok(())
    }

    /// §6.1: after `RESULT` the client closes within 2 s; it may say
    /// `GAME QUIT` first (leaving is allowed at any time), nothing else.
    fn closes(&mut self) -> Judged {
        let deadline = Instant::now() + CLOSE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.conn.recv_within(left) {
                Recv::Closed => return Ok(()),
                Recv::Line(line)
                    if line.trim().is_empty() || line.trim().eq_ignore_ascii_case("GAME QUIT") => {}
                got => {
                    return Err(Finding::differ(
                        "client",
                        "the close within 2 s of RESULT (GAME QUIT allowed)",
                        got.show(),
                    ))
                }
            }
        }
    }

    /// §4: lines before the join are answered as a server would; the join must name the game.
    fn join(&mut self) -> Judged {
        loop {
            let line = self.next_line()?;
            let words: Vec<String> = line.split_whitespace().map(str::to_uppercase).collect();
            match words
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice()
            {
                [] => {}
                ["GAME", "VERSION"] => self.conn.send("GAME VERSION 1 reversi-conformance")?,
                ["GAME", "LIST"] => self.conn.send("GAME SESSIONS 0")?,
                ["GAME", "TYPE", name]
                    if registry::find(name).is_some_and(|m| m.info.name == self.info.name) =>
                {
                    return Ok(())
                }
                _ => {
                    let expected = format!("GAME TYPE {}", self.info.name);
                    return Err(Finding::differ("client", expected, format!("{line:?}")));
                }
            }
        }
    }

    fn next_line(&mut self) -> Result<String, Finding> {
        match self.conn.recv_within(CLIENT_PATIENCE) {
            Recv::Line(line) => Ok(line),
            got => Err(Finding::differ("client", "a line", got.show())),
        }
    }

    /// §5.1, the client playing `self.seat`.
    fn start(&mut self) -> Judged {
        let info = self.info;
        let board = info.board;
        let mut lines = vec![
            format!("GAME TYPE {}", info.wire_type),
            format!("GAME BOARD {} {} {}", board.name, board.width, board.height),
        ];
        if let Some(labels) = board.labels {
            lines.push(format!("GAME COLUMNS {}", labels.columns.join(" ")));
            lines.push(format!("GAME ROWS {}", labels.rows.join(" ")));
        }
        lines.push(format!("GAME TEAMS {}", info.teams.join(" ")));
        lines.push(format!(
            "GAME TEAM {} {}",
            self.seat.number(),
            info.team_name(self.seat)
        ));
        lines.extend(draw(&self.game.view(Viewer::Team(self.seat))));
        lines.push(UNKNOWN_LINE.into());
        lines.push("GAME TURN 1".into());
        self.send_all(&lines)
    }

    fn send_all(&mut self, lines: &[String]) -> Judged {
        let mut text = lines.join("\n");
        text.push('\n');
        self.conn.send_raw(text.as_bytes())
    }

    /// The kit's move. The outer error stops the game; the inner result is
    /// the verdict on waiting: a move the client sends meanwhile is out of turn.
    fn kits_move(&mut self) -> Result<Judged, Finding> {
        let team = self.seat.other();
        let early = match self.conn.recv_within(LISTEN) {
            Recv::Line(line) if !line.trim().is_empty() => {
                self.conn.send("ERROR it is not your turn")?;
                Err(Finding::differ(
                    "client",
                    "no move before READY",
                    format!("{line:?}"),
                ))
            }
            Recv::Closed => {
                return Err(Finding::differ(
                    "client",
                    "the connection open",
                    "it closed",
                ))
            }
            _ => Ok(()),
        };
        let moves: Vec<Action> = self
            .game
            .legal_actions(team)
            .into_iter()
            .filter(|a| matches!(a, Action::Move(_)))
            .collect();
        let action = moves[self.rng.below(moves.len())].clone();
        let update = self
            .game
            .play(team, &action, 0)
            .map_err(|why| Finding::differ("kit", "a legal move", why.0))?;
        self.announce(&update)?;
        Ok(early)
    }

    /// Reads the client's move. The outer error stops the game; the inner
    /// result is the verdict on its legality.
    fn clients_move(
        &mut self,
        verdicts: &mut [Option<Judged>; CHECK_COUNT],
    ) -> Result<Judged, Finding> {
        let mut verdict = Ok(());
        loop {
            let line = self.next_line()?;
            let Some(action) = read_move(self.game.as_ref(), &line) else {
                if line.trim().is_empty() {
                    continue;
                }
                verdict = Err(Finding::differ(
                    "client",
                    "MOVE … (§5.3)",
                    format!("{line:?}"),
                ));
                self.conn.send(&format!("ERROR not a move: {line}"))?;
                self.conn.send("READY")?;
                continue;
            };
            // Its first move came after the unknown line of the start.
            verdicts[UNKNOWN_LINES].get_or_insert(Ok(()));
            if self.refused && verdicts[AFTER_ERROR].is_none() {
                verdicts[AFTER_ERROR] = Some(Ok(()));
            }
            if !self.refused {
                self.refused = true;
                self.conn.send(
                    "ERROR the conformance kit refuses a first move once: send a move again",
                )?;
                self.conn.send("READY")?;
                continue;
            }
            match self.game.play(self.seat, &action, 0) {
                Ok(update) => {
                    self.announce(&update)?;
                    return Ok(verdict);
                }
                Err(why) => {
                    verdict = Err(Finding::differ(
                        "client",
                        "a legal move",
                        format!("{line:?}: {}", why.0),
                    ));
                    self.conn.send(&format!("ERROR {}", why.0))?;
                    self.conn.send("READY")?;
                }
            }
        }
    }

    /// Tells the client what `update` changed, then whose turn it is or the end.
    fn announce(&mut self, update: &Update) -> Judged {
        let mut lines = Vec::new();
        if let Some(update) = self.game.relay(update, Viewer::Team(self.seat)) {
            if let Some(moved) = &update.moved {
                lines.push(format!(
                    "GAME MOVED {} {}",
                    moved.team.number(),
                    moved.notation
                ));
            }
            lines.extend(draw(&update.cells));
            if let Some(news) = &update.news {
                lines.push(format!("GAME NEWS {news}"));
            }
        }
        match (self.game.outcome(), self.game.turn()) {
            (Some(outcome), _) => {
                let why = outcome.why();
                lines.push(crate::server::game_over(outcome));
                lines.push(crate::server::result(outcome.standing(self.seat), why));
            }
            (None, Some(team)) => {
                lines.push(format!("GAME TURN {}", team.number()));
                if team == self.seat {
                    lines.push("READY".into());
                }
            }
            (None, None) => {}
        }
        self.send_all(&lines)
    }
}

/// A `MOVE` line in either form of §5.3, as `game`'s action; `None` for
/// any other line.
fn read_move(game: &dyn Game, line: &str) -> Option<Action> {
    let mut words = line.split_whitespace();
    if !words.next()?.eq_ignore_ascii_case("MOVE") {
        return None;
    }
    let rest: Vec<&str> = words.collect();
    let Ok(n) = rest.first()?.parse::<usize>() else {
        return game.parse_action(&rest.join(" ")).ok();
    };
    let numbers: Vec<u8> = rest[1..]
        .iter()
        .map(|w| w.parse().ok())
        .collect::<Option<_>>()?;
    (n > 0 && numbers.len() == 2 * n)
        .then(|| Action::Move(numbers.chunks(2).map(|c| Point::new(c[0], c[1])).collect()))
}

/// The `DRAW` lines of `cells` (§2).
fn draw(cells: &[Cell]) -> Vec<String> {
    let mut lines = Vec::new();
    for cell in cells {
        lines.push(format!(
            "DRAW SQUARE {} {} {}",
            cell.square, cell.at.x, cell.at.y
        ));
        if let Some(piece) = &cell.piece {
            lines.push(format!("DRAW PIECE {} {}", piece.name, piece.team.number()));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tictactoe() -> Box<dyn Game> {
        crate::rules::new_game(game("tictactoe").unwrap())
    }

    #[test]
    fn a_move_is_read_in_either_form_and_in_any_case() {
        let g = tictactoe();
        let b2 = Some(Action::Move(vec![Point::new(2, 2)]));
        assert_eq!(read_move(g.as_ref(), "MOVE 1 2 2"), b2);
        assert_eq!(read_move(g.as_ref(), "move B2"), b2);
        assert_eq!(read_move(g.as_ref(), "  MOVE   b2 "), b2);
    }

    #[test]
    fn other_lines_and_malformed_moves_are_no_moves() {
        let g = tictactoe();
        for line in [
            "",
            "GAME QUIT",
            "MOVE",
            "MOVE 2 1 1",
            "MOVE 0",
            "MOVE 1 x 1",
            "MOVE zz",
            "MOVES b2",
        ] {
            assert_eq!(read_move(g.as_ref(), line), None, "{line:?}");
        }
    }

    #[test]
    fn cells_are_drawn_square_then_piece() {
        let cells = [
            Cell {
                at: Point::new(1, 1),
                square: "empty",
                piece: None,
            },
            Cell {
                at: Point::new(2, 1),
                square: "empty",
                piece: Some(reversi_games::Piece {
                    name: "o".into(),
                    team: Team::SECOND,
                }),
            },
        ];
        assert_eq!(
            draw(&cells),
            [
                "DRAW SQUARE empty 1 1",
                "DRAW SQUARE empty 2 1",
                "DRAW PIECE o 2"
            ]
        );
    }

    #[test]
    fn only_turn_based_games_check_a_client() {
        assert!(game("draughts").is_ok());
        assert!(game("FoxesDolphins").unwrap_err().contains("real time"));
        assert!(game("chess").is_err());
    }
}
