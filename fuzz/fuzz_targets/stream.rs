//! A byte stream fed to FrameBuffer in arbitrary chunks yields exactly what
//! decoding the whole stream at once yields: the same PDUs, then the same
//! error or the same leftover partial frame.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use reversi_pdu::{decode, Direction, Error, FrameBuffer, Status, MAX_PDU_LEN};

#[derive(Arbitrary, Debug)]
struct Input {
    to_server: bool,
    chunks: Vec<u8>,
    stream: Vec<u8>,
}

#[derive(Debug, PartialEq)]
enum End {
    Partial(usize),
    Malformed(Error),
}

fn reencode(pdu: &reversi_pdu::Pdu<'_>) -> Vec<u8> {
    let mut buf = [0u8; MAX_PDU_LEN];
    let len = pdu.encode(&mut buf).unwrap();
    buf[..len].to_vec()
}

/// Reference: decode the whole stream in one buffer.
fn whole(stream: &[u8], direction: Direction) -> (Vec<Vec<u8>>, End) {
    let mut pdus = Vec::new();
    let mut rest = stream;
    loop {
        match decode(rest, direction) {
            Ok(Status::Complete((pdu, used))) => {
                pdus.push(reencode(&pdu));
                rest = &rest[used..];
            }
            Ok(Status::Partial) => return (pdus, End::Partial(rest.len())),
            Err(error) => return (pdus, End::Malformed(error)),
        }
    }
}

fn chunked(stream: &[u8], chunks: &[u8], direction: Direction) -> (Vec<Vec<u8>>, End) {
    let mut frames = FrameBuffer::new();
    let mut pdus = Vec::new();
    let mut sizes = chunks.iter().map(|&c| usize::from(c).max(1)).cycle();
    let mut fed = 0;
    loop {
        loop {
            match frames.next(direction) {
                Ok(Some(pdu)) => pdus.push(reencode(&pdu)),
                Ok(None) => break,
                Err(error) => return (pdus, End::Malformed(error)),
            }
        }
        if fed == stream.len() {
            return (pdus, End::Partial(frames.buffered()));
        }
        let spare = frames.spare_mut();
        assert!(spare.len() >= MAX_PDU_LEN, "drained buffer must have room for a PDU");
        let n = sizes.next().unwrap_or(usize::MAX).min(spare.len()).min(stream.len() - fed);
        spare[..n].copy_from_slice(&stream[fed..fed + n]);
        frames.commit(n);
        fed += n;
    }
}

fuzz_target!(|input: Input| {
    let direction = if input.to_server { Direction::ClientToServer } else { Direction::ServerToClient };
    let expected = whole(&input.stream, direction);
    let got = chunked(&input.stream, &input.chunks, direction);
    assert_eq!(got, expected);
});
