//! The text protocol (spec/TEXT-PROTOCOL.md). A client starts with a line
//! (`GAME LIST`, or a person's stray Enter or ` GAME`): a connection is text
//! when its first byte may start a line of text, and its first line is then
//! held to [`reversi_text::opening_line`]; what is not text after all is
//! turned away as the fallback protocol. A first line `GET ` is an HTTP
//! request: the web protocol's (an HTTP request line is a line of text).

mod accounts;
mod adapter;
mod challenges;
mod tournaments;

pub use adapter::Text as Adapter;

use reversi_text::{is_opening_text, opening_line, ClientMessage, Opening, ServerMessage};

use super::lines::{not_text, too_long};
use super::{web, Lobby, Protocol, Running, Stage, Told, Verdict, Wire, WireKind};

pub struct Text;

impl Protocol for Text {
    fn recognises(&self, first: u8) -> bool {
        is_opening_text(first) || first == b'\n'
    }

    fn screen(&self, lobby: &Lobby<'_>, stage: Stage, input: &[u8]) -> Verdict {
        if stage == Stage::Handshake && input.starts_with(b"GET ") {
            return web::screen_http(lobby, input);
        }
        screen_lines(lobby, stage, input)
    }

    fn refusal(&self, why: &str) -> Vec<u8> {
        error_line(why)
    }

    fn waiting(&self, more: u32) -> Option<Vec<u8>> {
        Some(line_of(&ServerMessage::Waiting { more }))
    }

    fn news(&self, text: &str) -> Option<Vec<u8>> {
        Some(line_of(&ServerMessage::News {
            text: text.to_owned(),
        }))
    }

    fn tell(&self, told: &Told) -> Option<Vec<u8>> {
        Some(challenges::tell(told))
    }

    fn adapter(&self) -> Box<dyn Wire> {
        Box::new(Adapter::new())
    }
}

/// Judges the first line of `input`, or waits for it; what is not a line of text is
/// turned away as the fallback protocol.
pub fn screen_lines(lobby: &Lobby<'_>, stage: Stage, input: &[u8]) -> Verdict {
    match opening_line(input) {
        Opening::Incomplete => Verdict::Wait,
        Opening::Line { text, used } => {
            log::debug!("<- {}", loggable(&text));
            answer(lobby, stage, &text, used)
        }
        Opening::NotText(byte) => Verdict::Close {
            farewell: WireKind::refusal(None, ""),
            note: Some(format!(
                "refused: not a protocol this server speaks ({})",
                not_text(byte)
            )),
        },
        Opening::TooLong => {
            let why = too_long();
            Verdict::Close {
                farewell: error_line(&why),
                note: Some(format!("refused: {why}")),
            }
        }
    }
}

/// A client's line as the log may show it: a resume token never whole (the play-together
/// design §5.2), only its first symbols.
pub fn loggable(line: &str) -> std::borrow::Cow<'_, str> {
    if let Some(shown) = accounts::loggable(line) {
        return shown.into();
    }
    match ClientMessage::parse(line) {
        Ok(ClientMessage::Resume { token }) => {
            let shown: String = token.chars().take(3).collect();
            format!("GAME RESUME {shown}…").into()
        }
        _ => line.into(),
    }
}

/// Answers one whole line of a waiting client; `used` bytes were that line.
pub fn answer(lobby: &Lobby<'_>, stage: Stage, line: &str, used: usize) -> Verdict {
    let error = |why: String| Verdict::reply(error_line(&why), used);
    if let Some(verdict) = challenges::answer(lobby, stage, line, used) {
        return verdict;
    }
    if let Some(verdict) = accounts::answer(lobby, stage, line, used) {
        return verdict;
    }
    if let Some(verdict) = tournaments::answer(line, used) {
        return verdict;
    }
    let message = match ClientMessage::parse(line) {
        Ok(message) => message,
        Err(reversi_text::ParseError::Empty) => return Verdict::reply(Vec::new(), used),
        Err(e) => return error(e.to_string()),
    };
    match (stage, message) {
        (Stage::Handshake, ClientMessage::Join { game }) => match lobby.game(&game) {
            Some(game) => Verdict::Join { game, used },
            None => error(format!("no game {game:?} here; games: {}", lobby.names())),
        },
        (Stage::Queued, ClientMessage::Join { .. } | ClientMessage::Watch { .. }) => {
            error(challenges::WAITING_ALREADY.to_owned())
        }
        (_, ClientMessage::List) => Verdict::reply(listing(&(lobby.running)()), used),
        (Stage::Handshake, ClientMessage::Watch { id }) => {
            if (lobby.running)().iter().any(|r| r.id == id) {
                Verdict::Watch { id, used }
            } else {
                error(format!("no game {id} is running (GAME LIST shows them)"))
            }
        }
        (_, ClientMessage::Version) => Verdict::reply(
            line_of(&ServerMessage::Version {
                version: reversi_text::VERSION,
                server: format!("reversid {}", env!("CARGO_PKG_VERSION")),
            }),
            used,
        ),
        (_, ClientMessage::Quit) => Verdict::Leave,
        (Stage::Handshake, _) => error(format!(
            "not in a game: GAME TYPE <game> first; games: {}",
            lobby.names()
        )),
        (Stage::Queued, _) => error("the game has not started".to_owned()),
    }
}

/// `GAME SESSION` lines for every running game, then `GAME SESSIONS n`.
fn listing(running: &[Running]) -> Vec<u8> {
    let mut out = Vec::new();
    for game in running {
        out.extend(line_of(&ServerMessage::Session {
            id: game.id,
            game: game.game.info.wire_type.to_owned(),
            seconds: game.seconds,
            players: listed_players(game),
        }));
    }
    out.extend(line_of(&ServerMessage::Sessions {
        count: running.len() as u64,
    }));
    out
}

/// A running game's players as `GAME SESSION` lists them: the address, or `Alice@address`
/// and `bob~@address` where the player has a name.
fn listed_players(game: &Running) -> Vec<String> {
    let anonymous = crate::terms::SeatPlayer::Anonymous;
    let names = game.names.iter().chain(std::iter::repeat(&anonymous));
    (game.players.iter().zip(names))
        .map(|(peer, player)| crate::session::players::listed(player, &peer.to_string()))
        .collect()
}

/// The `ERROR` line that says `why`.
pub fn error_line(why: &str) -> Vec<u8> {
    line_of(&ServerMessage::Error {
        why: why.to_owned(),
    })
}

/// A server message as the bytes of one line.
pub fn line_of(message: &ServerMessage) -> Vec<u8> {
    format!("{message}\n").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::super::tests::lobby;
    use super::*;

    fn text(stage: Stage, line: &str) -> Verdict {
        Text.screen(&lobby(), stage, line.as_bytes())
    }

    fn is_join(v: &Verdict, name: &str, n: usize) -> bool {
        matches!(v, Verdict::Join { game, used } if game.info.name == name && *used == n)
    }

    fn reply(v: Verdict) -> String {
        match v {
            Verdict::Reply { bytes, .. } => String::from_utf8(bytes).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_first_byte_tells_the_protocols_apart() {
        // Every PDU's msg_size (4..=264, big-endian) starts with 0x00 or 0x01.
        for size in 4u16..=264 {
            assert_eq!(WireKind::recognise(size.to_be_bytes()[0]), WireKind::Binary);
        }
        // A person at nc or telnet: a command, a stray Enter, a leading blank, a digit.
        for first in [b'G', b'm', b'\n', b'\r', b' ', b'\t', b'1', b'~'] {
            assert_eq!(WireKind::recognise(first), WireKind::Text, "{first:#04x}");
        }
        // What no line of text starts with: the fallback, whose refusal is binary's `error`
        // (0x16, a TLS handshake record, is TLS's: protocols/tls).
        for first in [0x02, 0x07, 0x1b, 0x7f, 0x80, 0xff] {
            assert_eq!(
                WireKind::recognise(first),
                WireKind::FALLBACK,
                "{first:#04x}"
            );
        }
        for bad in ["GA\u{1}ME", "G\u{85}\n", "GAME NAME Zo\u{9f}\n"] {
            match text(Stage::Handshake, bad) {
                Verdict::Close { farewell, .. } => {
                    assert_eq!(farewell, WireKind::refusal(None, ""))
                }
                other => panic!("{bad:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_listing_names_players_that_have_names() {
        use crate::terms::SeatPlayer;
        use reversi_store::{AccountId, Name};
        let running = Running {
            id: 3,
            game: reversi_games::registry::find("reversi").unwrap(),
            seconds: 5,
            players: vec!["127.0.0.1:1".parse().unwrap(), "[::1]:2".parse().unwrap()],
            names: vec![SeatPlayer::Account {
                id: AccountId(1),
                name: Name::new("Alice").unwrap(),
                rating: None,
            }],
        };
        let guest = Running {
            names: vec![
                SeatPlayer::Anonymous,
                SeatPlayer::Guest(Name::new("bob").unwrap()),
            ],
            ..running.clone()
        };
        assert_eq!(
            String::from_utf8(listing(&[running, guest])).unwrap(),
            "GAME SESSION 3 Reversi 5 Alice@127.0.0.1:1 [::1]:2\n\
             GAME SESSION 3 Reversi 5 127.0.0.1:1 bob~@[::1]:2\n\
             GAME SESSIONS 2\n"
        );
    }

    #[test]
    fn text_requests_before_a_game() {
        assert_eq!(text(Stage::Handshake, "GAME TYPE"), Verdict::Wait);
        assert!(is_join(
            &text(Stage::Handshake, "GAME TYPE tictactoe\n"),
            "tictactoe",
            20
        ));
        assert!(is_join(
            &text(Stage::Handshake, "game type Reversi\r\nMOVE d3\n"),
            "reversi",
            19
        ));
        assert_eq!(
            reply(text(Stage::Handshake, "GAME LIST\n")),
            "GAME SESSION 7 TicTacToe 3 127.0.0.1:1 127.0.0.1:2\n\
             GAME SESSION 9 FoxesDolphins 1 127.0.0.1:1 127.0.0.1:2\n\
             GAME SESSIONS 2\n"
        );
        assert_eq!(
            text(Stage::Handshake, "GAME WATCH 7\n"),
            Verdict::Watch { id: 7, used: 13 }
        );
        assert!(reply(text(Stage::Handshake, "GAME WATCH 8\n"))
            .starts_with("ERROR no game 8 is running"));
        assert_eq!(text(Stage::Queued, "GAME QUIT\n"), Verdict::Leave);
        let token = "0P9QK3M2X9AV0C4TZP8RWD5NHJ6";
        assert!(matches!(
            text(Stage::Handshake, &format!("game resume {token}\n")),
            Verdict::Resume { used: 40, .. }
        ));
        assert!(
            reply(text(Stage::Queued, &format!("GAME RESUME {token}\n")))
                .starts_with("ERROR waiting for a game already")
        );
        assert_eq!(
            loggable(&format!("GAME RESUME {token}")),
            "GAME RESUME 0P9…"
        );
        assert_eq!(loggable("MOVE d3"), "MOVE d3");
        assert!(reply(text(Stage::Handshake, "GAME TYPE chess\n"))
            .starts_with("ERROR no game \"chess\" here; games: reversi tictactoe"));
        assert!(reply(text(Stage::Handshake, "MOVE 1 1 1\n")).starts_with("ERROR not in a game"));
        assert!(reply(text(Stage::Queued, "MOVE 1 1 1\n"))
            .starts_with("ERROR the game has not started"));
        assert!(reply(text(Stage::Handshake, "HELLO\n")).starts_with("ERROR unknown command"));
        assert!(reply(text(Stage::Handshake, "1234\n")).starts_with("ERROR unknown command"));
        assert!(
            reply(text(Stage::Handshake, "GAME VERSION\n")).starts_with("GAME VERSION 1 reversid")
        );
        let long = "G".repeat(reversi_text::MAX_LINE);
        assert!(matches!(
            text(Stage::Handshake, &long),
            Verdict::Close { note: Some(_), .. }
        ));
    }

    #[test]
    fn blank_lines_and_leading_blanks_are_what_a_person_types() {
        assert_eq!(text(Stage::Handshake, "\n"), Verdict::reply(Vec::new(), 1));
        assert_eq!(
            text(Stage::Handshake, " \t\r\n"),
            Verdict::reply(Vec::new(), 4)
        );
        assert!(reply(text(Stage::Handshake, " GAME LIST\r\n")).ends_with("GAME SESSIONS 2\n"));
        assert!(is_join(
            &text(Stage::Handshake, "\t game type tictactoe\n"),
            "tictactoe",
            22
        ));
    }

    #[test]
    fn refusals_and_waits_are_lines() {
        assert_eq!(Text.refusal("full"), b"ERROR full\n");
        assert_eq!(Text.waiting(1).unwrap(), b"GAME WAITING 1\n");
        assert_eq!(Text.news("full").unwrap(), b"GAME NEWS full\n");
    }
}
