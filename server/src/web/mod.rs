//! The browser client's side of the server: HTTP on the one port for the page
//! (spec/TEXT-PROTOCOL.md §15), and the WebSocket frames that carry the text
//! protocol to it. The supervisor screens requests with [`request`]; a game
//! session reads and writes frames through [`crate::wire::websocket`].

pub mod assets;
pub mod frames;
pub mod request;
