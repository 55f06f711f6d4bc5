//! TEXT-PROTOCOL.md §10: whole games of every turn-based game the server
//! serves, the kit choosing random legal moves (in both forms, §5.3) from its
//! own copy of the rules and checking every `GAME MOVED`, `DRAW`, `GAME NEWS`,
//! `GAME TURN`, `READY`, `GAME OVER` and `RESULT` against that copy.

use reversi_games::{Action, Game, Team};

use crate::report::{Finding, Judged};
use crate::rng::Rng;
use crate::server::referee::{coordinates, judge_move, notation};
use crate::server::table::seat;
use crate::server::{served, Check, Target};

pub const CHECKS: &[Check] = &[
    Check {
        section: "text §10.1",
        what: "tictactoe: random games agree with the rules move by move",
        run: |t| random_games(t, "tictactoe"),
    },
    Check {
        section: "text §10.2",
        what: "reversi: random games agree with the rules move by move",
        run: |t| random_games(t, "reversi"),
    },
    Check {
        section: "text §10 (draughts.md)",
        what: "draughts: random games agree with the rules move by move",
        run: |t| random_games(t, "draughts"),
    },
    Check {
        section: "text §10 (duell.md)",
        what: "duell: random games agree with the rules move by move",
        run: |t| random_games(t, "duell"),
    },
];

/// More moves than any game here lasts: a server that never ends a game fails.
const MOST_PLIES: usize = 2000;

fn random_games(target: &Target, game: &str) -> Judged {
    served(target, game)?;
    let mut rng = Rng::new(target.seed ^ game.len() as u64);
    for _ in 0..target.random_games {
        random_game(target, game, &mut rng)?;
    }
    Ok(())
}

fn random_game(target: &Target, name: &str, rng: &mut Rng) -> Judged {
    let mut table = seat(target, name)?;
    let mut game = crate::rules::opening(name);
    for _ in 0..MOST_PLIES {
        let Some(team) = game.turn() else {
            return Ok(());
        };
        let action = pick(game.as_ref(), team, rng)?;
        let line = if rng.below(2) == 0 {
            coordinates(&action)
        } else {
            notation(game.as_ref(), team, &action)
        };
        judge_move(&mut table, &mut [], game.as_mut(), (team, &action, &line))?;
    }
    Err(Finding::differ(
        "the kit",
        format!("the game over within {MOST_PLIES} moves"),
        "it went on",
    ))
}

/// A random legal move of `team`'s.
fn pick(game: &dyn Game, team: Team, rng: &mut Rng) -> Result<Action, Finding> {
    let moves: Vec<Action> = game
        .legal_actions(team)
        .into_iter()
        .filter(|a| matches!(a, Action::Move(_)))
        .collect();
    if moves.is_empty() {
        return Err(Finding::differ(
            "the kit",
            "a legal move for the team to move",
            "none",
        ));
    }
    Ok(moves[rng.below(moves.len())].clone())
}
