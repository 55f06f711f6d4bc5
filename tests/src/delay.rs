//! A TCP proxy that holds every byte back for a fixed time each way: a slow link
//! between a test's client and reversid, for the lag allowance's tests.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// A listening proxy to `target`; each connection it accepts is carried there with
/// `delay` added to each direction. Lives as long as the test (its threads end when
/// their connections close).
pub struct DelayProxy {
    addr: SocketAddr,
}

impl DelayProxy {
    pub fn start(target: SocketAddr, delay: Duration) -> DelayProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the delay proxy");
        let addr = listener.local_addr().unwrap();
        thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(server) = TcpStream::connect(target) else {
                    continue;
                };
                for s in [&client, &server] {
                    s.set_nodelay(true).unwrap();
                }
                let (c2, s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                carry(client, server, delay);
                carry(s2, c2, delay);
            }
        });
        DelayProxy { addr }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

/// Carries what `from` sends to `to`, each chunk `delay` after it arrived, in order.
fn carry(mut from: TcpStream, mut to: TcpStream, delay: Duration) {
    let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
    thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = from.read(&mut buf) {
            if tx
                .send((Instant::now() + delay, buf[..n].to_vec()))
                .is_err()
            {
                break;
            }
        }
    });
    thread::spawn(move || {
        for (due, bytes) in rx {
            thread::sleep(due.saturating_duration_since(Instant::now()));
            if to.write_all(&bytes).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
}
