//! `reversi bot --tournament ID --token T`: a computer player through a whole tournament,
//! without any input. A tournament game ends its connection, so for each game the bot
//! signs in again with its token and waits (`GAME TOURNAMENT PLAY`) until it is called
//! and seated; it plays the game as `reversi bot` does (its time by the game's clock, a
//! dropped connection resumed with the seat's token), and comes back for the next, until
//! the server ends its wait (`GAME RELEASED`: the tournament finished, or the bot was
//! withdrawn). A bye or an absent opponent's forfeit needs nothing: the server calls the
//! bot again for its next round on the same waiting connection.

use std::time::Duration;

use reversi_client::exit;
use reversi_client::text::{Event, Identity, Request};

use crate::game_bot::{self, Options, Run};

/// Plays every game of tournament `id` it is called to; the exit code.
pub fn run(addr: &str, id: u64, options: &Options) -> u8 {
    if !matches!(options.identity, Some(Identity::Token(_))) {
        eprintln!("reversi bot: a tournament's bot signs in with its account's --token");
        return exit::CONNECT_FAILED;
    }
    let options = Options {
        together: Some(Request::Tournament(id)),
        games: u32::MAX,
        rematch: false,
        ..options.clone()
    };
    let mut run = Run::new(addr, &options);
    loop {
        match super::find(addr, id) {
            Ok(t) if t.is_finished() => break,
            Ok(_) => {}
            Err(why) => {
                eprintln!("reversi bot: {why}");
                return exit::SERVER_GONE;
            }
        }
        run.reconnect(addr);
        let code = one_connection(&mut run, id);
        if run.withdrawn {
            return exit::OK;
        }
        match run.denied.take() {
            Some(why) => match retry_after(&why) {
                Some(wait) => std::thread::sleep(wait),
                None => return code,
            },
            // A game over, or a wait the tournament's end ended.
            None if code == exit::OK || code == exit::SERVER_GONE => {}
            None => return code,
        }
    }
    if options.report {
        println!(
            "tournament {id} finished: {}",
            game_bot::record(&run.tally())
        );
    }
    exit::OK
}

/// One connection: signed in, waiting for the game, the game (or the end of the wait).
fn one_connection(run: &mut Run<'_>, id: u64) -> u8 {
    if let Some(code) = run.feed(Event::User(Request::Tournament(id))) {
        return code;
    }
    let event = run.driver.next_event();
    game_bot::drive(run, event)
}

/// The wait a refusal asks for: "too many sign-in attempts; try again in 12 s".
fn retry_after(why: &str) -> Option<Duration> {
    let rest = why.split("try again in ").nth(1)?;
    let seconds: u64 = rest.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_secs(seconds.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sign_in_refused_for_its_rate_is_tried_again_after_the_wait_it_says() {
        assert_eq!(
            retry_after("too many sign-in attempts; try again in 12 s"),
            Some(Duration::from_secs(12))
        );
        assert_eq!(
            retry_after("too many sign-in attempts; try again in 0 s"),
            Some(Duration::from_secs(1))
        );
        assert_eq!(retry_after("Bob is not registered in tournament 1"), None);
    }
}
