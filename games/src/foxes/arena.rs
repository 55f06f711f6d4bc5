//! A simulated clock for tests: two computer players play a real-time game
//! as the runtime would run it, each asked for a step the moment its
//! cooldown ends, the game woken when it asks.

use std::time::Duration;

use crate::bot::Bot;
use crate::game::{Game, Millis, Outcome, Team};

use super::game::Foxes;

/// Plays until the game ends or game time passes `limit`; the outcome, if any.
/// `bots` are the foxes' then the dolphins' players.
pub fn play_out(game: &mut Foxes, bots: [&mut dyn Bot; 2], limit: Millis) -> Option<Outcome> {
    let cooldown = game.timing().cooldown;
    let mut next: [Millis; 2] = [0, 0];
    let mut first = 0;
    loop {
        if let Some(outcome) = game.outcome() {
            return Some(outcome.clone());
        }
        let wake = game.wake_at().unwrap_or(Millis::MAX);
        let now = wake.min(next[0]).min(next[1]);
        if now > limit {
            return None;
        }
        if wake <= now {
            game.wake(now);
        }
        // Who goes first when both are ready at once alternates.
        for k in [first, 1 - first] {
            let team = Team(k as u8);
            if next[k] > now || game.outcome().is_some() {
                continue;
            }
            if game.may_move(team, now) {
                if let Some(action) = bots[k].choose(game, team, Duration::ZERO) {
                    if let Err(e) = game.play(team, &action, now) {
                        panic!("{team:?} chose an illegal {action:?}: {e}");
                    }
                }
                next[k] = now + cooldown;
            } else {
                next[k] = game.ready_at(team).unwrap_or(now + cooldown).max(now + 1);
            }
        }
        first = 1 - first;
    }
}
