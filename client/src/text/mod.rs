//! The game-independent client, for any game and either protocol: a state
//! machine ([`Client`]) driven by the text protocol's messages
//! (spec/TEXT-PROTOCOL.md, the codec of `reversi-text`). The binary Reversi
//! protocol reaches it translated into the same messages; the transports
//! and the driver that runs it are in [`crate::transport`].
//!
//! The client knows no game. It keeps the board exactly as the server's
//! `DRAW SQUARE` and `DRAW PIECE` lines describe it, this client's seat
//! (`GAME TEAM`, or `GAME WATCHING` for a viewer), whose turn it is, whether
//! the server waits for this player's move (`READY`), the moves announced,
//! and the result.
//!
//! ```
//! use reversi_client::text::{Action, Client, ClientMessage, Event, Notice, Request, ServerMessage};
//!
//! let mut client = Client::new();
//! client.handle(Event::User(Request::Join("tictactoe".into())));
//! client.handle(Event::Opened(Ok(())));
//! for line in [
//!     "GAME TYPE TicTacToe",
//!     "GAME BOARD TicTacToeBoard 3 3",
//!     "GAME TEAM 1 X",
//!     "DRAW SQUARE empty 2 2",
//!     "DRAW PIECE x 1",
//!     "READY",
//! ] {
//!     client.handle(Event::Received(ServerMessage::parse(line).unwrap()));
//! }
//! let game = client.game().unwrap();
//! assert_eq!(game.team(), Some(1));
//! assert_eq!(game.board.cell(2, 2).unwrap().piece.as_ref().unwrap().name, "x");
//! assert!(client.may_move());
//!
//! // A move is sent only when the server waits for one.
//! let actions = client.handle(Event::User(Request::Move(vec![(1, 1)])));
//! assert_eq!(actions[0], Action::Send(ClientMessage::parse("MOVE 1 1 1").unwrap()));
//! let actions = client.handle(Event::User(Request::Move(vec![(3, 3)])));
//! assert!(matches!(actions[0], Action::Show(Notice::Refused(_))));
//! ```

mod board;
mod client;
pub mod clock;
pub mod players;
#[cfg(test)]
mod players_tests;
#[cfg(test)]
mod tests;
mod together;
pub mod tournament;

pub use board::{Board, Cell, Piece};
pub use client::{
    Action, Client, Event, Game, Moved, Notice, Over, Refusal, Request, Seat, SessionInfo,
};
pub use players::{Identity, Player, PlayersLine};
pub use reversi_text::{read_code, ClientMessage, ServerMessage, Standing, Terms, TimeControl};
pub use together::{backoff, Challenge, Lost, Offer, Resume};
