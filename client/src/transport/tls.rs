//! TLS to the server (`--tls`, `--tls-ca`; spec/TLS.md): the connection is made, the
//! handshake done and the server's certificate checked, then a relay thread carries
//! plaintext between the TLS connection and one end of a socket pair whose other end
//! the transports use as they use a TCP socket (and clone it for their reader and
//! writer, which a TLS connection cannot be).

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore};

/// How long the handshake may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether connections use TLS, and whom they trust.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// The Mozilla roots built into the client (webpki-roots).
    PublicRoots,
    /// The certificate authorities in this PEM file, and no other.
    CaFile(PathBuf),
}

static TLS: OnceLock<Trust> = OnceLock::new();

/// Every connection this process opens from now on uses TLS, trusting `trust`.
pub fn enable(trust: Trust) {
    let _ = TLS.set(trust);
}

/// How connections are trusted, when they use TLS.
pub fn enabled() -> Option<&'static Trust> {
    TLS.get()
}

/// Sets up TLS on `socket`, connected to `host` (the name or address the certificate
/// must be for), and returns the plaintext stream the relay thread serves. The error
/// is one line: why the handshake or the certificate failed.
pub fn wrap(socket: TcpStream, host: &str, trust: &Trust) -> Result<TcpStream, String> {
    let config = config(trust)?;
    let name = ServerName::try_from(host.to_owned())
        .map_err(|e| format!("{host} cannot be checked against a certificate: {e}"))?;
    let mut tls = ClientConnection::new(config, name).map_err(|e| e.to_string())?;
    let mut socket = socket;
    let handshake = |tls: &mut ClientConnection, socket: &mut TcpStream| -> io::Result<()> {
        socket.set_read_timeout(Some(HANDSHAKE_TIMEOUT))?;
        while tls.is_handshaking() {
            tls.complete_io(socket)?;
        }
        socket.set_read_timeout(None)
    };
    handshake(&mut tls, &mut socket).map_err(|e| format!("TLS with {host}: {e}"))?;
    let (ours, theirs) = UnixStream::pair().map_err(|e| e.to_string())?;
    std::thread::Builder::new()
        .name("tls-relay".into())
        .spawn(move || {
            if let Err(e) = relay(tls, socket, theirs) {
                log::info!("TLS relay: {e}");
            }
        })
        .map_err(|e| e.to_string())?;
    // The transports read, write, clone and shut down their socket: a Unix stream
    // socket does all of that as a TCP one does.
    Ok(TcpStream::from(OwnedFd::from(ours)))
}

fn config(trust: &Trust) -> Result<Arc<ClientConfig>, String> {
    let roots = match trust {
        Trust::PublicRoots => {
            RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned())
        }
        Trust::CaFile(path) => ca_file(path)?,
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// The certificates of a PEM file, as the only roots trusted.
fn ca_file(path: &Path) -> Result<RootCertStore, String> {
    let fail = |why: &dyn std::fmt::Display| format!("--tls-ca {}: {why}", path.display());
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| fail(&e))?;
    let mut roots = RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(certs);
    if added == 0 {
        return Err(fail(&"no certificate in it"));
    }
    Ok(roots)
}

/// Carries plaintext between `plain` and the TLS connection until both sides close.
fn relay(
    mut tls: ClientConnection,
    mut socket: TcpStream,
    mut plain: UnixStream,
) -> io::Result<()> {
    let mut buf = vec![0u8; 16 * 1024];
    let (mut from_server, mut from_plain) = (true, true);
    loop {
        if from_server && !deliver(&mut tls, &mut plain, &mut buf)? {
            from_server = false;
            let _ = plain.shutdown(Shutdown::Write);
        }
        while tls.wants_write() {
            tls.write_tls(&mut socket)?;
        }
        if !from_server && !from_plain {
            return Ok(());
        }
        let (server_ready, plain_ready) = wait(&socket, &plain, from_server, from_plain)?;
        if server_ready {
            match tls.read_tls(&mut socket)? {
                0 => {
                    from_server = false;
                    let _ = plain.shutdown(Shutdown::Write);
                }
                _ => {
                    if let Err(e) = tls.process_new_packets() {
                        let _ = tls.write_tls(&mut socket);
                        return Err(io::Error::other(e));
                    }
                }
            }
        }
        if plain_ready {
            match plain.read(&mut buf)? {
                0 => {
                    from_plain = false;
                    tls.send_close_notify();
                }
                n => tls.writer().write_all(&buf[..n])?,
            }
        }
    }
}

/// Writes what rustls has decrypted to `plain`; false once the server has closed.
fn deliver(tls: &mut ClientConnection, plain: &mut UnixStream, buf: &mut [u8]) -> io::Result<bool> {
    loop {
        match tls.reader().read(buf) {
            Ok(0) => return Ok(false),
            Ok(n) => plain.write_all(&buf[..n])?,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(true),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
            Err(e) => return Err(e),
        }
    }
}

/// Waits until the server or the plaintext end (those still open) has something to read.
fn wait(
    socket: &TcpStream,
    plain: &UnixStream,
    server: bool,
    local: bool,
) -> io::Result<(bool, bool)> {
    let fd_if = |fd: i32, on: bool| if on { fd } else { -1 };
    let mut fds = [
        libc::pollfd {
            fd: fd_if(socket.as_raw_fd(), server),
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: fd_if(plain.as_raw_fd(), local),
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    loop {
        // SAFETY: poll(2) on two pollfds we own, for their length.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
        if n >= 0 {
            return Ok((fds[0].revents != 0, fds[1].revents != 0));
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}
