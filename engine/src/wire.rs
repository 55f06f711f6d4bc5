//! Conversions between the engine's values and the protocol's
//! (`reversi-pdu`), behind the `pdu` feature: the server and every client
//! need them, and both crates keep `x`, `y` in 0..7 with `a1` = (0, 0).

use reversi_pdu as pdu;

use crate::{Side, Square};

impl From<Side> for pdu::Colour {
    fn from(side: Side) -> pdu::Colour {
        match side {
            Side::Black => pdu::Colour::Black,
            Side::White => pdu::Colour::White,
        }
    }
}

impl From<pdu::Colour> for Side {
    fn from(colour: pdu::Colour) -> Side {
        match colour {
            pdu::Colour::Black => Side::Black,
            pdu::Colour::White => Side::White,
        }
    }
}

impl From<pdu::Square> for Square {
    fn from(square: pdu::Square) -> Square {
        // pdu::Square's index is 0..63 by construction.
        Square(square.index())
    }
}

impl From<Square> for pdu::Square {
    fn from(square: Square) -> pdu::Square {
        match pdu::Square::new(square.x(), square.y()) {
            Some(square) => square,
            None => unreachable!("an engine square's x and y are below 8"),
        }
    }
}

impl From<Square> for pdu::Place {
    fn from(square: Square) -> pdu::Place {
        pdu::Square::from(square).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_square_and_colour_round_trips() {
        for i in 0..64 {
            let square = Square::from_index(i).unwrap();
            let wire = pdu::Square::from(square);
            assert_eq!((wire.x(), wire.y()), (square.x(), square.y()));
            assert_eq!(wire.to_string(), square.to_string());
            assert_eq!(Square::from(wire), square);
            let place = pdu::Place::from(square);
            assert_eq!(place.square(), Some(wire));
        }
        for side in [Side::Black, Side::White] {
            assert_eq!(Side::from(pdu::Colour::from(side)), side);
        }
        assert_eq!(pdu::Colour::from(Side::Black), pdu::Colour::Black);
    }
}
