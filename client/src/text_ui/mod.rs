//! `reversi play --game NAME` and `reversi watch`: the game-independent
//! client of the text protocol (seed 000). It draws only what the server's
//! `DRAW` lines describe and sends the moves a person builds.
//!
//! On a terminal it is full screen ([`screen`]); with stdin or stdout not a
//! terminal, or `TERM=dumb`, it reads and prints lines ([`lines`]), so a
//! script can play. `NO_COLOR` (or `TERM=dumb`) gives output without colours.

mod big;
mod hint;
mod legend;
mod lines;
mod numbering;
mod picture;
mod screen;
mod together;
mod typed;
mod words;

/// For the screens' tests: `game` on a board named `board` of `columns` x `rows`,
/// seen from `seat`, team 1 to move, no move made.
#[cfg(test)]
fn test_game(
    game: &str,
    (board, columns, rows): (&str, u8, u8),
    seat: reversi_client::text::Seat,
) -> reversi_client::text::Game {
    reversi_client::text::Game {
        game: game.into(),
        board: reversi_client::text::Board::new(board, columns, rows).unwrap(),
        seat,
        turn: Some(1),
        ready: false,
        moves: Vec::new(),
        changed: Vec::new(),
        over: None,
        round: 1,
        teams: Vec::new(),
        legal: None,
        clocks: Vec::new(),
        timers: Vec::new(),
        control: None,
        away: Vec::new(),
        rematch_offer: None,
        players: Vec::new(),
        replaying: false,
    }
}

use std::io::IsTerminal;
use std::sync::mpsc::{self, Sender};
use std::thread;

use reversi_client::text::{Event, Identity, Notice, Request};
use reversi_client::transport::{Driver, Protocol, Reader};

/// How to show things.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Output {
    /// Full screen: stdin and stdout are terminals that can address the cursor.
    pub full_screen: bool,
    /// Colours allowed (`NO_COLOR` unset or empty, `TERM` not `dumb`).
    pub colour: bool,
}

impl Output {
    pub fn detect() -> Output {
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
        Output {
            full_screen: terminal && !dumb,
            colour: !dumb && !no_color,
        }
    }
}

/// What the loops wait for.
pub enum Input {
    /// A line typed or piped in (line mode).
    Line(String),
    /// stdin is closed.
    StdinEof,
    /// Something from the server.
    Net(Event),
}

pub use together::pick_from_lobby;
pub use words::{is_failure, notice as notice_words, team as team_words, third_person};

/// The board of `game` as plain text, what the last move changed in
/// brackets, and the pieces seen on it.
pub fn plain_board(game: &reversi_client::text::Game) -> String {
    let mut legend = legend::Legend::default();
    legend.learn(&game.board);
    board_text(&legend, game)
}

/// The board as plain text with `legend`'s labels, and the legend's line.
fn board_text(legend: &legend::Legend, game: &reversi_client::text::Game) -> String {
    let marks = picture::Marks {
        changed: &game.changed,
        numbers: numbering::Numbering::of(&game.game),
        ..Default::default()
    };
    let board = picture::plain(&game.board, legend, &marks);
    let counts = words::counts(game);
    match lines::legend_line(legend, game) {
        line if line.is_empty() => format!("{board}\n  {counts}"),
        line => format!("{board}\n{line}\n  {counts}"),
    }
}

/// Plays one game of `game` on the server at `addr` over `protocol`;
/// returns the exit code.
pub fn play(addr: &str, game: &str, protocol: Protocol, identity: Option<Identity>) -> u8 {
    let driver = Driver::new(addr, protocol).identified(identity);
    session_with(driver.checking_moves(), Request::Join(game.to_owned()))
}

/// Watches game `id` on the server at `addr` to its end.
pub fn watch(addr: &str, id: u64) -> u8 {
    session(addr, Request::Watch(id), Protocol::Text)
}

/// Plays a game of a challenge (`--invite`, `--join`, `--lobby`) on the server at
/// `addr`; `game` picks among the lobby's challenges.
pub fn play_together(
    addr: &str,
    request: Request,
    game: Option<&str>,
    identity: Option<Identity>,
) -> u8 {
    let mut driver = Driver::new(addr, Protocol::Text)
        .identified(identity)
        .checking_moves();
    let request = match request {
        Request::Lobby => match together::pick_from_lobby(&mut driver, game) {
            Ok(code) => Request::JoinCode(code),
            Err(code) => return code,
        },
        other => other,
    };
    session_with(driver, request)
}

/// `reversi tournament play`: waits for the account's next game of tournament `id` and
/// plays it; `opened` gets a handle on the connection once it is open (to close the
/// wait when the tournament finishes: the server tells a waiting player nothing then).
pub fn play_tournament_game(addr: &str, id: u64, identity: Option<Identity>) -> u8 {
    let driver = Driver::new(addr, Protocol::Text)
        .identified(identity)
        .checking_moves();
    session_with(driver, Request::Tournament(id))
}

fn session(addr: &str, request: Request, protocol: Protocol) -> u8 {
    session_with(Driver::new(addr, protocol).checking_moves(), request)
}

fn session_with(mut driver: Driver, request: Request) -> u8 {
    let output = Output::detect();
    // Connect before taking the screen, so a failure is one plain line.
    let mut early = Vec::new();
    if let Some(code) = driver.handle(Event::User(request), &mut |n: &Notice| {
        early.push(n.clone())
    }) {
        for notice in &early {
            if let Some(text) = words::notice(notice, None) {
                eprintln!("reversi: {text}");
            }
        }
        return code;
    }
    let (tx, rx) = mpsc::channel();
    if let Some(reader) = driver.take_reader() {
        spawn_socket_reader(reader, tx.clone());
    }
    // A connection opened again after a drop gets its own reader thread.
    let again = std::sync::Mutex::new(tx.clone());
    driver.on_reader(Box::new(move |reader| {
        if let Ok(tx) = again.lock() {
            spawn_socket_reader(reader, tx.clone());
        }
    }));
    if output.full_screen {
        screen::run(driver, &rx, early, output.colour)
    } else {
        crate::stdin_lines::spawn(tx, Input::Line, Input::StdinEof);
        let interactive = std::io::stdin().is_terminal();
        lines::run(driver, &rx, early, interactive)
    }
}

fn spawn_socket_reader(mut reader: Reader, tx: Sender<Input>) {
    thread::spawn(move || loop {
        let event = reader.next_event();
        let end = event == Event::Eof;
        if tx.send(Input::Net(event)).is_err() || end {
            return;
        }
    });
}
