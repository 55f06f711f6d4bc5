//! The client side of reversid, as a library: the machines that speak its two
//! protocols, free of sockets and terminals, and the small drivers that run
//! them over TCP. The `reversi` binary is a user interface over this crate;
//! another program can link it to play, watch or write a bot.
//!
//! - [`state`]: the binary Reversi protocol's GameClient (spec/PROTOCOL.md
//!   §9.3), driven by [`driver::Driver`] over [`connection`].
//! - [`text`]: the text protocol of spec/TEXT-PROTOCOL.md for every game:
//!   [`text::Client`] keeps the board exactly as the server's `DRAW` lines
//!   describe it, whose turn it is, and the result; [`text::Driver`] runs it
//!   over a line-based TCP connection.
//! - [`bots`]: a computer player for any game a server offers, and
//!   [`drawn::DrawnGame`], a game known only by its drawing, for players
//!   that read the board.
//!
//! Both machines have the same shape: feed an event, get back what to do.
//!
//! ```
//! use reversi_client::state::{Action, Command, Event, State};
//! use reversi_client::text::{self, Request};
//!
//! // Binary Reversi: a user's connect asks the driver to open the connection.
//! let (state, actions) = State::Disconnected.step(Event::User(Command::Connect));
//! assert_eq!(state, State::Disconnected);
//! assert_eq!(actions, vec![Action::Open]);
//!
//! // Text protocol: joining a game opens the connection, then sends GAME TYPE.
//! let mut client = text::Client::new();
//! let actions = client.handle(text::Event::User(Request::Join("tictactoe".into())));
//! assert_eq!(actions, vec![text::Action::Open]);
//! let actions = client.handle(text::Event::Opened(Ok(())));
//! assert_eq!(actions, vec![text::Action::Send(text::ClientMessage::parse("GAME TYPE tictactoe").unwrap())]);
//! ```

pub mod bots;
pub mod connection;
pub mod drawn;
pub mod driver;
pub mod exit;
pub mod state;
pub mod step;
pub mod text;
pub mod transport;
