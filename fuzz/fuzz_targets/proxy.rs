//! Arbitrary bytes through the PROXY header parser: never a panic, and every
//! decision final. A complete header takes at most the version's limit, parses
//! the same from its own bytes, and each strict prefix of it is incomplete; an
//! error stays the same error when more bytes arrive; NotProxy is exactly the
//! absent signature.

#![no_main]

use std::fmt::Write;

use libfuzzer_sys::fuzz_target;
use reversi_proxy::{parse, signature, Header, Signature, Status, Version, MAX_V1_LEN, MAX_V2_LEN};

fuzz_target!(|data: &[u8]| {
    let verdict = parse(data);
    let mut longer = data.to_vec();
    longer.push(b'\n');
    match verdict {
        Ok(Status::Complete(header, used)) => {
            let limit = match header {
                Header::Proxied { version: Version::V1, .. }
                | Header::Unknown { version: Version::V1 } => MAX_V1_LEN,
                _ => MAX_V2_LEN,
            };
            assert!(used <= data.len() && used <= limit, "{header:?} took {used}");
            assert_eq!(parse(&data[..used]), verdict);
            assert_eq!(parse(&longer), verdict);
            for end in 0..used {
                assert_eq!(parse(&data[..end]), Ok(Status::Incomplete), "prefix of {end}");
            }
        }
        Ok(Status::Incomplete) => assert!(data.len() < MAX_V2_LEN),
        Err(error) => {
            assert_eq!(parse(&longer), verdict, "an error must be final");
            assert_eq!(
                error == reversi_proxy::Error::NotProxy,
                signature(data) == Signature::Absent
            );
            let mut message = String::new();
            write!(message, "{error}").unwrap();
            assert!(!message.is_empty());
        }
    }
});
