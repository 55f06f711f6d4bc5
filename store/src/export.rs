//! A stored game as files: JSON for every game, and each game's own
//! standard format as the server's records write it (`reversi_games`): GGF
//! for Reversi, PDN for draughts, the plain record format for the others.
//! Pure functions of a [`StoredGame`].

use reversi_games::record::{self, How, RecordMeta};
use reversi_games::{registry, Game, Moved, Settings, Team};
use serde_json::{json, Value};

use crate::glicko2::Rating;
use crate::types::{Ending, Mode, Outcome, StoredGame};

/// A file: its extension (`ggf`, `pdn`, `txt`) and text.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct File {
    pub ext: &'static str,
    pub text: String,
}

/// The game in its kind's own format. Reversi and draughts games are played
/// again through their rules (their formats need the final position); a
/// move the rules refuse makes an error that says which.
pub fn standard(game: &StoredGame) -> Result<File, String> {
    let module = registry::find(&game.kind)
        .ok_or_else(|| format!("no game {:?} to write a record of", game.kind))?;
    let info = module.info;
    let meta = meta(game);
    let text = if info.record_ext == "txt" {
        let moves: Vec<Moved> = game
            .moves
            .iter()
            .map(|m| Moved {
                team: Team(m.team),
                notation: m.notation.clone(),
            })
            .collect();
        record::plain(info, &moves, &meta)
    } else {
        replay(
            game,
            (module.new_game)(&Settings {
                seed: game.seed,
                ..Settings::default()
            }),
        )?
        .record(&meta)
    };
    Ok(File {
        ext: info.record_ext,
        text,
    })
}

fn replay(game: &StoredGame, mut board: Box<dyn Game>) -> Result<Box<dyn Game>, String> {
    let mut now = 0u64;
    for (ply, m) in game.moves.iter().enumerate() {
        now += u64::from(m.took_ms);
        let refused = |why: String| format!("move {} ({}): {why}", ply + 1, m.notation);
        let action = board
            .parse_action(&m.notation)
            .map_err(|e| refused(e.to_string()))?;
        board
            .play(Team(m.team), &action, now)
            .map_err(|e| refused(e.to_string()))?;
    }
    Ok(board)
}

/// What the games crate's records need: the players of each team, the end, the result.
fn meta(game: &StoredGame) -> RecordMeta {
    let teams = game
        .seats
        .iter()
        .map(|s| s.team)
        .max()
        .map_or(0, |t| usize::from(t) + 1);
    let players = (0..teams)
        .map(|team| {
            let names: Vec<&str> = game
                .seats
                .iter()
                .filter(|s| usize::from(s.team) == team)
                .map(|s| s.name.as_str())
                .collect();
            names.join(", ")
        })
        .collect();
    let why = game.why.clone();
    let outcome = match game.outcome {
        Outcome::Win { team, .. } => Some(reversi_games::Outcome::Win {
            team: Team(team),
            why,
        }),
        Outcome::Draw { .. } => Some(reversi_games::Outcome::Draw { why }),
        Outcome::Aborted => None,
    };
    let how = match game.outcome.ending() {
        Ending::Rules | Ending::Agreement => How::OnTheBoard,
        Ending::Time => How::OnTime,
        Ending::Resignation | Ending::Abandonment => How::Forfeit,
        Ending::Aborted => How::Aborted,
    };
    RecordMeta {
        players,
        finished: game.ended.to_system_time(),
        outcome,
        how,
        time_control: None,
        times: Vec::new(),
    }
}

/// The whole game as one JSON object (`spec/STORE.md` lists its fields).
pub fn json(game: &StoredGame) -> String {
    let (result, winner) = match game.outcome {
        Outcome::Win { team, .. } => ("win", Some(team)),
        Outcome::Draw { .. } => ("draw", None),
        Outcome::Aborted => ("none", None),
    };
    let seats: Vec<Value> = game
        .seats
        .iter()
        .map(|s| {
            json!({
                "team": s.team,
                "name": s.name,
                "account": s.account.map(|a| a.0),
                "rating_before": s.before.map(rating),
                "rating_after": s.after.map(rating),
            })
        })
        .collect();
    let moves: Vec<Value> = game
        .moves
        .iter()
        .map(|m| json!({"team": m.team, "move": m.notation, "ms": m.took_ms}))
        .collect();
    let value = json!({
        "id": game.id.as_str(),
        "game": game.kind,
        "rated": game.mode == Mode::Rated,
        "time_control": game.time_control,
        "seed": game.seed,
        "players": seats,
        "moves": moves,
        "result": result,
        "winner": winner,
        "ending": game.outcome.ending().word(),
        "why": game.why,
        "started_ms": game.started.0,
        "ended_ms": game.ended.0,
        "host": game.host,
    });
    format!("{value:#}\n")
}

fn rating(r: Rating) -> Value {
    json!({
        "rating": r.rating,
        "deviation": r.deviation,
        "volatility": r.volatility,
        "provisional": r.is_provisional(),
    })
}

#[cfg(test)]
mod tests;
