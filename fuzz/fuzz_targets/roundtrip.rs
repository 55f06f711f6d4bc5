//! Structured PDUs: decode(encode(p)) == p, in the direction p travels.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use reversi_pdu::{
    decode, Colour, Direction, Pdu, Place, Square, Squares, Status, UpdateBoard, Winner,
    MAX_PDU_LEN,
};

#[derive(Arbitrary, Debug)]
enum Input {
    Error(bool),
    Connect,
    ConnectOk(bool),
    Quit,
    Turn,
    Place(i16, i16),
    PlaceError,
    UpdateBoard(bool, Vec<u8>),
    Winner(u8),
}

fn colour(white: bool) -> Colour {
    if white {
        Colour::White
    } else {
        Colour::Black
    }
}

fuzz_target!(|input: Input| {
    let squares: Vec<Square>;
    let (pdu, direction) = match input {
        Input::Error(to_server) => (
            Pdu::Error,
            if to_server { Direction::ClientToServer } else { Direction::ServerToClient },
        ),
        Input::Connect => (Pdu::Connect, Direction::ClientToServer),
        Input::ConnectOk(white) => (Pdu::ConnectOk { colour: colour(white) }, Direction::ServerToClient),
        Input::Quit => (Pdu::Quit, Direction::ClientToServer),
        Input::Turn => (Pdu::Turn, Direction::ServerToClient),
        Input::Place(x, y) => (Pdu::Place(Place { x, y }), Direction::ClientToServer),
        Input::PlaceError => (Pdu::PlaceError, Direction::ServerToClient),
        Input::UpdateBoard(white, indices) => {
            squares = indices.iter().filter_map(|&i| Square::from_index(i % 64)).collect();
            match Squares::new(&squares) {
                Ok(squares) => (
                    Pdu::UpdateBoard(UpdateBoard { colour: colour(white), squares }),
                    Direction::ServerToClient,
                ),
                // 0 or more than 64 squares: refusing is the right answer.
                Err(_) => return assert!(squares.is_empty() || squares.len() > 64),
            }
        }
        Input::Winner(w) => {
            let winner = [Winner::Draw, Winner::White, Winner::Black][usize::from(w % 3)];
            (Pdu::Winner(winner), Direction::ServerToClient)
        }
    };
    let mut buf = [0u8; MAX_PDU_LEN];
    let len = pdu.encode(&mut buf).expect("MAX_PDU_LEN always suffices");
    assert_eq!(len, pdu.encoded_len());
    assert_eq!(decode(&buf[..len], direction), Ok(Status::Complete((pdu, len))));
    // Every strict prefix is Partial, never malformed.
    for cut in 0..len {
        assert_eq!(decode(&buf[..cut], direction), Ok(Status::Partial));
    }
});
