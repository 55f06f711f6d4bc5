//! The store's page workers: a few threads, each with a store connection of its own, that
//! make the store's pages ([`crate::protocols::pages`]) off the supervisor's loop. The loop
//! hands a worker the page asked for with a ticket, and keeps the connection; the worker
//! hands the whole response back (through a channel and the loop's waker), and the loop
//! sends it as it sends every answer: without blocking, within the connection's output
//! limit, lingering for the close. So a client that reads slowly, or never closes, holds no
//! worker (spec/STORE.md §11). A full queue is refused at once, and the loop answers 503.

use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use log::{debug, warn};
use reversi_store::{Store, UnixMillis};

use super::accounts::Busy;
use super::Setting;
use crate::protocols::pages::{self, Page};

/// Threads, and pages waiting for one at most.
const THREADS: usize = 2;
const QUEUE: usize = 64;

/// The connection that asked, as the loop names it: its index and its request's ticket.
pub type Ticket = (usize, u64);

/// A page to make for the connection of `ticket`.
pub struct PageJob {
    pub ticket: Ticket,
    pub page: Page,
}

/// A page made: the HTTP response to send on the connection of `ticket`.
pub struct Made {
    pub ticket: Ticket,
    pub response: Vec<u8>,
}

pub struct Workers {
    jobs: Option<SyncSender<PageJob>>,
    made: Receiver<Made>,
    threads: Vec<JoinHandle<()>>,
}

impl Workers {
    /// Starts the threads, each with a connection of its own (opened now: a bad database
    /// fails here); `wake` tells the loop a page is made.
    pub fn start(setting: &Setting, wake: Arc<dyn Fn() + Send + Sync>) -> std::io::Result<Workers> {
        let (jobs, queue) = mpsc::sync_channel::<PageJob>(QUEUE);
        let (answers, made) = mpsc::channel();
        let queue = Arc::new(Mutex::new(queue));
        let mut threads = Vec::with_capacity(THREADS);
        for n in 0..THREADS {
            let store = super::open(setting)?;
            let (queue, answers, wake) = (Arc::clone(&queue), answers.clone(), Arc::clone(&wake));
            threads.push(
                std::thread::Builder::new()
                    .name(format!("store-pages-{n}"))
                    .spawn(move || serve(store, &queue, &answers, &*wake))?,
            );
        }
        Ok(Workers {
            jobs: Some(jobs),
            made,
            threads,
        })
    }

    /// Queues `job`; refused when every worker is busy and the queue is full.
    pub fn submit(&self, job: PageJob) -> Result<(), Busy> {
        let jobs = self.jobs.as_ref().ok_or(Busy)?;
        jobs.try_send(job).map_err(|_| Busy)
    }

    /// The pages made since the last call.
    pub fn made(&self) -> Vec<Made> {
        self.made.try_iter().collect()
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

fn serve(
    mut store: Box<dyn Store>,
    queue: &Mutex<Receiver<PageJob>>,
    answers: &Sender<Made>,
    wake: &(dyn Fn() + Send + Sync),
) {
    loop {
        let job = match queue.lock() {
            Ok(queue) => queue.recv(),
            Err(_) => return,
        };
        let Ok(PageJob { ticket, page }) = job else {
            return;
        };
        let made = pages::make(store.as_mut(), &page, UnixMillis::now());
        debug!("page {page:?}: {}", made.status);
        let response =
            crate::protocols::http_response(made.status, made.kind, &[], made.body.as_bytes());
        if answers.send(Made { ticket, response }).is_err() {
            return;
        }
        wake();
    }
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

/// What an address that asked for too many of the store's reads lately answers, with the
/// seconds before it may ask again.
pub fn too_many(retry_after_s: u64) -> Vec<u8> {
    let seconds = retry_after_s.to_string();
    let body = format!(
        "429 Too Many Requests: your address asked for too many pages lately; try again in {seconds} s\n"
    );
    crate::protocols::http_response(
        "429 Too Many Requests",
        "text/plain; charset=utf-8",
        &[("Retry-After", &seconds)],
        body.as_bytes(),
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
