//! The text protocol (spec/TEXT-PROTOCOL.md) as a wire adapter.

use log::debug;
use reversi_games::{Action, Point, Standing as GameStanding, Viewer};
use reversi_text::{ClientMessage, ServerMessage, Standing};

use crate::outbox::Outbox;
use crate::protocols::lines::LineReader;
use crate::protocols::{Event, Input, Wire};

pub struct Text {
    lines: LineReader,
    /// Our additions to seed 000 are sent (`false`: the seed's messages only).
    additions: bool,
}

impl Text {
    pub fn new() -> Text {
        Text {
            lines: LineReader::new(),
            additions: true,
        }
    }

    /// For a client written from seed 000 alone: only the seed's own messages.
    pub fn seed_only() -> Text {
        Text {
            additions: false,
            ..Text::new()
        }
    }
}

/// Whether seed 000 itself has this message.
fn in_seed(message: &ServerMessage) -> bool {
    matches!(
        message,
        ServerMessage::Type { .. }
            | ServerMessage::Board { .. }
            | ServerMessage::Square { .. }
            | ServerMessage::Piece { .. }
            | ServerMessage::Ready
            | ServerMessage::Error { .. }
            | ServerMessage::Result { .. }
    )
}

/// What a parsed client message asks of a session.
fn input(message: ClientMessage) -> Input {
    match message {
        ClientMessage::Move(squares) => Input::Act(Action::Move(
            squares.into_iter().map(|(x, y)| Point::new(x, y)).collect(),
        )),
        ClientMessage::MoveText(text) => Input::Notation(text),
        ClientMessage::OfferDraw => Input::Act(Action::OfferDraw),
        ClientMessage::AcceptDraw => Input::Act(Action::AcceptDraw),
        ClientMessage::DeclineDraw => Input::Act(Action::DeclineDraw),
        ClientMessage::Quit => Input::Quit,
        ClientMessage::Join { .. } | ClientMessage::Watch { .. } | ClientMessage::List => {
            Input::Confused("not during a game (GAME QUIT first)".to_owned())
        }
        ClientMessage::Version => Input::Confused(format!(
            "version {} (GAME VERSION is answered before a game only)",
            reversi_text::VERSION
        )),
        // Lines of before a game (GAME INVITE, JOIN, LOBBY, RESUME) and those read
        // before the codec (GAME PONG, rematches) where the session knows them.
        other => Input::Confused(format!("{other}: not now")),
    }
}

pub fn write(out: &mut Outbox, message: &ServerMessage) {
    let line = format!("{message}\n");
    debug!("-> {message}");
    out.push(line.as_bytes());
}

/// The DRAW lines of `cells`: a square, then its piece if any (seed 000).
fn draw_lines(cells: &[reversi_games::Cell]) -> Vec<ServerMessage> {
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

impl Wire for Text {
    fn receive(&mut self, bytes: &[u8], inputs: &mut Vec<Input>) {
        self.lines
            .receive(bytes, inputs, |line| match ClientMessage::parse(line) {
                Ok(message) => Some(input(message)),
                Err(reversi_text::ParseError::Empty) => None,
                Err(e) => Some(Input::Confused(e.to_string())),
            });
    }

    fn send(&mut self, event: &Event, out: &mut Outbox) {
        let additions = self.additions;
        let write = |out: &mut Outbox, message: &ServerMessage| {
            if additions || in_seed(message) {
                write(out, message);
            }
        };
        let draw = |out: &mut Outbox, cells: &[reversi_games::Cell]| {
            for message in draw_lines(cells) {
                write(out, &message);
            }
        };
        match event {
            Event::Start {
                info,
                viewer,
                cells,
                id,
            } => {
                write(
                    out,
                    &ServerMessage::Type {
                        game: info.wire_type.to_owned(),
                    },
                );
                let board = info.board;
                write(
                    out,
                    &ServerMessage::Board {
                        name: board.name.to_owned(),
                        width: board.width,
                        height: board.height,
                    },
                );
                let names = |names: &[&str]| names.iter().map(|&n| n.to_owned()).collect();
                if let Some(labels) = board.labels {
                    write(
                        out,
                        &ServerMessage::Columns {
                            names: names(labels.columns),
                        },
                    );
                    write(
                        out,
                        &ServerMessage::Rows {
                            names: names(labels.rows),
                        },
                    );
                }
                write(
                    out,
                    &ServerMessage::Teams {
                        names: names(info.teams),
                    },
                );
                match viewer {
                    Viewer::Team(team) => write(
                        out,
                        &ServerMessage::Team {
                            team: team.number(),
                            name: info.team_name(*team),
                        },
                    ),
                    Viewer::Spectator => write(out, &ServerMessage::Watching { id: *id }),
                }
                draw(out, cells);
            }
            Event::Update(update) => {
                if let Some(moved) = &update.moved {
                    write(
                        out,
                        &ServerMessage::Moved {
                            team: moved.team.number(),
                            notation: moved.notation.clone(),
                        },
                    );
                }
                draw(out, &update.cells);
                if let Some(news) = &update.news {
                    write(out, &ServerMessage::News { text: news.clone() });
                }
            }
            Event::Turn(team) => write(
                out,
                &ServerMessage::Turn {
                    team: team.number(),
                },
            ),
            Event::Clock { team, ms } => write(
                out,
                &ServerMessage::Clock {
                    team: team.number(),
                    ms: *ms,
                },
            ),
            Event::Timer { name, ms, text } => write(
                out,
                &ServerMessage::Timer {
                    name: (*name).to_owned(),
                    ms: *ms,
                    text: (*text).to_owned(),
                },
            ),
            Event::Ready => write(out, &ServerMessage::Ready),
            Event::Illegal { why, again } | Event::Confused { why, again } => {
                // Seed 000: ERROR, then READY again when the move is still yours.
                write(
                    out,
                    &ServerMessage::Error {
                        why: why.to_owned(),
                    },
                );
                if *again {
                    write(out, &ServerMessage::Ready);
                }
            }
            Event::Violation(why) => write(
                out,
                &ServerMessage::Error {
                    why: why.to_owned(),
                },
            ),
            Event::Over { outcome, standing } => {
                let why = outcome.why().to_owned();
                write(
                    out,
                    &ServerMessage::Over {
                        winner: outcome.winner().map(|t| t.number()),
                        why: why.clone(),
                    },
                );
                if let Some(standing) = standing {
                    let (standing, text) = match standing {
                        GameStanding::Win => (Standing::Win, "Your team has won"),
                        GameStanding::Lose => (Standing::Lose, "Your team has lost"),
                        GameStanding::Draw => (Standing::Draw, "The game is drawn"),
                    };
                    write(
                        out,
                        &ServerMessage::Result {
                            standing,
                            why: format!("{text}: {why}"),
                        },
                    );
                }
            }
            // Seed 000 has no GAME ABORTED: its client is told as an ERROR (spec §14).
            Event::Aborted(why) if !self.additions => write(
                out,
                &ServerMessage::Error {
                    why: why.to_owned(),
                },
            ),
            Event::Aborted(why) => write(
                out,
                &ServerMessage::Aborted {
                    why: why.to_owned(),
                },
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_games::{registry, Team};

    /// The lines a player of `game` gets before the board is drawn.
    fn start_lines(wire: Text, game: &str) -> Vec<String> {
        let event = Event::Start {
            info: registry::find(game).unwrap().info,
            viewer: Viewer::Team(Team::FIRST),
            cells: Vec::new(),
            id: 1,
        };
        lines(wire, &[event])
    }

    /// The lines `wire` writes for `events`.
    fn lines(mut wire: Text, events: &[Event]) -> Vec<String> {
        let mut out = Outbox::new();
        for event in events {
            wire.send(event, &mut out);
        }
        let mut bytes = Vec::new();
        out.flush(&mut bytes).unwrap();
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn a_game_names_its_columns_rows_and_teams_where_it_has_them() {
        assert_eq!(
            start_lines(Text::new(), "reversi"),
            [
                "GAME TYPE Reversi",
                "GAME BOARD ReversiBoard 8 8",
                "GAME COLUMNS a b c d e f g h",
                "GAME ROWS 8 7 6 5 4 3 2 1",
                "GAME TEAMS black white",
                "GAME TEAM 1 black",
            ]
        );
        // Draughts numbers its squares: no columns or rows.
        assert_eq!(
            start_lines(Text::new(), "draughts"),
            [
                "GAME TYPE Draughts",
                "GAME BOARD DraughtsBoard 8 8",
                "GAME TEAMS black white",
                "GAME TEAM 1 black",
            ]
        );
        // A client of seed 000 alone gets the seed's messages only.
        assert_eq!(
            start_lines(Text::seed_only(), "duell"),
            ["GAME TYPE Conquest", "GAME BOARD ConquestBoard 9 8"]
        );
    }

    #[test]
    fn clocks_and_timers_are_additions() {
        let events = [
            Event::Turn(Team::SECOND),
            Event::Clock {
                team: Team::SECOND,
                ms: 29_998,
            },
            Event::Timer {
                name: "tide",
                ms: 10_000,
                text: "the tide turns",
            },
        ];
        assert_eq!(
            lines(Text::new(), &events),
            [
                "GAME TURN 2",
                "GAME CLOCK 2 29998",
                "GAME TIMER tide 10000 the tide turns"
            ]
        );
        assert!(lines(Text::seed_only(), &events).is_empty());
    }
}
