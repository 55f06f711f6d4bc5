//! `reversi tournament play ID`: a person through a tournament. For each game the client
//! signs in (with the account's token), waits with `GAME TOURNAMENT PLAY` (the server
//! says "your game is starting" when both players are there), plays on the ordinary board
//! screen, then shows the standings until it comes back for the next game.

use std::time::{Duration, Instant};

use reversi_client::exit;
use reversi_client::text::Identity;

use super::Standings;

/// How long the standings wait for the round's games to end after the person's own.
const ROUND_END: Duration = Duration::from_secs(60);

/// Plays tournament `id` to its end (or until the person quits a game); the exit code.
pub fn run(addr: &str, id: u64, identity: Option<Identity>) -> u8 {
    if !matches!(identity, Some(Identity::Token(_))) {
        eprintln!("reversi tournament play: a tournament is for accounts: give --token");
        return exit::CONNECT_FAILED;
    }
    loop {
        match between_games(addr, id) {
            Ok(s) => {
                let width = super::terminal_width();
                println!("{}\n", super::screen::standings(&s, addr, width));
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
        let code = crate::text_ui::play_tournament_game(addr, id, identity.clone());
        // A game, or a wait the tournament's end ended (its final standings next); a
        // withdrawal ends here, after its news.
        if code != exit::OK {
            return code;
        }
    }
}

/// The standings once the round's games have ended (the next round is paired then, or
/// the tournament finished), or after [`ROUND_END`]: a game just over is recorded when
/// its session ends, a moment after the players saw its end.
fn between_games(addr: &str, id: u64) -> Result<Standings, String> {
    let deadline = Instant::now() + ROUND_END;
    loop {
        let s = super::standings(addr, id)?;
        let playing = s.games.iter().any(|g| g.running);
        if s.tournament.is_finished() || !playing || Instant::now() > deadline {
            return Ok(s);
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}
