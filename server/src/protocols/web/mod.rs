//! The browser's protocol (spec/TEXT-PROTOCOL.md §15): an HTTP request on the
//! one port, for the page or to become a WebSocket; then the text protocol, one
//! line a WebSocket message. The text protocol recognises the request (its
//! first line starts `GET `) and hands it to [`screen_http`].

mod adapter;
mod assets;
mod frames;
mod http;
pub mod pages;

pub use http::response;

use reversi_text::{opening_line, Opening};
use tungstenite::protocol::frame::coding::CloseCode;

use super::{lines, text, Lobby, Protocol, Stage, Verdict, Wire, WireKind};
use frames::Incoming;
use http::Answer;

pub struct Web;

pub use http::Operator;

impl Protocol for Web {
    /// A WebSocket's frames: a message is judged as its line would be on a text
    /// connection, and what the text protocol answers goes back as messages.
    fn screen(&self, lobby: &Lobby<'_>, stage: Stage, input: &[u8]) -> Verdict {
        let (frame, used) = match frames::next(input) {
            Ok(Some(found)) => found,
            Ok(None) => return Verdict::Wait,
            Err(violation) => {
                let mut farewell = error_lines(&violation.why);
                farewell.extend(frames::close(violation.code));
                return Verdict::Close {
                    farewell,
                    note: None,
                };
            }
        };
        let error = |why: &str| Verdict::reply(error_lines(why), used);
        let line = match Message::of(frame) {
            Message::Line(line) => line,
            Message::NotUnderstood(why) => return error(why),
            Message::Ping(payload) => return Verdict::reply(frames::pong(&payload), used),
            Message::Pong(_) => return Verdict::reply(Vec::new(), used),
            Message::Close(payload) => {
                return Verdict::Close {
                    farewell: frames::close_echo(&payload),
                    note: None,
                }
            }
        };
        match opening_line(&line) {
            Opening::Line { text, used: _ } => {
                log::debug!("<- {}", text::loggable(&text));
                match text::answer(lobby, stage, &text, used) {
                    Verdict::Reply { bytes, used, .. } => {
                        Verdict::reply(frames::text_frames(&bytes), used)
                    }
                    other => other,
                }
            }
            Opening::NotText(byte) => error(&lines::not_text(byte)),
            // The line has its end: only its length can keep it from being whole.
            Opening::TooLong | Opening::Incomplete => {
                let why = lines::too_long();
                Verdict::Close {
                    farewell: self.refusal(&why),
                    note: Some(format!("refused: {why}")),
                }
            }
        }
    }

    fn refusal(&self, why: &str) -> Vec<u8> {
        let mut out = error_lines(why);
        out.extend(frames::close(CloseCode::Policy));
        out
    }

    fn waiting(&self, more: u32) -> Option<Vec<u8>> {
        text::Text
            .waiting(more)
            .map(|lines| frames::text_frames(&lines))
    }

    fn news(&self, text: &str) -> Option<Vec<u8>> {
        text::Text
            .news(text)
            .map(|lines| frames::text_frames(&lines))
    }

    fn tell(&self, told: &super::Told) -> Option<Vec<u8>> {
        text::Text
            .tell(told)
            .map(|lines| frames::text_frames(&lines))
    }

    fn adapter(&self) -> Box<dyn Wire> {
        Box::new(adapter::WebSocket::new())
    }
}

/// A browser's text message carrying `line`, as a host writes again the request of a
/// WebSocket waiter it moves to another host of the cluster. Masked as a client's must
/// be; the mask is nil (masks guard proxies' caches, of no matter between two hosts).
pub fn request_frame(line: &str) -> Vec<u8> {
    frames::client_frame(1, line.as_bytes(), [0; 4])
}

/// What a client's WebSocket message is to the text protocol it carries, before a
/// game and in one alike.
enum Message {
    /// A line of text, with its end (one message is one line).
    Line(Vec<u8>),
    /// A message the text protocol cannot take, and why.
    NotUnderstood(&'static str),
    Ping(Vec<u8>),
    Pong(Vec<u8>),
    /// The client closes, with this payload (echoed back).
    Close(Vec<u8>),
}

impl Message {
    fn of(frame: Incoming) -> Message {
        match frame {
            Incoming::Text(payload) => match frames::line_of(&payload) {
                Some(line) => {
                    let mut line = line.to_vec();
                    line.push(b'\n');
                    Message::Line(line)
                }
                None => Message::NotUnderstood(
                    "a message holds one line (send each line as its own message)",
                ),
            },
            Incoming::Binary => {
                Message::NotUnderstood("binary messages are not understood: send text")
            }
            Incoming::Ping(payload) => Message::Ping(payload),
            Incoming::Pong(payload) => Message::Pong(payload),
            Incoming::Close(payload) => Message::Close(payload),
        }
    }
}

/// A connection whose first line starts `GET `: the page, or the upgrade to a
/// WebSocket, after which the connection speaks [`Web`].
pub fn screen_http(lobby: &Lobby<'_>, input: &[u8]) -> Verdict {
    match http::screen(input, lobby.games, &lobby.operator) {
        Answer::Wait => Verdict::Wait,
        Answer::Respond(farewell) => Verdict::Close {
            farewell,
            note: None,
        },
        Answer::Upgrade { response, used } => Verdict::Reply {
            bytes: response,
            used,
            becomes: Some(WireKind::WebSocket),
        },
        Answer::Page(path) => match pages::route(&path) {
            Some(page) => Verdict::Page(page),
            None => Verdict::Close {
                farewell: http::response(
                    "404 Not Found",
                    "text/plain; charset=utf-8",
                    &[],
                    format!("404 Not Found: nothing at {path}\n").as_bytes(),
                ),
                note: None,
            },
        },
    }
}

/// The `ERROR` line that says `why`, as a WebSocket message.
fn error_lines(why: &str) -> Vec<u8> {
    frames::text_frames(&text::error_line(why))
}

#[cfg(test)]
mod tests {
    use super::super::tests::lobby;
    use super::frames::tests::client_frame;
    use super::*;

    fn web(stage: Stage, frame: &[u8]) -> Verdict {
        Web.screen(&lobby(), stage, frame)
    }

    #[test]
    fn a_moved_waiters_request_is_read_as_the_browser_sent_it() {
        match web(Stage::Handshake, &request_frame("GAME TYPE reversi")) {
            Verdict::Join { game, used } => {
                assert_eq!(game.info.name, "reversi");
                assert_eq!(used, 2 + 4 + "GAME TYPE reversi".len());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_message_is_judged_as_its_line_and_answered_in_messages() {
        let frame = client_frame(1, b"GAME TYPE reversi", [1, 2, 3, 4]);
        match web(Stage::Handshake, &frame) {
            Verdict::Join { game, used } => {
                assert_eq!((game.info.name, used), ("reversi", frame.len()))
            }
            other => panic!("{other:?}"),
        }
        let frame = client_frame(1, b"HELLO\r\n", [1, 2, 3, 4]);
        match web(Stage::Handshake, &frame) {
            Verdict::Reply { bytes, used, .. } => {
                assert_eq!(used, frame.len());
                assert_eq!(
                    bytes,
                    frames::text_frames(b"ERROR unknown command \"HELLO\"\n")
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(web(Stage::Handshake, &frame[..3]), Verdict::Wait);
    }

    #[test]
    fn what_is_no_line_is_told_so_and_control_frames_are_answered() {
        let not_text = client_frame(1, "G\u{85}".as_bytes(), [1; 4]);
        let binary = client_frame(2, b"x", [1; 4]);
        for frame in [not_text, binary] {
            match web(Stage::Handshake, &frame) {
                // One unmasked text frame of a short ERROR line.
                Verdict::Reply { bytes, .. } => assert!(bytes[2..].starts_with(b"ERROR ")),
                other => panic!("{other:?}"),
            }
        }
        let ping = client_frame(9, b"hi", [1; 4]);
        assert_eq!(
            web(Stage::Queued, &ping),
            Verdict::reply(frames::pong(b"hi"), ping.len())
        );
        let close = client_frame(8, &[0x03, 0xe8], [1; 4]);
        assert!(matches!(
            web(Stage::Queued, &close),
            Verdict::Close { note: None, .. }
        ));
    }

    #[test]
    fn a_refusal_is_an_error_message_then_a_close() {
        let mut expected = frames::text_frames(b"ERROR full\n");
        expected.extend(frames::close(CloseCode::Policy));
        assert_eq!(Web.refusal("full"), expected);
        assert_eq!(
            Web.waiting(1).unwrap(),
            frames::text_frames(b"GAME WAITING 1\n")
        );
        assert_eq!(
            Web.news("full").unwrap(),
            frames::text_frames(b"GAME NEWS full\n")
        );
    }
}
