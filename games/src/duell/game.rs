//! A game of Duell: whose turn, what a move does, how the game ends.

use crate::game::{
    Action, Cell, Game, GameInfo, Illegal, Millis, Moved, Outcome, Team, Update, Viewer,
};
use crate::record::{self, RecordMeta};

use super::board::Board;
use super::info::INFO;
use super::moves::{self, Move};
use super::notation::{read_squares, square_name};

/// Plies without a capture that draw the game: chess's fifty-move rule,
/// which Wikipedia's page suggests Duell needs; the rules have no draw.
pub const QUIET_PLIES: u32 = 100;

#[derive(Clone, Debug)]
pub struct Duell {
    board: Board,
    to_move: Team,
    played: Vec<(Team, Move)>,
    /// Plies since the last capture.
    quiet: u32,
    outcome: Option<Outcome>,
}

impl Default for Duell {
    fn default() -> Duell {
        Duell::new()
    }
}

impl Duell {
    /// The starting position, team 1 (south, the first to join) to move.
    pub fn new() -> Duell {
        Duell::with_position(Board::start(), Team::FIRST)
    }

    /// A game from any position (tests, analysis); it is not judged until a move is played.
    pub fn with_position(board: Board, to_move: Team) -> Duell {
        Duell {
            board,
            to_move,
            played: Vec::new(),
            quiet: 0,
            outcome: None,
        }
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    fn judge(&self, m: &Move) -> Option<Outcome> {
        let team = m.after.team;
        let enemy = INFO.team_name(team.other());
        if m.wins() {
            let why = if m.captured.is_some() {
                format!("captured the {enemy} key on {}", square_name(m.to))
            } else {
                format!(
                    "the {} key reached {}",
                    INFO.team_name(team),
                    square_name(m.to)
                )
            };
            return Some(Outcome::Win { team, why });
        }
        if self.quiet >= QUIET_PLIES {
            return Some(Outcome::Draw {
                why: format!("{} moves each without a capture", QUIET_PLIES / 2),
            });
        }
        (!moves::can_move(&self.board, team.other())).then(|| Outcome::Win {
            team,
            why: format!("{enemy} has no legal move"),
        })
    }
}

impl Game for Duell {
    fn info(&self) -> &'static GameInfo {
        &INFO
    }

    fn turn(&self) -> Option<Team> {
        self.outcome.is_none().then_some(self.to_move)
    }

    fn play(&mut self, team: Team, action: &Action, _now: Millis) -> Result<Update, Illegal> {
        if self.outcome.is_some() {
            return Err(Illegal::new("the game is over"));
        }
        if team != self.to_move {
            return Err(Illegal::new("it is not your turn"));
        }
        let Action::Move(points) = action else {
            return Err(Illegal::new("Duell has no draw offers"));
        };
        let m = moves::resolve(&self.board, team, points)?;
        m.play_on(&mut self.board);
        self.quiet = if m.captured.is_some() {
            0
        } else {
            self.quiet + 1
        };
        self.played.push((team, m));
        self.outcome = self.judge(&m);
        self.to_move = team.other();
        // The square left, then the square landed on (the seed's transcript order).
        Ok(Update {
            cells: vec![self.board.cell(m.from), self.board.cell(m.to)],
            moved: Some(Moved {
                team,
                notation: m.notation(),
            }),
            news: None,
        })
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    fn view(&self, _viewer: Viewer) -> Vec<Cell> {
        Board::points().map(|p| self.board.cell(p)).collect()
    }

    fn parse_action(&self, text: &str) -> Result<Action, Illegal> {
        read_squares(text).map(Action::Move)
    }

    fn legal_actions(&self, team: Team) -> Vec<Action> {
        if self.turn() != Some(team) {
            return Vec::new();
        }
        moves::legal_moves(&self.board, team)
            .iter()
            .map(|m| Action::Move(m.points()))
            .collect()
    }

    fn history(&self) -> Vec<Moved> {
        self.played
            .iter()
            .map(|(team, m)| Moved {
                team: *team,
                notation: m.notation(),
            })
            .collect()
    }

    fn record(&self, meta: &RecordMeta) -> String {
        record::plain(&INFO, &self.history(), meta)
    }
}
