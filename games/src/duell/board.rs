//! The 9 x 8 board, its squares and the pieces on them.

use crate::game::{Cell, Illegal, Piece, Point, Team};

use super::die::{Die, Faces};

pub const WIDTH: u8 = 9;
pub const HEIGHT: u8 = 8;
const SQUARES: usize = WIDTH as usize * HEIGHT as usize;

/// The home row from team 1's left to its right: the pips on top of each
/// die, `None` for the key in the middle (Wikipedia's "Duell (game)"; the
/// seed's load file gives the first four and the key).
const HOME_ROW: [Option<u8>; WIDTH as usize] = [
    Some(5),
    Some(1),
    Some(2),
    Some(6),
    None,
    Some(6),
    Some(2),
    Some(1),
    Some(5),
];

/// What a piece is: a die, or the key (1 on every face, moves one square).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Kind {
    Die(Die),
    Key,
}

/// A piece on the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Token {
    pub team: Team,
    pub kind: Kind,
}

impl Token {
    /// The seed's picture name: `die536` (top, back, left as its owner sees
    /// them) or `key111`.
    pub fn name(self) -> String {
        match self.kind {
            Kind::Die(die) => format!("die{}", Faces(die.faces(self.team == Team::FIRST))),
            Kind::Key => "key111".to_owned(),
        }
    }

    /// The token a drawn piece shows, if its name is one of the game's.
    pub fn from_piece(piece: &Piece) -> Option<Token> {
        let kind = match piece.name.as_str() {
            "key111" => Kind::Key,
            name => {
                let digits = name.strip_prefix("die")?.as_bytes();
                let &[top, back, left] = digits else {
                    return None;
                };
                let faces = [top, back, left].map(|d| d.wrapping_sub(b'0'));
                Kind::Die(Die::from_faces(faces, piece.team == Team::FIRST)?)
            }
        };
        (piece.team <= Team::SECOND).then_some(Token {
            team: piece.team,
            kind,
        })
    }

    /// How many squares it moves.
    pub fn reach(self) -> u8 {
        match self.kind {
            Kind::Die(die) => die.top(),
            Kind::Key => 1,
        }
    }
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Board {
    squares: [Option<Token>; SQUARES],
}

impl Board {
    /// The starting position: team 1 on row 1, team 2 on row 8 facing it.
    pub fn start() -> Board {
        let mut squares = [None; SQUARES];
        for (i, top) in HOME_ROW.iter().enumerate() {
            let kind = |turned: bool| match top {
                Some(top) if turned => Kind::Die(Die::starting(*top).turned()),
                Some(top) => Kind::Die(Die::starting(*top)),
                None => Kind::Key,
            };
            let x = i as u8 + 1;
            squares[index(Point::new(x, 1))] = Some(Token {
                team: Team::FIRST,
                kind: kind(false),
            });
            // Team 2's left is the board's east: its row reads the same from its seat.
            squares[index(Point::new(WIDTH + 1 - x, HEIGHT))] = Some(Token {
                team: Team::SECOND,
                kind: kind(true),
            });
        }
        Board { squares }
    }

    /// The board the cells draw (a client's or a computer player's copy);
    /// cells not drawn stay empty.
    pub fn from_cells(cells: &[Cell]) -> Result<Board, Illegal> {
        let mut board = Board::empty();
        for cell in cells {
            if !Board::on_board(cell.at) {
                return Err(Illegal::new(format!("{} is not on the board", cell.at)));
            }
            let token = match &cell.piece {
                None => None,
                Some(piece) => Some(Token::from_piece(piece).ok_or_else(|| {
                    Illegal::new(format!("{} is not a piece of Duell", piece.name))
                })?),
            };
            board.set(cell.at, token);
        }
        Ok(board)
    }

    /// A board with nothing on it, for setting up positions.
    pub fn empty() -> Board {
        Board {
            squares: [None; SQUARES],
        }
    }

    pub fn on_board(p: Point) -> bool {
        (1..=WIDTH).contains(&p.x) && (1..=HEIGHT).contains(&p.y)
    }

    /// Every square, row by row from (1, 1).
    pub fn points() -> impl Iterator<Item = Point> {
        (1..=HEIGHT).flat_map(|y| (1..=WIDTH).map(move |x| Point::new(x, y)))
    }

    /// What stands on `p` (nothing off the board).
    pub fn at(&self, p: Point) -> Option<Token> {
        Board::on_board(p).then(|| self.squares[index(p)]).flatten()
    }

    /// Puts `token` on `p` (or clears it); `p` must be on the board.
    pub fn set(&mut self, p: Point, token: Option<Token>) {
        self.squares[index(p)] = token;
    }

    /// Where `team`'s pieces stand.
    pub fn pieces(&self, team: Team) -> impl Iterator<Item = (Point, Token)> + '_ {
        Board::points().filter_map(move |p| self.at(p).filter(|t| t.team == team).map(|t| (p, t)))
    }

    /// Where `team`'s key stands, if it is still on the board.
    pub fn key(&self, team: Team) -> Option<Point> {
        self.pieces(team)
            .find(|(_, t)| t.kind == Kind::Key)
            .map(|(p, _)| p)
    }

    /// The square `team`'s key starts on, the middle of its home row.
    pub fn key_square(team: Team) -> Point {
        let middle = WIDTH.div_ceil(2);
        if team == Team::FIRST {
            Point::new(middle, 1)
        } else {
            Point::new(middle, HEIGHT)
        }
    }

    /// The square's kind as the seed draws it: the two key squares, the others
    /// checkered with (1, 1) white.
    pub fn square_kind(p: Point) -> &'static str {
        if p == Board::key_square(Team::FIRST) || p == Board::key_square(Team::SECOND) {
            "key"
        } else if (p.x + p.y).is_multiple_of(2) {
            "white"
        } else {
            "black"
        }
    }

    pub fn cell(&self, p: Point) -> Cell {
        Cell {
            at: p,
            square: Board::square_kind(p),
            piece: self.at(p).map(|t| Piece {
                name: t.name(),
                team: t.team,
            }),
        }
    }
}

fn index(p: Point) -> usize {
    usize::from(p.y - 1) * usize::from(WIDTH) + usize::from(p.x - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(board: &Board, y: u8) -> Vec<String> {
        (1..=WIDTH)
            .map(|x| board.at(Point::new(x, y)).map_or("-".into(), |t| t.name()))
            .collect()
    }

    #[test]
    fn the_start_matches_the_seeds_load_file_and_mirrors_it_for_team_2() {
        let board = Board::start();
        let home = [
            "die536", "die135", "die231", "die632", "key111", "die632", "die231", "die135",
            "die536",
        ];
        assert_eq!(row(&board, 1), home);
        let mut far = home.to_vec();
        far.reverse();
        assert_eq!(row(&board, 8), far);
        for y in 2..HEIGHT {
            assert!(row(&board, y).iter().all(|n| n == "-"));
        }
        assert_eq!(board.pieces(Team::FIRST).count(), 9);
        assert!(board.pieces(Team::SECOND).all(|(p, _)| p.y == 8));
        assert_eq!(board.key(Team::FIRST), Some(Point::new(5, 1)));
        assert_eq!(board.key(Team::SECOND), Some(Point::new(5, 8)));
    }

    #[test]
    fn a_board_is_read_back_from_its_cells() {
        let board = Board::start();
        let cells: Vec<Cell> = Board::points().map(|p| board.cell(p)).collect();
        assert_eq!(Board::from_cells(&cells).unwrap(), board);
        let mut bad = cells.clone();
        bad[0].piece.as_mut().unwrap().name = "die563".into();
        assert!(Board::from_cells(&bad).is_err());
        bad[0].piece.as_mut().unwrap().name = "king".into();
        assert!(Board::from_cells(&bad).is_err());
        bad[0].piece.as_mut().unwrap().team = Team(2);
        bad[0].piece.as_mut().unwrap().name = "key111".into();
        assert!(Board::from_cells(&bad).is_err());
    }

    #[test]
    fn squares_are_drawn_as_in_the_seeds_transcript() {
        assert_eq!(Board::square_kind(Point::new(1, 1)), "white");
        assert_eq!(Board::square_kind(Point::new(1, 6)), "black");
        assert_eq!(Board::square_kind(Point::new(5, 7)), "white");
        assert_eq!(Board::square_kind(Point::new(5, 8)), "key");
        assert_eq!(Board::square_kind(Point::new(5, 1)), "key");
        assert_eq!(Board::points().count(), 72);
        assert!(Board::start().at(Point::new(10, 1)).is_none());
        assert!(Board::start().at(Point::new(0, 1)).is_none());
    }
}
