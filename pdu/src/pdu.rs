//! The PDU values: what a frame means once decoded, or what to encode.

use core::fmt;

use crate::colour::{Colour, Winner};
use crate::error::Error;
use crate::id::MsgId;
use crate::square::{Place, Square};
use crate::{HEADER_LEN, MAX_SQUARES};

/// One protocol data unit.
///
/// Borrowed from the caller's buffer where it carries a variable part
/// (update_board's squares), so decoding never copies or allocates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pdu<'a> {
    /// Either way: the sender saw a protocol violation, or is giving up.
    Error,
    /// Client to server: join the queue for a game.
    Connect,
    /// Server to client: paired; the client plays `colour`.
    ConnectOk {
        /// The colour this client plays.
        colour: Colour,
    },
    /// Client to server: leave the queue or the game.
    Quit,
    /// Server to client: it is this client's move.
    Turn,
    /// Client to server: put a disc at these coordinates.
    Place(Place),
    /// Server to client: the last place was refused; try again.
    PlaceError,
    /// Server to client: squares that now hold a colour.
    UpdateBoard(UpdateBoard<'a>),
    /// Server to client: the game is over.
    Winner(Winner),
}

impl Pdu<'_> {
    /// The PDU's id.
    pub const fn id(&self) -> MsgId {
        match self {
            Pdu::Error => MsgId::Error,
            Pdu::Connect => MsgId::Connect,
            Pdu::ConnectOk { .. } => MsgId::ConnectOk,
            Pdu::Quit => MsgId::Quit,
            Pdu::Turn => MsgId::Turn,
            Pdu::Place(_) => MsgId::Place,
            Pdu::PlaceError => MsgId::PlaceError,
            Pdu::UpdateBoard(_) => MsgId::UpdateBoard,
            Pdu::Winner(_) => MsgId::Winner,
        }
    }

    /// The encoded length in bytes, header included (the `msg_size` field).
    pub fn encoded_len(&self) -> usize {
        match self {
            Pdu::UpdateBoard(update) => update_board_len(update.squares.len()),
            other => fixed_len(other.id()).unwrap_or(HEADER_LEN),
        }
    }
}

impl fmt::Display for Pdu<'_> {
    /// A one-line rendering for logs, such as `update_board black d3 d4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id().name())?;
        match self {
            Pdu::ConnectOk { colour } => write!(f, " {colour}"),
            Pdu::Place(Place { x, y }) => match Square::from_wire(*x, *y) {
                Some(square) => write!(f, " {square}"),
                None => write!(f, " ({x}, {y})"),
            },
            Pdu::UpdateBoard(update) => {
                write!(f, " {}", update.colour)?;
                update.squares.iter().try_for_each(|sq| write!(f, " {sq}"))
            }
            Pdu::Winner(winner) => match winner.colour() {
                Some(colour) => write!(f, " {colour}"),
                None => f.write_str(" draw"),
            },
            _ => Ok(()),
        }
    }
}

/// The size of a PDU whose size the table fixes, or `None` for update_board.
pub(crate) const fn fixed_len(id: MsgId) -> Option<usize> {
    match id {
        MsgId::Error | MsgId::Connect | MsgId::Quit | MsgId::Turn | MsgId::PlaceError => {
            Some(HEADER_LEN)
        }
        MsgId::ConnectOk | MsgId::Place | MsgId::Winner => Some(HEADER_LEN + 4),
        MsgId::UpdateBoard => None,
    }
}

/// update_board's size for `n` squares: header, player word, n pairs.
pub(crate) const fn update_board_len(n: usize) -> usize {
    HEADER_LEN + 4 + 4 * n
}

/// An update_board: these squares now hold `colour`.
///
/// The session sends the placed square first, then every flipped square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpdateBoard<'a> {
    /// The colour the squares now hold.
    pub colour: Colour,
    /// 1 to 64 squares.
    pub squares: Squares<'a>,
}

/// 1 to 64 squares, either read in place from a received frame or borrowed
/// from the caller's slice for encoding.
#[derive(Clone, Copy)]
pub struct Squares<'a>(Repr<'a>);

#[derive(Clone, Copy)]
enum Repr<'a> {
    /// Validated `x: i16, y: i16` pairs straight from the wire.
    Wire(&'a [u8]),
    Slice(&'a [Square]),
}

impl<'a> Squares<'a> {
    /// Squares to encode; `squares` must hold 1 to 64 of them.
    pub fn new(squares: &'a [Square]) -> Result<Squares<'a>, Error> {
        if (1..=MAX_SQUARES).contains(&squares.len()) {
            Ok(Squares(Repr::Slice(squares)))
        } else {
            Err(Error::SquareCount {
                count: squares.len(),
            })
        }
    }

    /// Wraps pairs already checked by the decoder (whole pairs, all on the board).
    pub(crate) fn from_wire(pairs: &'a [u8]) -> Squares<'a> {
        Squares(Repr::Wire(pairs))
    }

    /// How many squares.
    pub fn len(&self) -> usize {
        match self.0 {
            Repr::Wire(pairs) => pairs.len() / 4,
            Repr::Slice(squares) => squares.len(),
        }
    }

    /// Never true for a decoded or constructed value; here for API completeness.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The squares in order.
    pub fn iter(&self) -> SquaresIter<'a> {
        SquaresIter(self.0)
    }

    /// The first square (the placed disc in a move's update_board).
    pub fn first(&self) -> Option<Square> {
        self.iter().next()
    }
}

impl PartialEq for Squares<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Squares<'_> {}

impl fmt::Debug for Squares<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for Squares<'a> {
    type Item = Square;
    type IntoIter = SquaresIter<'a>;

    fn into_iter(self) -> SquaresIter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &Squares<'a> {
    type Item = Square;
    type IntoIter = SquaresIter<'a>;

    fn into_iter(self) -> SquaresIter<'a> {
        self.iter()
    }
}

/// Iterator over [`Squares`].
#[derive(Clone)]
pub struct SquaresIter<'a>(Repr<'a>);

impl Iterator for SquaresIter<'_> {
    type Item = Square;

    fn next(&mut self) -> Option<Square> {
        match &mut self.0 {
            Repr::Wire(pairs) => {
                let (&[_, x, _, y], rest) = pairs.split_first_chunk::<4>()?;
                *pairs = rest;
                // Checked by the decoder: high bytes zero, low bytes 0..7.
                Some(Square::from_checked_wire(x, y))
            }
            Repr::Slice(squares) => {
                let (first, rest) = squares.split_first()?;
                *squares = rest;
                Some(*first)
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = Squares(self.0).len();
        (n, Some(n))
    }
}

impl ExactSizeIterator for SquaresIter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    #[test]
    fn log_lines_name_the_pdu_and_its_fields() {
        let squares = [Square::new(3, 2).unwrap(), Square::new(3, 3).unwrap()];
        let update = UpdateBoard {
            colour: Colour::Black,
            squares: Squares::new(&squares).unwrap(),
        };
        assert_eq!(
            Pdu::UpdateBoard(update).to_string(),
            "update_board black d3 d4"
        );
        assert_eq!(Pdu::Place(Place { x: 3, y: 2 }).to_string(), "place d3");
        assert_eq!(
            Pdu::Place(Place { x: -1, y: 9 }).to_string(),
            "place (-1, 9)"
        );
        assert_eq!(Pdu::Winner(Winner::Draw).to_string(), "winner draw");
        assert_eq!(Pdu::Winner(Winner::White).to_string(), "winner white");
        assert_eq!(
            Pdu::ConnectOk {
                colour: Colour::Black
            }
            .to_string(),
            "connect_ok black"
        );
        assert_eq!(Pdu::Turn.to_string(), "turn");
    }
}
