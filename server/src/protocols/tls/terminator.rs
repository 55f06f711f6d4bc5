//! The TLS terminator: a child of the supervisor that runs rustls, one relay thread per
//! connection, so that no handshake or record costs the supervisor's loop any time.

use std::net::TcpStream;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use log::{debug, error, info, warn};
use rustls::ServerConfig;

use super::{certs, relay, TlsFiles};
use crate::fd_passing;
use crate::protocols::MAX_INPUT;
use crate::signals::SelfPipe;

/// What the supervisor sends, by its first byte.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Message {
    /// A client (first descriptor) to serve, the plaintext end (second) to relay it to,
    /// and after the tag the bytes already read from the client.
    Hand = 1,
    /// Read the certificate and key again.
    Reload = 2,
}

/// Each relay thread's stack: rustls needs some, a relay little else.
const RELAY_STACK: usize = 256 * 1024;

/// The terminator's body: serves what the supervisor sends on `socket` until it closes,
/// then waits for the connections still relayed (their games may still be running) and
/// exits.
pub fn run(socket: OwnedFd, files: TlsFiles, abort: SelfPipe) -> i32 {
    end_on_sigterm(abort);
    let config = match certs::server_config(&files) {
        Ok(config) => Arc::new(RwLock::new(config)),
        Err(e) => {
            error!("TLS terminator: {e}");
            return 1;
        }
    };
    let live = Arc::new(AtomicUsize::new(0));
    let mut buf = vec![0u8; MAX_INPUT + 64];
    loop {
        let received = match fd_passing::receive::<2>(&socket, &mut buf) {
            Ok(Some(received)) => received,
            Ok(None) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                error!("TLS terminator: cannot read the supervisor's socket: {e}");
                break;
            }
        };
        let body = &buf[..received.len];
        match (body.first(), received.fds) {
            (Some(&tag), fds) if tag == Message::Hand as u8 && fds.len() == 2 => {
                let [client, plain]: [OwnedFd; 2] = fds.try_into().expect("two descriptors");
                let early = body[1..].to_vec();
                spawn_relay(&config, &live, early, client, plain);
            }
            (Some(&tag), _) if tag == Message::Reload as u8 => reload(&config, &files),
            _ => warn!("TLS terminator: a message it cannot read from the supervisor"),
        }
    }
    while live.load(Ordering::SeqCst) > 0 {
        std::thread::sleep(Duration::from_millis(100));
    }
    0
}

/// SIGTERM (an operator's kill) ends the terminator at once, and the connections it
/// relays with it: a thread waits for the signal's pipe.
fn end_on_sigterm(mut abort: SelfPipe) {
    let watch = move || {
        use std::os::fd::AsRawFd;
        let fd = abort.receiver().as_raw_fd();
        let mut pollfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: poll(2) on one pollfd we own; EINTR is retried.
        while unsafe { libc::poll(&mut pollfd, 1, -1) } < 0 {}
        info!("TLS terminator: SIGTERM, ending with its connections");
        log::logger().flush();
        std::process::exit(0);
    };
    if let Err(e) = std::thread::Builder::new()
        .name("sigterm".into())
        .spawn(watch)
    {
        warn!("TLS terminator: cannot watch for SIGTERM ({e}): only SIGKILL ends it");
    }
}

fn spawn_relay(
    config: &RwLock<Arc<ServerConfig>>,
    live: &Arc<AtomicUsize>,
    early: Vec<u8>,
    client: OwnedFd,
    plain: OwnedFd,
) {
    let config = Arc::clone(&config.read().expect("never poisoned: no panic holds it"));
    live.fetch_add(1, Ordering::SeqCst);
    let counter = Arc::clone(live);
    let relay = move || {
        let (client, plain) = (TcpStream::from(client), UnixStream::from(plain));
        if let Err(e) = relay::serve(config, &early, client, plain) {
            debug!("TLS: {e}");
        }
        counter.fetch_sub(1, Ordering::SeqCst);
    };
    let spawned = std::thread::Builder::new()
        .name("tls-relay".into())
        .stack_size(RELAY_STACK)
        .spawn(relay);
    if let Err(e) = spawned {
        // The closure, and the sockets in it, were dropped: the client sees its
        // connection close, the supervisor its plaintext end.
        live.fetch_sub(1, Ordering::SeqCst);
        error!("TLS terminator: cannot start a relay thread: {e}");
    }
}

/// Rereads the files; on an error the certificate served so far stays.
fn reload(config: &RwLock<Arc<ServerConfig>>, files: &TlsFiles) {
    match certs::server_config(files) {
        Ok(new) => {
            *config.write().expect("never poisoned: no panic holds it") = new;
            info!(
                "SIGHUP: TLS certificate reloaded from {}",
                files.cert.display()
            );
        }
        Err(e) => error!("SIGHUP: TLS certificate not reloaded, the old one stays: {e}"),
    }
}
