//! Messages from a client to the server.

use std::fmt;

use crate::{is, ParseError, Terms, Words};

/// The most squares one `MOVE` may name.
pub const MAX_MOVE_SQUARES: usize = 64;

/// A line a client sends.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ClientMessage {
    /// `GAME TYPE <game>`: queue for a game of this type.
    Join { game: String },
    /// `GAME LIST` (addition): the running games, answered with `GAME SESSION` lines.
    List,
    /// `GAME WATCH <id>` (addition): watch running game `id`.
    Watch { id: u64 },
    /// `GAME VERSION` (addition): which protocol version the server speaks.
    Version,
    /// `GAME INVITE <game> <option>...` (addition): create a challenge.
    Invite { game: String, terms: Terms },
    /// `GAME JOIN <code>` (addition): accept the challenge of this code (separators
    /// and blanks allowed, as people write it).
    JoinCode { code: String },
    /// `GAME LOBBY` (addition): the public challenges.
    Lobby,
    /// `GAME PONG <n>` (addition): the answer to `GAME PING <n>`.
    Pong { n: u32 },
    /// `GAME OFFER REMATCH` (addition), after a game.
    OfferRematch,
    /// `GAME ACCEPT REMATCH` (addition).
    AcceptRematch,
    /// `GAME DECLINE REMATCH` (addition).
    DeclineRematch,
    /// `GAME QUIT`: leave (a player's team resigns if it was the last of it).
    Quit,
    /// `MOVE n x1 y1 ... xn yn`: the squares of a move, from the piece's square.
    Move(Vec<(u8, u8)>),
    /// `MOVE <notation>` (addition): a move in the game's own notation (`d3`, `11-15`).
    MoveText(String),
    /// `GAME OFFER DRAW` (addition).
    OfferDraw,
    /// `GAME ACCEPT DRAW` (addition).
    AcceptDraw,
    /// `GAME DECLINE DRAW` (addition).
    DeclineDraw,
    /// `GAME CLAIM WIN` (addition): the game, from an opponent who did not come back.
    ClaimWin,
    /// `GAME CLAIM DRAW` (addition): a draw, from an opponent who did not come back.
    ClaimDraw,
    /// `GAME RESUME <token>` (addition): take back the seat of a `GAME TOKEN`.
    Resume { token: String },
}

impl ClientMessage {
    /// Reads one line (without its end).
    pub fn parse(line: &str) -> Result<ClientMessage, ParseError> {
        let mut words = Words::new(line);
        let Some(command) = words.next_word() else {
            return Err(ParseError::Empty);
        };
        if is(command, "MOVE") {
            return parse_move(words);
        }
        if !is(command, "GAME") {
            return Err(ParseError::UnknownCommand(command.to_owned()));
        }
        let sub = words.next_word().ok_or_else(|| {
            ParseError::BadArguments("GAME", "what? (TYPE, LIST, WATCH, QUIT, ...)".into())
        })?;
        let message = match sub.to_ascii_uppercase().as_str() {
            "TYPE" => {
                let game = words.next_word().ok_or_else(|| {
                    ParseError::BadArguments("GAME TYPE", "the game's name is missing".into())
                })?;
                ClientMessage::Join {
                    game: game.to_owned(),
                }
            }
            "LIST" => ClientMessage::List,
            "WATCH" => ClientMessage::Watch {
                id: words.number("GAME WATCH", "the game id")?,
            },
            "VERSION" => ClientMessage::Version,
            "QUIT" => ClientMessage::Quit,
            "INVITE" => ClientMessage::Invite {
                game: words
                    .next_word()
                    .ok_or_else(|| {
                        ParseError::BadArguments("GAME INVITE", "the game's name is missing".into())
                    })?
                    .to_owned(),
                terms: Terms::read(&mut words),
            },
            "JOIN" if !words.is_done() => ClientMessage::JoinCode {
                code: words.take_text().to_owned(),
            },
            "JOIN" => {
                return Err(ParseError::BadArguments(
                    "GAME JOIN",
                    "the code is missing".into(),
                ))
            }
            "LOBBY" => ClientMessage::Lobby,
            "PONG" => ClientMessage::Pong {
                n: words.number("GAME PONG", "the ping's number")?,
            },
            "OFFER" | "ACCEPT" | "DECLINE" if next_is_rematch(&words) => {
                words.next_word();
                match sub.to_ascii_uppercase().as_str() {
                    "OFFER" => ClientMessage::OfferRematch,
                    "ACCEPT" => ClientMessage::AcceptRematch,
                    _ => ClientMessage::DeclineRematch,
                }
            }
            "OFFER" | "ACCEPT" | "DECLINE" => {
                let what = words.next_word();
                if !what.is_some_and(|w| is(w, "DRAW")) {
                    return Err(ParseError::BadArguments(
                        "GAME OFFER/ACCEPT/DECLINE",
                        "only DRAW or REMATCH can be offered, accepted or declined".into(),
                    ));
                }
                match sub.to_ascii_uppercase().as_str() {
                    "OFFER" => ClientMessage::OfferDraw,
                    "ACCEPT" => ClientMessage::AcceptDraw,
                    _ => ClientMessage::DeclineDraw,
                }
            }
            "CLAIM" => match words.next_word() {
                Some(what) if is(what, "WIN") => ClientMessage::ClaimWin,
                Some(what) if is(what, "DRAW") => ClientMessage::ClaimDraw,
                _ => {
                    return Err(ParseError::BadArguments(
                        "GAME CLAIM",
                        "only WIN or DRAW can be claimed".into(),
                    ))
                }
            },
            "RESUME" => {
                let token = words.next_word().ok_or_else(|| {
                    ParseError::BadArguments("GAME RESUME", "the token is missing".into())
                })?;
                ClientMessage::Resume {
                    token: token.to_owned(),
                }
            }
            _ => {
                return Err(ParseError::BadArguments(
                    "GAME",
                    format!("unknown GAME message {sub:?}"),
                ))
            }
        };
        words.end("GAME")?;
        Ok(message)
    }
}

/// Whether the next word is `REMATCH` (it stays unread).
fn next_is_rematch(words: &Words<'_>) -> bool {
    let next = words.text().split([' ', '\t']).next();
    next.is_some_and(|next| is(next, "REMATCH"))
}

fn parse_move(mut words: Words<'_>) -> Result<ClientMessage, ParseError> {
    let text = words.text();
    let Some(first) = words.next_word() else {
        return Err(ParseError::BadArguments(
            "MOVE",
            "no squares (MOVE n x1 y1 ... or MOVE <notation>)".into(),
        ));
    };
    if !first.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(ClientMessage::MoveText(text.to_owned()));
    }
    let n: usize = first
        .parse()
        .ok()
        .filter(|n| (1..=MAX_MOVE_SQUARES).contains(n))
        .ok_or_else(|| {
            ParseError::BadArguments(
                "MOVE",
                format!("the number of squares must be 1 to {MAX_MOVE_SQUARES}, not {first}"),
            )
        })?;
    let mut squares = Vec::with_capacity(n);
    for i in 1..=n {
        let x = words.number("MOVE", &format!("x{i}"))?;
        let y = words.number("MOVE", &format!("y{i}"))?;
        squares.push((x, y));
    }
    if !words.is_done() {
        return Err(ParseError::BadArguments(
            "MOVE",
            format!("{n} squares take {} numbers; more were given", 2 * n),
        ));
    }
    Ok(ClientMessage::Move(squares))
}

impl fmt::Display for ClientMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientMessage::Join { game } => write!(f, "GAME TYPE {game}"),
            ClientMessage::List => f.write_str("GAME LIST"),
            ClientMessage::Watch { id } => write!(f, "GAME WATCH {id}"),
            ClientMessage::Version => f.write_str("GAME VERSION"),
            ClientMessage::Invite { game, terms } => write!(f, "GAME INVITE {game} {terms}"),
            ClientMessage::JoinCode { code } => write!(f, "GAME JOIN {code}"),
            ClientMessage::Lobby => f.write_str("GAME LOBBY"),
            ClientMessage::Pong { n } => write!(f, "GAME PONG {n}"),
            ClientMessage::OfferRematch => f.write_str("GAME OFFER REMATCH"),
            ClientMessage::AcceptRematch => f.write_str("GAME ACCEPT REMATCH"),
            ClientMessage::DeclineRematch => f.write_str("GAME DECLINE REMATCH"),
            ClientMessage::Quit => f.write_str("GAME QUIT"),
            ClientMessage::Move(squares) => {
                write!(f, "MOVE {}", squares.len())?;
                for (x, y) in squares {
                    write!(f, " {x} {y}")?;
                }
                Ok(())
            }
            ClientMessage::MoveText(text) => write!(f, "MOVE {text}"),
            ClientMessage::OfferDraw => f.write_str("GAME OFFER DRAW"),
            ClientMessage::AcceptDraw => f.write_str("GAME ACCEPT DRAW"),
            ClientMessage::DeclineDraw => f.write_str("GAME DECLINE DRAW"),
            ClientMessage::ClaimWin => f.write_str("GAME CLAIM WIN"),
            ClientMessage::ClaimDraw => f.write_str("GAME CLAIM DRAW"),
            ClientMessage::Resume { token } => write!(f, "GAME RESUME {token}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<ClientMessage, ParseError> {
        ClientMessage::parse(line)
    }

    #[test]
    fn the_seeds_examples() {
        assert_eq!(
            parse("MOVE 2 1 1 1 6"),
            Ok(ClientMessage::Move(vec![(1, 1), (1, 6)]))
        );
        assert_eq!(
            parse("MOVE 3 1 1 1 5 2 5"),
            Ok(ClientMessage::Move(vec![(1, 1), (1, 5), (2, 5)]))
        );
        assert_eq!(parse("GAME QUIT"), Ok(ClientMessage::Quit));
        assert_eq!(
            parse("GAME TYPE Conquest"),
            Ok(ClientMessage::Join {
                game: "Conquest".into()
            })
        );
    }

    #[test]
    fn any_case_and_any_blanks() {
        assert_eq!(
            parse("  move\t1  3 3 "),
            Ok(ClientMessage::Move(vec![(3, 3)]))
        );
        assert_eq!(parse("game quit"), Ok(ClientMessage::Quit));
        assert_eq!(parse("Game Offer Draw"), Ok(ClientMessage::OfferDraw));
        assert_eq!(parse("game watch 17"), Ok(ClientMessage::Watch { id: 17 }));
    }

    #[test]
    fn moves_in_the_games_own_notation() {
        assert_eq!(parse("MOVE d3"), Ok(ClientMessage::MoveText("d3".into())));
        assert_eq!(
            parse("move 15x24x31"),
            Ok(ClientMessage::MoveText("15x24x31".into()))
        );
        assert_eq!(
            parse("MOVE 11-15"),
            Ok(ClientMessage::MoveText("11-15".into()))
        );
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert_eq!(parse("   "), Err(ParseError::Empty));
        assert_eq!(
            parse("HELLO there"),
            Err(ParseError::UnknownCommand("HELLO".into()))
        );
        let msg = |line| parse(line).unwrap_err().to_string();
        assert_eq!(
            msg("MOVE"),
            "MOVE: no squares (MOVE n x1 y1 ... or MOVE <notation>)"
        );
        assert_eq!(msg("MOVE 2 1 1 1"), "MOVE: y2 is missing");
        assert_eq!(
            msg("MOVE 1 1 1 1"),
            "MOVE: 1 squares take 2 numbers; more were given"
        );
        assert_eq!(
            msg("MOVE 0"),
            "MOVE: the number of squares must be 1 to 64, not 0"
        );
        assert_eq!(
            msg("MOVE 1 300 1"),
            "MOVE: x1 \"300\" is not a number in range"
        );
        assert_eq!(
            msg("MOVE 1 -1 1"),
            "MOVE: x1 \"-1\" is not a number in range"
        );
        assert_eq!(msg("GAME"), "GAME: what? (TYPE, LIST, WATCH, QUIT, ...)");
        assert_eq!(msg("GAME TYPE"), "GAME TYPE: the game's name is missing");
        assert_eq!(msg("GAME QUIT now"), "GAME: unexpected \"now\"");
        assert_eq!(
            msg("GAME WATCH x"),
            "GAME WATCH: the game id \"x\" is not a number in range"
        );
        assert!(msg("GAME OFFER PEACE").contains("only DRAW"));
        assert_eq!(
            msg("GAME CLAIM"),
            "GAME CLAIM: only WIN or DRAW can be claimed"
        );
        assert_eq!(msg("GAME RESUME"), "GAME RESUME: the token is missing");
    }

    #[test]
    fn printing_then_parsing_gives_the_message_back() {
        for m in [
            ClientMessage::Join {
                game: "Reversi".into(),
            },
            ClientMessage::List,
            ClientMessage::Watch { id: 3 },
            ClientMessage::Version,
            ClientMessage::Quit,
            ClientMessage::Move(vec![(1, 2), (3, 4)]),
            ClientMessage::MoveText("11-15".into()),
            ClientMessage::OfferDraw,
            ClientMessage::AcceptDraw,
            ClientMessage::DeclineDraw,
            ClientMessage::ClaimWin,
            ClientMessage::ClaimDraw,
            ClientMessage::Resume {
                token: "0P9QK3M2X9AV0C4TZP8RWD5NHJ6".into(),
            },
        ] {
            assert_eq!(parse(&m.to_string()), Ok(m));
        }
    }

    #[test]
    fn the_lines_of_playing_together() {
        assert_eq!(
            parse("GAME INVITE draughts time=5+3 side=black public"),
            Ok(ClientMessage::Invite {
                game: "draughts".into(),
                terms: Terms {
                    time: Some("5+3".into()),
                    side: Some("black".into()),
                    public: true,
                    other: Vec::new(),
                },
            })
        );
        assert_eq!(
            parse("GAME JOIN 4821 0937 5562"),
            Ok(ClientMessage::JoinCode {
                code: "4821 0937 5562".into()
            })
        );
        assert_eq!(parse("game pong 7"), Ok(ClientMessage::Pong { n: 7 }));
        assert_eq!(parse("GAME OFFER REMATCH"), Ok(ClientMessage::OfferRematch));
        assert_eq!(
            parse("Game Decline Rematch"),
            Ok(ClientMessage::DeclineRematch)
        );
        let msg = |line| parse(line).unwrap_err().to_string();
        assert_eq!(msg("GAME JOIN"), "GAME JOIN: the code is missing");
        assert_eq!(
            msg("GAME INVITE"),
            "GAME INVITE: the game's name is missing"
        );
        assert_eq!(msg("GAME LOBBY now"), "GAME: unexpected \"now\"");
        assert!(msg("GAME ACCEPT REMATCH now").contains("unexpected"));
        for m in [
            ClientMessage::Invite {
                game: "tictactoe".into(),
                terms: Terms::default(),
            },
            ClientMessage::JoinCode {
                code: "4821-0937-5562".into(),
            },
            ClientMessage::Lobby,
            ClientMessage::Pong { n: 1 },
            ClientMessage::OfferRematch,
            ClientMessage::AcceptRematch,
            ClientMessage::DeclineRematch,
        ] {
            assert_eq!(parse(&m.to_string()), Ok(m));
        }
    }
}
