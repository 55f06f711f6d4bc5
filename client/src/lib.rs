//! The client side of reversid, as a library: one client for every game,
//! free of sockets and terminals, and the small driver that runs it over
//! TCP with either protocol. The `reversi` binary is a user interface over
//! this crate; another program can link it to play, watch or write a bot.
//!
//! - [`text`]: the game-independent client ([`text::Client`]), driven by
//!   the text protocol's messages (spec/TEXT-PROTOCOL.md): it keeps the board
//!   exactly as the `DRAW` lines describe it, whose turn it is, and the
//!   result. A pure state machine: feed an event, get back what to do.
//! - [`transport`]: how it reaches a server, and [`transport::Driver`],
//!   which runs it there: the text protocol over TCP, or the binary Reversi
//!   protocol (spec/PROTOCOL.md) over TCP, whose PDUs
//!   [`transport::translate`] turns into the same messages and back.
//! - [`bots`]: a computer player for any game a server offers, and
//!   [`drawn::DrawnGame`], a game known only by its drawing, for players
//!   that read the board.
//! - [`follow::Follower`]: a copy of the game kept by its rules, on which a
//!   person's move is checked before it is sent and a bot plays.
//!
//! ```
//! use reversi_client::text::{self, Request};
//!
//! // Joining a game opens the connection, then sends GAME TYPE.
//! let mut client = text::Client::new();
//! let actions = client.handle(text::Event::User(Request::Join("tictactoe".into())));
//! assert_eq!(actions, vec![text::Action::Open]);
//! let actions = client.handle(text::Event::Opened(Ok(())));
//! assert_eq!(actions, vec![text::Action::Send(text::ClientMessage::parse("GAME TYPE tictactoe").unwrap())]);
//! ```

pub mod bots;
pub mod connection;
pub mod drawn;
pub mod exit;
pub mod follow;
pub mod text;
pub mod transport;
