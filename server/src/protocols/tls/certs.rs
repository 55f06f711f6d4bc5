//! The server's TLS configuration, made from the certificate and key files.

use std::io;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::ServerConfig;

use super::TlsFiles;

/// A rustls server configuration (ring's crypto, TLS 1.2 and 1.3) serving the chain and
/// key in `files`; errors name the file and what was wrong with it.
pub fn server_config(files: &TlsFiles) -> io::Result<Arc<ServerConfig>> {
    let cert = files.cert.display();
    let chain = CertificateDer::pem_file_iter(&files.cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| io::Error::other(format!("--tls-cert {cert}: {e}")))?;
    if chain.is_empty() {
        return Err(io::Error::other(format!(
            "--tls-cert {cert}: no certificate in it"
        )));
    }
    let key = PrivateKeyDer::from_pem_file(&files.key)
        .map_err(|e| io::Error::other(format!("--tls-key {}: {e}", files.key.display())))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(io::Error::other)?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| io::Error::other(format!("--tls-cert {cert} and its key: {e}")))?;
    Ok(Arc::new(config))
}
