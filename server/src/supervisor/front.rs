//! The front door: which protocol a new connection speaks (from its first
//! byte), and what its requests before a game ask of the supervisor. It
//! knows the protocols' handshakes, never a game's rules.
//!
//! A binary Reversi client starts with `connect` (`00 04 00 00`); a text
//! client with a line (`GAME LIST`, or a person's stray Enter or ` GAME`).
//! A connection is text when its first line is printable ASCII, an empty one
//! included; anything else is judged as binary, so garbage gets the binary
//! `error`. Every PDU starts with 0x00 or 0x01 (its msg_size is 4..=264),
//! never a text byte, so no binary client is ever taken for text.
//! On a seed listener the protocol is the listener's: seed 002's clients
//! start with `PBJ` (a player) or `QBJ` (a viewer). A text connection whose
//! first bytes are `GET ` is an HTTP request instead ([`web`]): for the page, or
//! to become a WebSocket that carries the text protocol.

mod web;

pub use web::lines_for;

use log::debug;
use reversi_games::foxes;
use reversi_games::registry::Module;
use reversi_pdu::{decode, Direction, Pdu, Status};
use reversi_text::{ClientMessage, ServerMessage, MAX_LINE};

use crate::wire::seed002::{Notice, Request};
use crate::wire::WireKind;

/// The `error` PDU, sent to binary connections (and to a connection refused before
/// its first byte: spec/PROTOCOL.md §8.2 already promises it).
pub const BINARY_REFUSAL: [u8; 4] = [0x00, 0x04, 0xff, 0xff];

/// Where a connection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Nothing accepted yet: looking for a request.
    Handshake,
    /// Waiting for a game: looking for a goodbye, or requests it may make meanwhile.
    Queued,
}

/// The verdict on the bytes a waiting connection has sent so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Incomplete: read more.
    Wait,
    /// Join the queue of `game`; `used` bytes were the request.
    Join { game: &'static Module, used: usize },
    /// Answer with `reply` and carry on; `used` bytes were the request.
    Reply { reply: Vec<u8>, used: usize },
    /// List the running games; `used` bytes were the request.
    List { used: usize },
    /// Watch game `id`; `used` bytes were the request.
    Watch { id: u64, used: usize },
    /// Watch the newest running game of `game` (a seed client names no game); when
    /// none runs, send `none` and close. `used` bytes were the request.
    WatchGame {
        game: &'static Module,
        used: usize,
        none: Vec<u8>,
    },
    /// The client leaves: close it, send nothing.
    Left,
    /// Send these bytes and close (an HTTP response, a WebSocket close).
    Respond(Vec<u8>),
    /// The HTTP request was a WebSocket upgrade: send `response` (as it is); from byte
    /// `used` on the connection speaks [`WireKind::WebSocket`].
    Upgrade { response: Vec<u8>, used: usize },
    /// Turn it away: send [`refusal`] and close. The string says why.
    Refused(String),
    /// It looked like text but is not: turn it away as a binary connection.
    NotText(String),
}

/// The games this server plays and how to reach them.
pub struct Front {
    games: Vec<&'static Module>,
}

impl Front {
    pub fn new(games: Vec<&'static Module>) -> Front {
        Front { games }
    }

    pub fn games(&self) -> &[&'static Module] {
        &self.games
    }

    /// The protocol of a connection whose first byte is `first`: text when it may
    /// start a line of text (the rest of that line is checked by [`first_line`]).
    pub fn wire_of(first: u8) -> WireKind {
        if is_text(first) || first == b'\n' {
            WireKind::Text
        } else {
            WireKind::Binary
        }
    }

    fn game(&self, name: &str) -> Option<&'static Module> {
        self.games.iter().copied().find(|m| {
            m.info.name.eq_ignore_ascii_case(name) || m.info.wire_type.eq_ignore_ascii_case(name)
        })
    }

    fn names(&self) -> String {
        let names: Vec<&str> = self.games.iter().map(|m| m.info.name).collect();
        names.join(" ")
    }

    /// Judges the bytes a waiting connection has sent so far.
    pub fn screen(&self, wire: WireKind, stage: Stage, input: &[u8]) -> Verdict {
        match wire {
            WireKind::Binary => self.screen_binary(stage, input),
            WireKind::Text if stage == Stage::Handshake && input.starts_with(b"GET ") => {
                self.screen_http(input)
            }
            WireKind::WebSocket => self.screen_websocket(stage, input),
            // A seed 000 client is queued on arrival; while it waits it is a text client.
            WireKind::Text | WireKind::Seed000 => self.screen_text(stage, input),
            WireKind::Seed002 => self.screen_seed002(stage, input),
        }
    }

    fn screen_binary(&self, stage: Stage, input: &[u8]) -> Verdict {
        let (pdu, used) = match decode(input, Direction::ClientToServer) {
            Ok(Status::Partial) => return Verdict::Wait,
            Ok(Status::Complete(found)) => found,
            Err(e) => return Verdict::Refused(format!("malformed PDU: {e}")),
        };
        debug!("<- {pdu}");
        match (stage, pdu) {
            (Stage::Handshake, Pdu::Connect) => match self.game("reversi") {
                Some(game) => Verdict::Join { game, used },
                None => Verdict::Refused("this server does not play reversi".to_owned()),
            },
            (Stage::Handshake, other) => Verdict::Refused(format!("{other} instead of connect")),
            (Stage::Queued, Pdu::Quit | Pdu::Error) => Verdict::Left,
            (Stage::Queued, other) => {
                Verdict::Refused(format!("{other} while waiting for an opponent"))
            }
        }
    }

    fn screen_text(&self, stage: Stage, input: &[u8]) -> Verdict {
        let (line, used) = match first_line(input) {
            Ok(found) => found,
            Err(verdict) => return verdict,
        };
        let line = line.as_str();
        let error = |why: String| Verdict::Reply {
            reply: line_of(&ServerMessage::Error { why }),
            used,
        };
        let message = match ClientMessage::parse(line) {
            Ok(message) => message,
            Err(reversi_text::ParseError::Empty) => {
                return Verdict::Reply {
                    reply: Vec::new(),
                    used,
                }
            }
            Err(e) => return error(e.to_string()),
        };
        match (stage, message) {
            (Stage::Handshake, ClientMessage::Join { game }) => match self.game(&game) {
                Some(game) => Verdict::Join { game, used },
                None => error(format!("no game {game:?} here; games: {}", self.names())),
            },
            (Stage::Queued, ClientMessage::Join { .. } | ClientMessage::Watch { .. }) => {
                error("waiting for a game already (GAME QUIT to leave the queue)".to_owned())
            }
            (_, ClientMessage::List) => Verdict::List { used },
            (Stage::Handshake, ClientMessage::Watch { id }) => Verdict::Watch { id, used },
            (_, ClientMessage::Version) => Verdict::Reply {
                reply: line_of(&ServerMessage::Version {
                    version: reversi_text::VERSION,
                    server: format!("reversid {}", env!("CARGO_PKG_VERSION")),
                }),
                used,
            },
            (_, ClientMessage::Quit) => Verdict::Left,
            (Stage::Handshake, _) => error(format!(
                "not in a game: GAME TYPE <game> first; games: {}",
                self.names()
            )),
            (Stage::Queued, _) => error("the game has not started".to_owned()),
        }
    }

    /// Seed 002 (Foxes & Dolphins): a player's join queues it for foxes, a viewer's
    /// join watches the newest foxes game. While queued the seed's client has nothing
    /// to say (it waits for its team); whatever it sends is dropped.
    fn screen_seed002(&self, stage: Stage, input: &[u8]) -> Verdict {
        let (line, used) = match first_line(input) {
            Ok(found) => found,
            Err(Verdict::NotText(why)) => return Verdict::Refused(why),
            Err(verdict) => return verdict,
        };
        let nothing = Verdict::Reply {
            reply: Vec::new(),
            used,
        };
        if line.is_empty() {
            return nothing;
        }
        let Some(game) = self.game(foxes::INFO.name) else {
            return Verdict::Refused("this server does not play foxes".to_owned());
        };
        match (stage, Request::parse(&line)) {
            (Stage::Handshake, Ok(Request::JoinPlayer)) => Verdict::Join { game, used },
            (Stage::Handshake, Ok(Request::JoinViewer)) => Verdict::WatchGame {
                game,
                used,
                none: Notice::Rejected { viewer: true }.line(),
            },
            (Stage::Handshake, Ok(_)) => {
                Verdict::Refused(format!("{line} before joining (PBJ, or QBJ to watch)"))
            }
            (Stage::Handshake, Err(why)) => Verdict::Refused(why),
            (Stage::Queued, _) => {
                debug!("dropped while waiting for a game: {line}");
                nothing
            }
        }
    }
}

/// The first whole line of `input` (without its end) and the bytes it takes, or the
/// verdict while there is none: wait for more, or turn away what is not a line of text.
fn first_line(input: &[u8]) -> Result<(String, usize), Verdict> {
    let window = &input[..input.len().min(MAX_LINE)];
    if let Some(bad) = window
        .iter()
        .take_while(|&&b| b != b'\n')
        .find(|&&b| !is_text(b))
    {
        return Err(Verdict::NotText(format!("byte {bad:#04x} in a text line")));
    }
    let Some(end) = window.iter().position(|&b| b == b'\n') else {
        return Err(if input.len() >= MAX_LINE {
            Verdict::Refused(format!("a line longer than {MAX_LINE} bytes"))
        } else {
            Verdict::Wait
        });
    };
    let line = String::from_utf8_lossy(&input[..end]);
    let line = line.trim_end_matches('\r').to_owned();
    debug!("<- {line}");
    Ok((line, end + 1))
}

/// Whether `byte` may stand in a line of text (before its LF): printable ASCII, tab, CR.
fn is_text(byte: u8) -> bool {
    matches!(byte, b' '..=b'~' | b'\t' | b'\r')
}

/// A server message as the bytes of one line.
pub fn line_of(message: &ServerMessage) -> Vec<u8> {
    format!("{message}\n").into_bytes()
}

/// What a refused connection is sent before it is closed.
pub fn refusal(wire: Option<WireKind>, why: &str) -> Vec<u8> {
    match wire {
        Some(WireKind::Text | WireKind::Seed000) => line_of(&ServerMessage::Error {
            why: why.to_owned(),
        }),
        // The seed's only refusal: "R for rejected if the player can not join the game".
        Some(WireKind::Seed002) => Notice::Rejected { viewer: false }.line(),
        Some(WireKind::WebSocket) => web::refusal(why),
        Some(WireKind::Binary) | None => BINARY_REFUSAL.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_games::registry;

    fn front() -> Front {
        Front::new(registry::all().iter().collect())
    }

    fn binary(stage: Stage, bytes: &[u8]) -> Verdict {
        front().screen(WireKind::Binary, stage, bytes)
    }

    fn text(stage: Stage, line: &str) -> Verdict {
        front().screen(WireKind::Text, stage, line.as_bytes())
    }

    fn is_join(v: &Verdict, name: &str, n: usize) -> bool {
        matches!(v, Verdict::Join { game, used } if game.info.name == name && *used == n)
    }

    #[test]
    fn the_first_byte_tells_the_protocols_apart() {
        // Every PDU's msg_size (4..=264, big-endian) starts with 0x00 or 0x01.
        for size in 4u16..=264 {
            assert_eq!(Front::wire_of(size.to_be_bytes()[0]), WireKind::Binary);
        }
        // A person at nc or telnet: a command, a stray Enter, a leading blank, a digit.
        for first in [b'G', b'm', b'\n', b'\r', b' ', b'\t', b'1', b'~'] {
            assert_eq!(Front::wire_of(first), WireKind::Text, "{first:#04x}");
        }
        // What no line of text starts with: binary, whose refusal is the `error` PDU.
        for first in [0x02, 0x07, 0x16, 0x1b, 0x7f, 0x80, 0xff] {
            assert_eq!(Front::wire_of(first), WireKind::Binary, "{first:#04x}");
        }
        assert!(matches!(
            text(Stage::Handshake, "GA\u{1}ME"),
            Verdict::NotText(_)
        ));
        assert!(matches!(
            text(Stage::Handshake, "G\u{e9}\n"),
            Verdict::NotText(_)
        ));
    }

    #[test]
    fn binary_handshake_needs_a_whole_connect() {
        assert_eq!(binary(Stage::Handshake, &[]), Verdict::Wait);
        assert_eq!(binary(Stage::Handshake, &[0, 4, 0]), Verdict::Wait);
        assert!(is_join(
            &binary(Stage::Handshake, &[0, 4, 0, 0, 0, 4]),
            "reversi",
            4
        ));
        for bytes in [
            &[0, 4, 0, 2][..],
            &[0, 4, 0xff, 0xff],
            &[0, 8, 0, 4, 0, 0, 0, 0],
            &[0, 4, 0, 3],
        ] {
            assert!(
                matches!(binary(Stage::Handshake, bytes), Verdict::Refused(_)),
                "{bytes:?}"
            );
        }
    }

    #[test]
    fn queued_binary_clients_may_only_leave() {
        assert_eq!(binary(Stage::Queued, &[0, 4, 0, 2]), Verdict::Left);
        assert_eq!(binary(Stage::Queued, &[0, 4, 0xff, 0xff]), Verdict::Left);
        assert_eq!(binary(Stage::Queued, &[0, 8, 0, 4]), Verdict::Wait);
        assert!(matches!(
            binary(Stage::Queued, &[0, 4, 0, 0]),
            Verdict::Refused(_)
        ));
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
            text(Stage::Handshake, "GAME LIST\n"),
            Verdict::List { used: 10 }
        );
        assert_eq!(
            text(Stage::Handshake, "GAME WATCH 7\n"),
            Verdict::Watch { id: 7, used: 13 }
        );
        assert_eq!(text(Stage::Queued, "GAME QUIT\n"), Verdict::Left);
        let reply = |v: Verdict| match v {
            Verdict::Reply { reply, .. } => String::from_utf8(reply).unwrap(),
            other => panic!("{other:?}"),
        };
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
        let long = "G".repeat(MAX_LINE);
        assert!(matches!(text(Stage::Handshake, &long), Verdict::Refused(_)));
    }

    #[test]
    fn blank_lines_and_leading_blanks_are_what_a_person_types() {
        assert_eq!(
            text(Stage::Handshake, "\n"),
            Verdict::Reply {
                reply: Vec::new(),
                used: 1
            }
        );
        assert_eq!(
            text(Stage::Handshake, " \t\r\n"),
            Verdict::Reply {
                reply: Vec::new(),
                used: 4
            }
        );
        assert_eq!(
            text(Stage::Handshake, " GAME LIST\r\n"),
            Verdict::List { used: 12 }
        );
        assert!(is_join(
            &text(Stage::Handshake, "\t game type tictactoe\n"),
            "tictactoe",
            22
        ));
    }

    #[test]
    fn refusals_speak_the_connections_protocol() {
        assert_eq!(refusal(Some(WireKind::Binary), "x"), BINARY_REFUSAL);
        assert_eq!(refusal(None, "x"), BINARY_REFUSAL);
        assert_eq!(refusal(Some(WireKind::Text), "full"), b"ERROR full\n");
        assert_eq!(refusal(Some(WireKind::Seed002), "full"), b"BPT R\n");
    }

    fn seed002(stage: Stage, line: &str) -> Verdict {
        front().screen(WireKind::Seed002, stage, line.as_bytes())
    }

    #[test]
    fn seed_002_players_join_foxes_and_viewers_watch_it() {
        assert_eq!(seed002(Stage::Handshake, "PBJ"), Verdict::Wait);
        assert!(is_join(&seed002(Stage::Handshake, "PBJ\n"), "foxes", 4));
        // The seed's own client chapter sends PCJ.
        assert!(is_join(
            &seed002(Stage::Handshake, "PCJ\r\nFBM 1 1 1 2\n"),
            "foxes",
            5
        ));
        match seed002(Stage::Handshake, "QBJ\n") {
            Verdict::WatchGame { game, used, none } => {
                assert_eq!((game.info.name, used), ("foxes", 4));
                assert_eq!(none, b"BQT R\n");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            seed002(Stage::Handshake, "\n"),
            Verdict::Reply {
                reply: Vec::new(),
                used: 1
            }
        );
    }

    #[test]
    fn seed_002_clients_that_do_not_join_are_rejected() {
        let refused = |line: &str| match seed002(Stage::Handshake, line) {
            Verdict::Refused(why) => why,
            other => panic!("{line:?}: {other:?}"),
        };
        assert!(refused("FBM 1 1 1 2\n").contains("before joining"));
        assert!(refused("GAME TYPE foxes\n").contains("three letters"));
        assert!(refused("P\u{1}J\n").contains("byte 0x01"));
        assert!(refused(&"P".repeat(MAX_LINE)).contains("longer than"));
        let reversi_only = Front::new(vec![registry::find("reversi").unwrap()]);
        assert_eq!(
            reversi_only.screen(WireKind::Seed002, Stage::Handshake, b"PBJ\n"),
            Verdict::Refused("this server does not play foxes".to_owned())
        );
    }

    #[test]
    fn queued_seed_002_clients_are_not_listened_to() {
        for line in ["FBM 1 1 1 2\n", "PBJ\n", "junk\n"] {
            assert_eq!(
                seed002(Stage::Queued, line),
                Verdict::Reply {
                    reply: Vec::new(),
                    used: line.len()
                }
            );
        }
    }
}
