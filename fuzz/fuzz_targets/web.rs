//! Arbitrary bytes through the browser client's front door (server/src/protocols/web/):
//! the HTTP request screen and the WebSocket frame reader never panic, never
//! claim more bytes than they were given, and a request is answered once whole.

#![no_main]

use libfuzzer_sys::fuzz_target;

// The server is a binary crate: its web modules are compiled in here as they are
// (at the root, where http.rs finds `super::assets`).
#[path = "../../server/src/protocols/web/assets.rs"]
mod assets;
// The writers are the server's; only the reader is fuzzed here.
#[allow(dead_code)]
#[path = "../../server/src/protocols/web/frames.rs"]
mod frames;
#[path = "../../server/src/protocols/web/http.rs"]
mod request;

use request::{Answer, Operator};

/// What http.rs names of the server's metrics module (the rest is not the front door's).
mod metrics {
    pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
}

/// A server that serves no metrics, takes games and serves alone: the page's routes alone.
const OPERATOR: Operator<'static> = Operator {
    metrics: None,
    takes_games: true,
    cluster: None,
};

fuzz_target!(|data: &[u8]| {
    let games: Vec<_> = reversi_games::registry::all().iter().collect();
    let mut input = b"GET ".to_vec();
    input.extend_from_slice(data);
    match request::screen(&input, &games, &OPERATOR) {
        Answer::Wait => assert!(input.len() < request::MAX_HEAD),
        Answer::Respond(response) => assert!(response.starts_with(b"HTTP/1.1 ")),
        Answer::Page(path) => assert!(path.starts_with('/')),
        Answer::Upgrade { response, used } => {
            assert!(used <= input.len());
            assert!(response.starts_with(b"HTTP/1.1 101 "));
        }
    }
    let mut rest = data;
    while let Ok(Some((frame, used))) = frames::next(rest) {
        assert!(used > 0 && used <= rest.len());
        if let frames::Incoming::Text(payload) = frame {
            assert!(payload.len() <= reversi_text::MAX_LINE);
            let _ = frames::line_of(&payload);
        }
        rest = &rest[used..];
    }
});
