//! The tournaments' pages, made by a store worker from what the store keeps (never on the
//! loop): `/tournaments` (every tournament), `/tournaments/ID` (its crosstable and games, each
//! finished one linked to its replay), `/tournaments/ID.csv` (the crosstable, §4) and
//! `/tournaments/ID.json` (the crosstable and every game with its record id). The routes are
//! in `crate::protocols::web::pages`.

use std::fmt::Write as _;

use reversi_store::{Store, StoreError};
use reversi_tournament::Tournament;
use serde_json::json;

use super::director::Kept;
use super::orders::format_word;

/// A tournament page's form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Html,
    Csv,
    Json,
}

/// Every tournament the store keeps, readable.
fn kept(store: &mut dyn Store) -> Result<Vec<(Kept, Tournament)>, StoreError> {
    let rows = store.tournaments()?;
    Ok(rows
        .into_iter()
        .filter_map(|(_, state)| {
            let kept: Kept = serde_json::from_str(&state).ok()?;
            let t = Tournament::restore(&kept.snapshot).ok()?;
            Some((kept, t))
        })
        .collect())
}

/// `/tournaments`: a list of links, in HTML.
pub fn list(store: &mut dyn Store) -> Result<String, StoreError> {
    let mut body = String::from("<h1>Tournaments</h1>\n<ul>\n");
    for (kept, t) in kept(store)? {
        let s = t.settings();
        let _ = writeln!(
            body,
            "<li><a href=\"/tournaments/{}\">{}</a>: {} {}, {} players, {}</li>",
            kept.id,
            escape(&s.name),
            escape(&s.game),
            format_word(s.format),
            t.entrants().len(),
            phase(&t)
        );
    }
    body.push_str("</ul>\n");
    Ok(body)
}

/// `/tournaments/ID` in `form`, or `None` when there is no such tournament.
pub fn one(store: &mut dyn Store, id: u64, form: Form) -> Result<Option<String>, StoreError> {
    let Some((kept, t)) = kept(store)?.into_iter().find(|(k, _)| k.id == id) else {
        return Ok(None);
    };
    let crosstable = t.crosstable();
    Ok(Some(match form {
        Form::Csv => crosstable.to_csv(),
        Form::Json => json_of(&kept, &t),
        Form::Html => html_of(&kept, &t),
    }))
}

fn phase(t: &Tournament) -> String {
    match t.phase() {
        reversi_tournament::Phase::Running { round, paused } => {
            let paused = if *paused { ", paused" } else { "" };
            format!("round {round} of {}{paused}", t.rounds())
        }
        reversi_tournament::Phase::Finished { early: Some(why) } => {
            format!("finished early: {why}")
        }
        reversi_tournament::Phase::Finished { early: None } => "finished".to_owned(),
        reversi_tournament::Phase::Registration { open: true } => "registration open".to_owned(),
        reversi_tournament::Phase::Registration { open: false } => "registration closed".to_owned(),
        reversi_tournament::Phase::Created => "created".to_owned(),
    }
}

/// The record id of the game on `(round, board)`, if it ended with one.
fn record_of(kept: &Kept, round: u32, board: u32) -> Option<&str> {
    kept.records
        .iter()
        .find(|(k, _)| k.round == round && k.board == board)
        .map(|(_, r)| r.as_str())
}

/// The JSON export: settings, phase, the crosstable and every game with its record id.
pub fn json_of(kept: &Kept, t: &Tournament) -> String {
    let accounts = t.accounts();
    let games: Vec<_> = t
        .history()
        .games
        .iter()
        .map(|g| {
            json!({
                "round": g.round,
                "board": g.board,
                "first": accounts[g.first],
                "second": accounts[g.second],
                "outcome": g.outcome.map(|o| format!("{o:?}")),
                "record": record_of(kept, g.round, g.board),
            })
        })
        .collect();
    let crosstable: serde_json::Value =
        serde_json::from_str(&t.crosstable().to_json()).expect("the crate writes JSON");
    json!({
        "id": kept.id,
        "name": t.settings().name,
        "game": t.settings().game,
        "format": format_word(t.settings().format),
        "time": t.settings().time_control,
        "phase": phase(t),
        "crosstable": crosstable,
        "games": games,
    })
    .to_string()
}

fn html_of(kept: &Kept, t: &Tournament) -> String {
    let s = t.settings();
    let mut body = format!(
        "<h1>{}</h1>\n<p>{} {} {}, {}. <a href=\"/tournaments/{id}.csv\">CSV</a> \
         <a href=\"/tournaments/{id}.json\">JSON</a></p>\n",
        escape(&s.name),
        escape(&s.game),
        format_word(s.format),
        escape(&s.time_control),
        phase(t),
        id = kept.id
    );
    body.push_str(&crosstable_html(&t.crosstable()));
    body.push_str(&games_html(kept, t));
    body
}

/// The crosstable as an HTML table: its text rendering's columns (spec/TOURNAMENTS.md §4),
/// with the cells' legend under it.
fn crosstable_html(table: &reversi_tournament::Crosstable) -> String {
    let rounds = table.rows.first().map_or(0, |r| r.rounds.len());
    let mut html = String::from(
        "<style>.crosstable th,.crosstable td{padding:.25rem .6rem}\
         .crosstable .n{text-align:right}</style>\n\
         <table class=\"crosstable\">\n<tr><th>#</th><th>Name</th><th class=\"n\">Pts</th>",
    );
    for r in 1..=rounds {
        let _ = write!(html, "<th>R{r}</th>");
    }
    for tb in &table.tie_breaks {
        let _ = write!(html, "<th class=\"n\">{}</th>", tb.label());
    }
    html.push_str("</tr>\n");
    for row in &table.rows {
        let _ = write!(
            html,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td>",
            row.rank,
            escape(&row.account),
            row.points
        );
        for cell in &row.rounds {
            let _ = write!(html, "<td><code>{cell}</code></td>");
        }
        for value in &row.tie_breaks {
            let value = format!("{value:.2}");
            let value = value.trim_end_matches('0').trim_end_matches('.');
            let _ = write!(html, "<td class=\"n\">{value}</td>");
        }
        html.push_str("</tr>\n");
    }
    html.push_str(
        "</table>\n<p><small>A round: the opponent's rank, <code>f</code> moved first or \
         <code>s</code> second, then <code>1</code> won, <code>=</code> drew, <code>0</code> \
         lost, <code>+</code>/<code>-</code> won/lost by forfeit, <code>*</code> playing; \
         <code>bye</code> a bye or a rest.</small></p>\n",
    );
    html
}

/// Every game paired so far, round by round: its result and replay, or a link to watch it.
fn games_html(kept: &Kept, t: &Tournament) -> String {
    let accounts = t.accounts();
    let mut html = String::from("<h2>Games</h2>\n<ul>\n");
    for g in &t.history().games {
        let (first, second) = (&accounts[g.first], &accounts[g.second]);
        let players = format!("{} – {}", escape(first), escape(second));
        let running = kept
            .games
            .iter()
            .find(|(k, _)| k.round == g.round && k.board == g.board)
            .map(|(_, game)| *game);
        let how = match (g.outcome, record_of(kept, g.round, g.board), running) {
            (Some(o), Some(record), _) => format!(
                "{}: <a href=\"/games/{1}\">replay {1}</a>",
                result(o, first, second),
                escape(record)
            ),
            (Some(o), None, _) => result(o, first, second),
            (None, _, Some(game)) => {
                format!("playing: <a href=\"/#watch={game}\">watch game {game}</a>")
            }
            (None, _, None) => "waiting for its players".to_owned(),
        };
        let _ = writeln!(
            html,
            "<li>round {} board {}: {players}, {how}</li>",
            g.round, g.board
        );
    }
    html.push_str("</ul>\n");
    html
}

/// A game's result in words, for people.
fn result(outcome: reversi_tournament::Outcome, first: &str, second: &str) -> String {
    use reversi_tournament::Outcome::*;
    let (first, second) = (escape(first), escape(second));
    match outcome {
        FirstWins => format!("{first} won"),
        SecondWins => format!("{second} won"),
        Draw => "drawn".to_owned(),
        FirstForfeits => format!("{second} won by forfeit"),
        SecondForfeits => format!("{first} won by forfeit"),
        BothForfeit => "both forfeited".to_owned(),
    }
}

fn escape(text: &str) -> String {
    crate::protocols::pages::escape(text)
}
