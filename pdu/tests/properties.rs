//! Properties over every PDU value and every byte string.

use proptest::prelude::*;
use reversi_pdu::{
    decode, Colour, Direction, FrameBuffer, Pdu, Place, Square, Squares, Status, UpdateBoard,
    Winner, MAX_PDU_LEN,
};

/// An owned PDU, so strategies can produce update_boards.
#[derive(Clone, Debug)]
enum Owned {
    Error,
    Connect,
    ConnectOk(Colour),
    Quit,
    Turn,
    Place(i16, i16),
    PlaceError,
    UpdateBoard(Colour, Vec<Square>),
    Winner(Winner),
}

impl Owned {
    fn pdu(&self) -> Pdu<'_> {
        match self {
            Owned::Error => Pdu::Error,
            Owned::Connect => Pdu::Connect,
            Owned::ConnectOk(colour) => Pdu::ConnectOk { colour: *colour },
            Owned::Quit => Pdu::Quit,
            Owned::Turn => Pdu::Turn,
            Owned::Place(x, y) => Pdu::Place(Place { x: *x, y: *y }),
            Owned::PlaceError => Pdu::PlaceError,
            Owned::UpdateBoard(colour, squares) => Pdu::UpdateBoard(UpdateBoard {
                colour: *colour,
                squares: Squares::new(squares).unwrap(),
            }),
            Owned::Winner(winner) => Pdu::Winner(*winner),
        }
    }

    fn direction(&self) -> Direction {
        match self {
            Owned::Connect | Owned::Quit | Owned::Place(..) => Direction::ClientToServer,
            _ => Direction::ServerToClient,
        }
    }
}

fn colour() -> impl Strategy<Value = Colour> {
    prop_oneof![Just(Colour::White), Just(Colour::Black)]
}

fn square() -> impl Strategy<Value = Square> {
    (0u8..64).prop_map(|i| Square::from_index(i).unwrap())
}

fn owned() -> impl Strategy<Value = Owned> {
    prop_oneof![
        Just(Owned::Error),
        Just(Owned::Connect),
        colour().prop_map(Owned::ConnectOk),
        Just(Owned::Quit),
        Just(Owned::Turn),
        any::<(i16, i16)>().prop_map(|(x, y)| Owned::Place(x, y)),
        Just(Owned::PlaceError),
        (colour(), prop::collection::vec(square(), 1..=64))
            .prop_map(|(c, s)| Owned::UpdateBoard(c, s)),
        prop_oneof![Just(Winner::Draw), Just(Winner::White), Just(Winner::Black)]
            .prop_map(Owned::Winner),
    ]
}

fn encode(pdu: &Pdu<'_>) -> Vec<u8> {
    let mut buf = [0u8; MAX_PDU_LEN];
    let len = pdu.encode(&mut buf).unwrap();
    buf[..len].to_vec()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn decode_inverts_encode(value in owned()) {
        let pdu = value.pdu();
        let bytes = encode(&pdu);
        prop_assert_eq!(bytes.len(), pdu.encoded_len());
        prop_assert_eq!(decode(&bytes, value.direction()), Ok(Status::Complete((pdu, bytes.len()))));
    }

    #[test]
    fn accepted_bytes_re_encode_identically(
        bytes in prop::collection::vec(any::<u8>(), 0..300),
        to_server in any::<bool>(),
    ) {
        let direction = if to_server { Direction::ClientToServer } else { Direction::ServerToClient };
        if let Ok(Status::Complete((pdu, used))) = decode(&bytes, direction) {
            prop_assert_eq!(encode(&pdu), &bytes[..used]);
        }
    }

    /// Frames that are valid but for one mutated byte: the decoder must
    /// either refuse them or accept something that re-encodes exactly.
    #[test]
    fn mutated_frames_are_refused_or_canonical(
        value in owned(),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let mut bytes = encode(&value.pdu());
        let i = at.index(bytes.len());
        bytes[i] = byte;
        if let Ok(Status::Complete((pdu, used))) = decode(&bytes, value.direction()) {
            prop_assert_eq!(encode(&pdu), &bytes[..used]);
        }
    }

    #[test]
    fn any_chunking_yields_the_same_pdus(
        stream in prop::collection::vec(owned().prop_filter("one direction", |o| o.direction() == Direction::ServerToClient), 1..20),
        cuts in prop::collection::vec(1usize..40, 0..60),
    ) {
        let bytes: Vec<u8> = stream.iter().flat_map(|o| encode(&o.pdu())).collect();
        let mut frames = FrameBuffer::new();
        let mut got = Vec::new();
        let mut fed = 0;
        let mut cuts = cuts.into_iter();
        while fed < bytes.len() {
            let want = cuts.next().unwrap_or(bytes.len());
            let spare = frames.spare_mut();
            let n = want.min(spare.len()).min(bytes.len() - fed);
            spare[..n].copy_from_slice(&bytes[fed..fed + n]);
            frames.commit(n);
            fed += n;
            while let Some(pdu) = frames.next(Direction::ServerToClient).unwrap() {
                got.push(encode(&pdu));
            }
        }
        let expected: Vec<Vec<u8>> = stream.iter().map(|o| encode(&o.pdu())).collect();
        prop_assert_eq!(got, expected);
        prop_assert_eq!(frames.buffered(), 0);
    }
}

#[test]
fn one_byte_at_a_time() {
    let squares = [Square::new(3, 2).unwrap(), Square::new(3, 3).unwrap()];
    let stream = [
        Pdu::ConnectOk {
            colour: Colour::Black,
        },
        Pdu::UpdateBoard(UpdateBoard {
            colour: Colour::Black,
            squares: Squares::new(&squares).unwrap(),
        }),
        Pdu::Turn,
        Pdu::Winner(Winner::Draw),
    ];
    let bytes: Vec<u8> = stream.iter().flat_map(encode).collect();
    let mut frames = FrameBuffer::new();
    let mut got = Vec::new();
    for &byte in &bytes {
        frames.spare_mut()[0] = byte;
        frames.commit(1);
        while let Some(pdu) = frames.next(Direction::ServerToClient).unwrap() {
            got.push(encode(&pdu));
        }
    }
    let expected: Vec<Vec<u8>> = stream.iter().map(encode).collect();
    assert_eq!(got, expected);
}

#[test]
fn frame_buffer_reports_malformed_streams() {
    let mut frames = FrameBuffer::new();
    frames.spare_mut()[..4].copy_from_slice(&[0, 4, 0, 3]);
    frames.commit(4);
    assert!(frames.next(Direction::ClientToServer).is_err());
}

#[test]
fn frame_buffer_always_has_room_for_a_pdu_once_drained() {
    let mut frames = FrameBuffer::new();
    // Leave a 263-byte partial update_board behind a few whole PDUs.
    let all: Vec<Square> = (0..64).map(|i| Square::from_index(i).unwrap()).collect();
    let big = encode(&Pdu::UpdateBoard(UpdateBoard {
        colour: Colour::White,
        squares: Squares::new(&all).unwrap(),
    }));
    let mut bytes = Vec::new();
    for _ in 0..2 {
        bytes.extend_from_slice(&big);
    }
    bytes.extend_from_slice(&big[..263]);
    let spare = frames.spare_mut();
    spare[..bytes.len()].copy_from_slice(&bytes);
    frames.commit(bytes.len());
    while frames.next(Direction::ServerToClient).unwrap().is_some() {}
    assert_eq!(frames.buffered(), 263);
    assert!(frames.spare_mut().len() >= MAX_PDU_LEN);
    // An oversized commit is clamped, never a panic.
    frames.commit(usize::MAX);
    assert_eq!(frames.buffered(), FrameBuffer::CAPACITY);
}
