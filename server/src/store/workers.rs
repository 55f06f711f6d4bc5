//! The store's workers: a few threads, each with a store connection of its own, that make
//! the store's pages ([`crate::protocols::pages`]) off the supervisor's loop. The loop
//! hands a worker the page asked for *and the connection* that asked (a request is answered
//! and closed: nothing comes back to the loop); the worker writes the answer with a timeout.
//! A full queue hands the connection back, and the loop answers 503 itself.

use std::io::Write;
use std::net::{Shutdown, TcpStream};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use log::{debug, warn};
use reversi_store::{Store, UnixMillis};

use super::Setting;
use crate::protocols::pages::{self, Page};

/// Threads, and requests waiting for one at most.
const THREADS: usize = 2;
const QUEUE: usize = 64;
/// A client that does not take its page within this is dropped.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

struct Job {
    stream: TcpStream,
    page: Page,
}

pub struct Workers {
    jobs: Option<SyncSender<Job>>,
    threads: Vec<JoinHandle<()>>,
}

impl Workers {
    /// Starts the threads, each with a connection of its own (opened now: a bad database
    /// fails here).
    pub fn start(setting: &Setting) -> std::io::Result<Workers> {
        let (jobs, queue) = mpsc::sync_channel::<Job>(QUEUE);
        let queue = Arc::new(Mutex::new(queue));
        let mut threads = Vec::with_capacity(THREADS);
        for n in 0..THREADS {
            let store = super::open(setting)?;
            let queue = Arc::clone(&queue);
            threads.push(
                std::thread::Builder::new()
                    .name(format!("store-pages-{n}"))
                    .spawn(move || serve(store, &queue))?,
            );
        }
        Ok(Workers {
            jobs: Some(jobs),
            threads,
        })
    }

    /// Hands `stream` (its request read) to a worker, which answers `page` and closes it;
    /// the stream comes back when every worker is busy and the queue full.
    pub fn hand(&self, stream: TcpStream, page: Page) -> Result<(), TcpStream> {
        let Some(jobs) = &self.jobs else {
            return Err(stream);
        };
        jobs.try_send(Job { stream, page }).map_err(|e| match e {
            TrySendError::Full(job) | TrySendError::Disconnected(job) => job.stream,
        })
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.jobs = None;
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

fn serve(mut store: Box<dyn Store>, queue: &Mutex<Receiver<Job>>) {
    loop {
        let job = match queue.lock() {
            Ok(queue) => queue.recv(),
            Err(_) => return,
        };
        let Ok(Job { stream, page }) = job else {
            return;
        };
        let made = pages::make(store.as_mut(), &page, UnixMillis::now());
        debug!("page {page:?}: {}", made.status);
        let response =
            crate::protocols::http_response(made.status, made.kind, &[], made.body.as_bytes());
        if let Err(e) = send(stream, &response) {
            debug!("page {page:?} not delivered: {e}");
        }
    }
}

fn send(mut stream: TcpStream, response: &[u8]) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
    stream.write_all(response)?;
    stream.shutdown(Shutdown::Write)?;
    // Read what the client still sends until it closes (or the timeout), so the close does
    // not reset what it has not read yet.
    stream.set_read_timeout(Some(Duration::from_secs(1)))?;
    let mut sink = [0u8; 512];
    while matches!(std::io::Read::read(&mut stream, &mut sink), Ok(n) if n > 0) {}
    Ok(())
}

/// What a busy server answers itself.
pub fn busy() -> Vec<u8> {
    warn!("store pages: every worker busy; answered 503");
    crate::protocols::http_response(
        "503 Service Unavailable",
        "text/plain; charset=utf-8",
        &[("Retry-After", "1")],
        b"503 Service Unavailable: busy, try again\n",
    )
}

/// What a server without a store answers.
pub fn no_store() -> Vec<u8> {
    crate::protocols::http_response(
        "404 Not Found",
        "text/plain; charset=utf-8",
        &[],
        b"404 Not Found: this server keeps no players nor games (--no-store)\n",
    )
}
