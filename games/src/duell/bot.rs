//! A computer player for Duell: a two-ply search (its move, every reply)
//! over an evaluation of material, the keys' progress and the dice's
//! closeness to the enemy key. It reads the board from the cells the game
//! draws, so it plays the same from a client's copy as from the server's.

use std::time::Duration;

use crate::bot::{Bot, RandomBot};
use crate::game::{Action, Game, Point, Team, Viewer};

use super::board::{Board, Kind};
use super::moves::{legal_moves, Move};

const WIN: i32 = 1_000_000;
const DIE: i32 = 100;
const KEY_STEP: i32 = 6;
const DIE_STEP: i32 = 1;

/// The Duell player. Fixed depth: its search takes milliseconds, far within
/// any budget a server gives.
pub struct DuellBot {
    /// Breaks ties between equally good moves, so games vary.
    rng: RandomBot,
}

impl DuellBot {
    pub fn new(seed: u64) -> DuellBot {
        DuellBot {
            rng: RandomBot::new(seed),
        }
    }

    /// The best move for `team` on `board`, ties broken at random.
    pub fn best(&mut self, board: &Board, team: Team) -> Option<Move> {
        let mut best: Vec<Move> = Vec::new();
        let mut best_score = i32::MIN;
        for m in legal_moves(board, team) {
            let score = score(board, &m);
            if score > best_score {
                best_score = score;
                best.clear();
            }
            if score == best_score {
                best.push(m);
            }
        }
        let n = best.len();
        (n > 0).then(|| best.swap_remove(self.rng.below(n)))
    }
}

impl Bot for DuellBot {
    fn choose(&mut self, game: &dyn Game, team: Team, _budget: Duration) -> Option<Action> {
        if game.turn() != Some(team) {
            return None;
        }
        let board = Board::from_cells(&game.view(Viewer::Team(team))).ok()?;
        self.best(&board, team).map(|m| Action::Move(m.points()))
    }
}

/// What `m` is worth to its mover once the opponent has made its best reply.
fn score(board: &Board, m: &Move) -> i32 {
    if m.wins() {
        return WIN;
    }
    let team = m.after.team;
    let mut after = board.clone();
    m.play_on(&mut after);
    let replies = legal_moves(&after, team.other());
    if replies.is_empty() {
        return WIN - 1; // the opponent cannot move: it loses
    }
    replies
        .iter()
        .map(|r| {
            if r.wins() {
                return -WIN;
            }
            let mut reply = after.clone();
            r.play_on(&mut reply);
            evaluate(&reply, team)
        })
        .min()
        .unwrap_or(WIN)
}

/// The position from `team`'s side: dice ahead, its key nearer the enemy
/// key square than the enemy's to its own, its dice near the enemy key.
fn evaluate(board: &Board, team: Team) -> i32 {
    let enemy = team.other();
    let mut score = 0;
    let enemy_key = board.key(enemy);
    for p in Board::points() {
        let Some(token) = board.at(p) else { continue };
        let sign = if token.team == team { 1 } else { -1 };
        match token.kind {
            Kind::Die(_) => {
                score += sign * DIE;
                if token.team == team {
                    if let Some(k) = enemy_key {
                        score -= DIE_STEP * distance(p, k);
                    }
                }
            }
            Kind::Key => {
                let goal = Board::key_square(token.team.other());
                score -= sign * KEY_STEP * distance(p, goal);
            }
        }
    }
    score
}

fn distance(a: Point, b: Point) -> i32 {
    i32::from(a.x.abs_diff(b.x)) + i32::from(a.y.abs_diff(b.y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duell::board::Token;
    use crate::duell::die::Die;
    use crate::duell::game::Duell;
    use crate::game::Outcome;

    /// One game between the bot and a random mover; the bot plays `bot_team`.
    fn game_against_random(seed: u64, bot_team: Team) -> Outcome {
        let mut game = Duell::new();
        let mut bot = DuellBot::new(seed);
        let mut random = RandomBot::new(seed ^ 0x5eed);
        while let Some(team) = game.turn() {
            let action = if team == bot_team {
                bot.choose(&game, team, Duration::ZERO)
            } else {
                random.choose(&game, team, Duration::ZERO)
            };
            game.play(team, &action.unwrap(), 0).unwrap();
        }
        game.outcome().unwrap().clone()
    }

    #[test]
    fn it_beats_a_random_mover_from_either_seat() {
        for seed in 1..=4 {
            let team = Team((seed % 2) as u8);
            let outcome = game_against_random(seed, team);
            assert_eq!(outcome.winner(), Some(team), "seed {seed}: {outcome:?}");
        }
    }

    /// The figure the issue asks for: at least 95 wins in 100 games against a
    /// random mover, 50 from each seat. Slow in a debug build:
    /// `cargo test -p reversi-games --release -- --ignored duell_bot_wins`.
    #[test]
    #[ignore]
    fn duell_bot_wins_95_of_100_against_a_random_mover() {
        let wins = (1..=100)
            .filter(|&seed| {
                let team = Team((seed % 2) as u8);
                game_against_random(seed, team).winner() == Some(team)
            })
            .count();
        println!("the Duell bot won {wins} of 100 games against a random mover");
        assert!(wins >= 95, "{wins} wins");
    }

    #[test]
    fn it_takes_the_key_when_it_can_and_guards_its_own() {
        let key = |team| Token {
            team,
            kind: Kind::Key,
        };
        let die = |team, top| Token {
            team,
            kind: Kind::Die(Die::starting(top)),
        };
        let mut bot = DuellBot::new(1);

        let mut board = Board::empty();
        board.set(Point::new(3, 2), Some(key(Team::FIRST)));
        board.set(Point::new(3, 3), Some(key(Team::SECOND)));
        board.set(Point::new(9, 1), Some(die(Team::FIRST, 1)));
        let m = bot.best(&board, Team::FIRST).unwrap();
        assert_eq!((m.from, m.to), (Point::new(3, 2), Point::new(3, 3)));
        assert!(m.wins());

        // North's 2 on a6 reaches a4: south's key must step away.
        let mut board = Board::empty();
        board.set(Point::new(1, 4), Some(key(Team::FIRST)));
        board.set(Point::new(9, 1), Some(die(Team::FIRST, 1)));
        board.set(Point::new(9, 8), Some(key(Team::SECOND)));
        board.set(Point::new(1, 6), Some(die(Team::SECOND, 2)));
        let m = bot.best(&board, Team::FIRST).unwrap();
        assert_eq!(m.from, Point::new(1, 4), "{m:?}");
    }
}
