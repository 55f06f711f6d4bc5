//! Conversions between the protocol's values (`reversi-pdu`) and the engine's
//! (`reversi-engine`): colours and sides, wire squares and engine squares.

use reversi_engine::{Side, Square};
use reversi_pdu::Colour;

/// The engine's side for a protocol colour.
pub fn side_of(colour: Colour) -> Side {
    match colour {
        Colour::Black => Side::Black,
        Colour::White => Side::White,
    }
}

/// The protocol colour for an engine side.
pub fn colour_of(side: Side) -> Colour {
    match side {
        Side::Black => Colour::Black,
        Side::White => Colour::White,
    }
}

/// The engine square for a wire square (both keep x and y in 0..7, so this
/// is `None` only if one of the two crates breaks that promise).
pub fn square_from_wire(square: reversi_pdu::Square) -> Option<Square> {
    Square::new(square.x(), square.y())
}

/// The wire coordinates of an engine square.
pub fn place_of(square: Square) -> reversi_pdu::Place {
    reversi_pdu::Place {
        x: i16::from(square.x()),
        y: i16::from(square.y()),
    }
}
