//! A TCP proxy whose connections a test can cut: both ends see the connection
//! end (as when a network drops it), while the client and reversid live on.
//! Connections made after a cut pass as before (a client coming back).

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;

/// A listening proxy to `target`.
pub struct CutProxy {
    addr: SocketAddr,
    /// Both sockets of every connection carried so far.
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl CutProxy {
    pub fn start(target: SocketAddr) -> CutProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the cutting proxy");
        let addr = listener.local_addr().unwrap();
        let open: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let kept = Arc::clone(&open);
        thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(server) = TcpStream::connect(target) else {
                    continue;
                };
                let mut kept = kept.lock().unwrap();
                kept.push(client.try_clone().unwrap());
                kept.push(server.try_clone().unwrap());
                carry(client.try_clone().unwrap(), server.try_clone().unwrap());
                carry(server, client);
            }
        });
        CutProxy { addr, open }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Cuts every connection open now: each end reads EOF.
    pub fn cut(&self) {
        for stream in self.open.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

/// Copies what `from` sends to `to` until either ends.
fn carry(mut from: TcpStream, mut to: TcpStream) {
    thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = from.read(&mut buf) {
            if to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Both);
    });
}
