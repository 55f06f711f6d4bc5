//! Messages from the server to a client.

use std::fmt;

use crate::{is, ParseError, Terms, TimeControl, Words};

/// A player's result in `RESULT`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Standing {
    Win,
    Lose,
    Draw,
}

/// A line the server sends.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ServerMessage {
    /// `GAME VERSION <n> <server>` (addition).
    Version { version: u32, server: String },
    /// `GAME WAITING <n>` (addition): queued; `n` more players are needed.
    Waiting { more: u32 },
    /// `GAME CODE <code> <seconds> <game> <option>...` (addition): your challenge exists;
    /// its code lives `seconds` more.
    Code {
        code: String,
        seconds: u64,
        game: String,
        terms: Terms,
    },
    /// `GAME LINK <url>` (addition): the web page's link that joins your challenge.
    Link { url: String },
    /// `GAME EXPIRED <code>` (addition): your challenge expired; you are waiting again.
    Expired { code: String },
    /// `GAME CHALLENGE <code> <seconds> <game> <option>...` (addition): one public
    /// challenge (`side=` is its creator's), in answer to `GAME LOBBY`.
    Challenge {
        code: String,
        seconds: u64,
        game: String,
        terms: Terms,
    },
    /// `GAME CHALLENGES <n>` (addition): the end of a `GAME LOBBY` answer of `n` lines.
    Challenges { count: u64 },
    /// `GAME TIME fischer|move|none ...` (addition): the game's time control.
    Time(TimeControl),
    /// `GAME PING <n>` (addition): answer `GAME PONG <n>` at once.
    Ping { n: u32 },
    /// `GAME OFFERED REMATCH <k>` (addition): team `k` offers a rematch.
    OfferedRematch { team: u8 },
    /// `GAME TYPE <type>`: a game of this type starts.
    Type { game: String },
    /// `GAME BOARD <name> <width> <height>`.
    Board { name: String, width: u8, height: u8 },
    /// `GAME COLUMNS <name>...` (addition): the columns' names, x = 1 first.
    Columns { names: Vec<String> },
    /// `GAME ROWS <name>...` (addition): the rows' names, y = 1 first.
    Rows { names: Vec<String> },
    /// `GAME TEAMS <name>...` (addition): every team's name, team 1 first.
    Teams { names: Vec<String> },
    /// `GAME TEAM <k> <name>` (addition): you play for team `k` (from 1).
    Team { team: u8, name: String },
    /// `GAME WATCHING <id>` (addition): you watch game `id`.
    Watching { id: u64 },
    /// `GAME TURN <k>` (addition): team `k` is to move.
    Turn { team: u8 },
    /// `GAME CLOCK <k> <ms>` (addition): team `k`'s clock shows `ms` milliseconds now; the
    /// clock of the team of the latest `GAME TURN` runs, the others are stopped.
    Clock { team: u8, ms: u64 },
    /// `GAME TIMER <name> <ms> <text>` (addition): the game's countdown `name` runs out in
    /// `ms` milliseconds (0: stopped), and then `text` happens.
    Timer { name: String, ms: u64, text: String },
    /// `GAME MOVED <k> <notation>` (addition): team `k` played this move.
    Moved { team: u8, notation: String },
    /// `GAME NEWS <text>` (addition): something worth telling (a pass, a draw offer, a tide).
    News { text: String },
    /// `GAME OVER <k|DRAW> <text>` (addition): the game ended; team `k` won, or a draw.
    Over { winner: Option<u8>, why: String },
    /// `GAME ABORTED <text>` (addition): the game was stopped without a result.
    Aborted { why: String },
    /// `GAME SESSION <id> <type> <seconds> <player>...` (addition): one running game.
    Session {
        id: u64,
        game: String,
        seconds: u64,
        players: Vec<String>,
    },
    /// `GAME SESSIONS <n>` (addition): the end of a listing of `n` games.
    Sessions { count: u64 },
    /// `DRAW SQUARE <kind> <x> <y>`.
    Square { kind: String, x: u8, y: u8 },
    /// `DRAW PIECE <name> <team>`: on the square drawn last.
    Piece { name: String, team: u8 },
    /// `READY`: the server waits for your move.
    Ready,
    /// `ERROR <text>`.
    Error { why: String },
    /// `RESULT WIN|LOSE|DRAW <text>`.
    Result { standing: Standing, why: String },
    /// `GAME TOKEN <token> <ms>` (addition): your seat's resume token, and the grace
    /// (milliseconds) your seat is held for after a drop.
    Token { token: String, ms: u64 },
    /// `GAME RESUMED <id>` (addition): you are back in game `id`.
    Resumed { id: u64 },
    /// `GAME AWAY <k> <ms>` (addition): team `k`'s player dropped; its seat is held `ms`
    /// more (0: the grace is over).
    Away { team: u8, ms: u64 },
    /// `GAME BACK <k>` (addition): team `k`'s player is back.
    Back { team: u8 },
    /// `GAME OFFERED DRAW <k>` (addition): team `k`'s draw offer stands.
    OfferedDraw { team: u8 },
}

impl ServerMessage {
    /// Reads one line (without its end).
    pub fn parse(line: &str) -> Result<ServerMessage, ParseError> {
        let mut w = Words::new(line);
        let Some(command) = w.next_word() else {
            return Err(ParseError::Empty);
        };
        let message = match command.to_ascii_uppercase().as_str() {
            "READY" => ServerMessage::Ready,
            "ERROR" => {
                return Ok(ServerMessage::Error {
                    why: w.take_text().to_owned(),
                })
            }
            "RESULT" => {
                let word = w.next_word().unwrap_or("");
                let standing = match word.to_ascii_uppercase().as_str() {
                    "WIN" => Standing::Win,
                    "LOSE" => Standing::Lose,
                    "DRAW" => Standing::Draw,
                    _ => {
                        return Err(ParseError::BadArguments(
                            "RESULT",
                            format!("{word:?} is not WIN, LOSE or DRAW"),
                        ))
                    }
                };
                return Ok(ServerMessage::Result {
                    standing,
                    why: w.take_text().to_owned(),
                });
            }
            "DRAW" => return parse_draw(w),
            "GAME" => return parse_game(w),
            _ => return Err(ParseError::UnknownCommand(command.to_owned())),
        };
        w.end("READY")?;
        Ok(message)
    }
}

fn word<'a>(w: &mut Words<'a>, command: &'static str, what: &str) -> Result<&'a str, ParseError> {
    w.next_word()
        .ok_or_else(|| ParseError::BadArguments(command, format!("{what} is missing")))
}

/// The rest of the line as a list of one or more words.
fn names(w: &mut Words<'_>, command: &'static str) -> Result<Vec<String>, ParseError> {
    let names: Vec<String> = std::iter::from_fn(|| w.next_word())
        .map(str::to_owned)
        .collect();
    if names.is_empty() {
        return Err(ParseError::BadArguments(command, "no names".to_owned()));
    }
    Ok(names)
}

fn parse_draw(mut w: Words<'_>) -> Result<ServerMessage, ParseError> {
    let sub = word(&mut w, "DRAW", "SQUARE or PIECE")?;
    let message = if is(sub, "SQUARE") {
        ServerMessage::Square {
            kind: word(&mut w, "DRAW SQUARE", "the kind")?.to_owned(),
            x: w.number("DRAW SQUARE", "x")?,
            y: w.number("DRAW SQUARE", "y")?,
        }
    } else if is(sub, "PIECE") {
        ServerMessage::Piece {
            name: word(&mut w, "DRAW PIECE", "the name")?.to_owned(),
            team: w.number("DRAW PIECE", "the team")?,
        }
    } else {
        return Err(ParseError::BadArguments(
            "DRAW",
            format!("{sub:?} is not SQUARE or PIECE"),
        ));
    };
    w.end("DRAW")?;
    Ok(message)
}

/// Whether the next word is `keyword` (it stays unread).
fn next_is(w: &Words<'_>, keyword: &str) -> bool {
    w.text()
        .split([' ', '\t'])
        .next()
        .is_some_and(|next| is(next, keyword))
}

/// `GAME CODE` or `GAME CHALLENGE` (`sub`): the same words.
fn parse_challenge(sub: &str, mut w: Words<'_>) -> Result<ServerMessage, ParseError> {
    let command = if sub == "CODE" {
        "GAME CODE"
    } else {
        "GAME CHALLENGE"
    };
    let code = word(&mut w, command, "the code")?.to_owned();
    let seconds = w.number(command, "the seconds")?;
    let game = word(&mut w, command, "the game")?.to_owned();
    let terms = Terms::read(&mut w);
    Ok(if sub == "CODE" {
        ServerMessage::Code {
            code,
            seconds,
            game,
            terms,
        }
    } else {
        ServerMessage::Challenge {
            code,
            seconds,
            game,
            terms,
        }
    })
}

fn parse_game(mut w: Words<'_>) -> Result<ServerMessage, ParseError> {
    let sub = word(&mut w, "GAME", "what")?.to_ascii_uppercase();
    let message = match sub.as_str() {
        "VERSION" => ServerMessage::Version {
            version: w.number("GAME VERSION", "the version")?,
            server: w.take_text().to_owned(),
        },
        "WAITING" => ServerMessage::Waiting {
            more: w.number("GAME WAITING", "the number of players")?,
        },
        "CODE" | "CHALLENGE" => return parse_challenge(&sub, w),
        "LINK" if !w.is_done() => ServerMessage::Link {
            url: w.take_text().to_owned(),
        },
        "LINK" => {
            return Err(ParseError::BadArguments(
                "GAME LINK",
                "the link is missing".into(),
            ))
        }
        "EXPIRED" => ServerMessage::Expired {
            code: word(&mut w, "GAME EXPIRED", "the code")?.to_owned(),
        },
        "CHALLENGES" => ServerMessage::Challenges {
            count: w.number("GAME CHALLENGES", "the count")?,
        },
        "TIME" => ServerMessage::Time(TimeControl::read(&mut w)?),
        "PING" => ServerMessage::Ping {
            n: w.number("GAME PING", "the ping's number")?,
        },
        "OFFERED" if next_is(&w, "REMATCH") => {
            w.next_word();
            ServerMessage::OfferedRematch {
                team: w.number("GAME OFFERED REMATCH", "the team")?,
            }
        }
        "TYPE" => ServerMessage::Type {
            game: word(&mut w, "GAME TYPE", "the game")?.to_owned(),
        },
        "BOARD" => ServerMessage::Board {
            name: word(&mut w, "GAME BOARD", "the board's name")?.to_owned(),
            width: w.number("GAME BOARD", "the width")?,
            height: w.number("GAME BOARD", "the height")?,
        },
        "COLUMNS" => ServerMessage::Columns {
            names: names(&mut w, "GAME COLUMNS")?,
        },
        "ROWS" => ServerMessage::Rows {
            names: names(&mut w, "GAME ROWS")?,
        },
        "TEAMS" => ServerMessage::Teams {
            names: names(&mut w, "GAME TEAMS")?,
        },
        "TEAM" => ServerMessage::Team {
            team: w.number("GAME TEAM", "the team")?,
            name: w.take_text().to_owned(),
        },
        "WATCHING" => ServerMessage::Watching {
            id: w.number("GAME WATCHING", "the game id")?,
        },
        "TURN" => ServerMessage::Turn {
            team: w.number("GAME TURN", "the team")?,
        },
        "CLOCK" => ServerMessage::Clock {
            team: w.number("GAME CLOCK", "the team")?,
            ms: w.number("GAME CLOCK", "the milliseconds")?,
        },
        "TIMER" => ServerMessage::Timer {
            name: word(&mut w, "GAME TIMER", "the timer's name")?.to_owned(),
            ms: w.number("GAME TIMER", "the milliseconds")?,
            text: w.take_text().to_owned(),
        },
        "MOVED" => ServerMessage::Moved {
            team: w.number("GAME MOVED", "the team")?,
            notation: w.take_text().to_owned(),
        },
        "NEWS" => ServerMessage::News {
            text: w.take_text().to_owned(),
        },
        "OVER" => {
            let who = word(&mut w, "GAME OVER", "the winner")?;
            let winner = if is(who, "DRAW") {
                None
            } else {
                Some(who.parse().map_err(|_| {
                    ParseError::BadArguments("GAME OVER", format!("{who:?} is not a team or DRAW"))
                })?)
            };
            ServerMessage::Over {
                winner,
                why: w.take_text().to_owned(),
            }
        }
        "ABORTED" => ServerMessage::Aborted {
            why: w.take_text().to_owned(),
        },
        "SESSION" => ServerMessage::Session {
            id: w.number("GAME SESSION", "the game id")?,
            game: word(&mut w, "GAME SESSION", "the game")?.to_owned(),
            seconds: w.number("GAME SESSION", "the seconds")?,
            players: w
                .take_text()
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
        },
        "SESSIONS" => ServerMessage::Sessions {
            count: w.number("GAME SESSIONS", "the count")?,
        },
        "TOKEN" => ServerMessage::Token {
            token: word(&mut w, "GAME TOKEN", "the token")?.to_owned(),
            ms: w.number("GAME TOKEN", "the grace")?,
        },
        "RESUMED" => ServerMessage::Resumed {
            id: w.number("GAME RESUMED", "the game id")?,
        },
        "AWAY" => ServerMessage::Away {
            team: w.number("GAME AWAY", "the team")?,
            ms: w.number("GAME AWAY", "the milliseconds")?,
        },
        "BACK" => ServerMessage::Back {
            team: w.number("GAME BACK", "the team")?,
        },
        "OFFERED" if w.next_word().is_some_and(|what| is(what, "DRAW")) => {
            ServerMessage::OfferedDraw {
                team: w.number("GAME OFFERED DRAW", "the team")?,
            }
        }
        // A message of a later version: a client ignores it (§1).
        _ => return Err(ParseError::UnknownCommand(format!("GAME {sub}"))),
    };
    w.end("GAME")?;
    Ok(message)
}

impl fmt::Display for Standing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Standing::Win => "WIN",
            Standing::Lose => "LOSE",
            Standing::Draw => "DRAW",
        })
    }
}

/// Writes `text` after a space, or nothing when it is empty.
fn tail(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    if text.is_empty() {
        Ok(())
    } else {
        write!(f, " {text}")
    }
}

impl fmt::Display for ServerMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerMessage::Version { version, server } => {
                write!(f, "GAME VERSION {version}")?;
                tail(f, server)
            }
            ServerMessage::Waiting { more } => write!(f, "GAME WAITING {more}"),
            ServerMessage::Code {
                code,
                seconds,
                game,
                terms,
            } => write!(f, "GAME CODE {code} {seconds} {game} {terms}"),
            ServerMessage::Link { url } => write!(f, "GAME LINK {url}"),
            ServerMessage::Expired { code } => write!(f, "GAME EXPIRED {code}"),
            ServerMessage::Challenge {
                code,
                seconds,
                game,
                terms,
            } => write!(f, "GAME CHALLENGE {code} {seconds} {game} {terms}"),
            ServerMessage::Challenges { count } => write!(f, "GAME CHALLENGES {count}"),
            ServerMessage::Time(control) => write!(f, "GAME TIME {control}"),
            ServerMessage::Ping { n } => write!(f, "GAME PING {n}"),
            ServerMessage::OfferedRematch { team } => write!(f, "GAME OFFERED REMATCH {team}"),
            ServerMessage::Type { game } => write!(f, "GAME TYPE {game}"),
            ServerMessage::Board {
                name,
                width,
                height,
            } => write!(f, "GAME BOARD {name} {width} {height}"),
            ServerMessage::Columns { names } => write!(f, "GAME COLUMNS {}", names.join(" ")),
            ServerMessage::Rows { names } => write!(f, "GAME ROWS {}", names.join(" ")),
            ServerMessage::Teams { names } => write!(f, "GAME TEAMS {}", names.join(" ")),
            ServerMessage::Team { team, name } => {
                write!(f, "GAME TEAM {team}")?;
                tail(f, name)
            }
            ServerMessage::Watching { id } => write!(f, "GAME WATCHING {id}"),
            ServerMessage::Turn { team } => write!(f, "GAME TURN {team}"),
            ServerMessage::Clock { team, ms } => write!(f, "GAME CLOCK {team} {ms}"),
            ServerMessage::Timer { name, ms, text } => {
                write!(f, "GAME TIMER {name} {ms}")?;
                tail(f, text)
            }
            ServerMessage::Moved { team, notation } => write!(f, "GAME MOVED {team} {notation}"),
            ServerMessage::News { text } => write!(f, "GAME NEWS {text}"),
            ServerMessage::Over { winner, why } => {
                match winner {
                    Some(team) => write!(f, "GAME OVER {team}")?,
                    None => f.write_str("GAME OVER DRAW")?,
                }
                tail(f, why)
            }
            ServerMessage::Aborted { why } => write!(f, "GAME ABORTED {why}"),
            ServerMessage::Session {
                id,
                game,
                seconds,
                players,
            } => {
                write!(f, "GAME SESSION {id} {game} {seconds}")?;
                tail(f, &players.join(" "))
            }
            ServerMessage::Sessions { count } => write!(f, "GAME SESSIONS {count}"),
            ServerMessage::Square { kind, x, y } => write!(f, "DRAW SQUARE {kind} {x} {y}"),
            ServerMessage::Piece { name, team } => write!(f, "DRAW PIECE {name} {team}"),
            ServerMessage::Ready => f.write_str("READY"),
            ServerMessage::Error { why } => write!(f, "ERROR {why}"),
            ServerMessage::Result { standing, why } => {
                write!(f, "RESULT {standing}")?;
                tail(f, why)
            }
            ServerMessage::Token { token, ms } => write!(f, "GAME TOKEN {token} {ms}"),
            ServerMessage::Resumed { id } => write!(f, "GAME RESUMED {id}"),
            ServerMessage::Away { team, ms } => write!(f, "GAME AWAY {team} {ms}"),
            ServerMessage::Back { team } => write!(f, "GAME BACK {team}"),
            ServerMessage::OfferedDraw { team } => write!(f, "GAME OFFERED DRAW {team}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_session_parses() {
        let session = "GAME TYPE Conquest\nGAME BOARD ConquestBoard 9 8\nDRAW SQUARE white 1 1\n\
                       DRAW PIECE die536 1\nREADY\nERROR The range dies not match the value shown\n\
                       RESULT LOSE Your team has resigned";
        let parsed: Vec<ServerMessage> = session
            .lines()
            .map(|l| ServerMessage::parse(l).unwrap())
            .collect();
        assert_eq!(
            parsed[1],
            ServerMessage::Board {
                name: "ConquestBoard".into(),
                width: 9,
                height: 8
            }
        );
        assert_eq!(
            parsed[3],
            ServerMessage::Piece {
                name: "die536".into(),
                team: 1
            }
        );
        assert_eq!(
            parsed[6],
            ServerMessage::Result {
                standing: Standing::Lose,
                why: "Your team has resigned".into()
            }
        );
        for (line, message) in session.lines().zip(&parsed) {
            assert_eq!(line, message.to_string());
        }
    }

    #[test]
    fn printing_then_parsing_gives_the_message_back() {
        for m in [
            ServerMessage::Version {
                version: 1,
                server: "reversid 0.1.0".into(),
            },
            ServerMessage::Waiting { more: 1 },
            ServerMessage::Columns {
                names: vec!["a".into(), "b".into(), "c".into()],
            },
            ServerMessage::Rows {
                names: vec!["8".into(), "7".into()],
            },
            ServerMessage::Teams {
                names: vec!["black".into(), "white".into()],
            },
            ServerMessage::Team {
                team: 2,
                name: "white".into(),
            },
            ServerMessage::Watching { id: 9 },
            ServerMessage::Turn { team: 1 },
            ServerMessage::Clock {
                team: 2,
                ms: 600_000,
            },
            ServerMessage::Timer {
                name: "quiet".into(),
                ms: 120_000,
                text: "the game ends on numbers if nothing is eaten".into(),
            },
            ServerMessage::Timer {
                name: "tide".into(),
                ms: 0,
                text: String::new(),
            },
            ServerMessage::Moved {
                team: 1,
                notation: "15x24x31".into(),
            },
            ServerMessage::News {
                text: "white has no move and passes".into(),
            },
            ServerMessage::Over {
                winner: Some(2),
                why: "33-31".into(),
            },
            ServerMessage::Over {
                winner: None,
                why: "the board is full".into(),
            },
            ServerMessage::Aborted {
                why: "server shutting down".into(),
            },
            ServerMessage::Session {
                id: 4,
                game: "Reversi".into(),
                seconds: 12,
                players: vec!["127.0.0.1:5".into(), "[::1]:6".into()],
            },
            ServerMessage::Sessions { count: 1 },
            ServerMessage::Square {
                kind: "water".into(),
                x: 50,
                y: 1,
            },
            ServerMessage::Error {
                why: "it is not your turn".into(),
            },
            ServerMessage::Result {
                standing: Standing::Draw,
                why: String::new(),
            },
            ServerMessage::Token {
                token: "0P9QK3M2X9AV0C4TZP8RWD5NHJ6".into(),
                ms: 60_000,
            },
            ServerMessage::Resumed { id: 12 },
            ServerMessage::Away { team: 2, ms: 0 },
            ServerMessage::Back { team: 1 },
            ServerMessage::OfferedDraw { team: 2 },
        ] {
            assert_eq!(ServerMessage::parse(&m.to_string()), Ok(m));
        }
    }

    #[test]
    fn clocks_and_timers_read_as_the_spec_writes_them() {
        assert_eq!(
            ServerMessage::parse("GAME CLOCK 1 30000"),
            Ok(ServerMessage::Clock {
                team: 1,
                ms: 30_000
            })
        );
        assert_eq!(
            ServerMessage::parse("GAME TIMER tide 10000 the tide turns"),
            Ok(ServerMessage::Timer {
                name: "tide".into(),
                ms: 10_000,
                text: "the tide turns".into()
            })
        );
    }

    #[test]
    fn the_lines_of_playing_together_read_as_the_design_writes_them() {
        let parse = |line| ServerMessage::parse(line).unwrap();
        assert_eq!(
            parse("GAME CODE 4821-0937-5562 900 tictactoe time=1+0 side=X private"),
            ServerMessage::Code {
                code: "4821-0937-5562".into(),
                seconds: 900,
                game: "tictactoe".into(),
                terms: Terms {
                    time: Some("1+0".into()),
                    side: Some("X".into()),
                    public: false,
                    other: Vec::new(),
                },
            }
        );
        assert_eq!(
            parse("GAME LINK http://127.0.0.1:8765/#join=4821-0937-5562"),
            ServerMessage::Link {
                url: "http://127.0.0.1:8765/#join=4821-0937-5562".into()
            }
        );
        assert_eq!(
            parse("GAME TIME fischer 60000 0"),
            ServerMessage::Time(TimeControl::Fischer {
                base: 60_000,
                increment: 0
            })
        );
        assert_eq!(
            parse("GAME TIME move 600000 30000"),
            ServerMessage::Time(TimeControl::Move {
                limit: 600_000,
                first: 30_000
            })
        );
        assert_eq!(
            parse("GAME TIME none"),
            ServerMessage::Time(TimeControl::None)
        );
        assert_eq!(parse("GAME PING 1"), ServerMessage::Ping { n: 1 });
        assert_eq!(
            parse("game offered rematch 2"),
            ServerMessage::OfferedRematch { team: 2 }
        );
        assert_eq!(
            parse("GAME OFFERED DRAW 1"),
            ServerMessage::OfferedDraw { team: 1 }
        );
        assert_eq!(
            parse("GAME CHALLENGES 0"),
            ServerMessage::Challenges { count: 0 }
        );
    }

    #[test]
    fn the_lines_of_playing_together_print_and_parse_back() {
        let terms = Terms {
            time: Some("5+3".into()),
            side: Some("random".into()),
            public: true,
            other: vec!["rated".into()],
        };
        for m in [
            ServerMessage::Code {
                code: "4821-0937-5562".into(),
                seconds: 900,
                game: "draughts".into(),
                terms: terms.clone(),
            },
            ServerMessage::Challenge {
                code: "0000-0000-0001".into(),
                seconds: 12,
                game: "reversi".into(),
                terms: Terms::default(),
            },
            ServerMessage::Link {
                url: "https://example.org/#join=4821-0937-5562".into(),
            },
            ServerMessage::Expired {
                code: "4821-0937-5562".into(),
            },
            ServerMessage::Challenges { count: 3 },
            ServerMessage::Time(TimeControl::Fischer {
                base: 300_000,
                increment: 3000,
            }),
            ServerMessage::Time(TimeControl::Move {
                limit: 60_000,
                first: 30_000,
            }),
            ServerMessage::Time(TimeControl::None),
            ServerMessage::Ping { n: 4_000_000_000 },
            ServerMessage::OfferedRematch { team: 1 },
        ] {
            assert_eq!(ServerMessage::parse(&m.to_string()), Ok(m));
        }
        for line in [
            "GAME CODE",
            "GAME CODE 4821-0937-5562 soon tictactoe",
            "GAME CHALLENGE 4821-0937-5562 9",
            "GAME TIME",
            "GAME TIME blitz 1 2",
            "GAME TIME fischer 1",
            "GAME TIME none 5",
            "GAME PING",
            "GAME PING -1",
            "GAME OFFERED REMATCH",
            "GAME LINK",
        ] {
            assert!(ServerMessage::parse(line).is_err(), "{line}");
        }
    }

    #[test]
    fn bad_lines_are_refused() {
        for line in [
            "",
            "HELLO",
            "READY now",
            "RESULT MAYBE",
            "DRAW CIRCLE 1 1",
            "DRAW SQUARE x 1",
            "GAME TURN",
            "GAME OVER someone",
            "GAME FLY",
            "GAME COLUMNS",
            "GAME ROWS  ",
            "GAME TEAMS",
            "GAME CLOCK 1",
            "GAME CLOCK 1 -5",
            "GAME CLOCK 1 9 s",
            "GAME TIMER",
            "GAME TIMER tide soon",
            "GAME TOKEN",
            "GAME AWAY 1",
            "GAME OFFERED PEACE 1",
            "GAME BACK black",
        ] {
            assert!(ServerMessage::parse(line).is_err(), "{line}");
        }
    }
}
