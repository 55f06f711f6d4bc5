//! The writer: a thread that owns a store's connection and records the
//! finished games it is handed, so that the supervisor's loop never waits on
//! the database. Its queue is bounded: when it is full, `submit` hands the
//! game back at once, and the caller keeps it in its journal for later.

use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError, TrySendError};
use std::thread::JoinHandle;

use crate::store::{Store, StoreError};
use crate::types::{FinishedGame, GameId, Recorded};

/// The most games stored in one transaction.
const BATCH: usize = 64;

/// A game the writer has dealt with.
#[derive(Debug)]
pub struct Written {
    pub id: GameId,
    /// `Ok`: in the database (the journal may forget it). `Err`: not stored;
    /// the journal keeps it and the next start tries again.
    pub result: Result<Recorded, StoreError>,
}

/// Why a game was not taken; the game comes back.
#[derive(Debug)]
pub enum Submit {
    /// The queue is full: the database is slower than games end.
    Full(Box<FinishedGame>),
    /// The writer has stopped (its thread panicked).
    Stopped(Box<FinishedGame>),
}

/// Tells the owner's loop that [`Written`]s are waiting (a mio `Waker`, say):
/// once a batch.
pub type Wake = Box<dyn Fn() + Send>;

pub struct Writer {
    queue: Option<SyncSender<FinishedGame>>,
    written: Receiver<Written>,
    thread: Option<JoinHandle<()>>,
}

impl Writer {
    /// Starts the writer's thread with `store` (opened by the caller, so that
    /// a bad database is known at start) and room for `capacity` waiting games.
    /// Panics if the thread cannot be made: [`Writer::try_start`] says why instead.
    pub fn start(store: Box<dyn Store>, capacity: usize, wake: Option<Wake>) -> Writer {
        Writer::try_start(store, capacity, wake).expect("spawning the store's writer thread")
    }

    /// As [`Writer::start`]; an error if the thread cannot be made (out of memory, or a
    /// process limit: `RLIMIT_NPROC` counts threads).
    pub fn try_start(
        store: Box<dyn Store>,
        capacity: usize,
        wake: Option<Wake>,
    ) -> std::io::Result<Writer> {
        let (queue, games) = mpsc::sync_channel::<FinishedGame>(capacity);
        let (done, written) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("store-writer".into())
            .spawn(move || write_all(store, &games, &done, wake))?;
        Ok(Writer {
            queue: Some(queue),
            written,
            thread: Some(thread),
        })
    }

    /// Queues `game` for storing, without waiting.
    pub fn submit(&self, game: FinishedGame) -> Result<(), Submit> {
        let Some(queue) = &self.queue else {
            return Err(Submit::Stopped(Box::new(game)));
        };
        queue.try_send(game).map_err(|e| match e {
            TrySendError::Full(game) => Submit::Full(Box::new(game)),
            TrySendError::Disconnected(game) => Submit::Stopped(Box::new(game)),
        })
    }

    /// The games dealt with since the last call, without waiting.
    pub fn written(&self) -> Vec<Written> {
        let mut out = Vec::new();
        loop {
            match self.written.try_recv() {
                Ok(w) => out.push(w),
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return out,
            }
        }
    }

    /// Stores what is queued, stops the thread, and returns the last results.
    pub fn finish(mut self) -> Vec<Written> {
        self.stop();
        self.written()
    }

    fn stop(&mut self) {
        self.queue = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn write_all(
    mut store: Box<dyn Store>,
    games: &Receiver<FinishedGame>,
    done: &mpsc::Sender<Written>,
    wake: Option<Wake>,
) {
    while let Ok(first) = games.recv() {
        let batch = take_batch(first, games);
        let results = store.record_games(&batch);
        for (game, result) in batch.into_iter().zip(results) {
            if done
                .send(Written {
                    id: game.id,
                    result,
                })
                .is_err()
            {
                return;
            }
        }
        if let Some(wake) = &wake {
            wake();
        }
    }
}

/// `first` and the games queued behind it, up to [`BATCH`]: a burst is
/// stored a batch a transaction, a lone game at once.
fn take_batch(first: FinishedGame, games: &Receiver<FinishedGame>) -> Vec<FinishedGame> {
    let mut batch = vec![first];
    while batch.len() < BATCH {
        match games.try_recv() {
            Ok(game) => batch.push(game),
            Err(_) => break,
        }
    }
    batch
}
