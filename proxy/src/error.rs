//! What can be wrong with a PROXY header. The specification asks the receiver
//! to drop a connection whose header does not match it exactly.

use core::fmt;

use crate::{MAX_V1_LEN, MAX_V2_LEN};

/// Why the input is not a valid PROXY header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    /// It does not start with either version's signature.
    NotProxy,
    /// Version 1: no CR LF within [`MAX_V1_LEN`] bytes.
    V1TooLong,
    /// Version 1: the line ends with a bare LF.
    V1LineEnd,
    /// Version 1: the protocol is not `TCP4`, `TCP6` or `UNKNOWN`.
    V1Protocol,
    /// Version 1: too few or too many fields, or not one space between them.
    V1Fields,
    /// Version 1: an address that is not one of the protocol's family in its canonical form.
    V1Address,
    /// Version 1: a port that is not a decimal number up to 65535 without leading zeroes.
    V1Port,
    /// Version 2: a version other than 2 (the high four bits of the 13th byte).
    V2Version(u8),
    /// Version 2: a command other than LOCAL (0) or PROXY (1).
    V2Command(u8),
    /// Version 2: an address family above 3 or a transport above 2 (the 14th byte).
    V2Family(u8),
    /// Version 2: a header longer than [`MAX_V2_LEN`] (its full length).
    V2TooLong(usize),
    /// Version 2: an address block shorter than its family's addresses (its length).
    V2Addresses(usize),
    /// Version 2: TLVs after the addresses that do not fill the block exactly.
    V2Tlv,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotProxy => write!(f, "no PROXY protocol header"),
            Error::V1TooLong => write!(f, "PROXY line without CR LF in {MAX_V1_LEN} bytes"),
            Error::V1LineEnd => write!(f, "PROXY line ends with a bare LF"),
            Error::V1Protocol => write!(f, "PROXY line's protocol is not TCP4, TCP6 or UNKNOWN"),
            Error::V1Fields => write!(f, "PROXY line does not have its six fields one space apart"),
            Error::V1Address => write!(f, "PROXY line has an address not of its protocol"),
            Error::V1Port => write!(f, "PROXY line has a port that is not 0 to 65535"),
            Error::V2Version(v) => write!(f, "PROXY v2 header of version {v}"),
            Error::V2Command(c) => {
                write!(f, "PROXY v2 header with command {c} (not LOCAL or PROXY)")
            }
            Error::V2Family(b) => write!(f, "PROXY v2 header with family and transport {b:#04x}"),
            Error::V2TooLong(n) => {
                write!(
                    f,
                    "PROXY v2 header of {n} bytes (at most {MAX_V2_LEN} accepted)"
                )
            }
            Error::V2Addresses(n) => {
                write!(
                    f,
                    "PROXY v2 address block of {n} bytes is too short for its family"
                )
            }
            Error::V2Tlv => write!(f, "PROXY v2 header's TLVs overrun its length"),
        }
    }
}

impl core::error::Error for Error {}
