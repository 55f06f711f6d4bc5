//! Arbitrary bytes, decoded in both directions: never a panic, every accepted
//! frame re-encodes to exactly the bytes it was read from, and every error
//! renders as a message.

#![no_main]

use std::fmt::Write;

use libfuzzer_sys::fuzz_target;
use reversi_pdu::{decode, Direction, Status, MAX_PDU_LEN};

fuzz_target!(|data: &[u8]| {
    for direction in [Direction::ClientToServer, Direction::ServerToClient] {
        match decode(data, direction) {
            Ok(Status::Complete((pdu, used))) => {
                assert!(pdu.id().travels(direction));
                let mut buf = [0u8; MAX_PDU_LEN];
                let len = pdu.encode(&mut buf).expect("a decoded PDU always encodes");
                assert_eq!(&buf[..len], &data[..used], "not canonical: {pdu:?}");
            }
            Ok(Status::Partial) => assert!(data.len() < MAX_PDU_LEN),
            Err(error) => {
                let mut message = String::new();
                write!(message, "{error}").unwrap();
                assert!(!message.is_empty());
            }
        }
    }
});
