//! The crosstable: the standings with every player's round-by-round record, rendered as text
//! (the terminal and the text protocol), CSV and JSON (the final export).
//!
//! A round's cell reads `<opponent's rank><side><result>`: side `f` (moved first) or `s`;
//! result `1` won, `=` drew, `0` lost, `+` won by forfeit, `-` lost by forfeit, `*` playing.
//! `bye` is a bye (its points follow in the JSON), `.` a round without a game.

use std::fmt::{self, Write as _};

use serde::{Deserialize, Serialize};

use crate::record::{History, Outcome, Points, Seat, Side};
use crate::standings::{standings, TieBreak};

/// One round of one player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Cell {
    Game {
        opponent_rank: usize,
        side: Side,
        scored: Option<Points>,
        forfeit: bool,
    },
    Bye {
        points: Points,
    },
    None,
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Game {
                opponent_rank,
                side,
                scored,
                forfeit,
            } => {
                let side = if *side == Side::First { 'f' } else { 's' };
                let result = match (scored, forfeit) {
                    (None, _) => '*',
                    (Some(Points::WIN), true) => '+',
                    (Some(_), true) => '-',
                    (Some(Points::WIN), false) => '1',
                    (Some(Points::DRAW), false) => '=',
                    (Some(_), false) => '0',
                };
                write!(f, "{opponent_rank}{side}{result}")
            }
            Cell::Bye { .. } => f.write_str("bye"),
            Cell::None => f.write_str("."),
        }
    }
}

/// One player's line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub rank: usize,
    pub account: String,
    pub points: Points,
    pub rounds: Vec<Cell>,
    pub tie_breaks: Vec<f64>,
}

/// The whole table, best first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Crosstable {
    pub tie_breaks: Vec<TieBreak>,
    pub rows: Vec<Row>,
}

impl Crosstable {
    /// The crosstable of `accounts` (in seat order) after `rounds` rounds of `history`.
    pub fn new(
        accounts: &[String],
        history: &History,
        rounds: u32,
        tie_breaks: &[TieBreak],
    ) -> Crosstable {
        let lines = standings(accounts.len(), history, tie_breaks);
        let mut rank_of = vec![0; accounts.len()];
        for line in &lines {
            rank_of[line.seat] = line.rank;
        }
        let rows = lines
            .iter()
            .map(|line| Row {
                rank: line.rank,
                account: accounts[line.seat].clone(),
                points: line.points,
                rounds: (1..=rounds)
                    .map(|r| cell(line.seat, r, history, &rank_of))
                    .collect(),
                tie_breaks: line.tie_breaks.clone(),
            })
            .collect();
        Crosstable {
            tie_breaks: tie_breaks.to_vec(),
            rows,
        }
    }

    /// The table as aligned text, one line per player under a header line.
    pub fn to_text(&self) -> String {
        let name_width = self
            .rows
            .iter()
            .map(|r| r.account.chars().count())
            .max()
            .unwrap_or(0)
            .max(4);
        let rounds = self.rows.first().map_or(0, |r| r.rounds.len());
        let mut out = format!("{:>3}  {:<name_width$}  {:>5}", "#", "Name", "Pts");
        for r in 1..=rounds {
            let _ = write!(out, " {:>5}", format!("R{r}"));
        }
        for tb in &self.tie_breaks {
            let _ = write!(out, " {:>6}", tb.label());
        }
        out.push('\n');
        for row in &self.rows {
            let _ = write!(
                out,
                "{:>3}  {:<name_width$}  {:>5}",
                row.rank,
                row.account,
                row.points.to_string()
            );
            for cell in &row.rounds {
                let _ = write!(out, " {:>5}", cell.to_string());
            }
            for value in &row.tie_breaks {
                let _ = write!(out, " {:>6}", format_value(*value));
            }
            out.push('\n');
        }
        out
    }

    /// The table as CSV with a header line; names are quoted when they need to be.
    pub fn to_csv(&self) -> String {
        let rounds = self.rows.first().map_or(0, |r| r.rounds.len());
        let mut header = vec![
            "rank".to_string(),
            "account".to_string(),
            "points".to_string(),
        ];
        header.extend((1..=rounds).map(|r| format!("round{r}")));
        header.extend(self.tie_breaks.iter().map(|t| t.label().to_string()));
        let mut out = header.join(",");
        out.push('\n');
        for row in &self.rows {
            let mut fields = vec![
                row.rank.to_string(),
                csv_field(&row.account),
                row.points.to_string(),
            ];
            fields.extend(row.rounds.iter().map(Cell::to_string));
            fields.extend(row.tie_breaks.iter().map(|v| format_value(*v)));
            out.push_str(&fields.join(","));
            out.push('\n');
        }
        out
    }

    /// The table as JSON (every cell with its opponent's rank, side and score).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a crosstable holds only strings and numbers")
    }
}

fn cell(seat: Seat, round: u32, history: &History, rank_of: &[usize]) -> Cell {
    if let Some(bye) = history
        .byes
        .iter()
        .find(|b| b.seat == seat && b.round == round)
    {
        return Cell::Bye { points: bye.points };
    }
    let Some(game) = history.games_of(seat).find(|g| g.round == round) else {
        return Cell::None;
    };
    let (Some(side), Some(opponent)) = (game.side_of(seat), game.opponent_of(seat)) else {
        return Cell::None;
    };
    Cell::Game {
        opponent_rank: rank_of[opponent],
        side,
        scored: game.outcome.map(|o| o.points_of(side)),
        forfeit: game.outcome.is_some_and(|o: Outcome| !o.played()),
    }
}

/// A tie-break value the way crosstables print it: `12`, `12.5`, `12.25`.
fn format_value(value: f64) -> String {
    // An empty sum is -0.0 in Rust; -0.001 rounds to "-0.00": neither is a "-0" to show.
    let value = if value.abs() < 0.005 { 0.0 } else { value };
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::format_value;

    #[test]
    fn an_empty_tie_break_reads_0_not_minus_0() {
        let empty: f64 = [].iter().sum();
        assert_eq!(format_value(empty), "0");
        assert_eq!(format_value(-0.001), "0");
        assert_eq!(format_value(-1.5), "-1.5");
        assert_eq!(format_value(2.25), "2.25");
    }
}
