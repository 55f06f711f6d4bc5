//! A record read back into a game (`record.rs` writes them): every step and
//! tide played again.

use crate::game::{Game, Illegal, Millis, Point, Team};

use super::board::Board;
use super::game::Foxes;
use super::info::INFO;
use super::timing::Timing;

/// The game a record describes, every step and tide played again.
pub fn replay(text: &str) -> Result<Foxes, Illegal> {
    let tag = |name: &str| {
        let prefix = format!("[{name} \"");
        text.lines()
            .find_map(|l| l.strip_prefix(&prefix)?.strip_suffix("\"]"))
            .ok_or_else(|| Illegal::new(format!("the record has no {name} tag")))
    };
    let board = Board::from_letters(tag("Start")?)?;
    let timing = read_timing(tag("Timing")?)?;
    let mut game = Foxes::from_board(board, timing);
    let body = text.split_once("\n\n").map_or("", |(_, body)| body);
    for line in body.lines().filter(|l| !l.trim().is_empty()) {
        replay_line(&mut game, line)
            .map_err(|e| Illegal::new(format!("record line {line:?}: {e}")))?;
    }
    Ok(game)
}

fn replay_line(game: &mut Foxes, line: &str) -> Result<(), Illegal> {
    let mut words = line.split_whitespace();
    let at: Millis = number(words.next())?;
    match words.next() {
        Some("tide") => {
            let floodstate: u8 = number(words.next())?;
            let changed = words
                .map(read_tile)
                .collect::<Result<Vec<Point>, Illegal>>()?;
            game.apply_tide(at, floodstate, &changed);
            Ok(())
        }
        Some(name) => {
            let team = (0..2)
                .map(Team)
                .find(|&t| INFO.team_name(t) == name)
                .ok_or_else(|| Illegal::new(format!("{name} is no team")))?;
            let action = game.parse_action(&words.collect::<Vec<_>>().join(" "))?;
            game.play(team, &action, at).map(|_| ())
        }
        None => Err(Illegal::new("a line is a time and an event")),
    }
}

fn read_timing(text: &str) -> Result<Timing, Illegal> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let &["cooldown", cooldown, "tide", tide, "quiet", quiet] = words.as_slice() else {
        return Err(Illegal::new(format!("{text:?} is not a timing")));
    };
    Ok(Timing {
        cooldown: number(Some(cooldown))?,
        tide_period: number(Some(tide))?,
        quiet_limit: number(Some(quiet))?,
    })
}

fn read_tile(text: &str) -> Result<Point, Illegal> {
    let (x, y) = text
        .split_once(',')
        .ok_or_else(|| Illegal::new(format!("{text:?} is not a tile x,y")))?;
    Ok(Point::new(number(Some(x))?, number(Some(y))?))
}

fn number<T: std::str::FromStr>(word: Option<&str>) -> Result<T, Illegal> {
    let word = word.ok_or_else(|| Illegal::new("a number is missing"))?;
    word.parse()
        .map_err(|_| Illegal::new(format!("{word:?} is not a number in range")))
}
