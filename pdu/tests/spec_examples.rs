//! The codec against the hex dumps printed in spec/PROTOCOL.md, byte for byte.

use reversi_pdu::{
    decode, Colour, Direction, Pdu, Place, Square, Squares, Status, UpdateBoard, Winner,
    MAX_PDU_LEN,
};

/// Parses "00 04 ff ff" into bytes.
fn hex(text: &str) -> Vec<u8> {
    text.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).expect("hex byte"))
        .collect()
}

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

/// Decodes `bytes` as a whole frame in `direction`, checks it is `expected`,
/// and checks `expected` encodes back to exactly `bytes`.
fn check(dump: &str, direction: Direction, expected: Pdu<'_>) {
    let bytes = hex(dump);
    let decoded = decode(&bytes, direction).unwrap();
    assert_eq!(decoded, Status::Complete((expected, bytes.len())), "{dump}");
    let mut buf = [0u8; MAX_PDU_LEN];
    let len = expected.encode(&mut buf).unwrap();
    assert_eq!(&buf[..len], &bytes[..], "{dump}");
    assert_eq!(expected.encoded_len(), bytes.len());
}

const TO_SERVER: Direction = Direction::ClientToServer;
const TO_CLIENT: Direction = Direction::ServerToClient;

#[test]
fn error() {
    check("00 04 ff ff", TO_SERVER, Pdu::Error);
    check("00 04 ff ff", TO_CLIENT, Pdu::Error);
}

#[test]
fn connect() {
    check("00 04 00 00", TO_SERVER, Pdu::Connect);
}

#[test]
fn connect_ok_black() {
    let colour = Colour::Black;
    check(
        "00 08 00 01 00 02 00 00",
        TO_CLIENT,
        Pdu::ConnectOk { colour },
    );
}

#[test]
fn quit() {
    check("00 04 00 02", TO_SERVER, Pdu::Quit);
}

#[test]
fn turn() {
    check("00 04 00 03", TO_CLIENT, Pdu::Turn);
}

#[test]
fn place_d3() {
    let place = Place::from(sq("d3"));
    check("00 08 00 04 00 03 00 02", TO_SERVER, Pdu::Place(place));
}

#[test]
fn place_error() {
    check("00 04 00 05", TO_CLIENT, Pdu::PlaceError);
}

#[test]
fn update_board_black_d3_flips_d4() {
    let squares = [sq("d3"), sq("d4")];
    let update = UpdateBoard {
        colour: Colour::Black,
        squares: Squares::new(&squares).unwrap(),
    };
    check(
        "00 10 00 06 00 02 00 00 00 03 00 02 00 03 00 03",
        TO_CLIENT,
        Pdu::UpdateBoard(update),
    );
}

#[test]
fn update_board_initial_white() {
    let squares = [sq("d4"), sq("e5")];
    let update = UpdateBoard {
        colour: Colour::White,
        squares: Squares::new(&squares).unwrap(),
    };
    check(
        "00 10 00 06 00 01 00 00 00 03 00 03 00 04 00 04",
        TO_CLIENT,
        Pdu::UpdateBoard(update),
    );
}

#[test]
fn winner_white_and_draw() {
    check(
        "00 08 00 07 00 01 00 00",
        TO_CLIENT,
        Pdu::Winner(Winner::White),
    );
    check(
        "00 08 00 07 00 00 00 00",
        TO_CLIENT,
        Pdu::Winner(Winner::Draw),
    );
}

#[test]
fn largest_update_board_is_264_bytes() {
    let all: Vec<Square> = (0..64).map(|i| Square::from_index(i).unwrap()).collect();
    let update = Pdu::UpdateBoard(UpdateBoard {
        colour: Colour::White,
        squares: Squares::new(&all).unwrap(),
    });
    let mut buf = [0u8; MAX_PDU_LEN];
    assert_eq!(update.encode(&mut buf), Ok(264));
    assert_eq!(&buf[..2], &[0x01, 0x08]);
    assert_eq!(decode(&buf, TO_CLIENT), Ok(Status::Complete((update, 264))));
}

/// Every dump above must appear in the specification, so the two cannot drift.
#[test]
fn dumps_are_the_ones_printed_in_the_spec() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/PROTOCOL.md");
    let spec = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{path}: {e}; these tests run inside the workspace"));
    let spec = spec.to_lowercase();
    for dump in [
        "00 04 ff ff",
        "00 04 00 00",
        "00 08 00 01 00 02 00 00",
        "00 04 00 02",
        "00 04 00 03",
        "00 08 00 04 00 03 00 02",
        "00 04 00 05",
        "00 10 00 06 00 02 00 00 00 03 00 02 00 03 00 03",
        "00 10 00 06 00 01 00 00 00 03 00 03 00 04 00 04",
        "00 08 00 07 00 01 00 00",
        "00 08 00 07 00 00 00 00",
    ] {
        assert!(spec.contains(dump), "spec/PROTOCOL.md lacks `{dump}`");
    }
}
