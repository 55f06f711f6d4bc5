//! TLS on the game port (spec/TLS.md): the protocol that wraps the others. A
//! connection whose first byte opens a TLS record (a ClientHello's handshake record,
//! 0x16) is handed, with the bytes read so far, to the TLS terminator: a child process
//! of the supervisor that runs rustls, so the supervisor's loop never does crypto. The
//! supervisor keeps the connection's place (its address, its limits, its deadline)
//! and swaps its socket for the plaintext end of a socket pair; what the client sends
//! inside TLS is then recognised like any connection's first bytes.

mod certs;
mod handle;
mod relay;
mod terminator;

use std::path::PathBuf;

pub use handle::{plaintext_pair, Terminator};

use super::{Lobby, Protocol, Stage, Verdict, Wire};

/// The first byte of a TLS handshake record (RFC 8446 §5.1, ContentType handshake(22)).
const HANDSHAKE_RECORD: u8 = 0x16;

/// A fatal handshake_failure alert in a TLS 1.2 record: what a TLS client is told when
/// it is refused before any handshake (no certificate configured, the server busy). A
/// TLS client reads no text; this is the "no" it understands.
const HANDSHAKE_FAILURE: [u8; 7] = [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28];

/// `--tls-cert` and `--tls-key`.
#[derive(Debug, Clone, clap::Args)]
pub struct TlsOptions {
    /// Serve TLS on every listener with this certificate chain (PEM, the server's first),
    /// beside the plaintext protocols; reread with the key on SIGHUP (spec/TLS.md).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
}

/// Where the certificate chain and its key are read from (at start and on every SIGHUP).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

impl TlsOptions {
    /// The files, when TLS is on.
    pub fn files(&self) -> Option<TlsFiles> {
        match (&self.tls_cert, &self.tls_key) {
            // Absolute: they are reread on SIGHUP, after --daemon has changed directory.
            (Some(cert), Some(key)) => Some(TlsFiles {
                cert: std::path::absolute(cert).unwrap_or_else(|_| cert.clone()),
                key: std::path::absolute(key).unwrap_or_else(|_| key.clone()),
            }),
            _ => None,
        }
    }
}

/// Checks that `files` make a server configuration, so that a bad certificate or key
/// stops reversid at start with the reason instead of failing every TLS client later.
pub fn check(files: &TlsFiles) -> std::io::Result<()> {
    certs::server_config(files).map(drop)
}

/// TLS as the supervisor screens it: recognised by its first byte, then handed on.
pub struct Tls;

impl Protocol for Tls {
    fn recognises(&self, first: u8) -> bool {
        first == HANDSHAKE_RECORD
    }

    fn screen(&self, _lobby: &Lobby<'_>, _stage: Stage, _input: &[u8]) -> Verdict {
        Verdict::Tls
    }

    fn refusal(&self, _why: &str) -> Vec<u8> {
        HANDSHAKE_FAILURE.to_vec()
    }

    fn adapter(&self) -> Box<dyn Wire> {
        // A session never carries TLS: the supervisor hands it over plaintext. Were one
        // to get here, it gets the fallback's adapter, which refuses its bytes.
        super::WireKind::FALLBACK.adapter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::WireKind;

    #[test]
    fn a_client_hello_is_tls_and_no_other_protocol_claims_its_byte() {
        assert_eq!(WireKind::recognise(HANDSHAKE_RECORD), WireKind::Tls);
        let claims = WireKind::ALL
            .into_iter()
            .filter(|kind| kind.protocol().recognises(HANDSHAKE_RECORD))
            .count();
        assert_eq!(claims, 1);
    }

    #[test]
    fn a_refused_tls_client_gets_a_fatal_alert() {
        let alert = WireKind::refusal(Some(WireKind::Tls), "server busy");
        assert_eq!(alert[0], 0x15, "an alert record");
        assert_eq!(&alert[5..], [2, 40], "fatal handshake_failure");
    }
}
