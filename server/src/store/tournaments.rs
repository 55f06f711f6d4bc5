//! The tournaments' keeper: a thread with its own store connection that keeps each
//! tournament's latest state (migration 2), so that the supervisor's loop never waits on
//! the database. Its queue is bounded: a full one hands the state back, and the loop tries
//! again a second later with whatever is latest then.

use std::io;
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::thread::JoinHandle;

use log::error;

use super::Setting;

/// States waiting for the keeper, at most.
const QUEUE: usize = 256;

pub struct Keeper {
    queue: Option<SyncSender<(u64, String)>>,
    thread: Option<JoinHandle<()>>,
}

impl Keeper {
    /// Opens the store, reads the tournaments it keeps (id and state) and starts the thread.
    pub fn start(setting: &Setting) -> io::Result<(Keeper, Vec<(u64, String)>)> {
        let mut store = super::open(setting)?;
        let kept = store.tournaments().map_err(io::Error::other)?;
        let (queue, states) = mpsc::sync_channel::<(u64, String)>(QUEUE);
        let thread = std::thread::Builder::new()
            .name("store-tournaments".into())
            .spawn(move || {
                for (id, state) in states {
                    if let Err(e) = store.save_tournament(id, &state) {
                        error!("cannot keep tournament {id} in the store: {e}");
                    }
                }
            })?;
        let keeper = Keeper {
            queue: Some(queue),
            thread: Some(thread),
        };
        Ok((keeper, kept))
    }

    /// Queues `state` of tournament `id` without waiting; it comes back when the queue is full
    /// or the thread is gone.
    pub fn save(&self, id: u64, state: String) -> Result<(), String> {
        let Some(queue) = &self.queue else {
            return Err(state);
        };
        queue.try_send((id, state)).map_err(|e| match e {
            TrySendError::Full((_, state)) | TrySendError::Disconnected((_, state)) => state,
        })
    }
}

impl Drop for Keeper {
    /// Keeps what is queued, then stops.
    fn drop(&mut self) {
        self.queue = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
