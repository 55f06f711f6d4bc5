//! The binary protocol's PDUs as the client trades them, owned: those that
//! reach a client ([`Incoming`]) and those it sends ([`Outgoing`]). The
//! bytes are `reversi-pdu`'s.

use std::fmt;

use reversi_engine::Square;
use reversi_pdu::{Colour, Direction, Error as PduError, Pdu, Winner};

/// A PDU that can reach a client, decoded and owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Incoming {
    /// `error`: the server gives up on this connection.
    Error,
    /// `connect_ok`: paired; this client plays the colour.
    ConnectOk(Colour),
    /// `turn`: this client is the mover.
    Turn,
    /// `place_error`: the last `place` was refused.
    PlaceError,
    /// `update_board`: these squares now hold this colour.
    UpdateBoard {
        /// The colour of the listed squares.
        colour: Colour,
        /// The squares, played square first for a move.
        squares: Vec<Square>,
    },
    /// `winner`: the game is over.
    Winner(Winner),
}

impl Incoming {
    /// The owned form of a decoded PDU. PDUs that only travel from client to
    /// server are malformed for a client (M4), as the codec would say.
    pub fn from_pdu(pdu: &Pdu<'_>) -> Result<Incoming, PduError> {
        Ok(match pdu {
            Pdu::Error => Incoming::Error,
            Pdu::ConnectOk { colour } => Incoming::ConnectOk(*colour),
            Pdu::Turn => Incoming::Turn,
            Pdu::PlaceError => Incoming::PlaceError,
            Pdu::Winner(winner) => Incoming::Winner(*winner),
            Pdu::UpdateBoard(update) => {
                let squares = update.squares.iter().map(Square::from).collect();
                Incoming::UpdateBoard {
                    colour: update.colour,
                    squares,
                }
            }
            Pdu::Connect | Pdu::Quit | Pdu::Place(_) => {
                return Err(PduError::WrongDirection {
                    id: pdu.id(),
                    direction: Direction::ServerToClient,
                })
            }
        })
    }
}

impl fmt::Display for Incoming {
    /// As the codec writes PDUs in logs: `update_board black d3 d4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Incoming::Error => f.write_str("error"),
            Incoming::ConnectOk(colour) => write!(f, "connect_ok {colour}"),
            Incoming::Turn => f.write_str("turn"),
            Incoming::PlaceError => f.write_str("place_error"),
            Incoming::UpdateBoard { colour, squares } => {
                write!(f, "update_board {colour}")?;
                squares.iter().try_for_each(|sq| write!(f, " {sq}"))
            }
            Incoming::Winner(winner) => write!(f, "winner ({winner})"),
        }
    }
}

/// A PDU the client sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outgoing {
    /// `connect`.
    Connect,
    /// `quit`.
    Quit,
    /// `place` on a square.
    Place(Square),
    /// `error`: the client saw a protocol violation.
    Error,
}

impl Outgoing {
    /// The PDU to encode.
    pub fn pdu(self) -> Pdu<'static> {
        match self {
            Outgoing::Connect => Pdu::Connect,
            Outgoing::Quit => Pdu::Quit,
            Outgoing::Place(square) => Pdu::Place(square.into()),
            Outgoing::Error => Pdu::Error,
        }
    }
}
