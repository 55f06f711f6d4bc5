//! The draws the rules declare by themselves: threefold repetition and the
//! 40-move rule.
//!
//! WCDF rules let a player claim these draws; here they are declared as
//! soon as they arise, since no one is there to claim (spec/games/draughts.md).
//! Both only look back to the last capture or man move: after one, no
//! earlier position can occur again (men never go back, pieces never return).

use super::board::Position;
use super::moves::Move;

/// The same position with the same side to move, for the third time.
pub const REPETITIONS: usize = 3;
/// Moves by each player with no capture and no man moved.
pub const QUIET_MOVES: usize = 40;

/// Why the game is drawn by rule.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DrawRule {
    Repetition,
    FortyMoves,
}

impl DrawRule {
    pub fn why(self) -> String {
        match self {
            DrawRule::Repetition => {
                format!("the same position with the same side to move {REPETITIONS} times")
            }
            DrawRule::FortyMoves => {
                format!("{QUIET_MOVES} moves each without a capture or a man moving")
            }
        }
    }
}

/// Whether `m`, played in `before`, can never be undone: a capture or a man's move.
pub fn irreversible(before: &Position, m: &Move) -> bool {
    m.is_capture() || before.men(before.to_move()) & m.from().bit() != 0
}

/// The positions since the last capture or man move, the latest last.
#[derive(Clone, Debug)]
pub struct QuietRun {
    positions: Vec<Position>,
}

impl QuietRun {
    pub fn new(start: Position) -> QuietRun {
        QuietRun {
            positions: vec![start],
        }
    }

    /// Notes `m`, played in `before`, which gave `after`.
    pub fn push(&mut self, before: &Position, m: &Move, after: Position) {
        if irreversible(before, m) {
            self.positions.clear();
        }
        self.positions.push(after);
    }

    /// The positions since the last capture or man move, the latest last.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// Plies played since the last capture or man move.
    pub fn quiet_plies(&self) -> usize {
        self.positions.len() - 1
    }

    /// The draw the latest position brings, if any.
    pub fn draw(&self) -> Option<DrawRule> {
        let latest = self.positions.last()?;
        let seen = self.positions.iter().filter(|p| *p == latest).count();
        if seen >= REPETITIONS {
            Some(DrawRule::Repetition)
        } else if self.quiet_plies() >= 2 * QUIET_MOVES {
            Some(DrawRule::FortyMoves)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(p: &Position, text: &str) -> (Move, Position) {
        let m = p.legal_moves().into_iter().find(|m| m.to_string() == text);
        let m = m.unwrap_or_else(|| panic!("{text}"));
        (m, p.play(&m))
    }

    #[test]
    fn a_man_move_or_a_capture_starts_a_new_quiet_run() {
        let start: Position = "B:WK32,28:BK1,9".parse().unwrap();
        let mut run = QuietRun::new(start);
        let mut p = start;
        for text in ["1-5", "32-27"] {
            let (m, next) = play(&p, text);
            run.push(&p, &m, next);
            p = next;
        }
        assert_eq!(run.quiet_plies(), 2);
        let (m, next) = play(&p, "9-13");
        assert!(irreversible(&p, &m));
        run.push(&p, &m, next);
        assert_eq!(run.quiet_plies(), 0);
        assert_eq!(run.draw(), None);
    }
}
