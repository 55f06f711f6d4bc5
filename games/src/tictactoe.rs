//! Tic-Tac-Toe (seed 004), the tutorial module: a whole game in one file.
//!
//! The seed's rules: the first to join is X and moves first; three in a
//! line (row, column or diagonal) wins; a full board ties; an invalid move
//! loses. Squares are named `a1`..`c3`, column letter then row, `a1` the
//! lower left (the text protocol's (1, 1)).

use crate::game::{
    Action, BoardSpec, Cell, Game, GameInfo, Illegal, IllegalPolicy, Labels, Millis, Moved,
    Outcome, Piece, Point, Team, Update, Viewer,
};
use crate::module::Module;
use crate::record::RecordMeta;

pub static INFO: GameInfo = GameInfo {
    name: "tictactoe",
    wire_type: "TicTacToe",
    title: "Tic-Tac-Toe",
    board: BoardSpec {
        name: "TicTacToeBoard",
        width: 3,
        height: 3,
        labels: Some(LABELS),
    },
    teams: &["X", "O"],
    illegal: IllegalPolicy::Lose,
    realtime: false,
    random_teams: false,
    rematch: false,
    record_ext: "txt",
    rules: "X and O take turns to put a mark on an empty square; X begins. Three of your \
marks in a line (a row, a column or a diagonal) win; a full board without one is a draw. Here an \
illegal move loses the game (this client refuses one before sending it).",
};

/// Squares are `a1` (lower left) to `c3`.
const LABELS: Labels = Labels {
    columns: &["a", "b", "c"],
    rows: &["1", "2", "3"],
};

pub const MODULE: Module = Module {
    info: &INFO,
    params: &[],
    new_game: |_| Box::new(TicTacToe::new()),
};

/// The eight lines, as square indices (`(y - 1) * 3 + (x - 1)`).
const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

#[derive(Clone, Debug, Default)]
pub struct TicTacToe {
    squares: [Option<Team>; 9],
    moves: Vec<usize>,
    outcome: Option<Outcome>,
}

impl TicTacToe {
    pub fn new() -> TicTacToe {
        TicTacToe::default()
    }

    fn to_move(&self) -> Team {
        Team((self.moves.len() % 2) as u8)
    }

    fn point(index: usize) -> Point {
        Point::new((index % 3) as u8 + 1, (index / 3) as u8 + 1)
    }

    fn index(p: Point) -> Option<usize> {
        ((1..=3).contains(&p.x) && (1..=3).contains(&p.y))
            .then(|| usize::from(p.y - 1) * 3 + usize::from(p.x - 1))
    }

    fn name(index: usize) -> String {
        let p = TicTacToe::point(index);
        LABELS.name(p).expect("a Tic-Tac-Toe index is on the board")
    }

    fn cell(&self, index: usize) -> Cell {
        Cell {
            at: TicTacToe::point(index),
            square: "empty",
            piece: self.squares[index].map(|team| Piece {
                name: INFO.team_name(team).to_lowercase(),
                team,
            }),
        }
    }

    fn judge(&self) -> Option<Outcome> {
        for line in LINES {
            if let Some(team) = self.squares[line[0]] {
                if line.iter().all(|&i| self.squares[i] == Some(team)) {
                    let why = format!("three in a line: {}", line.map(TicTacToe::name).join(" "));
                    return Some(Outcome::Win { team, why });
                }
            }
        }
        self.squares
            .iter()
            .all(Option::is_some)
            .then(|| Outcome::Draw {
                why: "the board is full".to_owned(),
            })
    }
}

impl Game for TicTacToe {
    fn info(&self) -> &'static GameInfo {
        &INFO
    }

    fn turn(&self) -> Option<Team> {
        self.outcome.is_none().then(|| self.to_move())
    }

    fn play(&mut self, team: Team, action: &Action, _now: Millis) -> Result<Update, Illegal> {
        if self.outcome.is_some() {
            return Err(Illegal::new("the game is over"));
        }
        if team != self.to_move() {
            return Err(Illegal::new("it is not your turn"));
        }
        let Action::Move(points) = action else {
            return Err(Illegal::new("Tic-Tac-Toe has no draw offers"));
        };
        let &[point] = points.as_slice() else {
            return Err(Illegal::new("a move names exactly one square"));
        };
        let index = TicTacToe::index(point)
            .ok_or_else(|| Illegal::new(format!("square {point} is not on the board")))?;
        if self.squares[index].is_some() {
            return Err(Illegal::new(format!("{} is taken", TicTacToe::name(index))));
        }
        self.squares[index] = Some(team);
        self.moves.push(index);
        self.outcome = self.judge();
        Ok(Update {
            cells: vec![self.cell(index)],
            moved: Some(Moved {
                team,
                notation: TicTacToe::name(index),
            }),
            news: None,
        })
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    fn view(&self, _viewer: Viewer) -> Vec<Cell> {
        (0..9).map(|i| self.cell(i)).collect()
    }

    fn parse_action(&self, text: &str) -> Result<Action, Illegal> {
        let bad = || Illegal::new(format!("{text:?} is not a square (a1 to c3)"));
        let point = LABELS.read(text.trim()).ok_or_else(bad)?;
        Ok(Action::Move(vec![point]))
    }

    fn legal_actions(&self, team: Team) -> Vec<Action> {
        if self.turn() != Some(team) {
            return Vec::new();
        }
        (0..9)
            .filter(|&i| self.squares[i].is_none())
            .map(|i| Action::Move(vec![TicTacToe::point(i)]))
            .collect()
    }

    fn history(&self) -> Vec<Moved> {
        self.moves
            .iter()
            .enumerate()
            .map(|(n, &i)| Moved {
                team: Team((n % 2) as u8),
                notation: TicTacToe::name(i),
            })
            .collect()
    }

    fn record(&self, meta: &RecordMeta) -> String {
        crate::record::plain(&INFO, &self.history(), meta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(game: &mut TicTacToe, moves: &str) {
        for (n, m) in moves.split_whitespace().enumerate() {
            let action = game.parse_action(m).unwrap();
            game.play(Team((n % 2) as u8), &action, 0).unwrap();
        }
    }

    #[test]
    fn every_line_wins() {
        for line in LINES {
            // X takes the line; O plays elsewhere, never completing one first.
            let mut game = TicTacToe::new();
            let others: Vec<usize> = (0..9).filter(|i| !line.contains(i)).collect();
            let mut o = others.iter();
            for (k, &x) in line.iter().enumerate() {
                game.play(Team::FIRST, &Action::Move(vec![TicTacToe::point(x)]), 0)
                    .unwrap();
                if k < 2 {
                    let &p = o.next().unwrap();
                    game.play(Team::SECOND, &Action::Move(vec![TicTacToe::point(p)]), 0)
                        .unwrap();
                }
                assert_eq!(game.outcome().is_some(), k == 2, "{line:?}");
            }
            assert_eq!(game.outcome().unwrap().winner(), Some(Team::FIRST));
            assert_eq!(game.turn(), None);
        }
    }

    #[test]
    fn a_full_board_without_a_line_ties() {
        let mut game = TicTacToe::new();
        play(&mut game, "b2 a1 c1 a3 a2 c2 b1 b3 c3");
        assert_eq!(
            game.outcome(),
            Some(&Outcome::Draw {
                why: "the board is full".into()
            })
        );
    }

    #[test]
    fn the_last_square_can_still_win() {
        let mut game = TicTacToe::new();
        play(&mut game, "a1 b1 c1 a2 b2 c2 b3 a3 c3");
        assert!(matches!(
            game.outcome(),
            Some(Outcome::Win { team: Team(0), .. })
        ));
    }

    #[test]
    fn illegal_moves_are_refused_and_change_nothing() {
        let mut game = TicTacToe::new();
        play(&mut game, "b2");
        let taken = game.play(Team::SECOND, &Action::Move(vec![Point::new(2, 2)]), 0);
        assert_eq!(taken.unwrap_err().0, "b2 is taken");
        let off = game.play(Team::SECOND, &Action::Move(vec![Point::new(4, 1)]), 0);
        assert!(off.unwrap_err().0.contains("not on the board"));
        let turn = game.play(Team::FIRST, &Action::Move(vec![Point::new(1, 1)]), 0);
        assert_eq!(turn.unwrap_err().0, "it is not your turn");
        let two = game.play(
            Team::SECOND,
            &Action::Move(vec![Point::new(1, 1), Point::new(1, 2)]),
            0,
        );
        assert!(two.is_err());
        assert!(game.play(Team::SECOND, &Action::OfferDraw, 0).is_err());
        assert_eq!(game.legal_actions(Team::SECOND).len(), 8);
        assert_eq!(game.history().len(), 1);
    }

    #[test]
    fn notation_reads_the_lower_left_as_a1() {
        let game = TicTacToe::new();
        assert_eq!(
            game.parse_action("a1").unwrap(),
            Action::Move(vec![Point::new(1, 1)])
        );
        assert_eq!(
            game.parse_action("C2").unwrap(),
            Action::Move(vec![Point::new(3, 2)])
        );
        for bad in ["", "a", "d1", "a4", "a0", "11", "a11", "é1"] {
            assert!(game.parse_action(bad).is_err(), "{bad}");
        }
    }
}
