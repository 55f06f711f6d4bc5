//! The text protocol (spec/TEXT-PROTOCOL.md) as a wire adapter.

use log::debug;
use reversi_games::{Action, Point, Standing as GameStanding, Viewer};
use reversi_text::{ClientMessage, ServerMessage, Standing};

use crate::outbox::Outbox;
use crate::protocols::lines::LineReader;
use crate::protocols::{Claim, Event, Input, Rematch, TeamPlayer, Wire};
use crate::terms::{SeatPlayer, TimeControl};

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
        ClientMessage::ClaimWin => Input::Claim(Claim::Win),
        ClientMessage::ClaimDraw => Input::Claim(Claim::Draw),
        ClientMessage::Resume { .. } => Input::Confused(
            "you are in a game already (GAME RESUME is for a new connection)".to_owned(),
        ),
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

/// The lines of issue 25's clocks and rematches a client sends (TEXT-PROTOCOL.md §3):
/// `GAME PONG n`, `GAME OFFER|ACCEPT|DECLINE REMATCH`; `None` for any other line.
fn clock_addition(line: &str) -> Option<Input> {
    let words: Vec<String> = line
        .split_whitespace()
        .map(str::to_ascii_uppercase)
        .collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["GAME", "PONG", n] => Some(n.parse().map_or_else(
            |_| Input::Confused(format!("GAME PONG: {n:?} is not a ping's number")),
            Input::Pong,
        )),
        ["GAME", "OFFER", "REMATCH"] => Some(Input::Rematch(Rematch::Offer)),
        ["GAME", "ACCEPT", "REMATCH"] => Some(Input::Rematch(Rematch::Accept)),
        ["GAME", "DECLINE", "REMATCH"] => Some(Input::Rematch(Rematch::Decline)),
        _ => None,
    }
}

/// `GAME TIME …`: the time control, in milliseconds (TEXT-PROTOCOL.md §8).
fn time_line(control: TimeControl) -> String {
    let ms = |d: std::time::Duration| d.as_millis();
    match control {
        TimeControl::None => "GAME TIME none".to_owned(),
        TimeControl::PerMove { limit, first } => {
            format!("GAME TIME move {} {}", ms(limit), ms(first))
        }
        TimeControl::Fischer { base, increment } => {
            format!("GAME TIME fischer {} {}", ms(base), ms(increment))
        }
    }
}

/// `GAME PLAYER k kind name rating`: who plays for team *k* (TEXT-PROTOCOL.md §5.1).
fn player_line(shown: &TeamPlayer) -> String {
    let k = shown.team.number();
    match &shown.player {
        SeatPlayer::Anonymous => format!("GAME PLAYER {k} anonymous - -"),
        SeatPlayer::Guest(name) => format!("GAME PLAYER {k} guest {name} -"),
        SeatPlayer::Account { name, rating, .. } => {
            let rating = rating.map_or_else(|| "-".to_owned(), |r| r.to_string());
            format!("GAME PLAYER {k} account {name} {rating}")
        }
    }
}

/// Writes one line that `ServerMessage` does not hold (issue 25's additions).
fn write_line(out: &mut Outbox, line: &str) {
    debug!("-> {line}");
    out.push(format!("{line}\n").as_bytes());
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
        let additions = self.additions;
        self.lines.receive(bytes, inputs, |line| {
            if let Some(input) = clock_addition(line).filter(|_| additions) {
                return Some(input);
            }
            match ClientMessage::parse(line) {
                Ok(message) => Some(input(message)),
                Err(reversi_text::ParseError::Empty) => None,
                Err(e) => Some(Input::Confused(e.to_string())),
            }
        });
    }

    /// Seed 000's clients know no `GAME PING`.
    fn answers_pings(&self) -> bool {
        self.additions
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
                time,
                players,
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
                for player in players.iter().filter(|_| additions) {
                    write_line(out, &player_line(player));
                }
                if let (Some(control), true) = (time, additions) {
                    write_line(out, &time_line(*control));
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
                    text: text.to_string(),
                },
            ),
            Event::Ping(n) if additions => write_line(out, &format!("GAME PING {n}")),
            Event::OfferedRematch { team, news } if additions => {
                write_line(out, &format!("GAME OFFERED REMATCH {}", team.number()));
                write(out, &ServerMessage::News { text: news.clone() });
            }
            Event::Ping(_) | Event::OfferedRematch { .. } => {}
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
            seat_news @ (Event::Token { .. }
            | Event::Resumed(_)
            | Event::Away { .. }
            | Event::Back(_)
            | Event::OfferedDraw(_)
            | Event::News(_)
            | Event::Replaced) => self.send_seat_news(seat_news, out),
        }
    }
}

impl Text {
    /// The lines of a seat that can be taken back (TEXT-PROTOCOL.md §5.5): additions all,
    /// so a client of seed 000 alone gets none (it never has a token).
    fn send_seat_news(&self, event: &Event, out: &mut Outbox) {
        if !self.additions {
            return;
        }
        let message = match event {
            Event::Token { token, ms } => {
                // A token never reaches the log whole: its line is written unlogged.
                debug!("-> GAME TOKEN {token:?} {ms}");
                let line = ServerMessage::Token {
                    token: token.to_string(),
                    ms: *ms,
                };
                out.push(format!("{line}\n").as_bytes());
                return;
            }
            Event::Resumed(id) => ServerMessage::Resumed { id: *id },
            Event::Away { team, ms } => ServerMessage::Away {
                team: team.number(),
                ms: *ms,
            },
            Event::Back(team) => ServerMessage::Back {
                team: team.number(),
            },
            Event::OfferedDraw(team) => ServerMessage::OfferedDraw {
                team: team.number(),
            },
            Event::News(text) => ServerMessage::News { text: text.clone() },
            Event::Replaced => ServerMessage::Error {
                why: REPLACED.to_owned(),
            },
            _ => return,
        };
        write(out, &message);
    }
}

/// What a connection whose seat was taken over by a new one is told last.
pub const REPLACED: &str = "this seat was taken over by a new connection";

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
            time: None,
            players: Vec::new(),
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
    fn players_follow_the_team_and_precede_the_time_and_the_seed_hears_none() {
        use crate::terms::ShownRating;
        use reversi_store::{AccountId, Name};
        let players = vec![
            TeamPlayer {
                team: Team::FIRST,
                player: SeatPlayer::Account {
                    id: AccountId(3),
                    name: Name::new("Alice").unwrap(),
                    rating: Some(ShownRating {
                        points: 1500,
                        provisional: true,
                    }),
                },
            },
            TeamPlayer {
                team: Team::SECOND,
                player: SeatPlayer::Guest(Name::new("bob").unwrap()),
            },
            TeamPlayer {
                team: Team::SECOND,
                player: SeatPlayer::Anonymous,
            },
        ];
        let start = Event::Start {
            info: registry::find("tictactoe").unwrap().info,
            viewer: Viewer::Spectator,
            cells: Vec::new(),
            id: 4,
            time: Some(TimeControl::None),
            players,
        };
        let told = lines(Text::new(), std::slice::from_ref(&start));
        let watching = told.iter().position(|l| l == "GAME WATCHING 4").unwrap();
        assert_eq!(
            told[watching..],
            [
                "GAME WATCHING 4",
                "GAME PLAYER 1 account Alice 1500?",
                "GAME PLAYER 2 guest bob -",
                "GAME PLAYER 2 anonymous - -",
                "GAME TIME none",
            ]
        );
        let seed = lines(Text::seed_only(), &[start]);
        assert!(
            seed.iter().all(|l| !l.starts_with("GAME PLAYER")),
            "{seed:?}"
        );
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
                text: "the tide turns".into(),
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

    #[test]
    fn a_seat_that_can_come_back_is_told_in_additions_only() {
        let token = crate::terms::ResumeToken::parse("0P9QK3M2X9AV0C4TZP8RWD5NHJ6").unwrap();
        let events = [
            Event::Token { token, ms: 60_000 },
            Event::Resumed(4),
            Event::Away {
                team: Team::SECOND,
                ms: 0,
            },
            Event::Back(Team::SECOND),
            Event::OfferedDraw(Team::FIRST),
            Event::News("O is back".to_owned()),
            Event::Replaced,
        ];
        assert_eq!(
            lines(Text::new(), &events),
            [
                "GAME TOKEN 0P9QK3M2X9AV0C4TZP8RWD5NHJ6 60000",
                "GAME RESUMED 4",
                "GAME AWAY 2 0",
                "GAME BACK 2",
                "GAME OFFERED DRAW 1",
                "GAME NEWS O is back",
                "ERROR this seat was taken over by a new connection",
            ]
        );
        assert!(lines(Text::seed_only(), &events).is_empty());
    }

    #[test]
    fn claims_are_inputs_and_a_resume_in_a_game_is_not() {
        let mut wire = Text::new();
        let mut inputs = Vec::new();
        wire.receive(
            b"GAME CLAIM WIN\ngame claim draw\nGAME RESUME 0P9\n",
            &mut inputs,
        );
        assert_eq!(
            inputs[..2],
            [Input::Claim(Claim::Win), Input::Claim(Claim::Draw)]
        );
        assert!(matches!(&inputs[2], Input::Confused(why) if why.contains("in a game already")));
    }

    #[test]
    fn time_pings_and_rematch_offers_are_additions() {
        let s = std::time::Duration::from_secs;
        let start = |time| Event::Start {
            info: registry::find("tictactoe").unwrap().info,
            viewer: Viewer::Team(Team::FIRST),
            cells: vec![reversi_games::Cell {
                at: Point::new(1, 1),
                square: "EMPTY",
                piece: None,
            }],
            id: 1,
            time: Some(time),
            players: Vec::new(),
        };
        let fischer = TimeControl::Fischer {
            base: s(300),
            increment: s(3),
        };
        let per_move = TimeControl::PerMove {
            limit: s(600),
            first: s(30),
        };
        let events = [
            start(fischer),
            start(per_move),
            start(TimeControl::None),
            Event::Ping(1),
            Event::OfferedRematch {
                team: Team::SECOND,
                news: "O offers a rematch".to_owned(),
            },
            Event::News("X declines the rematch".to_owned()),
        ];
        let told: Vec<String> = lines(Text::new(), &events)
            .into_iter()
            .filter(|l| !l.starts_with("GAME T") || l.starts_with("GAME TIME"))
            .filter(|l| !l.starts_with("GAME BOARD") && !l.starts_with("GAME COLUMNS"))
            .filter(|l| !l.starts_with("GAME ROWS"))
            .collect();
        assert_eq!(
            told,
            [
                "GAME TIME fischer 300000 3000",
                "DRAW SQUARE EMPTY 1 1",
                "GAME TIME move 600000 30000",
                "DRAW SQUARE EMPTY 1 1",
                "GAME TIME none",
                "DRAW SQUARE EMPTY 1 1",
                "GAME PING 1",
                "GAME OFFERED REMATCH 2",
                "GAME NEWS O offers a rematch",
                "GAME NEWS X declines the rematch",
            ]
        );
        let seed = lines(Text::seed_only(), &events);
        let seed_has = |l: &String| {
            ["GAME TYPE", "GAME BOARD", "DRAW"]
                .iter()
                .any(|p| l.starts_with(p))
        };
        assert!(seed.iter().all(seed_has), "{seed:?}");
    }

    #[test]
    fn pongs_and_rematch_answers_are_read_in_any_case() {
        let mut wire = Text::new();
        let mut inputs = Vec::new();
        wire.receive(
            b"GAME PONG 3\ngame offer rematch\nGAME ACCEPT REMATCH\nGAME DECLINE REMATCH\nGAME PONG x\n",
            &mut inputs,
        );
        assert_eq!(
            inputs[..4],
            [
                Input::Pong(3),
                Input::Rematch(Rematch::Offer),
                Input::Rematch(Rematch::Accept),
                Input::Rematch(Rematch::Decline),
            ]
        );
        assert!(matches!(&inputs[4], Input::Confused(why) if why.contains("ping")));
        let mut seed = Text::seed_only();
        let mut inputs = Vec::new();
        seed.receive(b"GAME PONG 3\n", &mut inputs);
        assert!(
            matches!(&inputs[..], [Input::Confused(_)]),
            "not in seed 000"
        );
    }
}
