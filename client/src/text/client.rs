//! The text-protocol client as a pure state machine, the same shape as the
//! binary one ([`crate::state`]): [`Client::handle`] takes one [`Event`] (a
//! line from the server, EOF, a user request, the result of opening the
//! connection) and returns the [`Action`]s for the driver. It knows no game:
//! it keeps the board exactly as the `DRAW` lines describe it.

use std::fmt;

use std::time::Duration;

use reversi_text::{ClientMessage, ServerMessage, Standing, Terms, TimeControl};

use super::board::Board;
use super::clock::{Away, Clock, Countdown, Timer, Timing};
use super::players::{Identity, Player, PlayersLine};
use super::together::{self, Challenge, Lost, Offer, Resume};
use super::tournament::TournamentLine;
use crate::exit;

/// What the user (or a program) asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// `GAME TYPE <game>`: queue for a game (opens the connection if needed).
    Join(String),
    /// `GAME LIST`: the running games.
    List,
    /// `GAME WATCH <id>`: watch a running game.
    Watch(u64),
    /// `GAME VERSION`.
    Version,
    /// `MOVE n x1 y1 ...`: the squares of a move.
    Move(Vec<(u8, u8)>),
    /// `MOVE <notation>`: a move in the game's own notation.
    Notation(String),
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    /// `GAME QUIT`, then close.
    Quit,
    /// `GAME INVITE`: create a challenge (opens the connection if needed).
    Invite {
        game: String,
        terms: Terms,
    },
    /// `GAME JOIN`: accept the challenge of this code.
    JoinCode(String),
    /// `GAME LOBBY`: the public challenges.
    Lobby,
    /// `GAME CLAIM WIN` / `GAME CLAIM DRAW`: an opponent did not come back.
    ClaimWin,
    ClaimDraw,
    /// After a game: `GAME OFFER/ACCEPT/DECLINE REMATCH`.
    OfferRematch,
    AcceptRematch,
    DeclineRematch,
    /// `GAME TOURNAMENT PLAY id`: wait for this account's next game of tournament `id`
    /// (opens the connection if needed; signed in first, spec/TOURNAMENTS.md §7).
    Tournament(u64),
}

/// One input to the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    User(Request),
    /// The outcome of [`Action::Open`].
    Opened(Result<(), String>),
    /// A line from the server.
    Received(ServerMessage),
    /// A line from the server that is not a message; the text says why.
    BadLine(String),
    /// The server has sent nothing more for now: a moment to show the board.
    Quiet,
    /// The transport found the server breaking its protocol; the text
    /// names what it sent (the binary transport's PDUs).
    Broken(String),
    /// The transport refused this player's move without sending it; the
    /// text says why (the binary transport knows Reversi's rules).
    Refused(String),
    /// The moves this player may make now, in the game's notation, where
    /// the transport knows the rules (binary Reversi); after `READY`.
    Legal(Vec<String>),
    /// A clock or timer line (`GAME CLOCK`, `GAME TIMER`), read at `at`.
    Timing {
        timing: Timing,
        at: std::time::Instant,
    },
    /// The connection reached EOF (closed, reset, or a read or write failed).
    Eof,
    /// The wait of [`Action::Redial`] is over: try to reconnect.
    Redial,
    /// A players' line (`GAME PLAYER`, `GAME GUEST`, `GAME SIGNEDIN`, …).
    Players(PlayersLine),
    /// A tournament line (`GAME PAIRED`, `GAME BYE`, …).
    Tournament(TournamentLine),
}

/// What the driver must do, in order: open, send a message, close, show
/// a [`Notice`], exit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Open the connection, then feed back [`Event::Opened`].
    Open,
    /// Send a message.
    Send(ClientMessage),
    /// Close the connection.
    Close,
    /// Tell the user something.
    Show(Notice),
    /// This connection is finished: a one-game client ends with this code.
    Exit(u8),
    /// The connection was lost mid-game: wait this long, then feed [`Event::Redial`].
    Redial(Duration),
    /// Send the line that says who this client is (it may hold a token: never log it).
    Identify(Identity),
    /// Send a line the codec of `reversi-text` does not hold (a tournament's).
    SendLine(String),
}

/// One running game, from `GAME SESSION`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionInfo {
    pub id: u64,
    /// The `GAME TYPE` word (`TicTacToe`).
    pub game: String,
    /// Seconds since it started.
    pub seconds: u64,
    /// The players' addresses.
    pub players: Vec<String>,
}

/// Something to tell the user; how is the interface's business.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// `GAME VERSION`.
    Version { version: u32, server: String },
    /// Queued: `more` players are still needed.
    Waiting { more: u32 },
    /// The running games (the whole `GAME LIST` answer).
    Listed(Vec<SessionInfo>),
    /// A game starts; [`Client::game`] has it.
    Started,
    /// The board changed since it was last shown, and its drawing is over:
    /// a message other than `DRAW` followed, or the server paused.
    BoardChanged,
    /// `GAME TURN`: team `k` is to move.
    Turn(u8),
    /// `READY`: the server waits for this player's move.
    YourMove,
    /// `GAME MOVED`.
    Moved { team: u8, notation: String },
    /// `GAME NEWS`.
    News(String),
    /// `GAME CLOCK`: team `team`'s clock shows `ms`.
    Clock { team: u8, ms: u64 },
    /// `GAME TIMER`: `text` in `ms` (0: the timer is stopped).
    Timer { name: String, ms: u64, text: String },
    /// `ERROR` from the server during a game (a refused move).
    ServerRefused(String),
    /// `ERROR` from the server to a request (no such game, no such session):
    /// the connection is closed.
    Denied(String),
    /// `GAME OVER`: `winner` won, or a draw (`None`).
    Over { winner: Option<u8>, why: String },
    /// `RESULT`: this player's result.
    Result { standing: Standing, why: String },
    /// `GAME ABORTED`.
    Aborted(String),
    /// A request refused here, without sending anything.
    Refused(Refusal),
    /// A move refused here by the rules, without sending it; the text says why.
    Illegal(String),
    /// The user quit: `GAME QUIT` was sent; `paired`: a game had started
    /// (its seat given), which quitting resigns.
    Quit { paired: bool },
    /// The server closed the connection; `finished`: after the game's end
    /// (or with no game running), as expected.
    Closed { finished: bool },
    /// The server broke the protocol; the text says how.
    Violation(String),
    /// The connection could not be opened; the text says why.
    ConnectFailed(String),
    /// `GAME CODE`: this client's challenge exists, under `code`.
    Invited {
        code: String,
        seconds: u64,
        game: String,
        terms: Terms,
    },
    /// `GAME LINK`: the web page's link to the challenge.
    Link(String),
    /// `GAME EXPIRED`: the challenge expired unaccepted; the connection is closed.
    Expired(String),
    /// The public challenges (the whole `GAME LOBBY` answer).
    Lobby(Vec<Challenge>),
    /// `GAME TIME`: the game's time control.
    Time(TimeControl),
    /// `GAME RESUMED`: back in game `id` after a lost connection.
    Resumed(u64),
    /// The connection was lost mid-game; reconnecting, `left` of the grace remains.
    Reconnecting { left: Duration },
    /// `GAME AWAY`: team `team`'s player dropped; its seat is held `ms` more (0: over).
    Away { team: u8, ms: u64 },
    /// `GAME BACK`: team `team`'s player is back.
    Back(u8),
    /// `GAME OFFERED DRAW/REMATCH`: team `team`'s offer stands.
    Offered { team: u8, what: Offer },
    /// `GAME GUEST` / `GAME SIGNEDIN`: the server knows this client as `name`
    /// (`bob~` for a guest).
    Identified(String),
    /// A move of the game before a resume (`GAME MOVED` after `GAME RESUMED`):
    /// not a new move, but the move list made whole again.
    Replayed { team: u8, notation: String },
    /// Waiting for a tournament's game: `GAME PAIRED` (the game is called) or `GAME BYE`.
    Called(TournamentLine),
}

/// Why a request was refused locally.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    NotConnected,
    /// A request is waiting for its answer, or a game is on.
    Busy,
    /// No game has started.
    NoGame,
    /// Watching: viewers cannot play.
    Watching,
    /// The server has not said READY.
    NotYourMove,
    /// The game is over.
    GameOver,
    /// A move must name at least one square.
    EmptyMove,
    /// A rematch is for after the game.
    NotOver,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refusal::NotConnected => "not connected",
            Refusal::Busy => "busy: the last request has not been answered, or a game is on",
            Refusal::NoGame => "no game yet",
            Refusal::Watching => "you are watching: viewers cannot play",
            Refusal::NotYourMove => "not your turn yet",
            Refusal::GameOver => "the game is over",
            Refusal::EmptyMove => "a move needs at least one square",
            Refusal::NotOver => "the game is not over: a rematch comes after it",
        })
    }
}

/// Who this client is in the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seat {
    /// `GAME TEAM k name`: plays for team `team` (from 1).
    Player { team: u8, name: String },
    /// `GAME WATCHING id`.
    Viewer { id: u64 },
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Over {
    /// The winning team, or `None` for a draw.
    pub winner: Option<u8>,
    pub why: String,
    /// This player's `RESULT`, once it came (players only).
    pub result: Option<(Standing, String)>,
}

/// A move as `GAME MOVED` told it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moved {
    pub team: u8,
    pub notation: String,
}

/// One game as this client sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// The `GAME TYPE` word.
    pub game: String,
    pub board: Board,
    pub seat: Seat,
    /// The team to move (`GAME TURN`); `None` before the first and after the end.
    pub turn: Option<u8>,
    /// The server said READY and no move was sent since.
    pub ready: bool,
    /// The moves so far.
    pub moves: Vec<Moved>,
    /// Squares drawn since the last move was announced (what that move changed).
    pub changed: Vec<(u8, u8)>,
    pub over: Option<Over>,
    /// Games started on this connection (a rematch counts up).
    pub round: u32,
    /// Every team's name, team 1 first (`GAME TEAMS`); empty if the server
    /// did not say.
    pub teams: Vec<String>,
    /// The moves this player may make now, where the transport knows them
    /// ([`Event::Legal`]); `None` otherwise, and once a move is sent.
    pub legal: Option<Vec<String>>,
    /// Each team's clock the server has told of (`GAME CLOCK`), by team.
    pub clocks: Vec<Clock>,
    /// The game's own countdowns (`GAME TIMER`), in the order first told.
    pub timers: Vec<Timer>,
    /// The time control (`GAME TIME`), once told.
    pub control: Option<TimeControl>,
    /// The teams whose player dropped, with the grace each has left (`GAME AWAY`).
    pub away: Vec<Away>,
    /// The team whose rematch offer stands (`GAME OFFERED REMATCH`).
    pub rematch_offer: Option<u8>,
    /// Who sits in each seat (`GAME PLAYER`), team 1 first; empty if the server did not say.
    pub players: Vec<Player>,
    /// After `GAME RESUMED`, until the board is drawn: the moves told are the game's
    /// moves so far, and the drawing is the position, not a change.
    pub replaying: bool,
}

impl Game {
    /// The name of team `team` (from 1), if the server gave it.
    pub fn team_name(&self, team: u8) -> Option<&str> {
        let index = usize::from(team).checked_sub(1)?;
        self.teams.get(index).map(String::as_str)
    }

    /// The team whose clock runs: the one to move, while the game is on.
    pub fn running_clock(&self) -> Option<u8> {
        self.turn.filter(|_| self.over.is_none())
    }

    /// Takes note of a clock or timer line read at `at`.
    fn time(&mut self, timing: Timing, at: std::time::Instant) -> Option<Notice> {
        if self.over.is_some() && !matches!(timing, Timing::Timer { .. }) {
            // No clock runs after the end; a timer may (the rematch window).
            return None;
        }
        Some(match timing {
            Timing::Clock { team: 0, .. } => return None,
            Timing::Away { team, ms } => {
                self.away.retain(|a| a.team != team);
                let time = Countdown { ms, since: at };
                self.away.push(Away { team, time });
                Notice::Away { team, ms }
            }
            Timing::Clock { team, ms } => {
                let time = Countdown { ms, since: at };
                match self.clocks.iter_mut().find(|c| c.team == team) {
                    Some(clock) => clock.time = time,
                    None => {
                        self.clocks.push(Clock { team, time });
                        self.clocks.sort_by_key(|c| c.team);
                    }
                }
                Notice::Clock { team, ms }
            }
            Timing::Timer { name, ms, text } => {
                let time = Countdown { ms, since: at };
                self.timers.retain(|t| t.name != name);
                if ms > 0 {
                    self.timers.push(Timer {
                        name: name.clone(),
                        text: text.clone(),
                        time,
                    });
                }
                Notice::Timer { name, ms, text }
            }
        })
    }

    /// Who plays for team `team`, as the board screens show it (`Alice (1532)`,
    /// `bob~ and carol~` for a team of two); `None` if the server did not say.
    pub fn player_names(&self, team: u8) -> Option<String> {
        let names: Vec<String> = (self.players.iter())
            // An anonymous player has nothing to add to the team's name.
            .filter(|p| p.team == team && p.name.is_some())
            .map(ToString::to_string)
            .collect();
        (!names.is_empty()).then(|| names.join(" and "))
    }

    /// This client's team, if it plays.
    pub fn team(&self) -> Option<u8> {
        match self.seat {
            Seat::Player { team, .. } => Some(team),
            Seat::Viewer { .. } => None,
        }
    }
}

/// Where the conversation is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Disconnected,
    /// The connection is being opened for this request.
    Opening(Request),
    /// Connected, nothing asked.
    Idle,
    /// `GAME LIST` sent; the sessions so far.
    Listing(Vec<SessionInfo>),
    /// The identity line was sent on a new connection; the request waits for its answer.
    SigningIn(Request),
    /// `GAME TYPE` sent; queued once `more` is known.
    Joining {
        more: Option<u32>,
    },
    /// `GAME WATCH` sent.
    AskedToWatch,
    /// `GAME TOURNAMENT PLAY` sent: waiting for a game of this tournament.
    Called(u64),
    /// `GAME TYPE` received: the board and the seat are on their way.
    Starting {
        game: String,
        board: Option<Board>,
        teams: Vec<String>,
        round: u32,
    },
    Playing(Game),
    /// `GAME INVITE` sent; the code once told.
    Inviting,
    /// `GAME LOBBY` sent; the challenges so far.
    Lobbying(Vec<Challenge>),
    /// The connection was lost mid-game: reconnecting (§7.4 of the design).
    Lost(Box<Lost>),
    /// The connection is closed; the last game, if any.
    Closed(Option<Game>),
}

/// The text-protocol client.
#[derive(Clone, Debug)]
pub struct Client {
    pub(super) phase: Phase,
    /// The board changed since the last [`Notice::BoardChanged`].
    dirty: bool,
    /// This seat's resume token and grace (`GAME TOKEN`), kept across connections.
    pub(super) resume: Option<Resume>,
    /// The moves of a game being taken back, given back to it once its board is
    /// drawn again (the resume sequence sends the board, not the moves).
    pub(super) carried: Vec<Moved>,
    /// Who to say this client is on each new connection (not on a resume: the seat is its token's).
    identity: Option<Identity>,
    /// `GAME PLAYER` lines of a game starting, given to it when it is seated.
    seating: Vec<Player>,
}

impl Default for Client {
    fn default() -> Client {
        Client::new()
    }
}

impl Client {
    /// A disconnected client.
    pub fn new() -> Client {
        Client {
            phase: Phase::Disconnected,
            dirty: false,
            resume: None,
            carried: Vec::new(),
            identity: None,
            seating: Vec::new(),
        }
    }

    /// A client that says who it is on each connection before its first request.
    pub fn with_identity(mut self, identity: Option<Identity>) -> Client {
        self.identity = identity;
        self
    }

    /// The game being played or watched (or the last one, once closed).
    pub fn game(&self) -> Option<&Game> {
        match &self.phase {
            Phase::Playing(game) | Phase::Closed(Some(game)) => Some(game),
            Phase::Lost(lost) => Some(&lost.game),
            _ => None,
        }
    }

    /// The resume token and grace of this client's seat, once told.
    pub fn resume(&self) -> Option<&Resume> {
        self.resume.as_ref()
    }

    /// Whether the connection was lost mid-game and is being taken back.
    pub fn is_reconnecting(&self) -> bool {
        matches!(self.phase, Phase::Lost(_))
    }

    /// Whether this client's challenge waits for a friend.
    pub fn is_inviting(&self) -> bool {
        matches!(self.phase, Phase::Inviting)
    }

    /// Whether a connection is open.
    pub fn is_connected(&self) -> bool {
        match &self.phase {
            Phase::Disconnected | Phase::Closed(_) => false,
            Phase::Lost(lost) => lost.resuming,
            _ => true,
        }
    }

    /// Whether this client may send a move now.
    pub fn may_move(&self) -> bool {
        matches!(&self.phase, Phase::Playing(g) if g.ready && g.over.is_none())
    }

    /// Asked to join a game that has not started: in the queue, or about
    /// to be.
    pub fn is_joining(&self) -> bool {
        matches!(self.phase, Phase::Joining { .. })
    }

    /// Queued and still waiting for players.
    pub fn waiting_for(&self) -> Option<u32> {
        match self.phase {
            Phase::Joining { more } => more,
            _ => None,
        }
    }

    /// Feeds one event; returns what to do.
    pub fn handle(&mut self, event: Event) -> Vec<Action> {
        match event {
            Event::User(request) => self.request(request),
            Event::Opened(result) => self.opened(result),
            Event::Received(message) => {
                if !self.is_connected() {
                    return Vec::new();
                }
                // A line that is not a DRAW ends a drawing: the board is whole again.
                let drawing = matches!(
                    message,
                    ServerMessage::Square { .. } | ServerMessage::Piece { .. }
                );
                let mut actions = if drawing {
                    Vec::new()
                } else {
                    self.handle(Event::Quiet)
                };
                match self.receive(message) {
                    Ok(more) => actions.extend(more),
                    Err(why) => actions = self.violation(why),
                }
                actions
            }
            Event::BadLine(why) if self.is_connected() => {
                self.violation(format!("a line that is not a message: {why}"))
            }
            Event::BadLine(_) => Vec::new(),
            Event::Broken(why) if self.is_connected() => self.violation(why),
            Event::Broken(_) => Vec::new(),
            Event::Legal(moves) => {
                if let Phase::Playing(game) = &mut self.phase {
                    game.legal = game.ready.then_some(moves);
                }
                Vec::new()
            }
            Event::Refused(why) => {
                if let Phase::Playing(game) = &mut self.phase {
                    // The move never left: the server still waits for one.
                    game.ready = game.over.is_none();
                }
                vec![Action::Show(Notice::Illegal(why))]
            }
            Event::Quiet => {
                if std::mem::take(&mut self.dirty) && self.game().is_some() {
                    vec![Action::Show(Notice::BoardChanged)]
                } else {
                    Vec::new()
                }
            }
            Event::Timing { timing, at } => match &mut self.phase {
                Phase::Playing(game) => game
                    .time(timing, at)
                    .map(Action::Show)
                    .into_iter()
                    .collect(),
                _ => Vec::new(),
            },
            Event::Eof => self.eof(),
            Event::Redial => self.redial(),
            Event::Players(line) if self.is_connected() => self.players_line(line),
            Event::Players(_) => Vec::new(),
            Event::Tournament(line) => match self.phase {
                // The end of a tournament is a normal end; a withdrawal is the server's.
                Phase::Called(id) if released(&line, id) => {
                    let withdrawn = matches!(
                        line,
                        TournamentLine::Released {
                            withdrawn: true,
                            ..
                        }
                    );
                    let code = if withdrawn {
                        exit::SERVER_GONE
                    } else {
                        exit::OK
                    };
                    self.finish(Notice::Called(line), code)
                }
                Phase::Called(id) if called(&line, id) => vec![Action::Show(Notice::Called(line))],
                _ => Vec::new(),
            },
        }
    }

    fn take_game(&mut self) -> Option<Game> {
        match std::mem::replace(&mut self.phase, Phase::Disconnected) {
            Phase::Playing(game) | Phase::Closed(Some(game)) => Some(game),
            Phase::Lost(lost) => Some(lost.game),
            _ => None,
        }
    }

    /// Ends the connection: close, tell, exit.
    pub(super) fn finish(&mut self, notice: Notice, code: u8) -> Vec<Action> {
        let game = self.take_game();
        self.phase = Phase::Closed(game);
        vec![Action::Close, Action::Show(notice), Action::Exit(code)]
    }

    fn violation(&mut self, why: String) -> Vec<Action> {
        self.finish(Notice::Violation(why), exit::PROTOCOL)
    }

    fn refuse(why: Refusal) -> Vec<Action> {
        vec![Action::Show(Notice::Refused(why))]
    }

    fn request(&mut self, request: Request) -> Vec<Action> {
        let opens = matches!(
            request,
            Request::Join(_)
                | Request::List
                | Request::Watch(_)
                | Request::Version
                | Request::Invite { .. }
                | Request::JoinCode(_)
                | Request::Lobby
                | Request::Tournament(_)
        );
        match &mut self.phase {
            Phase::Lost(_) if request == Request::Quit => {
                // Nothing to tell a server we cannot reach: the seat's grace runs out.
                self.finish(Notice::Quit { paired: true }, exit::OK)
            }
            Phase::Disconnected | Phase::Closed(_) if opens => {
                self.phase = Phase::Opening(request);
                vec![Action::Open]
            }
            Phase::Disconnected | Phase::Closed(_) => Client::refuse(Refusal::NotConnected),
            _ if request == Request::Quit => {
                let paired = matches!(self.phase, Phase::Starting { .. } | Phase::Playing(_));
                let game = self.take_game();
                self.phase = Phase::Closed(game);
                vec![
                    Action::Send(ClientMessage::Quit),
                    Action::Close,
                    Action::Show(Notice::Quit { paired }),
                    Action::Exit(exit::OK),
                ]
            }
            Phase::Idle if opens => self.ask(request),
            _ if request == Request::Version => {
                vec![Action::Send(ClientMessage::Version)]
            }
            Phase::Playing(game) => Client::in_game(game, request),
            _ if opens => Client::refuse(Refusal::Busy),
            _ => Client::refuse(Refusal::NoGame),
        }
    }

    /// Sends a request that starts a conversation (connected and idle).
    pub(super) fn ask(&mut self, request: Request) -> Vec<Action> {
        let message = match request {
            Request::Join(game) => {
                self.phase = Phase::Joining { more: None };
                ClientMessage::Join { game }
            }
            Request::List => {
                self.phase = Phase::Listing(Vec::new());
                ClientMessage::List
            }
            Request::Watch(id) => {
                self.phase = Phase::AskedToWatch;
                ClientMessage::Watch { id }
            }
            Request::Version => ClientMessage::Version,
            Request::Invite { game, terms } => {
                self.phase = Phase::Inviting;
                ClientMessage::Invite { game, terms }
            }
            Request::JoinCode(code) => {
                self.phase = Phase::Joining { more: None };
                ClientMessage::JoinCode { code }
            }
            Request::Lobby => {
                self.phase = Phase::Lobbying(Vec::new());
                ClientMessage::Lobby
            }
            Request::Tournament(id) => {
                self.phase = Phase::Called(id);
                return vec![Action::SendLine(format!("GAME TOURNAMENT PLAY {id}"))];
            }
            _ => return Client::refuse(Refusal::NoGame),
        };
        vec![Action::Send(message)]
    }

    fn in_game(game: &mut Game, request: Request) -> Vec<Action> {
        if game.team().is_none() {
            return Client::refuse(Refusal::Watching);
        }
        if let Some(message) = together::after_game(game, &request) {
            return message;
        }
        if game.over.is_some() {
            return Client::refuse(Refusal::GameOver);
        }
        let message = match request {
            Request::Move(_) | Request::Notation(_) if !game.ready => {
                return Client::refuse(Refusal::NotYourMove)
            }
            Request::Move(squares) if squares.is_empty() => {
                return Client::refuse(Refusal::EmptyMove)
            }
            Request::Move(squares) => ClientMessage::Move(squares),
            Request::Notation(text) if text.trim().is_empty() => {
                return Client::refuse(Refusal::EmptyMove)
            }
            Request::Notation(text) => ClientMessage::MoveText(text.trim().to_owned()),
            // Not moves, but acts of the turn: the server says READY again
            // after them (or after refusing them) if the turn is still ours.
            Request::OfferDraw => ClientMessage::OfferDraw,
            Request::AcceptDraw => ClientMessage::AcceptDraw,
            Request::DeclineDraw => ClientMessage::DeclineDraw,
            // Not acts of the turn: READY stands.
            Request::ClaimWin => return vec![Action::Send(ClientMessage::ClaimWin)],
            Request::ClaimDraw => return vec![Action::Send(ClientMessage::ClaimDraw)],
            _ => return Client::refuse(Refusal::Busy),
        };
        game.ready = false;
        game.legal = None;
        vec![Action::Send(message)]
    }

    fn opened(&mut self, result: Result<(), String>) -> Vec<Action> {
        if let Phase::Lost(_) = self.phase {
            return self.reopened(result);
        }
        let Phase::Opening(request) = std::mem::replace(&mut self.phase, Phase::Disconnected)
        else {
            return Vec::new();
        };
        match result {
            Ok(()) => match self.identity.clone() {
                Some(identity) => {
                    self.phase = Phase::SigningIn(request);
                    vec![Action::Identify(identity)]
                }
                None => {
                    self.phase = Phase::Idle;
                    self.ask(request)
                }
            },
            Err(why) => vec![
                Action::Show(Notice::ConnectFailed(why)),
                Action::Exit(exit::CONNECT_FAILED),
            ],
        }
    }

    fn eof(&mut self) -> Vec<Action> {
        if !self.is_connected() {
            return Vec::new();
        }
        if let Some(actions) = self.lose_connection() {
            return actions;
        }
        let finished = match &self.phase {
            Phase::Idle => true,
            Phase::Playing(game) => game.over.is_some(),
            _ => false,
        };
        let code = if finished {
            exit::OK
        } else {
            exit::SERVER_GONE
        };
        self.finish(Notice::Closed { finished }, code)
    }

    /// A message from the server; `Err` says how it breaks the protocol.
    fn receive(&mut self, message: ServerMessage) -> Result<Vec<Action>, String> {
        let show = |notice| Ok(vec![Action::Show(notice)]);
        match message {
            ServerMessage::Version { version, server } => {
                return show(Notice::Version { version, server })
            }
            // Answered at once, whatever the client is doing (the server measures the lag).
            ServerMessage::Ping { n } => return Ok(vec![Action::Send(ClientMessage::Pong { n })]),
            ServerMessage::Aborted { why } => {
                return Ok(self.finish(Notice::Aborted(why), exit::SERVER_GONE))
            }
            _ => {}
        }
        match (&mut self.phase, message) {
            (Phase::Joining { more }, ServerMessage::Waiting { more: n }) => {
                *more = Some(n);
                show(Notice::Waiting { more: n })
            }
            (
                Phase::Listing(list),
                ServerMessage::Session {
                    id,
                    game,
                    seconds,
                    players,
                },
            ) => {
                list.push(SessionInfo {
                    id,
                    game,
                    seconds,
                    players,
                });
                Ok(Vec::new())
            }
            (Phase::Listing(list), ServerMessage::Sessions { count }) => {
                if count != list.len() as u64 {
                    return Err(format!(
                        "GAME SESSIONS {count} after {} GAME SESSION lines",
                        list.len()
                    ));
                }
                let list = std::mem::take(list);
                self.phase = Phase::Idle;
                show(Notice::Listed(list))
            }
            (Phase::SigningIn(_), ServerMessage::Error { why }) => {
                Ok(self.finish(Notice::Denied(why), exit::SERVER_GONE))
            }
            (Phase::Inviting | Phase::Lobbying(_) | Phase::Lost(_), message) => {
                self.together_message(message)
            }
            (
                Phase::Joining { .. } | Phase::AskedToWatch | Phase::Idle | Phase::Called(_),
                ServerMessage::Error { why },
            ) => {
                // The request was refused (no such game, no such session).
                Ok(self.finish(Notice::Denied(why), exit::SERVER_GONE))
            }
            // Waiting for a tournament's game: "waiting for your games", "your game is starting".
            (Phase::Called(_), ServerMessage::News { text }) => show(Notice::News(text)),
            (
                Phase::Joining { .. } | Phase::AskedToWatch | Phase::Called(_),
                ServerMessage::Type { game },
            ) => {
                self.phase = Phase::Starting {
                    game,
                    board: None,
                    teams: Vec::new(),
                    round: 1,
                };
                Ok(Vec::new())
            }
            (
                Phase::Starting { board, .. },
                ServerMessage::Board {
                    name,
                    width,
                    height,
                },
            ) => {
                if board.is_some() {
                    return Err("a second GAME BOARD".to_owned());
                }
                *board = Some(Board::new(&name, width, height)?);
                Ok(Vec::new())
            }
            (Phase::Starting { board, .. }, ServerMessage::Columns { names }) => {
                let board = board.as_mut().ok_or("GAME COLUMNS before GAME BOARD")?;
                board.name_columns(names)?;
                Ok(Vec::new())
            }
            (Phase::Starting { board, .. }, ServerMessage::Rows { names }) => {
                let board = board.as_mut().ok_or("GAME ROWS before GAME BOARD")?;
                board.name_rows(names)?;
                Ok(Vec::new())
            }
            (Phase::Starting { teams, .. }, ServerMessage::Teams { names }) => {
                *teams = names;
                Ok(Vec::new())
            }
            (Phase::Starting { .. }, ServerMessage::Team { team, name }) => {
                self.seated(Seat::Player { team, name })
            }
            (Phase::Starting { .. }, ServerMessage::Watching { id }) => {
                self.seated(Seat::Viewer { id })
            }
            (Phase::Playing(_), message) => self.in_game_message(message),
            (_, message) => Err(format!(
                "the server sent \"{message}\" while {}",
                self.doing()
            )),
        }
    }

    /// What the client was doing, for messages about the server's faults.
    pub(super) fn doing(&self) -> &'static str {
        match self.phase {
            Phase::Disconnected | Phase::Opening(_) | Phase::Closed(_) => "not connected",
            Phase::Idle => "no request was open",
            Phase::SigningIn(_) => "signing in",
            Phase::Listing(_) => "listing the games",
            Phase::Joining { .. } => "waiting for the game to start",
            Phase::AskedToWatch => "waiting to watch",
            Phase::Called(_) => "waiting for a tournament's game",
            Phase::Starting { .. } => {
                "the game was starting (GAME BOARD, then GAME TEAM or GAME WATCHING)"
            }
            Phase::Playing(_) => "in a game",
            Phase::Inviting => "waiting for a friend to accept the challenge",
            Phase::Lobbying(_) => "listing the challenges",
            Phase::Lost(_) => "resuming the game",
        }
    }

    /// `GAME TEAM` or `GAME WATCHING`: the game starts.
    fn seated(&mut self, seat: Seat) -> Result<Vec<Action>, String> {
        let Phase::Starting {
            game,
            board,
            teams,
            round,
        } = std::mem::replace(&mut self.phase, Phase::Disconnected)
        else {
            unreachable!("seated is called in Starting only");
        };
        let board = board.ok_or("GAME TEAM or GAME WATCHING before GAME BOARD")?;
        self.phase = Phase::Playing(Game {
            game,
            board,
            seat,
            turn: None,
            ready: false,
            moves: Vec::new(),
            changed: Vec::new(),
            over: None,
            round,
            teams,
            legal: None,
            clocks: Vec::new(),
            timers: Vec::new(),
            control: None,
            away: Vec::new(),
            rematch_offer: None,
            players: std::mem::take(&mut self.seating),
            replaying: false,
        });
        self.dirty = true;
        Ok(vec![Action::Show(Notice::Started)])
    }

    fn in_game_message(&mut self, message: ServerMessage) -> Result<Vec<Action>, String> {
        let Phase::Playing(game) = &mut self.phase else {
            unreachable!("called while playing");
        };
        let round = game.round;
        let notice = match message {
            ServerMessage::Square { kind, x, y } => {
                game.board.draw_square(&kind, x, y)?;
                // The first drawing is the board as it stands, not a change.
                if !game.moves.is_empty() && !game.replaying {
                    game.changed.push((x, y));
                }
                self.dirty = true;
                return Ok(Vec::new());
            }
            ServerMessage::Piece { name, team } => {
                game.board.draw_piece(&name, team)?;
                self.dirty = true;
                return Ok(Vec::new());
            }
            ServerMessage::Turn { team } => {
                if team == 0 {
                    return Err("GAME TURN 0: teams count from 1".to_owned());
                }
                game.turn = Some(team);
                game.replaying = false;
                if game.moves.is_empty() {
                    game.moves = std::mem::take(&mut self.carried);
                }
                if game.team() != Some(team) {
                    game.ready = false;
                }
                Notice::Turn(team)
            }
            ServerMessage::Ready => {
                if game.team().is_none() {
                    return Err("READY sent to a viewer".to_owned());
                }
                game.ready = true;
                Notice::YourMove
            }
            ServerMessage::Moved { team, notation } if game.replaying => {
                game.moves.push(Moved {
                    team,
                    notation: notation.clone(),
                });
                Notice::Replayed { team, notation }
            }
            ServerMessage::Moved { team, notation } => {
                game.changed.clear();
                game.moves.push(Moved {
                    team,
                    notation: notation.clone(),
                });
                Notice::Moved { team, notation }
            }
            ServerMessage::News { text } => Notice::News(text),
            // Shown once the client has a clock display; until then, known and passed over.
            ServerMessage::Clock { .. } | ServerMessage::Timer { .. } => return Ok(Vec::new()),
            ServerMessage::Error { why } => Notice::ServerRefused(why),
            ServerMessage::Over { winner, why } => {
                game.replaying = false;
                game.turn = None;
                game.ready = false;
                game.over = Some(Over {
                    winner,
                    why: why.clone(),
                    result: None,
                });
                Notice::Over { winner, why }
            }
            ServerMessage::Result { standing, why } => {
                if game.team().is_none() {
                    return Err("RESULT sent to a viewer".to_owned());
                }
                let Some(over) = &mut game.over else {
                    return Err("RESULT before GAME OVER".to_owned());
                };
                over.result = Some((standing, why.clone()));
                Notice::Result { standing, why }
            }
            ServerMessage::Token { token, ms } => {
                self.resume = Some(Resume {
                    token,
                    grace: Duration::from_millis(ms),
                });
                return Ok(Vec::new());
            }
            ServerMessage::Time(control) => {
                game.control = Some(control);
                Notice::Time(control)
            }
            ServerMessage::Resumed { id } => {
                // The moves so far follow (TEXT-PROTOCOL §5.5), told afresh; a server
                // that tells none leaves the moves carried from before the drop.
                game.replaying = true;
                Notice::Resumed(id)
            }
            ServerMessage::Back { team } => {
                game.away.retain(|a| a.team != team);
                Notice::Back(team)
            }
            ServerMessage::OfferedDraw { team } => Notice::Offered {
                team,
                what: Offer::Draw,
            },
            ServerMessage::OfferedRematch { team } => {
                game.rematch_offer = Some(team);
                Notice::Offered {
                    team,
                    what: Offer::Rematch,
                }
            }
            ServerMessage::Type { game: name } if game.over.is_some() => {
                // A rematch: the next game of the series.
                self.phase = Phase::Starting {
                    game: name,
                    board: None,
                    teams: Vec::new(),
                    round: round + 1,
                };
                return Ok(Vec::new());
            }
            other => return Err(format!("the server sent \"{other}\" during a game")),
        };
        Ok(vec![Action::Show(notice)])
    }
}

/// Whether `line` calls a player waiting for tournament `id`: its game, or a bye.
/// Whether `line` ends the wait for tournament `id`'s games.
fn released(line: &TournamentLine, id: u64) -> bool {
    matches!(line, TournamentLine::Released { id: of, .. } if *of == id)
}

fn called(line: &TournamentLine, id: u64) -> bool {
    matches!(line, TournamentLine::Paired { id: of, .. } | TournamentLine::Bye { id: of, .. } if *of == id)
}

impl Client {
    /// A players' line: who sits where, or the answer to the identity line.
    fn players_line(&mut self, line: PlayersLine) -> Vec<Action> {
        match (&mut self.phase, line) {
            (Phase::Playing(game), PlayersLine::Player(player)) => {
                game.players.push(player);
                self.dirty = true;
                Vec::new()
            }
            (Phase::Starting { .. }, PlayersLine::Player(player)) => {
                self.seating.push(player);
                Vec::new()
            }
            (
                Phase::SigningIn(_),
                line @ (PlayersLine::Guest(_) | PlayersLine::SignedIn { .. }),
            ) => {
                let name = match line {
                    PlayersLine::Guest(name) => format!("{name}~"),
                    PlayersLine::SignedIn { name, .. } => name,
                    _ => unreachable!("matched above"),
                };
                let Phase::SigningIn(request) = std::mem::replace(&mut self.phase, Phase::Idle)
                else {
                    unreachable!("matched above");
                };
                let mut actions = vec![Action::Show(Notice::Identified(name))];
                actions.extend(self.ask(request));
                actions
            }
            // The archive's and the tokens' lines are the one-shot commands' (crate::account).
            _ => Vec::new(),
        }
    }
}
