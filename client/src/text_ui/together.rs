//! The terminal client's part of playing together that comes before a game:
//! `reversi play --lobby` lists the public challenges; a person at a terminal picks
//! one by its number (Enter: the oldest), a script or a bot takes the oldest.

use std::io::{BufRead, IsTerminal};
use std::time::Duration;

use reversi_client::exit;
use reversi_client::text::{Challenge, Event, Notice, Request};
use reversi_client::transport::Driver;

use super::words;

/// How often the lobby is asked again while it has nothing to accept.
const LOBBY_POLL: Duration = Duration::from_secs(2);

/// The code of a public challenge (of `game`, if given): the one a person at a
/// terminal picks, else the oldest; asks the lobby again every [`LOBBY_POLL`]
/// until there is one. `Err` is the exit code when the server cannot be asked.
pub fn pick_from_lobby(driver: &mut Driver, game: Option<&str>) -> Result<String, u8> {
    let person = std::io::stdin().is_terminal();
    let mut said_none = false;
    loop {
        let challenges = ask_lobby(driver)?;
        let matching = of_game(&challenges, game);
        if !matching.is_empty() {
            println!("{}", words::lobby(&matching));
            let picked = match person {
                true => ask_which(&matching),
                false => Choice::Take(0),
            };
            match picked {
                Choice::Take(i) => {
                    let challenge = &matching[i];
                    println!("accepting {} ({})", challenge.code, challenge.game);
                    return Ok(challenge.code.clone());
                }
                Choice::Refresh => continue,
                Choice::Leave => return Err(exit::OK),
            }
        }
        if !said_none {
            println!("{}", words::lobby(&challenges));
            let which = game.map_or(String::new(), |g| format!(" of {g}"));
            println!("waiting for a public challenge{which}… (Ctrl-C leaves)");
            said_none = true;
        }
        std::thread::sleep(LOBBY_POLL);
    }
}

/// What a person answered to the lobby's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// The challenge at this index of the list.
    Take(usize),
    /// Ask the lobby again.
    Refresh,
    Leave,
}

/// Reads an answer to "which?": a number of the list, Enter for the first, `r` to
/// ask again, `q` (or the end of input) to leave; `None` for anything else.
pub fn read_choice(answer: &str, listed: usize) -> Option<Choice> {
    match answer.trim() {
        "" => Some(Choice::Take(0)),
        "r" | "refresh" => Some(Choice::Refresh),
        "q" | "quit" => Some(Choice::Leave),
        n => match n.parse::<usize>() {
            Ok(n @ 1..) if n <= listed => Some(Choice::Take(n - 1)),
            _ => None,
        },
    }
}

/// Asks the person which of `listed` to accept, until the answer is one.
fn ask_which(listed: &[Challenge]) -> Choice {
    let stdin = std::io::stdin();
    loop {
        println!(
            "which? 1 to {} (Enter: 1), r asks the lobby again, q leaves",
            listed.len()
        );
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => return Choice::Leave,
            Ok(_) => {}
        }
        if let Some(choice) = read_choice(&line, listed.len()) {
            return choice;
        }
        println!("{:?} is not one of the list", line.trim());
    }
}

/// The challenges of `game` (any game when `None`, the game's name in any case),
/// oldest first as the lobby lists them.
pub fn of_game(challenges: &[Challenge], game: Option<&str>) -> Vec<Challenge> {
    (challenges.iter())
        .filter(|c| game.is_none_or(|g| c.game.eq_ignore_ascii_case(g)))
        .cloned()
        .collect()
}

/// One `GAME LOBBY` and its answer.
fn ask_lobby(driver: &mut Driver) -> Result<Vec<Challenge>, u8> {
    let mut event = Event::User(Request::Lobby);
    loop {
        let mut listed = None;
        let mut failed = None;
        let code = driver.handle(event, &mut |notice: &Notice| match notice {
            Notice::Lobby(list) => listed = Some(list.clone()),
            other if words::is_failure(other) => failed = words::notice(other, None),
            _ => {}
        });
        if let Some(why) = failed {
            eprintln!("reversi: {why}");
        }
        if let Some(list) = listed {
            return Ok(list);
        }
        if let Some(code) = code {
            return Err(code);
        }
        event = driver.next_event();
        if event == Event::Eof && !driver.client().is_connected() {
            return Err(exit::SERVER_GONE);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_client::text::Terms;

    #[test]
    fn the_challenges_of_the_game_asked_for_oldest_first() {
        let challenge = |code: &str, game: &str| Challenge {
            code: code.into(),
            seconds: 600,
            game: game.into(),
            terms: Terms::default(),
        };
        let list = [
            challenge("1111-1111-1111", "draughts"),
            challenge("2222-2222-2222", "reversi"),
            challenge("3333-3333-3333", "reversi"),
        ];
        assert_eq!(of_game(&list, None).len(), 3);
        let reversi = of_game(&list, Some("Reversi"));
        let codes: Vec<&str> = reversi.iter().map(|c| c.code.as_str()).collect();
        assert_eq!(codes, ["2222-2222-2222", "3333-3333-3333"]);
        assert!(of_game(&list, Some("duell")).is_empty());
    }

    #[test]
    fn a_persons_answer_picks_by_number_refreshes_or_leaves() {
        assert_eq!(read_choice("\n", 3), Some(Choice::Take(0)));
        assert_eq!(read_choice(" 3\n", 3), Some(Choice::Take(2)));
        assert_eq!(read_choice("4", 3), None);
        assert_eq!(read_choice("0", 3), None);
        assert_eq!(read_choice("x", 3), None);
        assert_eq!(read_choice("r", 3), Some(Choice::Refresh));
        assert_eq!(read_choice("q", 3), Some(Choice::Leave));
    }
}
