//! The supervisor's side of the archive: journals in, finished games to the store's
//! [`Writer`], journals removed once their games are stored. Nothing here waits on the
//! database: a full queue or a failing database leaves the journal where it is, and it is
//! tried again later (every [`RETRY`]), and at the next start.
//!
//! Nothing here touches a file on the loop either: no `open`, `stat`, `read`, `readdir` or
//! `unlink` for the archive. The journal [`Reader`] thread reads and parses journals,
//! writes the records they keep and lists the directory; the [`super::unlinker`] thread
//! removes them. The loop only sends paths ([`JOURNALS_READING`] at most outstanding),
//! submits the parsed games to the writer (a channel send, [`JOURNALS_A_TURN`] journals a
//! turn at most, within the loop turn's budget for deferrable work: `supervisor::budget`)
//! and keeps the bookkeeping: which journal holds which game, and when all of a
//! journal's games are stored.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::metrics::thread_cpu;

use log::{debug, error, info, warn};
use reversi_store::{FinishedGame, GameId, Recorded, Store, Submit, Wake, Writer};

use super::reader::{Answer, Journals, Reader, Request};
use crate::session::journal;

/// How long a journal that could not be handed over waits before the next try.
const RETRY: Duration = Duration::from_secs(5);
/// Games waiting for the writer at most.
const QUEUE: usize = 1024;
/// Journals read and handed to the writer in one turn at most: a burst's journals are
/// handed over in many short turns.
const JOURNALS_A_TURN: usize = 8;
/// Journals asked of the reader and not handed to the writer yet, at most: what the
/// parsed games waiting on the loop weigh is bounded.
const JOURNALS_READING: usize = 32;
/// Journals queued at once that the archive's sets have room for from the start: a set
/// that outgrows its capacity rehashes every path at once (1-2 ms with 8,000 on a loaded
/// machine), inside the turn of one session's end when thousands end together. Only the
/// sets' control bytes are touched at start (a byte a place).
const ROOM: usize = 1 << 14;
/// The writer's answers dealt with in one call (each may remove a journal): a burst's
/// answers are spread over several turns of the loop.
const ANSWERS_A_TURN: usize = 16;

pub struct Archive {
    /// Taken at exit only.
    writer: Option<Writer>,
    /// Reads and parses journals, off the loop (taken at exit).
    reader: Option<Reader>,
    /// Removes journals whose games are stored, off the loop (taken at exit), and keeps
    /// spares of them.
    unlinker: Option<super::unlinker::Unlinker>,
    /// The unlinker's spares, for new sessions.
    spares: super::unlinker::Spares,
    /// The spares an earlier run left were taken into the pool (the first scan's).
    spares_adopted: bool,
    dir: PathBuf,
    /// Journals whose games are with the writer.
    with_writer: HashMap<PathBuf, Kept>,
    game_journal: HashMap<GameId, PathBuf>,
    /// The writer's answers not dealt with yet.
    answers: VecDeque<reversi_store::Written>,
    /// Journals to ask the reader for, while fewer than [`JOURNALS_READING`] are.
    arrived: VecDeque<PathBuf>,
    /// Journals asked of the reader, or parsed and not handed over yet.
    reading: usize,
    /// Journals read, their games waiting for room in the writer's queue.
    parsed: VecDeque<Parsed>,
    /// A scan of the directory is asked of the reader and not answered yet.
    scanning: bool,
    /// Set when the writer's queue was full: nothing more is handed over until it answers
    /// (or [`RETRY`] has passed).
    writer_full: bool,
    /// Journals to hand over again at `retry_at`.
    later: VecDeque<PathBuf>,
    /// Every journal in `arrived`, `later`, with the reader or in `parsed`: each is queued
    /// once (a set, as a burst or an outage queues thousands).
    queued_paths: HashSet<PathBuf>,
    retry_at: Option<Instant>,
    /// Journals of an earlier server that a live session still writes: looked for again.
    rescan: bool,
    /// Set while the database refuses games: one error line an outage, not one a game.
    failing: bool,
    /// Games stored, and the longest the loop spent in one call here (wall clock, which
    /// counts the time the thread was not run, and the thread's CPU time): said at exit.
    stored: u64,
    longest: Duration,
    longest_cpu: Duration,
}

/// A journal whose games are with the writer.
struct Kept {
    /// Answers still awaited.
    left: usize,
    /// The journal must stay: a game was not stored, or a record it holds not written.
    again: bool,
}

/// A journal the reader read: its games, and whether it must stay for its records.
struct Parsed {
    path: PathBuf,
    games: Vec<FinishedGame>,
    records_left: bool,
}

impl Archive {
    /// Starts the writer on `store` (opened by the caller), the reader and the unlinker;
    /// `wake` tells the loop when games were written or journals read. Journals left in
    /// `dir` by an earlier server are handed over too. `records`: the record directory,
    /// where the records sessions kept in their journals (a full disk) are written;
    /// `spares`: the room of the pool of spare journals (`super::unlinker`).
    pub fn start(
        store: Box<dyn Store>,
        dir: &Path,
        records: Option<PathBuf>,
        spares: super::unlinker::SpareRoom,
        wake: Wake,
    ) -> std::io::Result<Archive> {
        survive_file_size_limits();
        let host = fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_owned())
            .unwrap_or_default();
        // Two threads wake the loop: they share its one waker.
        let wake = Arc::new(Mutex::new(wake));
        let shared = || -> Wake {
            let wake = Arc::clone(&wake);
            Box::new(move || {
                if let Ok(wake) = wake.lock() {
                    wake();
                }
            })
        };
        let journals = Journals::new(dir.to_owned(), host, records);
        let writer = Writer::try_start(store, QUEUE, Some(shared()))?;
        // One more for a scan of the directory.
        let reader = Reader::start(journals, JOURNALS_READING + 1, shared())?;
        let unlinker = super::unlinker::Unlinker::start(dir, spares)?;
        let mut archive = Archive {
            writer: Some(writer),
            reader: Some(reader),
            spares: unlinker.spares(),
            spares_adopted: false,
            unlinker: Some(unlinker),
            dir: dir.to_owned(),
            with_writer: HashMap::with_capacity(ROOM),
            game_journal: HashMap::with_capacity(ROOM),
            answers: VecDeque::new(),
            arrived: VecDeque::with_capacity(ROOM),
            reading: 0,
            parsed: VecDeque::new(),
            scanning: false,
            writer_full: false,
            later: VecDeque::new(),
            queued_paths: HashSet::with_capacity(ROOM),
            retry_at: None,
            failing: false,
            rescan: true,
            stored: 0,
            longest: Duration::ZERO,
            longest_cpu: Duration::ZERO,
        };
        archive.scan();
        Ok(archive)
    }

    /// The journal of a session that ended: its games go to the writer (the reader says
    /// whether the session left one).
    pub fn take(&mut self, supervisor: u32, id: u64) {
        let path = journal::path(&self.dir, supervisor, id);
        self.arrive(path);
    }

    /// Queues the journal at `path` to be read and handed over, unless it is queued already.
    fn arrive(&mut self, path: PathBuf) {
        if self.queued_paths.insert(path.clone()) {
            self.arrived.push_back(path);
        }
    }

    /// Asks the reader for the journals that arrived, while fewer than [`JOURNALS_READING`]
    /// are with it or waiting for the writer.
    fn ask_reader(&mut self) {
        while self.reading < JOURNALS_READING {
            let Some(path) = self.arrived.pop_front() else {
                return;
            };
            if self.with_writer.contains_key(&path) {
                self.queued_paths.remove(&path);
                continue;
            }
            let asked = match &self.reader {
                Some(reader) => reader.ask(Request::Read(path)),
                None => Err(Request::Read(path)),
            };
            match asked {
                Ok(()) => self.reading += 1,
                Err(Request::Read(path)) => {
                    warn!("the journal reader takes no more; tried again later");
                    self.queued_paths.remove(&path);
                    self.try_later(path);
                    return;
                }
                Err(Request::Scan { .. }) => return,
            }
        }
    }

    /// Asks the reader for the journals earlier servers left (unless a scan is under way).
    fn scan(&mut self) {
        if self.scanning {
            return;
        }
        let own = std::process::id();
        let asked = (self.reader.as_ref()).map(|r| r.ask(Request::Scan { own }).is_ok());
        self.scanning = asked == Some(true);
        if !self.scanning {
            self.retry_at.get_or_insert_with(|| Instant::now() + RETRY);
        }
    }

    /// The reader's answers: games to hand over, journals that are not there, a scan.
    fn on_read(&mut self) {
        let answers = self
            .reader
            .as_ref()
            .map(Reader::answers)
            .unwrap_or_default();
        for answer in answers {
            match answer {
                Answer::Read {
                    path,
                    games,
                    records_left,
                } => self.parsed.push_back(Parsed {
                    path,
                    games,
                    records_left,
                }),
                Answer::Missing(path) | Answer::Unreadable(path) => self.done_reading(&path),
                Answer::Scanned {
                    found,
                    held,
                    spares,
                } => {
                    self.scanned(found, held);
                    self.adopt_spares(spares);
                }
            }
        }
    }

    /// The journal at `path` is no longer with the reader, nor waiting for the writer.
    fn done_reading(&mut self, path: &Path) {
        self.reading -= 1;
        self.queued_paths.remove(path);
    }

    /// The spares a scan found go to the pool, those of the first scan only: later scans
    /// find the pool's own spares again.
    fn adopt_spares(&mut self, spares: Vec<PathBuf>) {
        if std::mem::replace(&mut self.spares_adopted, true) {
            return;
        }
        if let Some(unlinker) = &self.unlinker {
            unlinker.adopt(spares);
        }
    }

    /// A spare journal for the session of a game starting now beside `running` others
    /// (see `crate::session::journal`), if the pool has one.
    pub fn take_spare(&self, running: usize) -> Option<PathBuf> {
        self.spares.take(running)
    }

    /// Spare journals ready for new games.
    pub fn spares_ready(&self) -> usize {
        self.spares.len()
    }

    /// Spare journals made in advance since the start.
    pub fn spares_made(&self) -> u64 {
        self.spares.made()
    }

    /// A spare taken for a session that could not be started: untouched, still a spare.
    pub fn give_back_spare(&self, spare: PathBuf) {
        self.spares.give_back(spare);
    }

    /// Queues the journals earlier servers left; looks again later while a live session
    /// still holds one.
    fn scanned(&mut self, found: Vec<PathBuf>, held: bool) {
        self.scanning = false;
        let mut count = 0;
        for path in found {
            if !self.with_writer.contains_key(&path) && !self.queued_paths.contains(&path) {
                count += 1;
                self.arrive(path);
            }
        }
        if count > 0 {
            info!("archiving {count} journals left by an earlier run");
        }
        self.rescan = held;
        if held {
            self.retry_at.get_or_insert_with(|| Instant::now() + RETRY);
        }
    }

    /// Hands a few of the journals read to the writer, while it has room and `more()`
    /// says so.
    fn hand_over_parsed(&mut self, more: &mut dyn FnMut() -> bool) {
        for _ in 0..JOURNALS_A_TURN {
            if self.writer_full || self.parsed.is_empty() || !more() {
                return;
            }
            let Some(parsed) = self.parsed.pop_front() else {
                return;
            };
            self.hand_over(parsed);
        }
    }

    /// Notes how long the loop spent in a call that began at `started` (`cpu`: the
    /// thread's CPU time then).
    fn timed(&mut self, (started, cpu): (Instant, Duration)) {
        self.longest = self.longest.max(started.elapsed());
        self.longest_cpu = self.longest_cpu.max(thread_cpu().saturating_sub(cpu));
    }

    /// Games handed to the writer and not yet answered: the store's queue.
    pub fn queued(&self) -> usize {
        self.game_journal.len()
    }

    /// Games stored since the start (a game stored already is not counted).
    pub fn stored(&self) -> u64 {
        self.stored
    }

    /// When [`Archive::on_timer`] has work.
    pub fn deadline(&self) -> Option<Instant> {
        let parsed = !self.parsed.is_empty() && !self.writer_full;
        let to_ask = !self.arrived.is_empty() && self.reading < JOURNALS_READING;
        if !self.answers.is_empty() || parsed || to_ask {
            return Some(Instant::now());
        }
        self.retry_at
    }

    /// Called every turn of the loop: a few answers, a few journals, and the retries when
    /// due. Each answer and each journal only while `more()` says so (the turn's budget;
    /// what is left waits for the next turn, [`Archive::deadline`] says now).
    pub fn on_timer(&mut self, now: Instant, more: &mut dyn FnMut() -> bool) {
        let started = (Instant::now(), thread_cpu());
        self.deal_with_answers(more);
        if self.retry_at.is_some_and(|t| t <= now) {
            self.retry_at = None;
            self.writer_full = false;
            if self.rescan {
                self.scan();
            }
            self.arrived.extend(std::mem::take(&mut self.later));
        }
        self.hand_over_parsed(more);
        self.ask_reader();
        self.timed(started);
    }

    /// A thread woke the loop: the reader's answers and the writer's are taken in, to be
    /// dealt with at [`Archive::on_timer`], within the turn's budget.
    pub fn on_written(&mut self) {
        let started = (Instant::now(), thread_cpu());
        self.on_read();
        if let Some(writer) = &self.writer {
            let before = self.answers.len();
            self.answers.extend(writer.written());
            // The writer took games from its queue: there is room again.
            self.writer_full &= self.answers.len() == before;
        }
        self.timed(started);
    }

    /// Up to [`ANSWERS_A_TURN`] of the writer's answers, while `more()` says so: a journal
    /// all of whose games are stored is removed.
    fn deal_with_answers(&mut self, more: &mut dyn FnMut() -> bool) {
        for _ in 0..ANSWERS_A_TURN {
            if self.answers.is_empty() || !more() {
                return;
            }
            let Some(written) = self.answers.pop_front() else {
                return;
            };
            let Some(path) = self.game_journal.remove(&written.id) else {
                continue;
            };
            let refused = match written.result {
                Ok(Recorded::Stored) => {
                    self.stored += 1;
                    false
                }
                Ok(Recorded::AlreadyStored) => {
                    debug!("game {} was stored already", written.id);
                    false
                }
                Err(e) => {
                    self.failed(&format!("game {} not stored: {e}", written.id));
                    true
                }
            };
            self.answered(path, refused);
        }
    }

    /// At exit: the writer stores what it was given; journals not stored stay for the next
    /// start (those with the reader too).
    pub fn finish(mut self) {
        if let Some(reader) = self.reader.take() {
            reader.finish();
        }
        let results = self.writer.take().map(Writer::finish);
        let answers = std::mem::take(&mut self.answers);
        for written in answers.into_iter().chain(results.unwrap_or_default()) {
            if let Ok(Recorded::Stored) = written.result {
                self.stored += 1;
            }
            if let Some(path) = self.game_journal.remove(&written.id) {
                self.answered(path, written.result.is_err());
            }
        }
        info!(
            "store: {} games archived; the longest the loop spent on the archive at once: \
             {:.2} ms ({:.2} ms of CPU)",
            self.stored,
            self.longest.as_secs_f64() * 1000.0,
            self.longest_cpu.as_secs_f64() * 1000.0
        );
        if let Some(unlinker) = self.unlinker.take() {
            unlinker.finish();
        }
        let left = self.with_writer.len() + self.later.len() + self.arrived.len() + self.reading;
        if left > 0 {
            warn!("{left} journals not archived yet; the next start stores them");
        }
    }

    fn answered(&mut self, path: PathBuf, refused: bool) {
        let Some(kept) = self.with_writer.get_mut(&path) else {
            return;
        };
        kept.left -= 1;
        kept.again |= refused;
        if kept.left > 0 {
            return;
        }
        let again = kept.again;
        self.with_writer.remove(&path);
        if again {
            self.try_later(path);
            return;
        }
        if self.failing && !refused {
            info!("the store takes games again");
            self.failing = false;
        }
        match &self.unlinker {
            Some(unlinker) => unlinker.remove(path),
            None => {
                if let Err(e) = fs::remove_file(&path) {
                    warn!("cannot remove the archived journal {}: {e}", path.display());
                }
            }
        }
    }

    /// Queues the games of a journal read; a full queue keeps them for when it has room.
    fn hand_over(&mut self, parsed: Parsed) {
        let Parsed {
            path,
            games,
            records_left,
        } = parsed;
        let count = games.len();
        let mut games = games.into_iter();
        let mut handed = 0;
        while let Some(game) = games.next() {
            let id = game.id.clone();
            let Some(writer) = &self.writer else { return };
            let refused = match writer.submit(game) {
                Ok(()) => {
                    self.game_journal.insert(id, path.clone());
                    handed += 1;
                    continue;
                }
                Err(refused) => refused,
            };
            self.writer_full |= matches!(refused, Submit::Full(_));
            if let (0, Submit::Full(game)) = (handed, refused) {
                // Handed over once the writer has room: the first of those waiting.
                let games = std::iter::once(*game).chain(games).collect();
                let parsed = Parsed {
                    path,
                    games,
                    records_left,
                };
                self.parsed.push_front(parsed);
                self.retry_at.get_or_insert_with(|| Instant::now() + RETRY);
                return;
            }
            self.done_reading(&path);
            if handed > 0 {
                // The games handed over already stay with the writer; all are read and
                // handed over again later (storing twice is harmless).
                let kept = Kept {
                    left: handed,
                    again: true,
                };
                self.with_writer.insert(path, kept);
            } else {
                self.try_later(path);
            }
            return;
        }
        self.done_reading(&path);
        let kept = Kept {
            left: count,
            again: records_left,
        };
        if count == 0 {
            // Nothing for the writer: only records, written or not.
            self.with_writer
                .insert(path.clone(), Kept { left: 1, ..kept });
            self.answered(path, false);
            return;
        }
        self.with_writer.insert(path, kept);
    }

    fn try_later(&mut self, path: PathBuf) {
        if self.queued_paths.insert(path.clone()) {
            self.later.push_back(path);
        }
        self.retry_at.get_or_insert_with(|| Instant::now() + RETRY);
    }

    fn failed(&mut self, why: &str) {
        if !self.failing {
            error!("{why}; games stay in their journals until the store takes them");
            self.failing = true;
        } else {
            debug!("{why}");
        }
    }
}

/// A file size limit (`ulimit -f`: RLIMIT_FSIZE) that the database's files reach fails
/// the write (EFBIG, an I/O error to SQLite), as a full disk does, and the games wait in
/// their journals; left to its default action, SIGXFSZ would kill the server instead.
fn survive_file_size_limits() {
    // SAFETY: installing SIG_IGN, which every later write failing with EFBIG can live with.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::journal::finished_line;
    use crate::store::unlinker::SpareRoom;
    use reversi_store::SqliteStore;
    use std::sync::mpsc;

    /// Turns of the loop until `done` or 10 s: each waits for a wake or a deadline.
    fn turns(archive: &mut Archive, wakes: &mpsc::Receiver<()>, done: impl Fn(&Archive) -> bool) {
        let end = Instant::now() + Duration::from_secs(10);
        while !done(archive) {
            assert!(
                Instant::now() < end,
                "the archive did not get there in 10 s"
            );
            let wait = (archive.deadline())
                .map_or(Duration::from_millis(50), |d| d - Instant::now().min(d));
            if wakes
                .recv_timeout(wait.min(Duration::from_millis(50)))
                .is_ok()
            {
                archive.on_written();
            }
            archive.on_timer(Instant::now(), &mut || true);
        }
    }

    /// A session's journal is stored and removed; one that left none, and one that is
    /// unreadable, leave nothing waiting on the loop: no file is read by the loop.
    #[test]
    fn a_journal_taken_is_stored_and_one_not_there_is_forgotten() {
        let dir = std::env::temp_dir().join(format!("archive-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let end = finished_line(2000, "normal", &[0, 1], Some(Some(0)), "X wins");
        let own = std::process::id();
        let stored = journal::path(&dir, own, 1);
        let text = format!("game tictactoe id 1 players a:1 b:2\nstarted 1000\nX b2\t40\n{end}\n");
        fs::write(&stored, text).unwrap();
        fs::write(
            journal::path(&dir, own, 3),
            "game nosuchgame id 3 players a b\n",
        )
        .unwrap();
        let (woken, wakes) = mpsc::channel();
        let wake: Wake = Box::new(move || {
            let _ = woken.send(());
        });
        let store = Box::new(SqliteStore::open(&dir).unwrap());
        let mut archive =
            Archive::start(store, &dir, None, SpareRoom::for_sessions(16), wake).unwrap();
        for id in [1, 2, 3] {
            archive.take(own, id);
        }
        turns(&mut archive, &wakes, |a| {
            a.stored() == 1 && a.with_writer.is_empty()
        });
        turns(&mut archive, &wakes, |a| a.reading == 0 && !a.scanning);
        assert!(archive.queued_paths.is_empty() && archive.parsed.is_empty());
        assert_eq!(archive.queued(), 0);
        archive.finish();
        assert!(!stored.exists(), "removed once stored");
        assert!(journal::path(&dir, own, 3)
            .with_extension("unreadable")
            .exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
