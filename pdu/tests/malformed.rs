//! One test per malformed case of spec/PROTOCOL.md, with the error's wording.

use reversi_pdu::{decode, Direction, Error, MsgId, Status};

const TO_SERVER: Direction = Direction::ClientToServer;
const TO_CLIENT: Direction = Direction::ServerToClient;

fn refused(bytes: &[u8], direction: Direction) -> Error {
    match decode(bytes, direction) {
        Err(error) => error,
        Ok(status) => panic!("{bytes:02x?} accepted as {status:?}"),
    }
}

#[test]
fn msg_size_below_the_header() {
    for size in 0..4u8 {
        let error = refused(&[0, size, 0, 3], TO_CLIENT);
        let msg_size = size.into();
        assert_eq!(error, Error::SizeOutOfRange { msg_size, id: 3 });
    }
    assert_eq!(
        refused(&[0, 3, 0, 3], TO_CLIENT).to_string(),
        "turn with msg_size 3: outside 4..=264"
    );
    assert_eq!(
        refused(&[0, 3, 0, 9], TO_CLIENT).to_string(),
        "msg_size 3 is outside 4..=264 (and id 9 is unknown)"
    );
}

#[test]
fn msg_size_above_the_largest_pdu() {
    let error = refused(&[0x01, 0x09, 0x00, 0x06], TO_CLIENT);
    assert_eq!(
        error,
        Error::SizeOutOfRange {
            msg_size: 265,
            id: 6
        }
    );
    let error = refused(&[0xff, 0xff, 0x00, 0x06], TO_CLIENT);
    assert_eq!(
        error,
        Error::SizeOutOfRange {
            msg_size: 65535,
            id: 6
        }
    );
}

#[test]
fn unknown_id() {
    assert_eq!(
        refused(&[0, 4, 0, 8], TO_SERVER),
        Error::UnknownId { id: 8 }
    );
    assert_eq!(
        refused(&[0, 4, 0xff, 0xfe], TO_CLIENT),
        Error::UnknownId { id: -2 }
    );
    assert_eq!(
        refused(&[0, 4, 0, 8], TO_SERVER).to_string(),
        "unknown PDU id 8"
    );
}

#[test]
fn fixed_size_pdus_with_another_size() {
    let cases: &[(&[u8], Direction, MsgId, u16)] = &[
        (&[0, 8, 0xff, 0xff, 0, 0, 0, 0], TO_CLIENT, MsgId::Error, 8),
        (&[0, 5, 0, 0, 0], TO_SERVER, MsgId::Connect, 5),
        (&[0, 4, 0, 1], TO_CLIENT, MsgId::ConnectOk, 4),
        (&[0, 12, 0, 1], TO_CLIENT, MsgId::ConnectOk, 12),
        (&[0, 8, 0, 2], TO_SERVER, MsgId::Quit, 8),
        (&[0, 6, 0, 3], TO_CLIENT, MsgId::Turn, 6),
        (&[0, 4, 0, 4], TO_SERVER, MsgId::Place, 4),
        (&[0, 12, 0, 4], TO_SERVER, MsgId::Place, 12),
        (&[0, 8, 0, 5], TO_CLIENT, MsgId::PlaceError, 8),
        (&[0, 4, 0, 7], TO_CLIENT, MsgId::Winner, 4),
    ];
    for &(bytes, direction, id, msg_size) in cases {
        assert_eq!(refused(bytes, direction), Error::WrongSize { id, msg_size });
    }
    assert_eq!(
        refused(&[0, 12, 0, 4], TO_SERVER).to_string(),
        "place with msg_size 12: must be 8"
    );
}

#[test]
fn update_board_not_8_plus_4n() {
    for size in [4u16, 8, 9, 10, 11, 13, 263] {
        let [hi, lo] = size.to_be_bytes();
        let error = refused(&[hi, lo, 0, 6], TO_CLIENT);
        let expected = Error::WrongSize {
            id: MsgId::UpdateBoard,
            msg_size: size,
        };
        assert_eq!(error, expected, "msg_size {size}");
    }
    assert_eq!(
        refused(&[0, 10, 0, 6], TO_CLIENT).to_string(),
        "update_board with msg_size 10: not 8 + 4n with 1 <= n <= 64"
    );
}

#[test]
fn player_outside_what_the_pdu_allows() {
    let cases: &[(&[u8], MsgId, i16)] = &[
        (&[0, 8, 0, 1, 0, 0, 0, 0], MsgId::ConnectOk, 0),
        (&[0, 8, 0, 1, 0, 3, 0, 0], MsgId::ConnectOk, 3),
        (&[0, 8, 0, 7, 0, 3, 0, 0], MsgId::Winner, 3),
        (&[0, 8, 0, 7, 0xff, 0xff, 0, 0], MsgId::Winner, -1),
        (
            &[0, 12, 0, 6, 0, 0, 0, 0, 0, 3, 0, 3],
            MsgId::UpdateBoard,
            0,
        ),
    ];
    for &(bytes, id, player) in cases {
        assert_eq!(refused(bytes, TO_CLIENT), Error::BadPlayer { id, player });
    }
    assert_eq!(
        refused(&[0, 8, 0, 7, 0, 3, 0, 0], TO_CLIENT).to_string(),
        "winner with player 3: must be 0 (draw), 1 (white) or 2 (black)"
    );
}

#[test]
fn nonzero_padding() {
    let cases: &[(&[u8], MsgId, u16)] = &[
        (&[0, 8, 0, 1, 0, 2, 0, 1], MsgId::ConnectOk, 1),
        (&[0, 8, 0, 7, 0, 1, 0, 1], MsgId::Winner, 1),
        (
            &[0, 12, 0, 6, 0, 2, 0x80, 0, 0, 3, 0, 3],
            MsgId::UpdateBoard,
            0x8000,
        ),
    ];
    for &(bytes, id, pad) in cases {
        assert_eq!(refused(bytes, TO_CLIENT), Error::NonZeroPadding { id, pad });
    }
    assert_eq!(
        refused(&[0, 8, 0, 7, 0, 1, 0, 1], TO_CLIENT).to_string(),
        "winner with padding 0x0001: must be 0"
    );
}

#[test]
fn update_board_square_off_the_board() {
    let cases: &[(&[u8], i16, i16)] = &[
        (&[0, 12, 0, 6, 0, 2, 0, 0, 0, 8, 0, 0], 8, 0),
        (&[0, 12, 0, 6, 0, 2, 0, 0, 0, 0, 0xff, 0xff], 0, -1),
        (
            &[0, 16, 0, 6, 0, 2, 0, 0, 0, 3, 0, 3, 0x7f, 0xff, 0, 0],
            i16::MAX,
            0,
        ),
        // Only a high byte set: the low bytes alone would pass for a square.
        (&[0, 12, 0, 6, 0, 1, 0, 0, 1, 0, 0, 0], 256, 0),
        // Several squares off the board: the error names the first.
        (
            &[
                0, 20, 0, 6, 0, 1, 0, 0, 0, 7, 0, 7, 0, 2, 0, 9, 0xff, 0xff, 0, 0,
            ],
            2,
            9,
        ),
    ];
    for &(bytes, x, y) in cases {
        assert_eq!(refused(bytes, TO_CLIENT), Error::SquareOffBoard { x, y });
    }
}

#[test]
fn pdus_that_travel_the_other_way() {
    let to_server_only: &[&[u8]] = &[&[0, 4, 0, 0], &[0, 4, 0, 2], &[0, 8, 0, 4, 0, 3, 0, 2]];
    for bytes in to_server_only {
        assert!(matches!(
            refused(bytes, TO_CLIENT),
            Error::WrongDirection { .. }
        ));
    }
    let to_client_only: &[&[u8]] = &[
        &[0, 8, 0, 1, 0, 2, 0, 0],
        &[0, 4, 0, 3],
        &[0, 4, 0, 5],
        &[0, 12, 0, 6, 0, 2, 0, 0, 0, 3, 0, 3],
        &[0, 8, 0, 7, 0, 1, 0, 0],
    ];
    for bytes in to_client_only {
        assert!(matches!(
            refused(bytes, TO_SERVER),
            Error::WrongDirection { .. }
        ));
    }
    assert_eq!(
        refused(&[0, 4, 0, 3], TO_SERVER).to_string(),
        "turn does not travel client to server"
    );
}

#[test]
fn a_bad_header_is_refused_before_its_body_arrives() {
    // Only the header: the size is already impossible for the id.
    assert!(decode(&[0, 10, 0, 6], TO_CLIENT).is_err());
    assert!(decode(&[0, 4, 0, 3], TO_SERVER).is_err());
}

#[test]
fn a_partial_header_or_body_is_never_malformed() {
    let whole = [0u8, 16, 0, 6, 0, 2, 0, 0, 0, 3, 0, 2, 0, 3, 0, 3];
    for len in 0..whole.len() {
        assert_eq!(
            decode(&whole[..len], TO_CLIENT),
            Ok(Status::Partial),
            "{len} bytes"
        );
    }
    // Even a header that will turn out bad is only judged once complete.
    for len in 0..4 {
        assert_eq!(
            decode(&[0, 0, 0xff, 0xff][..len], TO_CLIENT),
            Ok(Status::Partial)
        );
    }
}

#[test]
fn place_may_carry_any_coordinates() {
    for (x, y) in [(-1i16, 0i16), (8, 8), (i16::MIN, i16::MAX)] {
        let [x0, x1] = x.to_be_bytes();
        let [y0, y1] = y.to_be_bytes();
        let bytes = [0, 8, 0, 4, x0, x1, y0, y1];
        assert!(decode(&bytes, TO_SERVER).is_ok(), "({x}, {y})");
    }
}

#[test]
fn encoding_never_panics_on_a_short_buffer() {
    use reversi_pdu::{Pdu, Winner};
    let pdu = Pdu::Winner(Winner::Draw);
    for len in 0..8 {
        let mut buf = vec![0xaa; len];
        assert_eq!(
            pdu.encode(&mut buf),
            Err(Error::BufferTooSmall { needed: 8, len })
        );
        assert!(buf.iter().all(|&b| b == 0xaa), "buffer untouched");
    }
}

#[test]
fn update_board_needs_1_to_64_squares() {
    use reversi_pdu::{Square, Squares};
    assert_eq!(Squares::new(&[]), Err(Error::SquareCount { count: 0 }));
    let many = [Square::new(0, 0).unwrap(); 65];
    assert_eq!(Squares::new(&many), Err(Error::SquareCount { count: 65 }));
    assert!(Squares::new(&many[..64]).is_ok());
}
