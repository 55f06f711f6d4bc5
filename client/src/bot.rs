//! `reversi bot`: the engine plays whole games against the server, one
//! connection per game, and reports each result and a summary.

use std::time::Duration;

use reversi_engine::player::{Player, PlayerConfig};
use reversi_engine::Square;
use reversi_games::RandomBot;

use crate::connection::Driver;
use crate::render::{self, Style};
use crate::state::{exit, Command, Event, GameResult, Notice, State};

/// How the bot plays and what it prints.
#[derive(Clone, Debug)]
pub struct BotOptions {
    /// Engine strength.
    pub level: u8,
    /// Time per move, if limited.
    pub move_time: Option<Duration>,
    /// Seed for the engine's choices among equal moves.
    pub seed: u64,
    /// Games to play in a row.
    pub games: u32,
    /// Print the board after every move.
    pub show: bool,
    /// Pause before each own move (for people watching).
    pub delay: Duration,
    /// Name used in messages ("bot", or "black"/"white" in the demo).
    pub name: String,
    /// Moves at the start of each game (both sides') played at random.
    pub random_opening: u32,
    /// Seed of the random openings.
    pub opening_seed: u64,
}

impl Default for BotOptions {
    fn default() -> BotOptions {
        BotOptions {
            level: 6,
            move_time: None,
            seed: 1,
            games: 1,
            show: false,
            delay: Duration::ZERO,
            name: "bot".to_string(),
            random_opening: 0,
            opening_seed: 0,
        }
    }
}

impl BotOptions {
    /// The engine player these options describe.
    pub fn player(&self) -> Player {
        Player::new(PlayerConfig {
            level: self.level,
            move_time: self.move_time,
            seed: self.seed,
            opening_variety: true,
        })
    }
}

/// Totals over several games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub won: u32,
    /// Games drawn.
    pub drawn: u32,
    /// Games lost.
    pub lost: u32,
    /// Own discs over all games.
    pub mine: u32,
    /// Opponents' discs over all games.
    pub theirs: u32,
}

impl Tally {
    /// Counts one result.
    pub fn add(&mut self, result: &GameResult) {
        if result.drawn() {
            self.drawn += 1;
        } else if result.won() {
            self.won += 1;
        } else {
            self.lost += 1;
        }
        self.mine += result.mine;
        self.theirs += result.theirs;
    }

    /// Counts one result of a game without discs.
    pub fn add_standing(&mut self, standing: reversi_client::text::Standing) {
        use reversi_client::text::Standing;
        match standing {
            Standing::Win => self.won += 1,
            Standing::Draw => self.drawn += 1,
            Standing::Lose => self.lost += 1,
        }
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.won + self.drawn + self.lost
    }

    /// Points (win 1, draw 1/2) as a percentage of the games.
    pub fn points_percent(&self) -> f64 {
        match self.games() {
            0 => 0.0,
            n => (f64::from(self.won) + f64::from(self.drawn) / 2.0) * 100.0 / f64::from(n),
        }
    }
}

/// One line per game: "game 3: white, won 40-24 in 58 moves"; a game that
/// did not end on the board says how it was won or lost instead of a score:
/// "game 1: white, won by forfeit after 3 moves (the opponent left or ran out
/// of time)".
pub fn game_line(number: u32, result: &GameResult) -> String {
    let verdict = if result.drawn() {
        "drew"
    } else if result.won() {
        "won"
    } else {
        "lost"
    };
    let moves = match result.moves {
        1 => "1 move".to_string(),
        n => format!("{n} moves"),
    };
    if result.finished {
        format!(
            "game {number}: {}, {verdict} {} in {moves}",
            result.me,
            result.score()
        )
    } else {
        let why = if result.won() {
            "the opponent left or ran out of time"
        } else {
            "the server ended the game early"
        };
        format!(
            "game {number}: {}, {verdict} by forfeit after {moves} ({why})",
            result.me
        )
    }
}

/// The record of several games: "3 games: 1 won, 1 drawn, 1 lost; 50.0% of the points".
pub fn record(tally: &Tally) -> String {
    let games = match tally.games() {
        1 => "1 game".to_string(),
        n => format!("{n} games"),
    };
    format!(
        "{games}: {} won, {} drawn, {} lost; {:.1}% of the points",
        tally.won,
        tally.drawn,
        tally.lost,
        tally.points_percent(),
    )
}

/// The summary line after several games: the record and the discs.
pub fn summary(tally: &Tally) -> String {
    format!("{}; discs {}-{}", record(tally), tally.mine, tally.theirs)
}

/// Plays `options.games` games against the server at `addr`.
pub fn run(addr: &str, options: &BotOptions) -> u8 {
    let mut tally = Tally::default();
    for number in 1..=options.games {
        let mut per_game = options.clone();
        per_game.seed = options.seed.wrapping_add(u64::from(number) - 1);
        per_game.opening_seed = options.opening_seed.wrapping_add(u64::from(number) - 1);
        let (code, result) = play_one(addr, &per_game);
        if let Some(result) = &result {
            tally.add(result);
            println!("{}", game_line(number, result));
        }
        if code != exit::OK {
            if tally.games() > 0 {
                println!("{}", summary(&tally));
            }
            return code;
        }
    }
    println!("{}", summary(&tally));
    exit::OK
}

/// Plays one game; returns the exit code and the result, if the game ended
/// with a `winner`.
pub fn play_one(addr: &str, options: &BotOptions) -> (u8, Option<GameResult>) {
    let mut driver = Driver::new(addr);
    let mut player = options.player();
    let mut opening = RandomBot::new(options.opening_seed);
    let mut event = Event::User(Command::Connect);
    let mut result = None;
    loop {
        let mut notices = Vec::new();
        let code = driver.handle(event, &mut |notice| notices.push(notice.clone()));
        for notice in &notices {
            report(notice, options);
            if let Notice::GameOver(game_result) = notice {
                result = Some(game_result.clone());
            }
        }
        if let Some(code) = code {
            return (code, result);
        }
        event = match driver.state() {
            State::MyTurn(session) => {
                std::thread::sleep(options.delay);
                let game = &session.game;
                let random = game.moves().len() < options.random_opening as usize;
                let choice = if random {
                    let legal: Vec<Square> = game.legal_moves().collect();
                    (!legal.is_empty()).then(|| legal[opening.below(legal.len())])
                } else {
                    player.choose(game)
                };
                match choice {
                    Some(square) => Event::User(Command::Place(square)),
                    None => Event::User(Command::Quit),
                }
            }
            _ => driver.next_event(),
        };
    }
}

fn report(notice: &Notice, options: &BotOptions) {
    let name = &options.name;
    if render::is_failure(notice) {
        eprintln!("reversi {name}: {}", render::notice(notice, Style::PLAIN));
        return;
    }
    if !options.show {
        return;
    }
    match notice {
        Notice::Board(session) => {
            if let (Some(last), Some(mover)) = (session.last_move, session.last) {
                println!("{} {mover} plays {last}", session.game.moves().len());
            }
            println!("{}", render::session_board(session, Style::detect()));
        }
        Notice::YourTurn(_) | Notice::Refused(_) => {}
        other => println!("{}", render::notice(other, Style::detect())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_pdu::{Colour, Winner};

    fn result(me: Colour, winner: Winner, mine: u32, theirs: u32) -> GameResult {
        GameResult {
            me,
            winner,
            mine,
            theirs,
            moves: 60,
            finished: true,
            transcript: String::new(),
        }
    }

    #[test]
    fn tally_and_lines() {
        let mut tally = Tally::default();
        tally.add(&result(Colour::Black, Winner::Black, 40, 24));
        tally.add(&result(Colour::White, Winner::Draw, 32, 32));
        tally.add(&result(Colour::White, Winner::Black, 20, 44));
        assert_eq!((tally.won, tally.drawn, tally.lost), (1, 1, 1));
        assert_eq!(tally.points_percent(), 50.0);
        assert_eq!(
            game_line(1, &result(Colour::Black, Winner::Black, 40, 24)),
            "game 1: black, won 40-24 in 60 moves"
        );
        assert_eq!(
            game_line(3, &result(Colour::White, Winner::Black, 20, 44)),
            "game 3: white, lost 44-20 in 60 moves",
            "the winner's discs first"
        );
        assert_eq!(
            summary(&tally),
            "3 games: 1 won, 1 drawn, 1 lost; 50.0% of the points; discs 92-100"
        );
        let mut forfeit = result(Colour::White, Winner::White, 3, 3);
        (forfeit.finished, forfeit.moves) = (false, 1);
        assert_eq!(
            game_line(2, &forfeit),
            "game 2: white, won by forfeit after 1 move (the opponent left or ran out of time)"
        );
    }
}
