//! Removes archived journals on a thread of its own, keeps them as spares, and makes
//! spares in advance. An unlink can wait for the disk: on
//! ext4 mounted with `discard` the freed blocks are trimmed inside the unlink, and in the
//! 10,000-game burst one unlink held the supervisor's loop for 1.3 s (3.6 ms of it CPU).
//! The loop must never wait for a disk, so it hands the path over and goes on. The thread
//! empties each file before it removes it: an unlink holds the directory's lock while it
//! frees the blocks, and the loop opens other journals in that directory; emptying frees
//! them under the file's own lock, and the unlink of an empty file is quick.
//!
//! Nothing is lost if a removal never happens (the server killed first): the journal's
//! games are stored already, and the next start hands them over again, which the store
//! takes once (spec/STORE.md §10).
//!
//! Most journals are not removed but kept, emptied, as spares (`.spare-<pid>-<id>`, up to
//! one for each session the server may run, [`SpareRoom::keep`]), which the supervisor
//! gives to new sessions to take as their journals (`crate::session::journal`): a new game
//! then costs a rename, not a new inode, and a server that runs as many games as it ends
//! neither creates nor removes a file. When games start faster than others end, the
//! thread makes empty spares in advance (`.spare-<pid>-0-<n>`), off the set-up path: from
//! the moment the pool holds half its aim or less until it holds its aim again, and in a
//! lull (no game started for [`LULL`]) up to its aim, the aim being room to double (as
//! many spares as games running, no more than the server may still start, [`READY_MOST`]
//! at most). Spares an earlier run left are taken into the pool when the directory is
//! first scanned, and none is made before.

use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use log::{info, warn};

use crate::session::journal;

/// Spares made in advance at most: as many games as start while others end in a busy
/// stretch. Each is an empty file (an inode, no block).
pub const READY_MOST: usize = 8192;

/// Spares made between two looks at the jobs: an archived journal waits for no more.
const BATCH: usize = 64;

/// After a spare could not be made (a full disk, a directory gone), none is tried again
/// for this long: one warning, not one a set-up.
const PAUSE: Duration = Duration::from_secs(5);

/// No game started for this long: a lull, when the pool is topped up to its aim.
const LULL: Duration = Duration::from_millis(500);

/// How many spares the pool holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpareRoom {
    /// Kept at most: past this, archived journals are removed.
    pub keep: usize,
    /// Made in advance at most.
    pub ready: usize,
}

impl SpareRoom {
    /// For a server that runs at most `sessions` at once: a spare for each, up to
    /// [`READY_MOST`] of them made in advance.
    pub fn for_sessions(sessions: usize) -> SpareRoom {
        SpareRoom {
            keep: sessions,
            ready: sessions.min(READY_MOST),
        }
    }
}

/// Whether the thread makes spares, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Making {
    No,
    /// The pool fell to half its aim: until it holds its aim, games starting or not.
    Low,
    /// A lull: until it holds its aim or a game starts.
    Lull,
}

/// The pool's state, under its lock: the spares, and whether the thread makes more.
#[derive(Debug)]
struct Stock {
    paths: Vec<PathBuf>,
    room: SpareRoom,
    /// Sessions running when the last one started, that one counted.
    live: usize,
    /// When the last game started (took a spare or asked for one).
    last_start: Option<Instant>,
    /// The spares of an earlier run were taken in (or there were none to take).
    adopted: bool,
    making: Making,
    /// No spare is made before then (one could not be made).
    paused_until: Option<Instant>,
    /// The thread waits for a job with no time to look again: a start that leaves the
    /// pool under its aim wakes it, for the lull to come.
    asleep: bool,
}

/// What the thread does next.
#[derive(Debug, PartialEq, Eq)]
enum Plan {
    /// Make a batch of spares (between jobs).
    Make,
    /// Wait for a job until then, and look again.
    LookAt(Instant),
    /// Wait for a job.
    Sleep,
}

impl Stock {
    fn new(room: SpareRoom) -> Stock {
        Stock {
            paths: Vec::new(),
            room,
            live: 0,
            last_start: None,
            adopted: false,
            making: Making::No,
            paused_until: None,
            asleep: false,
        }
    }

    /// Room to double: as many spares as games running (a server that runs that many may
    /// soon run twice as many, as a vector doubles its room), no more than the server may
    /// still start, [`SpareRoom::ready`] at most. A server that has run no game makes none.
    fn aim(&self) -> usize {
        (self.room.ready)
            .min(self.room.keep.saturating_sub(self.live))
            .min(self.live)
    }

    /// Whether spares are to be made now: from the moment the pool holds half its aim or
    /// less until it holds its aim; and, under its aim, in a lull (no game started for
    /// [`LULL`]) until it holds its aim or a game starts. A dip while games start and end
    /// together makes nothing (journals come back as their games end), and the next
    /// burst finds the pool full.
    fn wants_more(&mut self, now: Instant) -> bool {
        if !self.adopted || self.paused_until.is_some_and(|until| now < until) {
            return false;
        }
        self.paused_until = None;
        let (held, aim) = (self.paths.len(), self.aim());
        let lull = self.lull_from().is_some_and(|from| now >= from);
        self.making = if held >= aim {
            Making::No
        } else if held * 2 <= aim || self.making == Making::Low {
            Making::Low
        } else if lull {
            Making::Lull
        } else {
            Making::No
        };
        self.making != Making::No
    }

    /// When a lull begins (no game started since the last for [`LULL`]): the time to
    /// look at the pool again if no game starts before.
    fn lull_from(&self) -> Option<Instant> {
        self.last_start.map(|last| last + LULL)
    }

    /// When the thread, making nothing now, is to look at the pool again: when a pause
    /// ends (making goes on then, if it was on), or when a lull begins while the pool is
    /// under its aim.
    fn look_again_at(&self) -> Option<Instant> {
        if !self.adopted {
            return None;
        }
        if let Some(until) = self.paused_until {
            return Some(until);
        }
        if self.making != Making::No || self.paths.len() >= self.aim() {
            return None;
        }
        self.lull_from()
    }

    /// What the thread does next (asleep if nothing).
    fn plan(&mut self, now: Instant) -> Plan {
        let plan = if self.wants_more(now) {
            Plan::Make
        } else if let Some(at) = self.look_again_at() {
            Plan::LookAt(at)
        } else {
            Plan::Sleep
        };
        self.asleep = plan == Plan::Sleep;
        plan
    }

    /// A game starts now beside `running` others: whether to wake the thread (the pool
    /// fell to half its aim, or fell under it while the thread sleeps).
    fn started(&mut self, running: usize, now: Instant) -> bool {
        self.live = running + 1;
        self.last_start = Some(now);
        let was_making = self.making != Making::No;
        let wake = (self.wants_more(now) && !was_making)
            || (self.asleep && self.look_again_at().is_some());
        if wake {
            self.asleep = false;
        }
        wake
    }

    fn has_room(&self) -> bool {
        self.paths.len() < self.room.keep
    }

    /// A spare could not be made: none is tried before `until`; then the making goes on
    /// as it was.
    fn pause(&mut self, until: Instant) {
        self.paused_until = Some(until);
    }
}

/// The spares ready to be taken, shared by the thread (which adds and makes) and the loop
/// (which takes one for each session it starts).
#[derive(Clone)]
pub struct Spares {
    stock: Arc<Mutex<Stock>>,
    /// Spares made in advance since the start.
    made: Arc<AtomicU64>,
    /// Wakes the thread when a start gives it something to do (`Stock::started`).
    thread: Sender<Job>,
}

impl Spares {
    fn new(room: SpareRoom, thread: Sender<Job>) -> Spares {
        Spares {
            stock: Arc::new(Mutex::new(Stock::new(room))),
            made: Arc::default(),
            thread,
        }
    }

    /// A spare for the journal of a session starting now, beside `running` others; if
    /// the pool falls to half its aim, the thread starts making more (under its aim, in
    /// the next lull).
    pub fn take(&self, running: usize) -> Option<PathBuf> {
        let mut stock = self.stock.lock().ok()?;
        let spare = stock.paths.pop();
        let wake = stock.started(running, Instant::now());
        drop(stock);
        if wake {
            let _ = self.thread.send(Job::Make);
        }
        spare
    }

    /// Puts back a spare taken and not used (its session could not be started), room or
    /// not: it is on the disk, and only the pool leads to it.
    pub fn give_back(&self, spare: PathBuf) {
        self.add(spare);
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.lock().map_or(0, |stock| stock.paths.len())
    }

    /// How many the thread has made in advance since the start.
    pub fn made(&self) -> u64 {
        self.made.load(Ordering::Relaxed)
    }

    fn lock(&self) -> Option<MutexGuard<'_, Stock>> {
        self.stock.lock().ok()
    }

    fn has_room(&self) -> bool {
        self.lock().is_some_and(|stock| stock.has_room())
    }

    fn add(&self, spare: PathBuf) {
        if let Some(mut stock) = self.lock() {
            stock.paths.push(spare);
        }
    }

    fn wants_more(&self) -> bool {
        self.lock()
            .is_some_and(|mut stock| stock.wants_more(Instant::now()))
    }

    fn plan(&self) -> Plan {
        self.lock()
            .map_or(Plan::Sleep, |mut stock| stock.plan(Instant::now()))
    }
}

/// What the thread is handed.
enum Job {
    /// A journal whose games are stored: kept as a spare or removed.
    Archived(PathBuf),
    /// The spares an earlier run left (the first scan's, perhaps none): into the pool,
    /// those past its room removed; spares may be made from now on.
    Found(Vec<PathBuf>),
    /// Look again at the pool: it fell to half its aim, or under it (a lull to come).
    Make,
    /// Every job before this is done: the thread ends.
    Stop,
}

/// The thread and the way to it.
pub struct Unlinker {
    jobs: Sender<Job>,
    spares: Spares,
    /// Taken by [`Unlinker::finish`].
    thread: Option<JoinHandle<()>>,
}

impl Unlinker {
    /// Starts the thread for the journals of `dir`, where it makes spares, with `room`.
    pub fn start(dir: &Path, room: SpareRoom) -> std::io::Result<Unlinker> {
        let (jobs, arrive) = channel::<Job>();
        let spares = Spares::new(room, jobs.clone());
        let maker = Maker::new(dir, spares.clone());
        let thread = std::thread::Builder::new()
            .name("journal-unlinker".to_owned())
            .spawn(move || serve(&arrive, maker))?;
        Ok(Unlinker {
            jobs,
            spares,
            thread: Some(thread),
        })
    }

    /// The pool of spares (a handle to it).
    pub fn spares(&self) -> Spares {
        self.spares.clone()
    }

    /// Takes the archived journal at `path` away soon (here and now if the thread is gone).
    pub fn remove(&self, path: PathBuf) {
        self.send(Job::Archived(path));
    }

    /// Takes the spares at `paths`, left by an earlier run, into the pool (the first
    /// scan's, even none: spares are made only after it).
    pub fn adopt(&self, paths: Vec<PathBuf>) {
        self.send(Job::Found(paths));
    }

    fn send(&self, job: Job) {
        if let Err(unsent) = self.jobs.send(job) {
            run(unsent.0, &self.spares);
        }
    }

    /// Waits for every removal handed over (at exit, and before an upgrade's exec).
    pub fn finish(mut self) {
        let _ = self.jobs.send(Job::Stop);
        if self
            .thread
            .take()
            .is_some_and(|thread| thread.join().is_err())
        {
            warn!(
                "the journal unlinker panicked; journals left are stored again at the next start"
            );
        }
    }
}

/// Dropped without [`Unlinker::finish`] (the archive failed to start after it): the thread
/// ends after the jobs handed over. The pool's handles hold the channel open, so the end
/// is asked for, not left to the channel's closing.
impl Drop for Unlinker {
    fn drop(&mut self) {
        if self.thread.is_some() {
            let _ = self.jobs.send(Job::Stop);
        }
    }
}

/// The thread: the jobs in their order; between them, while the pool wants more, spares
/// made a batch at a time; waiting for a job, it looks again at the pool when a lull
/// begins.
fn serve(arrive: &Receiver<Job>, mut maker: Maker) {
    loop {
        let job = match maker.spares.plan() {
            Plan::Make => match arrive.try_recv() {
                Ok(job) => Some(job),
                Err(TryRecvError::Empty) => None,
                Err(TryRecvError::Disconnected) => return,
            },
            Plan::LookAt(at) => {
                match arrive.recv_timeout(at.saturating_duration_since(Instant::now())) {
                    Ok(job) => Some(job),
                    Err(RecvTimeoutError::Timeout) => Some(Job::Make),
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
            Plan::Sleep => match arrive.recv() {
                Ok(job) => Some(job),
                Err(_) => return,
            },
        };
        match job {
            Some(Job::Stop) => return,
            // The loop looks again at the pool.
            Some(Job::Make) => {}
            Some(job) => run(job, &maker.spares),
            None => maker.batch(),
        }
    }
}

/// Makes empty spares, named after this process and a count of its own.
struct Maker {
    dir: PathBuf,
    pid: u32,
    next: u64,
    spares: Spares,
    /// The last spare could not be made: one warning until one is made again.
    failing: bool,
}

impl Maker {
    fn new(dir: &Path, spares: Spares) -> Maker {
        Maker {
            dir: dir.to_owned(),
            pid: std::process::id(),
            next: 0,
            spares,
            failing: false,
        }
    }

    /// Up to [`BATCH`] spares, fewer if the pool holds its aim first.
    fn batch(&mut self) {
        for _ in 0..BATCH {
            match self.make() {
                Ok(spare) => {
                    // Counted first: whoever sees it in the pool sees it counted.
                    self.spares.made.fetch_add(1, Ordering::Relaxed);
                    self.spares.add(spare);
                    if std::mem::take(&mut self.failing) {
                        info!("spare journals are made in {} again", self.dir.display());
                    }
                }
                Err(e) => {
                    if !std::mem::replace(&mut self.failing, true) {
                        warn!(
                            "cannot make a spare journal in {}: {e}; new games create their \
                             own, and spares are tried again every {} s at most",
                            self.dir.display(),
                            PAUSE.as_secs()
                        );
                    }
                    if let Some(mut stock) = self.spares.lock() {
                        stock.pause(Instant::now() + PAUSE);
                    }
                    return;
                }
            }
            if !self.spares.wants_more() {
                return;
            }
        }
    }

    /// One new empty spare: `.spare-<pid>-0-<n>` (a journal's spare, `.spare-<pid>-<id>`,
    /// never has that shape), the next free `n` (an earlier process of the same pid, before
    /// an upgrade's exec, may have left some).
    fn make(&mut self) -> std::io::Result<PathBuf> {
        loop {
            let spare = self
                .dir
                .join(format!(".spare-{}-0-{}", self.pid, self.next));
            self.next += 1;
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&spare)
            {
                Ok(_) => return Ok(spare),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

fn run(job: Job, spares: &Spares) {
    match job {
        Job::Archived(path) => retire(&path, spares),
        Job::Found(found) => adopt(found, spares),
        Job::Make | Job::Stop => {}
    }
}

/// Takes the spares an earlier run left into the pool, room allowing; removes the rest.
fn adopt(found: Vec<PathBuf>, spares: &Spares) {
    // A journal retired while the scan listed the directory is in the pool already.
    let pooled: std::collections::HashSet<PathBuf> = spares
        .lock()
        .map(|stock| stock.paths.iter().cloned().collect())
        .unwrap_or_default();
    let found: Vec<PathBuf> = found.into_iter().filter(|f| !pooled.contains(f)).collect();
    let seen = found.len();
    let mut taken = 0;
    for spare in found {
        // Only a plain file of its own: never one that leads elsewhere.
        let plain = std::fs::symlink_metadata(&spare)
            .is_ok_and(|m| m.file_type().is_file() && m.nlink() == 1);
        if plain && spares.has_room() {
            spares.add(spare);
            taken += 1;
        } else {
            remove(&spare);
        }
    }
    if seen > 0 {
        info!("{taken} spare journals left by an earlier run are kept for new games");
    }
    if let Some(mut stock) = spares.lock() {
        stock.adopted = true;
    }
}

/// Empties the archived journal at `path` and keeps it as a spare, or removes it; leaves
/// it alone while a live process (an orphaned session still playing) holds its lock.
fn retire(path: &Path, spares: &Spares) {
    if let Ok(file) = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
    {
        // SAFETY: flock on a descriptor we own; the lock goes with it.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return warn!(
                "the archived journal {} is still written by a live session: left",
                path.display()
            );
        }
        // Failing to empty it only leaves the freeing to the unlink. Emptied first (and
        // under its lock, let go before the spare is offered): a spare never holds a game,
        // even if the server dies here.
        let spare = file
            .set_len(0)
            .ok()
            .filter(|()| spares.has_room())
            .and_then(|()| journal::make_spare(path).ok());
        drop(file);
        if let Some(spare) = spare {
            return spares.add(spare);
        }
    }
    remove(path);
}

fn remove(path: &Path) {
    if let Err(e) = std::fs::remove_file(path) {
        warn!(
            "cannot remove {} (a journal archived, or a spare): {e}",
            path.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("unlinker-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Room for 100 spares, 10 made in advance.
    const MAKING: SpareRoom = SpareRoom {
        keep: 100,
        ready: 10,
    };

    /// Room for `keep` spares, none made in advance.
    fn keeping(keep: usize) -> SpareRoom {
        SpareRoom { keep, ready: 0 }
    }

    /// Waits until `done` holds of the pool (the thread works on its own time).
    fn until(spares: &Spares, done: impl Fn(&Spares) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !done(spares) {
            assert!(Instant::now() < deadline, "{} spares", spares.len());
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn every_journal_handed_over_is_gone_by_finish_and_kept_as_an_empty_spare() {
        let dir = scratch("spares");
        let paths: Vec<PathBuf> = (0..50).map(|i| journal::path(&dir, 7, i)).collect();
        for p in &paths {
            std::fs::write(p, b"game x id 1 players a b\n").unwrap();
        }
        let unlinker = Unlinker::start(&dir, keeping(8192)).unwrap();
        let spares = unlinker.spares();
        for p in &paths {
            unlinker.remove(p.clone());
        }
        // A path that is gone already is only warned about; one that is no journal's is
        // removed (no spare name for it).
        unlinker.remove(dir.join("never-there"));
        let odd = dir.join("j1");
        std::fs::write(&odd, b"x").unwrap();
        unlinker.remove(odd.clone());
        unlinker.finish();
        assert!(paths.iter().all(|p| !p.exists()) && !odd.exists());
        assert_eq!(spares.len(), 50);
        while let Some(spare) = spares.take(0) {
            assert!(journal::is_spare_name(
                &spare.file_name().unwrap().to_string_lossy()
            ));
            assert_eq!(std::fs::read(&spare).unwrap(), b"", "{}", spare.display());
            std::fs::remove_file(spare).unwrap();
        }
        std::fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn past_the_pools_room_journals_and_spares_found_are_removed() {
        let dir = scratch("full");
        let unlinker = Unlinker::start(&dir, keeping(3)).unwrap();
        let spares = unlinker.spares();
        for i in 0..3 {
            spares.add(dir.join(format!(".spare-1-{i}")));
        }
        let archived = journal::path(&dir, 7, 1);
        let found = dir.join(".spare-6-1");
        std::fs::write(&archived, b"game x id 1 players a b\n").unwrap();
        std::fs::write(&found, b"").unwrap();
        unlinker.remove(archived.clone());
        unlinker.adopt(vec![found.clone()]);
        unlinker.finish();
        assert!(!archived.exists() && !found.exists());
        assert!(!dir.join(".spare-7-1").exists());
        assert_eq!(spares.len(), 3);
        std::fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn a_journal_a_live_session_holds_is_left_whole() {
        let dir = scratch("held");
        let journal = journal::path(&dir, 7, 1);
        let text = b"game x id 1 players a b\nX b2\t40\n";
        std::fs::write(&journal, text).unwrap();
        let held = std::fs::File::open(&journal).unwrap();
        // SAFETY: flock on a descriptor this test owns.
        assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
        let unlinker = Unlinker::start(&dir, keeping(8192)).unwrap();
        let spares = unlinker.spares();
        unlinker.remove(journal.clone());
        unlinker.finish();
        assert_eq!(
            std::fs::read(&journal).unwrap(),
            text,
            "neither emptied nor moved"
        );
        assert_eq!(spares.len(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_spare_found_that_leads_elsewhere_is_removed_not_followed() {
        let dir = scratch("link");
        let target = dir.join("elsewhere");
        std::fs::write(&target, b"not ours").unwrap();
        let link = dir.join(".spare-6-1");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let unlinker = Unlinker::start(&dir, keeping(8192)).unwrap();
        let spares = unlinker.spares();
        unlinker.adopt(vec![link.clone()]);
        unlinker.finish();
        assert_eq!(spares.len(), 0);
        assert!(!link.exists() && std::fs::read(&target).unwrap() == b"not ours");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_spare_found_that_is_in_the_pool_already_is_neither_taken_again_nor_removed() {
        let dir = scratch("pooled");
        let retired = dir.join(".spare-7-1");
        std::fs::write(&retired, b"").unwrap();
        let unlinker = Unlinker::start(&dir, keeping(1)).unwrap();
        let spares = unlinker.spares();
        spares.add(retired.clone());
        // Listed by the first scan while the unlinker retired it.
        unlinker.adopt(vec![retired.clone()]);
        unlinker.finish();
        assert!(retired.exists());
        assert_eq!(spares.len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_spare_found_is_taken_into_the_pool() {
        let dir = scratch("found");
        let found = dir.join(".spare-6-1");
        std::fs::write(&found, b"").unwrap();
        let unlinker = Unlinker::start(&dir, keeping(8192)).unwrap();
        let spares = unlinker.spares();
        unlinker.adopt(vec![found.clone()]);
        unlinker.finish();
        assert_eq!(spares.take(0), Some(found.clone()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The pool's state: holding `held` spares, `live` sessions running, adopted.
    fn stock(room: SpareRoom, held: usize, live: usize) -> Stock {
        let mut stock = Stock::new(room);
        stock.paths = (0..held).map(|i| PathBuf::from(format!("s{i}"))).collect();
        stock.live = live;
        stock.adopted = true;
        stock
    }

    #[test]
    fn the_aim_is_room_to_double_within_the_session_limit() {
        let room = SpareRoom::for_sessions(100_000);
        assert_eq!(
            room,
            SpareRoom {
                keep: 100_000,
                ready: READY_MOST
            }
        );
        assert_eq!(stock(room, 0, 0).aim(), 0, "no game run yet");
        assert_eq!(stock(room, 0, 5).aim(), 5);
        assert_eq!(stock(room, 0, 25_000).aim(), READY_MOST);
        assert_eq!(stock(room, 0, 99_000).aim(), 1_000);
        assert_eq!(stock(room, 0, 100_000).aim(), 0);
        let small = SpareRoom::for_sessions(16);
        assert_eq!((small.ready, stock(small, 0, 10).aim()), (16, 6));
        assert_eq!(stock(small, 0, 20).aim(), 0);
    }

    #[test]
    fn spares_are_made_from_half_the_aim_until_the_aim() {
        let now = Instant::now();
        let room = MAKING;
        // Before the spares of an earlier run are in: nothing, however empty the pool.
        let mut waiting = stock(room, 0, 50);
        waiting.adopted = false;
        assert!(!waiting.wants_more(now));
        // With 50 games running the aim is 10. A dip above half the aim: nothing
        // (journals come back as their games end).
        assert!(!stock(room, 6, 50).wants_more(now));
        // At half: made until the aim, through the dip above half.
        let mut low = stock(room, 5, 50);
        assert!(low.wants_more(now));
        low.paths.push(PathBuf::from("made"));
        assert!(low.wants_more(now), "still under the aim");
        low.paths.resize(10, PathBuf::from("made"));
        assert!(!low.wants_more(now));
        low.paths.truncate(7);
        assert!(!low.wants_more(now), "above half again: not before half");
        // At the session limit, no spare is made: every game running has its journal;
        // nor before a game runs.
        assert!(!stock(room, 0, 100).wants_more(now));
        assert!(!stock(room, 0, 0).wants_more(now));
        // Under the aim and above half: made in a lull, until a game starts.
        let mut dipped = stock(room, 7, 50);
        dipped.last_start = Some(now);
        assert!(!dipped.wants_more(now));
        assert_eq!(dipped.look_again_at(), Some(now + LULL));
        assert!(dipped.wants_more(now + LULL));
        assert_eq!(dipped.look_again_at(), None, "making");
        dipped.last_start = Some(now + LULL);
        assert!(!dipped.wants_more(now + LULL), "a game started");
        // Made from half the aim, a game starting or not.
        dipped.paths.truncate(5);
        assert!(dipped.wants_more(now + LULL));
        dipped.paths.push(PathBuf::from("made"));
        assert!(dipped.wants_more(now + LULL));
        // At the aim, nothing to look at again.
        dipped.paths.resize(10, PathBuf::from("made"));
        assert!(!dipped.wants_more(now + LULL));
        assert_eq!(dipped.look_again_at(), None);
        // One refused while making: no wake-up before the pause ends, which the thread
        // waits for; then the making goes on.
        let mut paused = stock(room, 4, 50);
        assert_eq!(paused.plan(now), Plan::Make);
        paused.pause(now + PAUSE);
        paused.paths.push(PathBuf::from("made"));
        paused.paths.push(PathBuf::from("made"));
        assert_eq!(paused.plan(now), Plan::LookAt(now + PAUSE));
        assert!(!paused.started(49, now), "no wake while paused");
        assert_eq!(
            paused.plan(now + PAUSE),
            Plan::Make,
            "above half, still making"
        );
        // One refused: none tried before the pause ends.
        let mut refused = stock(room, 0, 50);
        refused.pause(now + PAUSE);
        assert!(!refused.wants_more(now + PAUSE / 2));
        assert!(refused.wants_more(now + PAUSE));
    }

    #[test]
    fn a_start_wakes_the_thread_when_it_has_something_to_do() {
        let now = Instant::now();
        let mut pool = stock(MAKING, 10, 50);
        assert_eq!(pool.plan(now), Plan::Sleep, "at its aim");
        // Under the aim while the thread sleeps: woken once, to wait for the lull.
        pool.paths.pop();
        assert!(pool.started(49, now));
        assert_eq!(pool.plan(now), Plan::LookAt(now + LULL));
        pool.paths.pop();
        assert!(!pool.started(49, now), "it looks again when the lull comes");
        assert_eq!(pool.plan(now + LULL), Plan::Make);
        // At half the aim: woken to make, then not woken while it makes.
        let mut low = stock(MAKING, 6, 50);
        assert_eq!(low.plan(now), Plan::Sleep);
        low.paths.pop();
        assert!(low.started(49, now));
        assert_eq!(low.plan(now), Plan::Make);
        low.paths.pop();
        assert!(!low.started(49, now));
    }

    #[test]
    fn spares_are_made_in_advance_once_the_earlier_ones_are_in() {
        let dir = scratch("made");
        let pid = std::process::id();
        // One of an earlier process of the same pid (before an upgrade's exec): kept.
        let earlier = dir.join(format!(".spare-{pid}-0-0"));
        std::fs::write(&earlier, b"").unwrap();
        let unlinker = Unlinker::start(&dir, MAKING).unwrap();
        let spares = unlinker.spares();
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(
            spares.len(),
            0,
            "nothing made before the first scan's spares"
        );
        unlinker.adopt(Vec::new());
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(spares.len(), 0, "nor before a game runs");
        // The 20th game running: room to double, 10 at most.
        assert_eq!(spares.take(19), None);
        until(&spares, |s| s.len() == 10);
        assert_eq!(spares.made(), 10);
        assert!(earlier.exists());
        for _ in 0..5 {
            let spare = spares.take(19).unwrap();
            let name = spare.file_name().unwrap().to_string_lossy().into_owned();
            assert!(journal::is_spare_name(&name), "{name}");
            assert!(journal::spare_of(&journal::path(&dir, pid, 0)).unwrap() != spare);
            assert_eq!(std::fs::read(&spare).unwrap(), b"");
        }
        // Taken down to half the aim: made again up to it.
        until(&spares, |s| s.len() == 10);
        assert_eq!(spares.made(), 15);
        // Taken down to above half: made up to the aim in the lull after the last start.
        spares.take(19).unwrap();
        let before_last = Instant::now();
        spares.take(19).unwrap();
        until(&spares, |s| s.len() == 10);
        assert!(before_last.elapsed() >= LULL);
        assert_eq!(spares.made(), 17);
        unlinker.finish();
        // 17 made (those taken wait for a session to rename them) and the earlier one.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 18);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_spare_that_cannot_be_made_pauses_the_making_and_finish_still_returns() {
        let dir = scratch("gone");
        std::fs::remove_dir(&dir).unwrap();
        let unlinker = Unlinker::start(&dir, MAKING).unwrap();
        let spares = unlinker.spares();
        unlinker.adopt(Vec::new());
        assert_eq!(spares.take(19), None);
        until(&spares, |s| {
            s.lock().is_some_and(|stock| stock.paused_until.is_some())
        });
        assert_eq!((spares.len(), spares.made()), (0, 0));
        // It tries again when the pause ends; finish does not wait for that.
        unlinker.finish();
    }
}
