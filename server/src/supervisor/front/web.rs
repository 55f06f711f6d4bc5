//! The front door for browsers: an HTTP request (the page, or the upgrade to a
//! WebSocket), then WebSocket messages screened as the text lines they carry.

use tungstenite::protocol::frame::coding::CloseCode;

use super::{line_of, Front, Stage, Verdict};
use crate::web::frames::{self, Incoming};
use crate::web::request::{self, Answer};
use crate::wire::WireKind;
use reversi_text::ServerMessage;

impl Front {
    /// A connection that starts with `GET `.
    pub(super) fn screen_http(&self, input: &[u8]) -> Verdict {
        match request::screen(input, &self.games) {
            Answer::Wait => Verdict::Wait,
            Answer::Respond(response) => Verdict::Respond(response),
            Answer::Upgrade { response, used } => Verdict::Upgrade { response, used },
        }
    }

    /// A WebSocket's first frame: a message is judged as its line would be on a text
    /// connection, and what the text screen answers goes back as messages.
    pub(super) fn screen_websocket(&self, stage: Stage, input: &[u8]) -> Verdict {
        let (frame, used) = match frames::next(input) {
            Ok(Some(found)) => found,
            Ok(None) => return Verdict::Wait,
            Err(violation) => {
                let mut bytes = refusal_lines(&violation.why);
                bytes.extend(frames::close(violation.code));
                return Verdict::Respond(bytes);
            }
        };
        let reply = |reply: Vec<u8>| Verdict::Reply { reply, used };
        let error = |why: &str| reply(refusal_lines(why));
        let payload = match frame {
            Incoming::Text(payload) => payload,
            Incoming::Binary => return error("binary messages are not understood: send text"),
            Incoming::Ping(payload) => return reply(frames::pong(&payload)),
            Incoming::Pong => return reply(Vec::new()),
            Incoming::Close(payload) => return Verdict::Respond(frames::close_echo(&payload)),
        };
        let Some(line) = frames::line_of(&payload) else {
            return error("a message holds one line (send each line as its own message)");
        };
        let mut line = line.to_vec();
        line.push(b'\n');
        match self.screen_text(stage, &line) {
            Verdict::Reply { reply: lines, .. } => reply(frames::text_frames(&lines)),
            Verdict::Join { game, .. } => Verdict::Join { game, used },
            Verdict::List { .. } => Verdict::List { used },
            Verdict::Watch { id, .. } => Verdict::Watch { id, used },
            Verdict::WatchGame { game, none, .. } => Verdict::WatchGame {
                game,
                used,
                none: frames::text_frames(&none),
            },
            Verdict::NotText(why) => error(&why),
            // The line is whole, so the text screen never waits; what else it says stands.
            other => other,
        }
    }
}

/// What a refused WebSocket is sent: the reason as an `ERROR` message, then a close.
pub fn refusal(why: &str) -> Vec<u8> {
    let mut out = refusal_lines(why);
    out.extend(frames::close(CloseCode::Policy));
    out
}

fn refusal_lines(why: &str) -> Vec<u8> {
    frames::text_frames(&line_of(&ServerMessage::Error {
        why: why.to_owned(),
    }))
}

/// Lines the supervisor writes to a waiting connection, as its protocol carries them.
pub fn lines_for(wire: Option<WireKind>, lines: &[u8]) -> Vec<u8> {
    match wire {
        Some(WireKind::WebSocket) => frames::text_frames(lines),
        _ => lines.to_vec(),
    }
}
