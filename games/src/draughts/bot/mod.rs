//! The computer player for draughts: alpha-beta search (see [`search`])
//! over a static evaluation of material, kings, the back row, advancement,
//! the centre and mobility, with a transposition table and a time limit per
//! move.
//!
//! A bot sees the game as any client does, through the [`Game`] trait: the
//! board from [`Game::view`], and the game's PDN record replayed (from the
//! start position or the record's FEN tag) to know which positions the draw
//! rules can still count.

mod eval;
mod search;
mod table;
mod zobrist;

use std::time::{Duration, UNIX_EPOCH};

use crate::bot::{Bot, DrawAnswer};
use crate::game::{Action, Game, Team, Viewer};
use crate::record::{How, RecordMeta};

use super::board::{Kind, Position, Stone};
use super::moves::Move;
use super::replay::read as read_pdn;
use super::view::{self, color};

pub use eval::evaluate;
pub use search::{Limit, Report, Score, Searcher};

/// The most an evaluation may favour the bot, in hundredths of a man, for
/// it to take a draw: within a fifth of a man the position is level.
pub const DRAWN_WITHIN: i32 = 20;

/// The table size the bot uses: 2^20 entries of 16 bytes (16 MiB).
const TABLE_BITS: u32 = 20;

/// A draughts computer player.
pub struct DraughtsBot {
    searcher: Searcher,
    last: Option<Report>,
    /// The deepest iteration, for fixed-depth play (tests, analysis).
    max_depth: u32,
}

impl Default for DraughtsBot {
    fn default() -> DraughtsBot {
        DraughtsBot::new()
    }
}

impl DraughtsBot {
    pub fn new() -> DraughtsBot {
        DraughtsBot::with_table_bits(TABLE_BITS)
    }

    /// A bot with a table of `2^bits` entries.
    pub fn with_table_bits(bits: u32) -> DraughtsBot {
        DraughtsBot {
            searcher: Searcher::new(bits),
            last: None,
            max_depth: 100,
        }
    }

    /// The same bot, never searching deeper than `depth` plies.
    pub fn max_depth(mut self, depth: u32) -> DraughtsBot {
        self.max_depth = depth.max(1);
        self
    }

    /// What the last search found.
    pub fn last_report(&self) -> Option<&Report> {
        self.last.as_ref()
    }

    /// Searches `position` (with the hashes of the positions before it in
    /// its quiet run) for the best of `moves`, within `time`.
    pub fn think(
        &mut self,
        position: &Position,
        past: &[u64],
        moves: &[Move],
        time: Duration,
    ) -> Option<Report> {
        if moves.is_empty() {
            return None;
        }
        let limit = Limit {
            time: Some(time),
            depth: self.max_depth,
        };
        let report = self.searcher.search(position, past, moves, limit);
        self.last = Some(report.clone());
        Some(report)
    }
}

impl Bot for DraughtsBot {
    fn choose(&mut self, game: &dyn Game, team: Team, budget: Duration) -> Option<Action> {
        let actions = game.legal_actions(team);
        if actions.len() <= 1 {
            return actions.into_iter().next();
        }
        let seen = read(game, team)?;
        // The game's own list decides what is legal (a capture under way
        // allows only its continuations); the search plays those of its moves.
        let moves: Vec<Move> = seen
            .position
            .legal_moves()
            .into_iter()
            .filter(|m| actions.contains(&action(m)))
            .collect();
        let report = self.think(&seen.position, &seen.past, &moves, budget)?;
        Some(action(&report.best))
    }

    /// Searches the position as for a move and takes the draw unless the
    /// search finds the bot ahead by more than [`DRAWN_WITHIN`].
    fn answer_draw(&mut self, game: &dyn Game, team: Team, budget: Duration) -> DrawAnswer {
        let report = read(game, team).and_then(|seen| {
            let moves = seen.position.legal_moves();
            self.think(&seen.position, &seen.past, &moves, budget)
        });
        let Some(report) = report else {
            return DrawAnswer {
                accept: true,
                why: "it has no move to play".to_owned(),
            };
        };
        let (accept, found) = match report.score {
            Score::Win(plies) => (false, format!("a win within {plies} plies")),
            Score::Loss(plies) => (true, format!("a loss within {plies} plies")),
            Score::Value(v) => (
                v <= DRAWN_WITHIN,
                format!("{:+.2} of a man for it", f64::from(v) / 100.0),
            ),
        };
        DrawAnswer {
            accept,
            why: format!("its search ({} plies) finds {found}", report.depth),
        }
    }
}

fn action(m: &Move) -> Action {
    Action::Move(m.path().map(view::point).collect())
}

/// A game as the bot sees it.
struct Seen {
    position: Position,
    /// Hashes of the positions since the last capture or man move, before this one.
    past: Vec<u64>,
}

/// The board `team` is to move on, and the past the draw rules can see if
/// the history replays to that board from the start position.
fn read(game: &dyn Game, team: Team) -> Option<Seen> {
    let mut position = Position::empty(color(team)?);
    for cell in game.view(Viewer::Team(team)) {
        let (Ok(square), Some(piece)) = (view::square(cell.at), cell.piece) else {
            continue;
        };
        let kind = if piece.name == view::piece_name(Kind::King) {
            Kind::King
        } else {
            Kind::Man
        };
        let color = color(piece.team)?;
        position.put(square, Some(Stone { color, kind }));
    }
    let past = replay(game)
        .filter(|(last, _)| *last == position)
        .map_or_else(Vec::new, |(_, past)| past);
    Some(Seen { position, past })
}

/// The position the game's record replays to (from the start position or
/// its FEN tag), and the hashes of the positions before it in its quiet run.
fn replay(game: &dyn Game) -> Option<(Position, Vec<u64>)> {
    let meta = RecordMeta {
        players: Vec::new(),
        finished: UNIX_EPOCH,
        outcome: None,
        how: How::Aborted,
        time_control: None,
        times: Vec::new(),
    };
    let replayed = read_pdn(&game.record(&meta)).ok()?;
    let (last, before) = replayed.quiet_positions().split_last()?;
    Some((*last, before.iter().map(zobrist::hash).collect()))
}

#[cfg(test)]
mod tests;
