//! `reversi play`: a person plays through the terminal, or a script through
//! piped stdin (one command per line; EOF means quit).
//!
//! Two threads feed one channel: one reads stdin lines, one reads the
//! socket. When stdin is a terminal every line is handled at once (a move
//! out of turn is refused: "not your turn"). When it is not, the lines are a
//! script of this player's moves: each one is held until it is this
//! player's turn, so a known game can be replayed line by line.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::IsTerminal;
use std::sync::mpsc::{self, Sender};
use std::thread;

use reversi_engine::player::{Player, PlayerConfig};
use reversi_engine::{Game, Square};

use crate::connection::Reader;
use crate::driver::Driver;
use crate::input::{self, Input};
use crate::render::{self, Style};
use crate::state::{exit, Command, Event, Incoming, Notice, State};

/// The engine level `hint` searches at: strong, and quick enough to wait for.
const HINT_LEVEL: u8 = 8;

/// What the main loop waits for.
enum Message {
    /// A line typed or piped in.
    Line(String),
    /// stdin is closed.
    StdinEof,
    /// Something from the server.
    Net(Event),
}

/// The terminal side: how to show things.
struct Ui {
    style: Style,
    interactive: bool,
    /// The engine, made on the first `hint`.
    engine: RefCell<Option<Player>>,
}

impl Ui {
    /// The engine's suggestion for the side to move.
    fn hint(&self, game: &Game) -> Option<Square> {
        let mut engine = self.engine.borrow_mut();
        engine
            .get_or_insert_with(|| {
                Player::new(PlayerConfig {
                    level: HINT_LEVEL,
                    ..PlayerConfig::default()
                })
            })
            .choose(game)
    }

    fn show(&self, notice: &Notice) {
        let text = render::notice(notice, self.style);
        if render::is_failure(notice) {
            eprintln!("reversi: {text}");
        } else {
            println!("{text}");
        }
    }
}

/// Plays one game against the server at `addr`; returns the exit code.
pub fn run(addr: &str) -> u8 {
    let ui = Ui {
        style: Style::detect(),
        interactive: std::io::stdin().is_terminal(),
        engine: RefCell::new(None),
    };
    let (tx, rx) = mpsc::channel();
    crate::stdin_lines::spawn(tx.clone(), Message::Line, Message::StdinEof);
    let mut driver = Driver::new(addr);
    let mut show = |notice: &Notice| ui.show(notice);
    if let Some(code) = driver.handle(Event::User(Command::Connect), &mut show) {
        return code;
    }
    if let Some(reader) = driver.take_reader() {
        spawn_socket_reader(reader, tx);
    }
    let mut held: VecDeque<Option<String>> = VecDeque::new();
    while let Ok(message) = rx.recv() {
        let code = match message {
            Message::Net(event) => driver.handle(event, &mut show),
            Message::Line(line) => {
                held.push_back(Some(line));
                None
            }
            Message::StdinEof => {
                held.push_back(None);
                None
            }
        };
        if let Some(code) = code {
            return code;
        }
        while held.front().is_some_and(|line| is_due(&driver, &ui, line)) {
            let line = held.pop_front().flatten();
            if let Some(code) = user_line(&mut driver, &ui, line) {
                return code;
            }
        }
    }
    // Both readers are gone without an exit: cannot happen, as the socket
    // reader always ends with an event that finishes the connection.
    exit::SERVER_GONE
}

/// Whether the next held line (`None`: stdin closed) may be handled now.
fn is_due(driver: &Driver, ui: &Ui, line: &Option<String>) -> bool {
    match driver.state() {
        _ if ui.interactive => true,
        State::MyTurn(_) => true,
        State::Connecting => may_go_while_queued(line),
        _ => false,
    }
}

/// Whether a held line may go while in the queue: the end of stdin and
/// `quit` leave it, a blank line does nothing.
fn may_go_while_queued(line: &Option<String>) -> bool {
    line.as_deref()
        .is_none_or(|text| matches!(input::parse(text), Ok(None | Some(Input::Quit))))
}

/// Handles one line of input (`None`: stdin closed, which quits).
fn user_line(driver: &mut Driver, ui: &Ui, line: Option<String>) -> Option<u8> {
    let mut show = |notice: &Notice| ui.show(notice);
    let Some(line) = line else {
        return driver.handle(Event::User(Command::Quit), &mut show);
    };
    if !ui.interactive && !line.trim().is_empty() {
        println!("> {}", line.trim());
    }
    let input = match input::parse(&line) {
        Ok(Some(input)) => input,
        Ok(None) => return None,
        Err(err) => {
            println!("refused: {err}");
            return None;
        }
    };
    let session = driver.state().session();
    match input {
        Input::Move(square) => {
            return driver.handle(Event::User(Command::Place(square)), &mut show)
        }
        Input::Quit => return driver.handle(Event::User(Command::Quit), &mut show),
        Input::Help => println!("{}", input::HELP),
        Input::Board => match session {
            Some(session) => println!("{}", render::session_board(session, ui.style)),
            None => println!("refused: no game yet"),
        },
        Input::Moves | Input::Hint => match (driver.state(), session) {
            (State::MyTurn(session), _) => {
                if input == Input::Moves {
                    let moves: Vec<String> =
                        session.game.legal_moves().map(|s| s.to_string()).collect();
                    println!("legal moves: {}", moves.join(" "));
                } else {
                    match ui.hint(&session.game) {
                        Some(square) => println!("hint: {square}"),
                        None => println!("hint: no legal move"),
                    }
                }
            }
            (_, Some(_)) => println!("refused: not your turn"),
            (_, None) => println!("refused: no game yet"),
        },
    }
    None
}

fn spawn_socket_reader(mut reader: Reader, tx: Sender<Message>) {
    thread::spawn(move || loop {
        let event = reader.next_event();
        let more = matches!(
            event,
            Event::Received(
                Incoming::ConnectOk(_)
                    | Incoming::Turn
                    | Incoming::PlaceError
                    | Incoming::UpdateBoard { .. }
            )
        );
        if tx.send(Message::Net(event)).is_err() || !more {
            return;
        }
    });
}
