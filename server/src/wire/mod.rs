//! Wire adapters: bytes from a connection into [`Input`]s, and the session's
//! [`Event`]s into bytes. One adapter a connection; the session runtime never
//! sees a byte, and an adapter never sees the rules.

pub mod binary;
mod lines;
pub mod seed002;
pub mod text;
pub mod websocket;

use reversi_games::{Action, Cell, GameInfo, Outcome, Standing, Team, Update, Viewer};

use crate::outbox::Outbox;

/// Which adapter a connection speaks, as the supervisor recognised it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum WireKind {
    /// The binary Reversi protocol of spec/PROTOCOL.md.
    Binary,
    /// The text protocol of spec/TEXT-PROTOCOL.md.
    Text,
    /// Seed 000's own protocol: the text protocol's seed messages only, none of its
    /// additions (spec/TEXT-PROTOCOL.md §14), for clients written from the seed alone.
    Seed000,
    /// Seed 002's own line protocol for Foxes & Dolphins (spec/games/foxes.md, "The
    /// seed's line protocol"), for clients written from the seed alone.
    Seed002,
    /// The text protocol in WebSocket messages, for the browser (spec/TEXT-PROTOCOL.md §15).
    WebSocket,
}

impl WireKind {
    pub const ALL: [WireKind; 5] = [
        WireKind::Binary,
        WireKind::Text,
        WireKind::Seed000,
        WireKind::Seed002,
        WireKind::WebSocket,
    ];

    /// A fresh adapter for a connection of this kind.
    pub fn adapter(self) -> Box<dyn Wire> {
        match self {
            WireKind::Binary => Box::new(binary::Binary::new()),
            WireKind::Text => Box::new(text::Text::new()),
            WireKind::Seed000 => Box::new(text::Text::seed_only()),
            WireKind::Seed002 => Box::new(seed002::Seed002::new()),
            WireKind::WebSocket => Box::new(websocket::WebSocket::new()),
        }
    }

    /// Whether a client of this kind joins its listener's game on arrival: seed 000's
    /// clients send nothing before the server speaks; every other kind asks first.
    pub fn joins_on_arrival(self) -> bool {
        self == WireKind::Seed000
    }
}

/// What a client asked for.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Input {
    /// A move or a draw offer, in protocol terms.
    Act(Action),
    /// A move in the game's own notation, for the game to read.
    Notation(String),
    /// The whole board again, as the game started (seed 002's refresh `DBR`); no move.
    Refresh,
    /// The client leaves.
    Quit,
    /// A message that was not understood or is not for now: the client is told, nothing else happens.
    Confused(String),
    /// The client broke the protocol: its last words are [`Event::Violation`], and it forfeits.
    Violation(String),
}

/// What the session tells a client: the one message type from the referee to the
/// wires, already made for its receiver (its view of the board, its standing).
#[derive(Clone, Debug)]
pub enum Event {
    /// A game starts (or a viewer arrives): what it is, who you are, the whole board.
    Start {
        info: &'static GameInfo,
        viewer: Viewer,
        cells: Vec<Cell>,
        id: u64,
    },
    /// The board changed.
    Update(Update),
    /// It is this team's turn (turn-based games).
    Turn(Team),
    /// Your move.
    Ready,
    /// Your action was refused; the game goes on. `again`: it is still your move.
    Illegal { why: String, again: bool },
    /// Your message was not understood or is not for now. `again`: it is still your move.
    Confused { why: String, again: bool },
    /// You broke the protocol; nothing follows.
    Violation(String),
    /// The game is over. `standing` is yours (`None` for a viewer).
    Over {
        outcome: Outcome,
        standing: Option<Standing>,
    },
    /// The game was stopped with no result (fast shutdown).
    Aborted(String),
}

/// A connection's protocol.
pub trait Wire: Send {
    /// Takes bytes as they arrive and appends what they ask for to `inputs`. After a
    /// [`Input::Violation`] it produces nothing more.
    fn receive(&mut self, bytes: &[u8], inputs: &mut Vec<Input>);

    /// Writes `event` for the client, if this protocol has a way to say it.
    fn send(&mut self, event: &Event, out: &mut Outbox);

    /// Writes what the protocol itself owes the client after [`Wire::receive`] (a
    /// WebSocket pong, the echo of its close); most protocols owe nothing.
    fn owed(&mut self, _out: &mut Outbox) {}

    /// Writes the protocol's goodbye, once, before the server closes the connection
    /// (a WebSocket close frame); most protocols just close.
    fn farewell(&mut self, _out: &mut Outbox) {}
}
