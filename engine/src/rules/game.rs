//! The absolute game state: colours, history, passes and the end of the game.

use std::fmt;

use crate::Board;
use crate::{Side, Square, Squares};

/// How a finished game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    /// This side has more discs.
    Win(Side),
    /// Equal disc counts.
    Draw,
}

/// A move that was played, as reported by [`Game::play`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Move {
    /// Who played it.
    pub side: Side,
    /// Where the disc was placed.
    pub square: Square,
    /// The discs it flipped.
    pub flipped: u64,
    /// Who moves now: the opponent, the same side again when the opponent
    /// has to pass, or `None` when the game is over.
    pub next: Option<Side>,
}

impl Move {
    /// The squares this move changed: the placed square first, then every
    /// flipped square in ascending index order (what an update_board PDU
    /// carries).
    pub fn changed(&self) -> impl Iterator<Item = Square> {
        std::iter::once(self.square).chain(Squares(self.flipped))
    }
}

/// Why a move was refused by [`Game::play`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IllegalMove {
    /// The square already holds a disc.
    Occupied(Square),
    /// The square is empty but placing a disc there flips nothing.
    FlipsNothing(Square),
    /// Nobody can move any more.
    GameOver,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMove::Occupied(s) => write!(f, "{s} is occupied"),
            IllegalMove::FlipsNothing(s) => write!(f, "{s} flips nothing"),
            IllegalMove::GameOver => f.write_str("game is over"),
        }
    }
}

impl std::error::Error for IllegalMove {}

/// A game in progress or finished: the discs by colour, whose turn it is and
/// the moves played so far (passes are implicit).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Game {
    pub(crate) black: u64,
    pub(crate) white: u64,
    /// Side to move, `None` once the game is over.
    pub(crate) to_move: Option<Side>,
    /// The side [`Game::board`] is relative to once the game is over.
    pub(crate) last_turn: Side,
    pub(crate) history: Vec<Square>,
}

impl Default for Game {
    fn default() -> Game {
        Game::new()
    }
}

impl Game {
    /// The initial position, black to move.
    pub fn new() -> Game {
        let b = Board::start();
        Game {
            black: b.player,
            white: b.opponent,
            to_move: Some(Side::Black),
            last_turn: Side::Black,
            history: Vec::new(),
        }
    }

    /// A game from discs and the side nominally to move. If that side has no
    /// move it passes at once; if neither side can move the game is over.
    pub(crate) fn from_discs(black: u64, white: u64, side: Side) -> Game {
        let mut g = Game {
            black,
            white: white & !black,
            to_move: Some(side),
            last_turn: side,
            history: Vec::new(),
        };
        g.settle_turn(side);
        g
    }

    /// Sets whose turn it is, given that `side` would move next by
    /// alternation: passes when `side` cannot move, ends the game when
    /// neither can.
    fn settle_turn(&mut self, side: Side) {
        self.last_turn = side;
        let b = self.board_for(side);
        self.to_move = if b.moves() != 0 {
            Some(side)
        } else if b.pass().moves() != 0 {
            self.last_turn = side.opponent();
            Some(side.opponent())
        } else {
            None
        };
    }

    /// The board relative to `side`.
    fn board_for(&self, side: Side) -> Board {
        match side {
            Side::Black => Board::new(self.black, self.white),
            Side::White => Board::new(self.white, self.black),
        }
    }

    /// Whose turn it is; `None` once the game is over.
    pub fn side_to_move(&self) -> Option<Side> {
        self.to_move
    }

    /// The board relative to the side to move; once the game is over,
    /// relative to the side that would have moved next by alternation.
    pub fn board(&self) -> Board {
        self.board_for(self.last_turn)
    }

    /// Legal moves of the side to move (none once the game is over), in
    /// square index order.
    pub fn legal_moves(&self) -> Squares {
        Squares(self.legal_bits())
    }

    /// Legal moves as a bitboard.
    pub fn legal_bits(&self) -> u64 {
        match self.to_move {
            Some(_) => self.board().moves(),
            None => 0,
        }
    }

    /// Whether the side to move may play `sq`.
    pub fn is_legal(&self, sq: Square) -> bool {
        self.check(sq).is_ok()
    }

    /// The discs `sq` would flip, or why it is illegal.
    fn check(&self, sq: Square) -> Result<u64, IllegalMove> {
        if self.to_move.is_none() {
            return Err(IllegalMove::GameOver);
        }
        let b = self.board();
        if b.empties() & sq.bit() == 0 {
            return Err(IllegalMove::Occupied(sq));
        }
        match b.flips(sq) {
            0 => Err(IllegalMove::FlipsNothing(sq)),
            f => Ok(f),
        }
    }

    /// Plays `sq` for the side to move, then passes for the opponent if it
    /// has no move (or ends the game if neither side has one).
    pub fn play(&mut self, sq: Square) -> Result<Move, IllegalMove> {
        let flipped = self.check(sq)?;
        let side = self.last_turn;
        let changed = flipped | sq.bit();
        match side {
            Side::Black => {
                self.black |= changed;
                self.white &= !flipped;
            }
            Side::White => {
                self.white |= changed;
                self.black &= !flipped;
            }
        }
        self.history.push(sq);
        self.settle_turn(side.opponent());
        Ok(Move {
            side,
            square: sq,
            flipped,
            next: self.to_move,
        })
    }

    /// Who has a disc on `sq`.
    pub fn disc(&self, sq: Square) -> Option<Side> {
        if self.black & sq.bit() != 0 {
            Some(Side::Black)
        } else if self.white & sq.bit() != 0 {
            Some(Side::White)
        } else {
            None
        }
    }

    /// Bitboard of `side`'s discs.
    pub fn discs(&self, side: Side) -> u64 {
        match side {
            Side::Black => self.black,
            Side::White => self.white,
        }
    }

    /// Number of `side`'s discs.
    pub fn count(&self, side: Side) -> u32 {
        self.discs(side).count_ones()
    }

    /// The result once the game is over, `None` before.
    pub fn outcome(&self) -> Option<Outcome> {
        if self.to_move.is_some() {
            return None;
        }
        let (b, w) = (self.count(Side::Black), self.count(Side::White));
        Some(match b.cmp(&w) {
            std::cmp::Ordering::Greater => Outcome::Win(Side::Black),
            std::cmp::Ordering::Less => Outcome::Win(Side::White),
            std::cmp::Ordering::Equal => Outcome::Draw,
        })
    }

    /// The moves played so far (passes implicit).
    pub fn moves(&self) -> &[Square] {
        &self.history
    }

    /// The moves played so far as one string, e.g. `"f5d6c3"`.
    pub fn transcript(&self) -> String {
        self.history.iter().map(|s| s.to_string()).collect()
    }

    /// Number of empty squares.
    pub fn empty_count(&self) -> u32 {
        64 - (self.black | self.white).count_ones()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn first_moves_and_errors() {
        let mut g = Game::new();
        assert_eq!(g.side_to_move(), Some(Side::Black));
        let names: Vec<String> = g.legal_moves().map(|s| s.to_string()).collect();
        assert_eq!(names, ["d3", "c4", "f5", "e6"]);
        assert_eq!(g.play(sq("d4")).unwrap_err().to_string(), "d4 is occupied");
        assert_eq!(
            g.play(sq("e3")).unwrap_err().to_string(),
            "e3 flips nothing"
        );
        let m = g.play(sq("d3")).unwrap();
        assert_eq!(m.side, Side::Black);
        assert_eq!(m.next, Some(Side::White));
        let changed: Vec<String> = m.changed().map(|s| s.to_string()).collect();
        assert_eq!(changed, ["d3", "d4"]);
        assert_eq!(g.count(Side::Black), 4);
        assert_eq!(g.count(Side::White), 1);
        assert_eq!(g.disc(sq("d4")), Some(Side::Black));
        assert_eq!(g.disc(sq("a1")), None);
        assert_eq!(g.transcript(), "d3");
    }

    #[test]
    fn shortest_game_ends_with_outcome() {
        // A known 9-move wipe-out: black wins with all discs.
        let mut g = Game::new();
        for m in ["e6", "f4", "e3", "f6", "g5", "d6", "e7", "f5", "c5"] {
            g.play(sq(m)).unwrap();
        }
        assert_eq!(g.side_to_move(), None);
        assert_eq!(g.outcome(), Some(Outcome::Win(Side::Black)));
        assert_eq!(g.count(Side::White), 0);
        assert_eq!(g.play(sq("a1")).unwrap_err(), IllegalMove::GameOver);
        assert_eq!(g.legal_moves().count(), 0);
    }
}
