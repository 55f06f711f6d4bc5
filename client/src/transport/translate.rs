//! The binary Reversi protocol (spec/PROTOCOL.md) seen as the text
//! protocol: a pure translator between the binary PDUs and the text
//! protocol's messages, so that the game-independent client (its state
//! machine, screen, line mode and bot driver) plays Reversi over either.
//!
//! The translator keeps the game (the games crate's Reversi module), checks
//! every `update_board` and `turn` against its rules (§5.3 and §9.3 let a
//! client do so), refuses an illegal move here with the reason, and draws
//! the board as a text-protocol server would: `GAME TYPE Reversi`,
//! `GAME BOARD`, the teams, the `DRAW` lines, `GAME MOVED`, `GAME TURN`,
//! `READY`, `GAME OVER` and `RESULT`.

use reversi_engine::Square;
use reversi_games::reversi::{self, Reversi, INFO};
use reversi_games::{Action, Cell, Game, Team, Viewer};
use reversi_pdu::{Colour, Winner};
use reversi_text::{ClientMessage, ServerMessage, Standing};

pub use super::pdus::{Incoming, Outgoing};

/// What a message of the client becomes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sent {
    /// The PDU to send, if any.
    pub pdu: Option<Outgoing>,
    /// What the client is answered at once, as if the server had said it.
    pub answer: Vec<ServerMessage>,
    /// A move refused here, and why.
    pub refused: Option<String>,
}

/// What a PDU from the server becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heard {
    /// The messages a text-protocol server would have sent.
    Messages(Vec<ServerMessage>),
    /// The server broke the protocol; the text names the PDU. The client
    /// answers `error` ([`Outgoing::Error`]) and closes.
    Broken(String),
}

/// Where the conversation is.
#[derive(Clone, Debug)]
enum Phase {
    /// Nothing asked yet.
    Idle,
    /// `connect` sent; waiting for `connect_ok`.
    Queued,
    /// `connect_ok` received; `k` initial `update_board`s received (0 or 1).
    Starting { me: Team, k: u8 },
    /// The game is on.
    Playing(Play),
    /// `winner` or `error` received, or the client quit.
    Over,
}

/// A game being played.
#[derive(Clone, Debug)]
struct Play {
    me: Team,
    game: Reversi,
    /// `turn` received and no `place` sent since.
    my_turn: bool,
    /// The square of a `place` sent and not yet answered.
    pending: Option<Square>,
}

/// The binary protocol's side of one connection.
#[derive(Clone, Debug)]
pub struct Translator {
    phase: Phase,
}

impl Default for Translator {
    fn default() -> Translator {
        Translator::new()
    }
}

fn team_of(colour: Colour) -> Team {
    match colour {
        Colour::Black => Team::FIRST,
        Colour::White => Team::SECOND,
    }
}

fn names(squares: &[Square]) -> String {
    let names: Vec<String> = squares.iter().map(Square::to_string).collect();
    names.join(" ")
}

/// The `DRAW` lines of `cells`, as a text-protocol server draws them.
fn draw(cells: &[Cell]) -> Vec<ServerMessage> {
    let mut lines = Vec::with_capacity(cells.len() * 2);
    for cell in cells {
        lines.push(ServerMessage::Square {
            kind: cell.square.to_owned(),
            x: cell.at.x,
            y: cell.at.y,
        });
        if let Some(piece) = &cell.piece {
            lines.push(ServerMessage::Piece {
                name: piece.name.clone(),
                team: piece.team.number(),
            });
        }
    }
    lines
}

/// `GAME TYPE` to `GAME TEAM`: the game starts, `me` plays.
fn start_lines(me: Team) -> Vec<ServerMessage> {
    let owned = |names: &[&str]| names.iter().map(|&n| n.to_owned()).collect();
    let board = INFO.board;
    let mut lines = vec![
        ServerMessage::Type {
            game: INFO.wire_type.to_owned(),
        },
        ServerMessage::Board {
            name: board.name.to_owned(),
            width: board.width,
            height: board.height,
        },
    ];
    if let Some(labels) = board.labels {
        lines.push(ServerMessage::Columns {
            names: owned(labels.columns),
        });
        lines.push(ServerMessage::Rows {
            names: owned(labels.rows),
        });
    }
    lines.push(ServerMessage::Teams {
        names: owned(INFO.teams),
    });
    lines.push(ServerMessage::Team {
        team: me.number(),
        name: INFO.team_name(me),
    });
    lines
}

/// The initial position's two `update_board`s (§8.3), in order.
fn initial_update(k: u8) -> (Colour, [&'static str; 2]) {
    if k == 0 {
        (Colour::White, ["d4", "e5"])
    } else {
        (Colour::Black, ["d5", "e4"])
    }
}

impl Translator {
    pub fn new() -> Translator {
        Translator { phase: Phase::Idle }
    }

    /// A message of the client: the PDU to send, and any answer given here.
    pub fn send(&mut self, message: &ClientMessage) -> Sent {
        let refuse = |why: &str| Sent {
            answer: vec![ServerMessage::Error {
                why: why.to_owned(),
            }],
            ..Sent::default()
        };
        match (&mut self.phase, message) {
            (Phase::Idle | Phase::Over, ClientMessage::Quit) => Sent::default(),
            (_, ClientMessage::Quit) => {
                self.phase = Phase::Over;
                Sent {
                    pdu: Some(Outgoing::Quit),
                    ..Sent::default()
                }
            }
            (Phase::Idle, ClientMessage::Join { game }) if game.eq_ignore_ascii_case(INFO.name) => {
                self.phase = Phase::Queued;
                Sent {
                    pdu: Some(Outgoing::Connect),
                    answer: vec![ServerMessage::Waiting { more: 1 }],
                    refused: None,
                }
            }
            (Phase::Idle, ClientMessage::Join { game }) => refuse(&format!(
                "the binary protocol plays Reversi only, not {game:?}"
            )),
            (Phase::Playing(play), ClientMessage::Move(squares)) => {
                let points = squares
                    .iter()
                    .map(|&(x, y)| reversi_games::Point::new(x, y))
                    .collect();
                play.place(&Action::Move(points))
            }
            (Phase::Playing(play), ClientMessage::MoveText(text)) => {
                match play.game.parse_action(text) {
                    Ok(action) => play.place(&action),
                    Err(why) => play.refused(why.to_string()),
                }
            }
            (Phase::Playing(_), _) => refuse("Reversi over the binary protocol has no draw offers"),
            _ => refuse("the binary protocol has no such request"),
        }
    }

    /// A PDU from the server (or a malformed frame: `Err` says how).
    pub fn hear(&mut self, pdu: Result<Incoming, String>) -> Heard {
        let incoming = match pdu {
            Ok(incoming) => incoming,
            Err(why) => return self.broken(format!("malformed PDU: {why}")),
        };
        let phase = std::mem::replace(&mut self.phase, Phase::Over);
        let heard = match (phase, incoming) {
            (phase, Incoming::Error) => {
                let why = match phase {
                    Phase::Queued => "the server sent error: it refused the game",
                    _ => "the server sent error",
                };
                Ok(vec![ServerMessage::Aborted {
                    why: why.to_owned(),
                }])
            }
            (Phase::Queued, Incoming::ConnectOk(colour)) => {
                // The game is announced with its board, after the initial position.
                self.phase = Phase::Starting {
                    me: team_of(colour),
                    k: 0,
                };
                Ok(Vec::new())
            }
            (Phase::Starting { me, k }, Incoming::UpdateBoard { colour, squares }) => {
                self.initial(me, k, colour, &squares)
            }
            (Phase::Starting { me, .. }, Incoming::Winner(winner)) => {
                // The opponent left before the board was sent: the start position stands.
                let play = Play::new(me);
                let mut lines = play.start();
                lines.extend(play.over(winner));
                Ok(lines)
            }
            (Phase::Playing(mut play), incoming) => {
                let ends = matches!(incoming, Incoming::Winner(_));
                let heard = play.hear(incoming);
                if !ends {
                    self.phase = Phase::Playing(play);
                }
                heard
            }
            (phase, incoming) => Err(format!(
                "the server sent {incoming} while {}",
                Translator::doing(&phase)
            )),
        };
        match heard {
            Ok(messages) => Heard::Messages(messages),
            Err(why) => self.broken(why),
        }
    }

    /// The moves this player may make now (after `turn`), in notation.
    pub fn legal(&self) -> Option<Vec<String>> {
        let Phase::Playing(play) = &self.phase else {
            return None;
        };
        if !play.my_turn {
            return None;
        }
        let moves =
            play.game
                .legal_actions(play.me)
                .into_iter()
                .filter_map(|action| match action {
                    Action::Move(points) => {
                        reversi::square(*points.first()?).map(|s| s.to_string())
                    }
                    _ => None,
                });
        Some(moves.collect())
    }

    fn broken(&mut self, why: String) -> Heard {
        self.phase = Phase::Over;
        Heard::Broken(why)
    }

    /// What the client was doing, for messages about the server's faults.
    fn doing(phase: &Phase) -> &'static str {
        match phase {
            Phase::Idle | Phase::Over => "no game was on",
            Phase::Queued => "we were waiting for an opponent (before connect_ok)",
            Phase::Starting { .. } => "we were receiving the initial position",
            Phase::Playing(play) => play.doing(),
        }
    }

    /// One of the two initial `update_board`s; after the second, the board.
    fn initial(
        &mut self,
        me: Team,
        k: u8,
        colour: Colour,
        squares: &[Square],
    ) -> Result<Vec<ServerMessage>, String> {
        let (want_colour, want) = initial_update(k);
        let mut got: Vec<String> = squares.iter().map(Square::to_string).collect();
        got.sort();
        if colour != want_colour || got != want {
            return Err(format!(
                "initial update_board {} was update_board {colour} {}, expected update_board {want_colour} {} {}",
                k + 1,
                names(squares),
                want[0],
                want[1]
            ));
        }
        if k == 0 {
            self.phase = Phase::Starting { me, k: 1 };
            return Ok(Vec::new());
        }
        let play = Play::new(me);
        let mut lines = play.start();
        lines.extend(play.turn_line());
        self.phase = Phase::Playing(play);
        Ok(lines)
    }
}

impl Play {
    fn new(me: Team) -> Play {
        Play {
            me,
            game: Reversi::default(),
            my_turn: false,
            pending: None,
        }
    }

    /// A PDU during the game; `Err` says how it breaks the protocol.
    fn hear(&mut self, incoming: Incoming) -> Result<Vec<ServerMessage>, String> {
        match incoming {
            Incoming::UpdateBoard { colour, squares } => {
                self.moved(colour, &squares).map_err(|why| {
                    let incoming = Incoming::UpdateBoard { colour, squares };
                    format!("the server sent {incoming}: {why}")
                })
            }
            Incoming::Turn => self.turn(),
            Incoming::PlaceError if self.pending.is_some() => {
                let square = self.pending.take();
                self.my_turn = true;
                let why = format!(
                    "{} (place_error): try another move",
                    names(&Vec::from_iter(square))
                );
                Ok(vec![ServerMessage::Error { why }, ServerMessage::Ready])
            }
            Incoming::Winner(winner) => Ok(self.over(winner)),
            incoming => Err(format!("the server sent {incoming} while {}", self.doing())),
        }
    }

    fn doing(&self) -> &'static str {
        match self.pending {
            Some(_) => "our place was waiting for its answer",
            None => "a game was on",
        }
    }

    /// `GAME TYPE` to `GAME TEAM`, and the board.
    fn start(&self) -> Vec<ServerMessage> {
        let mut lines = start_lines(self.me);
        lines.extend(draw(&self.game.view(Viewer::Team(self.me))));
        lines
    }

    fn refused(&self, why: String) -> Sent {
        Sent {
            refused: Some(why),
            ..Sent::default()
        }
    }

    /// A move of this player: sent if legal, else refused here with the reason.
    fn place(&mut self, action: &Action) -> Sent {
        if self.pending.is_some() {
            return self.refused("your move was sent: wait for the server's answer".to_owned());
        }
        let mut trial = self.game.clone();
        if let Err(why) = trial.play(self.me, action, 0) {
            return self.refused(format!("illegal move: {why}"));
        }
        let Action::Move(points) = action else {
            unreachable!("only a move plays");
        };
        let square = reversi::square(points[0]).expect("a legal move is on the board");
        self.pending = Some(square);
        self.my_turn = false;
        Sent {
            pdu: Some(Outgoing::Place(square)),
            ..Sent::default()
        }
    }

    /// `GAME TURN` for the side to move, if the game goes on.
    fn turn_line(&self) -> Option<ServerMessage> {
        self.game.turn().map(|team| ServerMessage::Turn {
            team: team.number(),
        })
    }

    /// `turn`: this player must be the side to move, and not told twice.
    fn turn(&mut self) -> Result<Vec<ServerMessage>, String> {
        if self.my_turn {
            return Err("the server sent turn while it was our turn".to_owned());
        }
        match self.game.turn() {
            Some(team) if team == self.me && self.pending.is_none() => {
                self.my_turn = true;
                Ok(vec![ServerMessage::Ready])
            }
            Some(_) if self.pending.is_some() => {
                Err("the server sent turn while our place was waiting for its answer".to_owned())
            }
            Some(team) => Err(format!(
                "the server sent turn, but {} is to move",
                INFO.team_name(team)
            )),
            None => Err("the server sent turn after the game was over".to_owned()),
        }
    }

    /// A move's `update_board`, checked against the rules: the colour must
    /// be the side to move, the first square a legal move (ours if we
    /// placed), and the other squares exactly the discs it flips.
    fn moved(&mut self, colour: Colour, squares: &[Square]) -> Result<Vec<ServerMessage>, String> {
        let team = team_of(colour);
        match self.game.turn() {
            None => return Err(format!("{colour} moved after the game was over")),
            Some(to_move) if to_move != team => {
                return Err(format!(
                    "{colour} moved, but {} was to move",
                    INFO.team_name(to_move)
                ))
            }
            Some(_) => {}
        }
        let &played = squares.first().ok_or("a move with no square")?;
        if team == self.me && self.pending != Some(played) {
            let pending = self.pending.map_or("nothing".to_owned(), |s| s.to_string());
            return Err(format!("we placed {pending}"));
        }
        let action = Action::Move(vec![reversi::point(played)]);
        let update = self
            .game
            .play(team, &action, 0)
            .map_err(|why| format!("{colour} cannot play {played}: {why}"))?;
        let mut expected: Vec<Square> = update
            .cells
            .iter()
            .filter_map(|c| reversi::square(c.at))
            .collect();
        let mut listed = squares.to_vec();
        expected.sort();
        listed.sort();
        if expected != listed {
            return Err(format!(
                "{colour} {played} changes {}, but the update lists {}",
                names(&expected),
                names(&listed)
            ));
        }
        self.pending = None;
        let mut lines = Vec::new();
        if let Some(moved) = &update.moved {
            lines.push(ServerMessage::Moved {
                team: moved.team.number(),
                notation: moved.notation.clone(),
            });
        }
        lines.extend(draw(&update.cells));
        if let Some(text) = update.news {
            lines.push(ServerMessage::News { text });
        }
        lines.extend(self.turn_line());
        Ok(lines)
    }

    /// `winner`: `GAME OVER` and this player's `RESULT`. A game that did
    /// not end by the rules ended early: the opponent left or ran out of
    /// time if this player won, else the server ended it.
    fn over(&self, winner: Winner) -> Vec<ServerMessage> {
        let winner = winner.colour().map(team_of);
        let why = match self.game.outcome() {
            Some(outcome) => outcome.why().to_owned(),
            None => {
                let early = match winner {
                    Some(team) if team == self.me => "the opponent left or ran out of time",
                    _ => "the server ended the game early",
                };
                let (mine, theirs) = (self.discs(self.me), self.discs(self.me.other()));
                format!("{early}, with the board at {mine}-{theirs}")
            }
        };
        let (standing, text) = match winner {
            Some(team) if team == self.me => (Standing::Win, "Your team has won"),
            Some(_) => (Standing::Lose, "Your team has lost"),
            None => (Standing::Draw, "The game is drawn"),
        };
        vec![
            ServerMessage::Over {
                winner: winner.map(Team::number),
                why: why.clone(),
            },
            ServerMessage::Result {
                standing,
                why: format!("{text}: {why}"),
            },
        ]
    }

    /// `team`'s discs on the board.
    fn discs(&self, team: Team) -> usize {
        self.game
            .view(Viewer::Spectator)
            .iter()
            .filter(|c| c.piece.as_ref().is_some_and(|p| p.team == team))
            .count()
    }
}

#[cfg(test)]
mod tests;
