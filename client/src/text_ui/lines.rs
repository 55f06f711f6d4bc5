//! The line mode: messages as lines, the board as plain text when it
//! changed, one command a line on stdin. When stdin is not a terminal the
//! lines are a script of this player's moves: each is held until the
//! server says READY, so a file of moves plays them in order; the end of
//! stdin means quit (when the next move is due); a viewer watches on. A
//! `quit` or the end of stdin reached while still in the queue goes at
//! once: the client leaves before any game starts. A
//! script's run ends with the game's result; a person's (stdin a terminal) goes
//! on after it, to offer, accept or decline a rematch (`rematch`, `no`), until
//! they quit or the server closes the connection; a viewer's when the server
//! closes the connection.

use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use reversi_client::exit;
use reversi_client::text::{Event, Game, Notice, Request};
use reversi_client::transport::Driver;

use super::legend::Legend;
use super::numbering::Numbering;
use super::typed::{self, Typed};
use super::{words, Input};

/// After a person's game in the line mode: what they may type.
const REMATCH_HINT: &str = "rematch offers (or accepts) a rematch, no declines it, quit leaves";

/// How often a reconnection's wait is looked at while nothing arrives.
const REDIAL_CHECK: Duration = Duration::from_millis(100);

struct Lines {
    driver: Driver,
    legend: Legend,
    interactive: bool,
}

impl Lines {
    fn show(&mut self, notice: &Notice) {
        let game = self.driver.client().game();
        if let (Notice::BoardChanged, Some(game)) = (notice, game) {
            self.legend.learn(&game.board);
            println!("{}", super::board_text(&self.legend, game));
            return;
        }
        if let Some(text) = words::notice(notice, game) {
            if words::is_failure(notice) {
                eprintln!("reversi: {text}");
            } else {
                println!("{text}");
            }
        }
    }

    /// Feeds an event and shows what it leads to; `Some(code)` at the end.
    fn feed(&mut self, event: Event) -> Option<u8> {
        let mut notices = Vec::new();
        let code = self
            .driver
            .handle(event, &mut |n: &Notice| notices.push(n.clone()));
        let mut ended = false;
        for notice in &notices {
            self.show(notice);
            ended |= matches!(notice, Notice::Result { .. });
        }
        if ended && self.interactive {
            // A person may play again: the run ends when they quit or the server closes.
            println!("{REMATCH_HINT}");
            return code;
        }
        // A script's game ends with its result (a rematch is not waited for).
        code.or(ended.then_some(exit::OK))
    }

    /// Whether a held script line (`None`: the end of stdin) may go now.
    fn line_is_due(&self, line: &Option<String>) -> bool {
        let client = self.driver.client();
        match client.game() {
            _ if self.interactive || client.may_move() => true,
            Some(game) => game.team().is_none(),
            None => client.is_joining() && may_go_while_queued(line),
        }
    }

    fn user_line(&mut self, line: Option<String>) -> Option<u8> {
        let Some(line) = line else {
            // The end of a player's script resigns; a viewer watches on.
            let viewer = self
                .driver
                .client()
                .game()
                .is_some_and(|g| g.team().is_none());
            return (!viewer)
                .then(|| self.feed(Event::User(Request::Quit)))
                .flatten();
        };
        if !self.interactive && !line.trim().is_empty() {
            println!("> {}", line.trim());
        }
        match typed::parse(&line) {
            Ok(None) => None,
            Ok(Some(Typed::Send(request))) => self.feed(Event::User(request)),
            Ok(Some(Typed::Help)) => {
                println!("{}", typed::HELP);
                println!("{}", words::CLOCK_HELP);
                if let Some(game) = self.driver.client().game() {
                    if let Some(rules) = words::rules(game) {
                        println!("{rules}");
                    }
                    println!("{}", words::coordinates(&game.board));
                    if let Some(numbering) = Numbering::of(&game.game) {
                        println!("{}", numbering.describe(&game.board));
                    }
                }
                None
            }
            Ok(Some(Typed::Hint)) => {
                println!("{}", super::hint::hint(self.driver.client().game()));
                None
            }
            Ok(Some(Typed::Moves)) => {
                println!("{}", words::legal_moves(self.driver.client().game()));
                None
            }
            Ok(Some(Typed::Board)) => {
                if self.driver.client().game().is_some() {
                    self.show(&Notice::BoardChanged);
                } else {
                    println!("refused: no game yet");
                }
                None
            }
            Err(why) => {
                println!("refused: {why}");
                None
            }
        }
    }
}

/// Whether a held line may go while in the queue: the end of stdin and
/// `quit` leave it, a blank line does nothing.
fn may_go_while_queued(line: &Option<String>) -> bool {
    line.as_deref().is_none_or(|text| {
        matches!(
            typed::parse(text),
            Ok(None | Some(Typed::Send(Request::Quit)))
        )
    })
}

/// The square kinds and pieces seen, in one line.
pub fn legend_line(legend: &Legend, game: &Game) -> String {
    let mut parts: Vec<String> = legend
        .pieces()
        .into_iter()
        .map(|(label, name, team)| {
            format!("{label} {}", super::legend::piece_words(&name, team, game))
        })
        .collect();
    if legend.kinds().len() > 1 {
        parts.extend(legend.kinds().iter().map(|kind| {
            format!(
                "'{}' {}",
                legend.fill(kind),
                super::legend::kind_words(kind)
            )
        }));
    }
    if parts.is_empty() {
        return String::new();
    }
    format!("  {}", parts.join(", "))
}

/// Runs the line mode until the game (or the connection) ends.
pub fn run(driver: Driver, rx: &Receiver<Input>, early: Vec<Notice>, interactive: bool) -> u8 {
    let mut ui = Lines {
        driver,
        legend: Legend::default(),
        interactive,
    };
    for notice in &early {
        ui.show(notice);
    }
    let mut held: VecDeque<Option<String>> = VecDeque::new();
    loop {
        let input = match rx.recv_timeout(REDIAL_CHECK) {
            Ok(input) => input,
            Err(mpsc::RecvTimeoutError::Timeout) => match ui.driver.redial_due() {
                Some(due) if due <= std::time::Instant::now() => Input::Net(Event::Redial),
                _ => continue,
            },
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        let code = match input {
            Input::Net(event) => ui.feed(event),
            Input::Line(line) => {
                held.push_back(Some(line));
                None
            }
            Input::StdinEof => {
                held.push_back(None);
                None
            }
        };
        if let Some(code) = code {
            return code;
        }
        while held.front().is_some_and(|line| ui.line_is_due(line)) {
            let line = held.pop_front().flatten();
            if let Some(code) = ui.user_line(line) {
                return code;
            }
        }
    }
    // The socket reader always ends with EOF, which finishes the connection.
    exit::SERVER_GONE
}
