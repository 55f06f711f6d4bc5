//! A PDN file read back into a game (`record.rs` writes them): the FEN tag
//! if there is one, then the moves (move numbers, comments and the result
//! skipped), each checked against the rules.

use crate::game::{Action, Game};

use super::board::Position;
use super::game::Draughts;
use super::notation::{parse_squares, ParseError};

/// The game a PDN file records: its first position and every move, played
/// by the rules (so a record with an illegal move is refused).
pub fn read(text: &str) -> Result<Draughts, ParseError> {
    let (tags, movetext) = split_tags(text);
    let start = match tags.iter().find(|(name, _)| *name == "FEN") {
        Some((_, fen)) => fen.parse()?,
        None => Position::start(),
    };
    let mut game = Draughts::from_position(start);
    for token in move_tokens(movetext) {
        let bad = |why: String| ParseError(format!("move {token:?}: {why}"));
        let team = game
            .turn()
            .ok_or_else(|| bad("the game is already over".into()))?;
        let squares = parse_squares(&token)?;
        let points = squares.into_iter().map(super::view::point).collect();
        game.play(team, &Action::Move(points), 0)
            .map_err(|e| bad(e.0))?;
    }
    Ok(game)
}

/// The `[Name "value"]` tags, and the text after them. A value runs to its
/// closing quote, so it may hold brackets (`[::1]:4000`).
fn split_tags(text: &str) -> (Vec<(&str, &str)>, &str) {
    let mut tags = Vec::new();
    let mut rest = text.trim_start();
    while let Some(line) = rest.strip_prefix('[') {
        let parsed = line.split_once(" \"").and_then(|(name, after)| {
            let (value, after) = after.split_once('"')?;
            Some((name.trim(), value, after.trim_start().strip_prefix(']')?))
        });
        let Some((name, value, after)) = parsed else {
            break;
        };
        tags.push((name, value));
        rest = after.trim_start();
    }
    (tags, rest)
}

/// The tokens that end a movetext: PDN's results, for 8x8 and 10x10 boards.
const RESULTS: [&str; 7] = ["1-0", "0-1", "1/2-1/2", "*", "2-0", "0-2", "1-1"];

/// The moves of a movetext: comments, move numbers and results left out.
fn move_tokens(movetext: &str) -> Vec<String> {
    let mut plain = String::with_capacity(movetext.len());
    let mut depth = 0usize;
    for c in movetext.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            c if depth == 0 => plain.push(c),
            _ => {}
        }
        if matches!(c, '{' | '}') {
            plain.push(' ');
        }
    }
    plain
        .split_whitespace()
        .filter(|t| !RESULTS.contains(t))
        // `12.`, `1...` and `1.11-15`: the move number goes, the move stays.
        .map(|t| t.rsplit_once('.').map_or(t, |(_, after)| after))
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{How, RecordMeta};
    use crate::RandomBot;
    use std::time::UNIX_EPOCH;

    fn meta(players: &[&str]) -> RecordMeta {
        RecordMeta {
            players: players.iter().map(|p| (*p).to_owned()).collect(),
            finished: UNIX_EPOCH,
            outcome: None,
            how: How::Aborted,
            time_control: None,
            times: Vec::new(),
        }
    }

    #[test]
    fn random_games_round_trip_through_their_records() {
        for seed in 1..=10 {
            let mut game = Draughts::new();
            let mut random = RandomBot::new(seed);
            while let Some(team) = game.turn() {
                let actions = game.legal_actions(team);
                game.play(team, &actions[random.below(actions.len())], 0)
                    .unwrap();
            }
            let text = game.record(&meta(&["[::1]:4000", "b"]));
            let read = read(&text).unwrap();
            assert_eq!(read.history(), game.history(), "seed {seed}");
            assert_eq!(read.position(), game.position());
            assert_eq!(read.outcome(), game.outcome());
            assert_eq!(split_tags(&text).0[2], ("Black", "[::1]:4000"));
        }
    }

    #[test]
    fn set_up_games_round_trip_with_their_fen() {
        let mut game = Draughts::from_position("W:WK19:B10".parse().unwrap());
        for text in ["19-24", "10-14"] {
            let team = game.turn().unwrap();
            game.play(team, &game.parse_action(text).unwrap(), 0)
                .unwrap();
        }
        let read = read(&game.record(&meta(&[]))).unwrap();
        assert_eq!(read.start(), game.start());
        assert_eq!(read.history(), game.history());
    }

    #[test]
    fn reading_is_liberal_about_numbers_comments_and_short_captures() {
        let text = "[Event \"x\"]\n[GameType \"21\"]\n\n1.11-15 {a comment 2. 9-13} 22-18 \
                    2. 15x22 {another} 25x18 1/2-1/2";
        let game = read(text).unwrap();
        let moves: Vec<String> = game.history().into_iter().map(|m| m.notation).collect();
        assert_eq!(moves, ["11-15", "22-18", "15x22", "25x18"]);
        assert_eq!(read("").unwrap().history().len(), 0);
    }

    #[test]
    fn records_with_illegal_moves_or_bad_tags_are_refused() {
        let illegal = read("1. 11-16 22-18 2. 16-11").unwrap_err();
        assert_eq!(illegal.0, "move \"16-11\": 16-11 is not a legal move");
        assert!(read("[FEN \"X:W1\"]\n1. 11-15").is_err());
        assert!(read("[Event \"x\"\n1. 11-15").is_err());
        assert!(read("1. 11-15 {unclosed 22-18").is_ok());
    }
}
