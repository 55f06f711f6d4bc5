//! The GameClient of spec/PROTOCOL.md §9.3 as a pure state machine.
//!
//! [`State::step`] takes the current state and one [`Event`] (a PDU from the
//! server, EOF, a malformed frame, a user command, or the result of opening
//! the connection) and returns the next state and the [`Action`]s the driver
//! must carry out (send a PDU, close, show something, end with an exit code).
//! Nothing here touches a socket or a terminal, so every state and event can
//! be tested on its own.
//!
//! Beyond §9.3 the machine keeps its own board (an engine [`Game`]) built from
//! the `update_board`s, refuses illegal moves locally, and treats an
//! `update_board` or `turn` that contradicts the rules of §7 as a protocol
//! violation (§5.3 and §9.3 allow a client to do so).

use std::fmt;

use reversi_engine::{Game, IllegalMove, Side, Square};
use reversi_pdu::{Colour, Direction, Error as PduError, Pdu, Winner};

pub use crate::exit;

/// A PDU that can reach a client, decoded and owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Incoming {
    /// `error`: the server gives up on this connection.
    Error,
    /// `connect_ok`: paired; this client plays the colour.
    ConnectOk(Colour),
    /// `turn`: this client is the mover.
    Turn,
    /// `place_error`: the last `place` was refused.
    PlaceError,
    /// `update_board`: these squares now hold this colour.
    UpdateBoard {
        /// The colour of the listed squares.
        colour: Colour,
        /// The squares, played square first for a move.
        squares: Vec<Square>,
    },
    /// `winner`: the game is over.
    Winner(Winner),
}

impl Incoming {
    /// The owned form of a decoded PDU. PDUs that only travel from client to
    /// server are malformed for a client (M4), as the codec would say.
    pub fn from_pdu(pdu: &Pdu<'_>) -> Result<Incoming, PduError> {
        Ok(match pdu {
            Pdu::Error => Incoming::Error,
            Pdu::ConnectOk { colour } => Incoming::ConnectOk(*colour),
            Pdu::Turn => Incoming::Turn,
            Pdu::PlaceError => Incoming::PlaceError,
            Pdu::Winner(winner) => Incoming::Winner(*winner),
            Pdu::UpdateBoard(update) => {
                let squares = update.squares.iter().map(Square::from).collect();
                Incoming::UpdateBoard {
                    colour: update.colour,
                    squares,
                }
            }
            Pdu::Connect | Pdu::Quit | Pdu::Place(_) => {
                return Err(PduError::WrongDirection {
                    id: pdu.id(),
                    direction: Direction::ServerToClient,
                })
            }
        })
    }
}

impl fmt::Display for Incoming {
    /// As the codec writes PDUs in logs: `update_board black d3 d4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Incoming::Error => f.write_str("error"),
            Incoming::ConnectOk(colour) => write!(f, "connect_ok {colour}"),
            Incoming::Turn => f.write_str("turn"),
            Incoming::PlaceError => f.write_str("place_error"),
            Incoming::UpdateBoard { colour, squares } => {
                write!(f, "update_board {colour}")?;
                squares.iter().try_for_each(|sq| write!(f, " {sq}"))
            }
            Incoming::Winner(winner) => write!(f, "winner ({winner})"),
        }
    }
}

/// What the user asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Open a connection and ask for a game.
    Connect,
    /// Put a disc on this square.
    Place(Square),
    /// Leave the queue or the game.
    Quit,
}

/// One input to the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A user command.
    User(Command),
    /// The outcome of [`Action::Open`]: connected, or why not.
    Opened(Result<(), String>),
    /// A well-formed PDU from the server.
    Received(Incoming),
    /// A malformed frame from the server (nothing after it is read).
    Malformed(PduError),
    /// The connection reached EOF (closed, reset, or a read or write failed).
    Eof,
}

impl Event {
    /// The event a decoded PDU makes.
    pub fn from_pdu(pdu: &Pdu<'_>) -> Event {
        match Incoming::from_pdu(pdu) {
            Ok(incoming) => Event::Received(incoming),
            Err(err) => Event::Malformed(err),
        }
    }
}

/// A PDU the client sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outgoing {
    /// `connect`.
    Connect,
    /// `quit`.
    Quit,
    /// `place` on a square.
    Place(Square),
    /// `error`: the client saw a protocol violation.
    Error,
}

impl Outgoing {
    /// The PDU to encode.
    pub fn pdu(self) -> Pdu<'static> {
        match self {
            Outgoing::Connect => Pdu::Connect,
            Outgoing::Quit => Pdu::Quit,
            Outgoing::Place(square) => Pdu::Place(square.into()),
            Outgoing::Error => Pdu::Error,
        }
    }
}

/// What the driver must do, in order: open, send a PDU, close, show a
/// [`Notice`], exit.
pub type Action = crate::step::Step<Outgoing, Notice>;

/// Something to tell the user; rendering is the driver's business.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Connected and queued: waiting for an opponent.
    Queued,
    /// Paired; this client plays the colour.
    Paired(Colour),
    /// The board changed (initial position, or a move).
    Board(Session),
    /// The colour has no legal move and passes; the other one plays again.
    Passed(Colour),
    /// `turn`: the user should move.
    YourTurn(Session),
    /// The server answered `place_error` to this move.
    MoveRejected(Square),
    /// A user command was refused without sending anything.
    Refused(Refusal),
    /// `winner`: the game is over.
    GameOver(GameResult),
    /// The server sent `error`; `paired` tells whether a game had started.
    ServerError {
        /// Whether `connect_ok` had been received.
        paired: bool,
    },
    /// The server closed the connection before the game ended.
    ConnectionClosed {
        /// Whether `connect_ok` had been received.
        paired: bool,
    },
    /// The server broke the protocol; the text says what it did wrong.
    ProtocolViolation(String),
    /// The connection could not be opened; the text says why.
    ConnectFailed(String),
    /// The user quit and `quit` was sent; `paired` tells whether a game
    /// had started (it is lost) or the client only left the queue.
    Quit {
        /// Whether `connect_ok` had been received.
        paired: bool,
    },
}

/// Why a user command was refused locally.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No connection.
    NotConnected,
    /// Already connected and waiting for an opponent.
    AlreadyConnecting,
    /// Already in a game.
    InGame,
    /// Still waiting for an opponent: no game yet.
    NoGameYet,
    /// The opponent is to move (or the game is being set up).
    NotYourTurn,
    /// A move was sent and its answer has not arrived yet.
    MovePending,
    /// The move breaks the rules.
    Illegal(IllegalMove),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotConnected => f.write_str("not connected"),
            Refusal::AlreadyConnecting => f.write_str("already connected, waiting for an opponent"),
            Refusal::InGame => f.write_str("already in a game"),
            Refusal::NoGameYet => f.write_str("no game yet: still waiting for an opponent"),
            Refusal::NotYourTurn => f.write_str("not your turn"),
            Refusal::MovePending => f.write_str("your move was sent: wait for the server's answer"),
            Refusal::Illegal(why) => write!(f, "illegal move: {why}"),
        }
    }
}

/// How a game ended, from this client's point of view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// This client's colour.
    pub me: Colour,
    /// What the server announced.
    pub winner: Winner,
    /// This client's discs on the final board.
    pub mine: u32,
    /// The opponent's discs on the final board.
    pub theirs: u32,
    /// Moves played (passes not counted).
    pub moves: usize,
    /// Whether the game ended by the rules (neither side can move); if not,
    /// it ended early: the opponent left, or a move clock ran out.
    pub finished: bool,
    /// The moves, e.g. `f5d6c3`.
    pub transcript: String,
}

impl GameResult {
    /// Whether this client won.
    pub fn won(&self) -> bool {
        self.winner.colour() == Some(self.me)
    }

    /// Whether the game was drawn.
    pub fn drawn(&self) -> bool {
        self.winner == Winner::Draw
    }

    /// The discs as a score, the winner's first ("You lose 40-24"), this
    /// client's first in a draw.
    pub fn score(&self) -> String {
        if self.won() || self.drawn() {
            format!("{}-{}", self.mine, self.theirs)
        } else {
            format!("{}-{}", self.theirs, self.mine)
        }
    }
}

/// One game as this client sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// This client's colour (`me` in §9.3).
    pub me: Colour,
    /// The colour of the most recent move's `update_board` (`last` in §9.3).
    pub last: Option<Colour>,
    /// The board, rebuilt from the `update_board`s.
    pub game: Game,
    /// The square of the most recent move.
    pub last_move: Option<Square>,
}

impl Session {
    fn new(me: Colour) -> Session {
        Session {
            me,
            last: None,
            game: Game::new(),
            last_move: None,
        }
    }

    fn result(&self, winner: Winner) -> GameResult {
        let me = Side::from(self.me);
        GameResult {
            me: self.me,
            winner,
            mine: self.game.count(me),
            theirs: self.game.count(me.opponent()),
            moves: self.game.moves().len(),
            finished: self.game.outcome().is_some(),
            transcript: self.game.transcript(),
        }
    }

    /// Applies a move's `update_board` after checking it against the rules:
    /// the colour must be the side to move, the first square a legal move,
    /// and the other squares exactly the discs it flips.
    fn apply_move(&mut self, colour: Colour, squares: &[Square]) -> Result<(), String> {
        let side = Side::from(colour);
        match self.game.side_to_move() {
            None => return Err(format!("{colour} moved after the game was over")),
            Some(to_move) if to_move != side => {
                return Err(format!("{colour} moved, but {to_move} was to move"))
            }
            Some(_) => {}
        }
        let Some(&played) = squares.first() else {
            return Err("a move with no square".to_string());
        };
        let mut next = self.game.clone();
        let made = next
            .play(played)
            .map_err(|why| format!("{colour} cannot play {played}: {why}"))?;
        let mut expected: Vec<Square> = made.changed().collect();
        let mut listed = squares.to_vec();
        expected.sort();
        listed.sort();
        if expected != listed {
            return Err(format!(
                "{colour} {played} changes {}, but the update lists {}",
                names(&expected),
                names(&listed)
            ));
        }
        self.game = next;
        self.last = Some(colour);
        self.last_move = Some(played);
        Ok(())
    }
}

fn names(squares: &[Square]) -> String {
    let names: Vec<String> = squares.iter().map(Square::to_string).collect();
    names.join(" ")
}

/// The initial position's two `update_board`s (§8.3), in order.
fn initial_update(k: u8) -> (Colour, [&'static str; 2]) {
    if k == 0 {
        (Colour::White, ["d4", "e5"])
    } else {
        (Colour::Black, ["d5", "e4"])
    }
}

fn is_initial_update(k: u8, colour: Colour, squares: &[Square]) -> bool {
    let (want_colour, want) = initial_update(k);
    let mut got: Vec<String> = squares.iter().map(Square::to_string).collect();
    got.sort();
    colour == want_colour && got == want
}

/// The GameClient's states (§9.3), each with the data it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// No connection. Initial state.
    Disconnected,
    /// Connected, `connect` sent; waiting for `connect_ok`.
    Connecting,
    /// `connect_ok` received; `k` initial `update_board`s received (0 or 1).
    Starting {
        /// The game being set up.
        session: Session,
        /// Initial `update_board`s received so far.
        k: u8,
    },
    /// The opponent is to move, or this client waits to learn who moves.
    Waiting(Session),
    /// `turn` received: the user may place.
    MyTurn(Session),
    /// `place` sent for `pending`; waiting for the answer.
    Placing {
        /// The game.
        session: Session,
        /// The square sent.
        pending: Square,
    },
    /// The game is over or the connection is closed; keeps the last game, if any.
    Over(Option<Session>),
}

impl State {
    /// The state's name as in §9.3.
    pub fn name(&self) -> &'static str {
        match self {
            State::Disconnected => "Disconnected",
            State::Connecting => "Connecting",
            State::Starting { .. } => "Starting",
            State::Waiting(_) => "Waiting",
            State::MyTurn(_) => "MyTurn",
            State::Placing { .. } => "Placing",
            State::Over(_) => "Over",
        }
    }

    /// The current (or last) game, if there is one.
    pub fn session(&self) -> Option<&Session> {
        match self {
            State::Disconnected | State::Connecting | State::Over(None) => None,
            State::Starting { session, .. }
            | State::Waiting(session)
            | State::MyTurn(session)
            | State::Placing { session, .. }
            | State::Over(Some(session)) => Some(session),
        }
    }

    fn into_session(self) -> Option<Session> {
        self.session().cloned()
    }

    /// Whether a connection is open (every state but Disconnected and Over).
    pub fn is_connected(&self) -> bool {
        !matches!(self, State::Disconnected | State::Over(_))
    }

    /// What the client was doing, for messages about the server's faults.
    fn doing(&self) -> &'static str {
        match self {
            State::Disconnected | State::Over(_) => "we were not connected",
            State::Connecting => "we were waiting for an opponent (before connect_ok)",
            State::Starting { .. } => "we were receiving the initial position",
            State::Waiting(_) => "we were waiting for the opponent's move",
            State::MyTurn(_) => "it was our turn (no place sent yet)",
            State::Placing { .. } => "our place was waiting for its answer",
        }
    }

    /// The transition function: the next state and what to do.
    pub fn step(self, event: Event) -> (State, Vec<Action>) {
        match event {
            Event::User(command) => self.on_command(command),
            Event::Opened(result) => self.on_opened(result),
            Event::Received(incoming) => self.on_pdu(incoming),
            Event::Malformed(err) => {
                if self.is_connected() {
                    self.violation(format!("malformed PDU: {err}"))
                } else {
                    (self, Vec::new())
                }
            }
            Event::Eof => self.on_eof(),
        }
    }

    fn refuse(self, why: Refusal) -> (State, Vec<Action>) {
        (self, vec![Action::Show(Notice::Refused(why))])
    }

    fn on_command(self, command: Command) -> (State, Vec<Action>) {
        match (command, self) {
            (Command::Connect, state @ (State::Disconnected | State::Over(_))) => {
                (state, vec![Action::Open])
            }
            (Command::Connect, state @ State::Connecting) => {
                state.refuse(Refusal::AlreadyConnecting)
            }
            (Command::Connect, state) => state.refuse(Refusal::InGame),
            (Command::Quit | Command::Place(_), state @ (State::Disconnected | State::Over(_))) => {
                state.refuse(Refusal::NotConnected)
            }
            (Command::Quit, state) => {
                let paired = state.session().is_some();
                (
                    State::Over(state.into_session()),
                    vec![
                        Action::Send(Outgoing::Quit),
                        Action::Close,
                        Action::Show(Notice::Quit { paired }),
                        Action::Exit(exit::OK),
                    ],
                )
            }
            (Command::Place(_), state @ State::Connecting) => state.refuse(Refusal::NoGameYet),
            (Command::Place(_), state @ (State::Starting { .. } | State::Waiting(_))) => {
                state.refuse(Refusal::NotYourTurn)
            }
            (Command::Place(_), state @ State::Placing { .. }) => {
                state.refuse(Refusal::MovePending)
            }
            (Command::Place(square), State::MyTurn(session)) => {
                let mut trial = session.game.clone();
                match trial.play(square) {
                    Err(why) => State::MyTurn(session).refuse(Refusal::Illegal(why)),
                    Ok(_) => (
                        State::Placing {
                            session,
                            pending: square,
                        },
                        vec![Action::Send(Outgoing::Place(square))],
                    ),
                }
            }
        }
    }

    fn on_opened(self, result: Result<(), String>) -> (State, Vec<Action>) {
        if self.is_connected() {
            // Only the driver produces this event, right after Action::Open.
            return (self, Vec::new());
        }
        match result {
            Ok(()) => (
                State::Connecting,
                vec![
                    Action::Send(Outgoing::Connect),
                    Action::Show(Notice::Queued),
                ],
            ),
            Err(why) => (
                State::Disconnected,
                vec![
                    Action::Show(Notice::ConnectFailed(why)),
                    Action::Exit(exit::CONNECT_FAILED),
                ],
            ),
        }
    }

    fn paired(&self) -> bool {
        !matches!(self, State::Connecting)
    }

    fn on_eof(self) -> (State, Vec<Action>) {
        if !self.is_connected() {
            return (self, Vec::new());
        }
        let paired = self.paired();
        (
            State::Over(self.into_session()),
            vec![
                Action::Close,
                Action::Show(Notice::ConnectionClosed { paired }),
                Action::Exit(exit::SERVER_GONE),
            ],
        )
    }

    /// Protocol violation (client): send `error`, close, report, Over.
    fn violation(self, what: String) -> (State, Vec<Action>) {
        (
            State::Over(self.into_session()),
            vec![
                Action::Send(Outgoing::Error),
                Action::Close,
                Action::Show(Notice::ProtocolViolation(what)),
                Action::Exit(exit::PROTOCOL),
            ],
        )
    }

    fn out_of_place(self, incoming: &Incoming) -> (State, Vec<Action>) {
        let what = format!("the server sent {incoming} while {}", self.doing());
        self.violation(what)
    }

    fn on_pdu(self, incoming: Incoming) -> (State, Vec<Action>) {
        if !self.is_connected() {
            // Nothing is read after the connection is closed (§3.5).
            return (self, Vec::new());
        }
        match (self, incoming) {
            (state, Incoming::Error) => {
                let paired = state.paired();
                (
                    State::Over(state.into_session()),
                    vec![
                        Action::Close,
                        Action::Show(Notice::ServerError { paired }),
                        Action::Exit(exit::SERVER_GONE),
                    ],
                )
            }
            (State::Connecting, Incoming::ConnectOk(colour)) => (
                State::Starting {
                    session: Session::new(colour),
                    k: 0,
                },
                vec![Action::Show(Notice::Paired(colour))],
            ),
            (state @ State::Connecting, incoming) => state.out_of_place(&incoming),
            (state, Incoming::Winner(winner)) => {
                let Some(session) = state.into_session() else {
                    // Unreachable: every connected state but Connecting has a session.
                    return (
                        State::Over(None),
                        vec![Action::Close, Action::Exit(exit::OK)],
                    );
                };
                let result = session.result(winner);
                (
                    State::Over(Some(session)),
                    vec![
                        Action::Close,
                        Action::Show(Notice::GameOver(result)),
                        Action::Exit(exit::OK),
                    ],
                )
            }
            (State::Starting { session, k }, Incoming::UpdateBoard { colour, squares }) => {
                if !is_initial_update(k, colour, &squares) {
                    let (want_colour, want) = initial_update(k);
                    let what = format!(
                        "initial update_board {} was update_board {colour} {}, expected update_board {want_colour} {} {}",
                        k + 1,
                        names(&squares),
                        want[0],
                        want[1]
                    );
                    return State::Starting { session, k }.violation(what);
                }
                if k == 0 {
                    (State::Starting { session, k: 1 }, Vec::new())
                } else {
                    let show = Action::Show(Notice::Board(session.clone()));
                    (State::Waiting(session), vec![show])
                }
            }
            (State::Waiting(mut session), Incoming::UpdateBoard { colour, squares })
                if colour != session.me =>
            {
                let mut actions = Vec::new();
                if session.last == Some(colour) {
                    actions.push(Action::Show(Notice::Passed(session.me)));
                }
                if let Err(what) = session.apply_move(colour, &squares) {
                    let incoming = Incoming::UpdateBoard { colour, squares };
                    return State::Waiting(session)
                        .violation(format!("the server sent {incoming}: {what}"));
                }
                actions.push(Action::Show(Notice::Board(session.clone())));
                (State::Waiting(session), actions)
            }
            (State::Waiting(session), Incoming::Turn) => {
                let me = Side::from(session.me);
                match session.game.side_to_move() {
                    Some(side) if side == me => {}
                    Some(side) => {
                        let what = format!("the server sent turn, but {side} is to move");
                        return State::Waiting(session).violation(what);
                    }
                    None => {
                        let what = "the server sent turn after the game was over".to_string();
                        return State::Waiting(session).violation(what);
                    }
                }
                let mut actions = Vec::new();
                if session.last == Some(session.me) {
                    actions.push(Action::Show(Notice::Passed(session.me.opponent())));
                }
                actions.push(Action::Show(Notice::YourTurn(session.clone())));
                (State::MyTurn(session), actions)
            }
            (
                State::Placing {
                    mut session,
                    pending,
                },
                Incoming::UpdateBoard { colour, squares },
            ) if colour == session.me => {
                let played = squares.first().copied();
                let checked = if played != Some(pending) {
                    Err(format!("we placed {pending}"))
                } else {
                    session.apply_move(colour, &squares)
                };
                if let Err(what) = checked {
                    let incoming = Incoming::UpdateBoard { colour, squares };
                    return State::Placing { session, pending }
                        .violation(format!("the server sent {incoming}: {what}"));
                }
                let show = Action::Show(Notice::Board(session.clone()));
                (State::Waiting(session), vec![show])
            }
            (State::Placing { session, pending }, Incoming::PlaceError) => (
                State::MyTurn(session),
                vec![Action::Show(Notice::MoveRejected(pending))],
            ),
            (state, incoming) => state.out_of_place(&incoming),
        }
    }
}

#[cfg(test)]
mod tests;
