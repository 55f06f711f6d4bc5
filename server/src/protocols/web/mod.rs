//! The browser's protocol (spec/TEXT-PROTOCOL.md §15): an HTTP request on the
//! one port, for the page or to become a WebSocket; then the text protocol, one
//! line a WebSocket message. The text protocol recognises the request (its
//! first line starts `GET `) and hands it to [`screen_http`].

mod adapter;
mod assets;
mod frames;
mod http;

use reversi_text::{opening_line, Opening};
use tungstenite::protocol::frame::coding::CloseCode;

use super::{text, Lobby, Protocol, Stage, Verdict, Wire, WireKind};
use frames::Incoming;
use http::Answer;

pub struct Web;

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
        let payload = match frame {
            Incoming::Text(payload) => payload,
            Incoming::Binary => return error("binary messages are not understood: send text"),
            Incoming::Ping(payload) => return Verdict::reply(frames::pong(&payload), used),
            Incoming::Pong => return Verdict::reply(Vec::new(), used),
            Incoming::Close(payload) => {
                return Verdict::Close {
                    farewell: frames::close_echo(&payload),
                    note: None,
                }
            }
        };
        let Some(line) = frames::line_of(&payload) else {
            return error("a message holds one line (send each line as its own message)");
        };
        let mut line = line.to_vec();
        line.push(b'\n');
        match opening_line(&line) {
            Opening::Line { text, used: _ } => {
                log::debug!("<- {text}");
                match text::answer(lobby, stage, &text, used) {
                    Verdict::Reply { bytes, used, .. } => {
                        Verdict::reply(frames::text_frames(&bytes), used)
                    }
                    other => other,
                }
            }
            Opening::NotText(byte) => error(&text::not_text(byte)),
            // The line has its end: only its length can keep it from being whole.
            Opening::TooLong | Opening::Incomplete => {
                let why = text::too_long();
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

    fn adapter(&self) -> Box<dyn Wire> {
        Box::new(adapter::WebSocket::new())
    }
}

/// A connection whose first line starts `GET `: the page, or the upgrade to a
/// WebSocket, after which the connection speaks [`Web`].
pub fn screen_http(lobby: &Lobby<'_>, input: &[u8]) -> Verdict {
    match http::screen(input, lobby.games) {
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
    }
}

/// The `ERROR` line that says `why`, as a WebSocket message.
fn error_lines(why: &str) -> Vec<u8> {
    frames::text_frames(&text::error_line(why))
}
