//! The terminal client's part of playing together that comes before a game:
//! `reversi play --lobby` lists the public challenges and accepts the oldest.

use std::time::Duration;

use reversi_client::exit;
use reversi_client::text::{Challenge, Event, Notice, Request};
use reversi_client::transport::Driver;

use super::words;

/// How often the lobby is asked again while it has nothing to accept.
const LOBBY_POLL: Duration = Duration::from_secs(2);

/// The code of the oldest public challenge (of `game`, if given), asking the
/// lobby again every [`LOBBY_POLL`] until there is one; `Err` is the exit code
/// when the server cannot be asked.
pub fn pick_from_lobby(driver: &mut Driver, game: Option<&str>) -> Result<String, u8> {
    let mut said_none = false;
    loop {
        let challenges = ask_lobby(driver)?;
        if let Some(challenge) = first_of(&challenges, game) {
            println!("{}", words::lobby(&challenges));
            println!("accepting {} ({})", challenge.code, challenge.game);
            return Ok(challenge.code.clone());
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

/// The oldest challenge of `game` (any game when `None`), by the game's name in any case.
pub fn first_of<'a>(challenges: &'a [Challenge], game: Option<&str>) -> Option<&'a Challenge> {
    challenges
        .iter()
        .find(|c| game.is_none_or(|g| c.game.eq_ignore_ascii_case(g)))
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
    fn the_oldest_challenge_of_the_game_asked_for_is_taken() {
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
        assert_eq!(first_of(&list, None).unwrap().code, "1111-1111-1111");
        assert_eq!(
            first_of(&list, Some("Reversi")).unwrap().code,
            "2222-2222-2222"
        );
        assert!(first_of(&list, Some("duell")).is_none());
    }
}
