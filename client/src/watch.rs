//! `reversi watch [ADDR] [ID]`: lists the running games (`GAME LIST`) and
//! shows one live to its end (`GAME WATCH`), full screen or as lines, like
//! `reversi play --game`. The listing has a connection of its own, so a
//! person may take their time choosing: the server gives a connection
//! only a few seconds to ask for something.

use std::io::{BufRead, IsTerminal, Write};

use reversi_client::exit;
use reversi_client::text::{Event, Notice, Request, SessionInfo};
use reversi_client::transport::{Driver, Protocol};

use crate::cli::DEFAULT_ADDR;

/// `reversi watch 3` means game 3 on the default server, not a server called "3".
fn address_and_id(addr: &str, id: Option<u64>) -> (String, Option<u64>) {
    match (addr.parse::<u64>(), id) {
        (Ok(number), None) => (DEFAULT_ADDR.to_owned(), Some(number)),
        _ => (addr.to_owned(), id),
    }
}

/// The running games, or the exit code of a failure (already reported).
fn list(addr: &str) -> Result<Vec<SessionInfo>, u8> {
    let mut driver = Driver::new(addr, Protocol::Text);
    let mut event = Event::User(Request::List);
    loop {
        let mut notices = Vec::new();
        let code = driver.handle(event, &mut |n: &Notice| notices.push(n.clone()));
        for notice in notices {
            match notice {
                Notice::Listed(sessions) => return Ok(sessions),
                other => {
                    if let Some(text) = crate::text_ui::notice_words(&other, None) {
                        eprintln!("reversi: {text}");
                    }
                }
            }
        }
        if let Some(code) = code {
            return Err(code.max(exit::SERVER_GONE));
        }
        event = driver.next_event();
    }
}

/// The listing as a table.
fn table(addr: &str, sessions: &[SessionInfo]) -> String {
    if sessions.is_empty() {
        return format!("no game is running on {addr}");
    }
    let mut out = format!("games running on {addr}:\n   id  game          time  players\n");
    for s in sessions {
        out.push_str(&format!(
            "{:>5}  {:<12} {:>4}s  {}\n",
            s.id,
            s.game,
            s.seconds,
            s.players.join(" ")
        ));
    }
    out.pop();
    out
}

/// Asks which game to watch; `None` at the end of input.
fn ask(sessions: &[SessionInfo]) -> Option<u64> {
    let first = sessions[0].id;
    let stdin = std::io::stdin();
    loop {
        print!("watch which game? [{first}] ");
        let _ = std::io::stdout().flush();
        let mut line = String::new();
        if stdin.lock().read_line(&mut line).ok()? == 0 {
            return None;
        }
        let text = line.trim();
        if text.is_empty() {
            return Some(first);
        }
        match text.parse::<u64>() {
            Ok(id) if sessions.iter().any(|s| s.id == id) => return Some(id),
            _ => println!("{text:?} is not one of the ids listed"),
        }
    }
}

/// Runs `reversi watch`.
pub fn run(addr: &str, id: Option<u64>, list_only: bool) -> u8 {
    let (addr, id) = address_and_id(addr, id);
    if let Some(id) = id.filter(|_| !list_only) {
        return crate::text_ui::watch(&addr, id);
    }
    let sessions = match list(&addr) {
        Ok(sessions) => sessions,
        Err(code) => return code,
    };
    println!("{}", table(&addr, &sessions));
    if list_only || sessions.is_empty() {
        return exit::OK;
    }
    let chosen = if std::io::stdin().is_terminal() {
        ask(&sessions)
    } else {
        Some(sessions[0].id)
    };
    match chosen {
        Some(id) => crate::text_ui::watch(&addr, id),
        None => exit::OK,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_number_is_a_game_id() {
        assert_eq!(
            address_and_id("3", None),
            (DEFAULT_ADDR.to_owned(), Some(3))
        );
        assert_eq!(
            address_and_id("localhost:9", Some(3)),
            ("localhost:9".to_owned(), Some(3))
        );
        assert_eq!(
            address_and_id("localhost", None),
            ("localhost".to_owned(), None)
        );
    }

    #[test]
    fn the_table_lines_up() {
        let sessions = [SessionInfo {
            id: 7,
            game: "TicTacToe".into(),
            seconds: 12,
            players: vec!["127.0.0.1:5000".into(), "127.0.0.1:5001".into()],
        }];
        assert_eq!(
            table("h:1", &sessions),
            "games running on h:1:\n   id  game          time  players\n    7  TicTacToe      12s  127.0.0.1:5000 127.0.0.1:5001"
        );
        assert_eq!(table("h:1", &[]), "no game is running on h:1");
    }
}
