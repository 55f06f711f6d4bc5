//! Finished games as PDN files: the tags Event, Date, Black, White, Result
//! and GameType 21 (English draughts), SetUp and FEN when the game did not
//! start from the start position, then the moves.
//!
//! PDN's result counts the side that moves first first: `1-0` is a win for
//! Black, `0-1` for White, `1/2-1/2` a draw, `*` no result (an aborted game).
//! How the game ended, in words, is a comment before the result.
//! (`replay.rs` reads such a file back.)

use crate::game::{Moved, Team};
use crate::record::{self, How, RecordMeta};

use super::board::{Color, Position};
use super::info::INFO;
use super::view::team;

/// The longest movetext line, as PGN advises.
const LINE: usize = 79;

/// The game that started at `start` and made the moves of `history`, as a PDN file.
pub fn pdn(start: &Position, history: &[Moved], meta: &RecordMeta) -> String {
    let (date, _) = record::date_time(meta.finished);
    let player = |color: Color| {
        meta.players
            .get(usize::from(team(color).0))
            .map_or("?", String::as_str)
            .replace(['"', '\\'], "")
    };
    let result = result(meta);
    let mut text = format!(
        "[Event \"reversid\"]\n[Date \"{date}\"]\n[Black \"{}\"]\n[White \"{}\"]\n\
         [Result \"{result}\"]\n[GameType \"21\"]\n",
        player(Color::Black),
        player(Color::White),
    );
    if let Some(control) = &meta.time_control {
        text.push_str(&format!("[TimeControl \"{control}\"]\n"));
    }
    if *start != Position::start() {
        text.push_str(&format!("[SetUp \"1\"]\n[FEN \"{start}\"]\n"));
    }
    text.push('\n');
    let mut tokens = movetext(start, history, meta);
    tokens.push(format!("{{{}}}", record::result_text(&INFO, meta)));
    tokens.push(result.to_owned());
    text.push_str(&wrap(&tokens));
    text
}

fn result(meta: &RecordMeta) -> &'static str {
    match (&meta.outcome, meta.how) {
        (_, How::Aborted) | (None, _) => "*",
        (Some(outcome), _) => match outcome.winner() {
            Some(Team::FIRST) => "1-0",
            Some(_) => "0-1",
            None => "1/2-1/2",
        },
    }
}

/// Move numbers and moves: `1. 11-15 23-19 2. 8-11 ...`; a game that starts
/// with White to move begins `1... 23-19`. Each move's clock follows it, where known, as
/// a `{[%clk 0:04:57.4]}` comment.
fn movetext(start: &Position, history: &[Moved], meta: &RecordMeta) -> Vec<String> {
    let mut tokens = Vec::new();
    let white_first = start.to_move() == Color::White;
    let mut after_comment = false;
    for (i, moved) in history.iter().enumerate() {
        let ply = i + usize::from(white_first);
        if ply % 2 == 0 {
            tokens.push(format!("{}.", ply / 2 + 1));
        } else if i == 0 || after_comment {
            // White's move after a comment carries its number again, as PGN writes it.
            tokens.push(format!("{}...", ply / 2 + 1));
        }
        tokens.push(moved.notation.clone());
        let comment = record::clk_comment(meta, i);
        after_comment = comment.is_some();
        tokens.extend(comment);
    }
    tokens
}

/// Tokens joined by spaces, in lines of at most [`LINE`] characters.
fn wrap(tokens: &[String]) -> String {
    let mut text = String::new();
    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() > LINE {
            text.push_str(&line);
            text.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(token);
    }
    text.push_str(&line);
    text.push('\n');
    text
}
