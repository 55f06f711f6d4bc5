//! `reversi tournament play ID`: a person through a tournament. For each game the client
//! signs in (with the account's token), waits with `GAME TOURNAMENT PLAY` (the server
//! says "your game is starting" when both players are there), plays on the ordinary board
//! screen, then shows the standings until it comes back for the next game.

use reversi_client::exit;
use reversi_client::text::{Identity, Request};

/// Plays tournament `id` to its end (or until the person quits a game); the exit code.
pub fn run(addr: &str, id: u64, identity: Option<Identity>) -> u8 {
    if !matches!(identity, Some(Identity::Token(_))) {
        eprintln!("reversi tournament play: a tournament is for accounts: give --token");
        return exit::CONNECT_FAILED;
    }
    loop {
        match super::standings(addr, id) {
            Ok(s) => {
                println!(
                    "{}\n",
                    super::screen::standings(&s, addr, super::terminal_width())
                );
                if s.tournament.is_finished() {
                    return exit::OK;
                }
            }
            Err(why) => {
                eprintln!("reversi tournament play: {why}");
                return exit::SERVER_GONE;
            }
        }
        println!("waiting for your next game of tournament {id} (q twice leaves)");
        let code =
            crate::text_ui::play_together(addr, Request::Tournament(id), None, identity.clone());
        if code != exit::OK {
            return code;
        }
    }
}
