//! The supervisor's side of the archive: journals in, finished games to the store's
//! [`Writer`], journals removed once their games are stored. Nothing here waits on the
//! database: a full queue or a failing database leaves the journal where it is, and it is
//! tried again later (every [`RETRY`]), and at the next start. Nothing here takes long on
//! the loop either: journals are read a few a turn ([`JOURNALS_A_TURN`]) while the writer
//! has room, so a burst of sessions ending together is read over many short turns.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::metrics::thread_cpu;

use log::{debug, error, info, warn};
use reversi_store::{GameId, Recorded, Store, Submit, Wake, Writer};

use super::journal_game::{self, Origin};
use crate::session::journal;

/// How long a journal that could not be handed over waits before the next try.
const RETRY: Duration = Duration::from_secs(5);
/// Games waiting for the writer at most.
const QUEUE: usize = 1024;
/// Journals read and handed to the writer in one turn at most (reading and parsing one takes
/// about a quarter of a millisecond of CPU: 16 a turn made turns of 4 ms of the archive alone).
const JOURNALS_A_TURN: usize = 8;
/// The writer's answers dealt with in one call (each may remove a journal): a burst's
/// answers are spread over several turns of the loop.
const ANSWERS_A_TURN: usize = 16;

pub struct Archive {
    /// Taken at exit only.
    writer: Option<Writer>,
    /// Removes journals whose games are stored, off the loop (taken at exit).
    unlinker: Option<super::unlinker::Unlinker>,
    dir: PathBuf,
    host: String,
    /// Journals whose games are with the writer.
    with_writer: HashMap<PathBuf, Kept>,
    game_journal: HashMap<GameId, PathBuf>,
    /// The writer's answers not dealt with yet.
    answers: VecDeque<reversi_store::Written>,
    /// Journals to hand over, a few a turn, while the writer has room.
    arrived: VecDeque<PathBuf>,
    /// Set when the writer's queue was full: nothing more is handed over until it answers
    /// (or [`RETRY`] has passed).
    writer_full: bool,
    /// Journals to hand over again at `retry_at`.
    later: VecDeque<PathBuf>,
    /// Every journal in `arrived` or `later`: each is queued once (a set, as a burst or an
    /// outage queues thousands).
    queued_paths: HashSet<PathBuf>,
    retry_at: Option<Instant>,
    /// Journals of an earlier server that a live session still writes: looked for again.
    rescan: bool,
    /// Set while the database refuses games: one error line an outage, not one a game.
    failing: bool,
    /// `--record-dir`, where records a session could not write are written.
    records: Option<PathBuf>,
    /// Set while records cannot be written: one error line, not one a game.
    records_failing: bool,
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

impl Archive {
    /// Starts the writer on `store` (opened by the caller); `wake` tells the loop when
    /// games were written. Journals left in `dir` by an earlier server are handed over now.
    /// `records`: the record directory, where the records sessions kept in their journals
    /// (a full disk) are written.
    pub fn start(
        store: Box<dyn Store>,
        dir: &Path,
        records: Option<PathBuf>,
        wake: Wake,
    ) -> std::io::Result<Archive> {
        survive_file_size_limits();
        let host = fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_owned())
            .unwrap_or_default();
        let mut archive = Archive {
            writer: Some(Writer::try_start(store, QUEUE, Some(wake))?),
            unlinker: Some(super::unlinker::Unlinker::start()?),
            dir: dir.to_owned(),
            host,
            with_writer: HashMap::new(),
            game_journal: HashMap::new(),
            answers: VecDeque::new(),
            arrived: VecDeque::new(),
            writer_full: false,
            later: VecDeque::new(),
            queued_paths: HashSet::new(),
            retry_at: None,
            failing: false,
            rescan: true,
            records,
            records_failing: false,
            stored: 0,
            longest: Duration::ZERO,
            longest_cpu: Duration::ZERO,
        };
        archive.take_leftovers();
        Ok(archive)
    }

    /// The journal of a session that ended: its games go to the writer (read in a later
    /// turn, [`Archive::on_timer`]'s).
    pub fn take(&mut self, supervisor: u32, id: u64) {
        let path = journal::path(&self.dir, supervisor, id);
        if path.exists() {
            self.arrive(path);
        }
    }

    /// Queues the journal at `path` to be read and handed over, unless it is queued already.
    fn arrive(&mut self, path: PathBuf) {
        if self.queued_paths.insert(path.clone()) {
            self.arrived.push_back(path);
        }
    }

    /// Reads and hands over a few of the journals that arrived, while the writer has room.
    fn hand_over_arrived(&mut self) {
        for _ in 0..JOURNALS_A_TURN {
            if self.writer_full {
                return;
            }
            let Some(path) = self.arrived.pop_front() else {
                return;
            };
            self.queued_paths.remove(&path);
            self.hand_over(path);
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
        if !self.answers.is_empty() || !(self.arrived.is_empty() || self.writer_full) {
            return Some(Instant::now());
        }
        self.retry_at
    }

    /// Called every turn of the loop: a few answers, a few journals, and the retries when due.
    pub fn on_timer(&mut self, now: Instant) {
        if !self.answers.is_empty() {
            self.on_written();
        }
        let started = (Instant::now(), thread_cpu());
        if self.retry_at.is_some_and(|t| t <= now) {
            self.retry_at = None;
            self.writer_full = false;
            if self.rescan {
                self.take_leftovers();
            }
            self.arrived.extend(std::mem::take(&mut self.later));
        }
        self.hand_over_arrived();
        self.timed(started);
    }

    /// The writer's answers: a journal all of whose games are stored is removed.
    pub fn on_written(&mut self) {
        let started = (Instant::now(), thread_cpu());
        if let Some(writer) = &self.writer {
            let before = self.answers.len();
            self.answers.extend(writer.written());
            // The writer took games from its queue: there is room again.
            self.writer_full &= self.answers.len() == before;
        }
        let count = self.answers.len().min(ANSWERS_A_TURN);
        let turn: Vec<_> = self.answers.drain(..count).collect();
        for written in turn {
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
        self.timed(started);
    }

    /// At exit: the writer stores what it was given; journals not stored stay for the next start.
    pub fn finish(mut self) {
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
        let left = self.with_writer.len() + self.later.len() + self.arrived.len();
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

    /// Writes the records the journal at `path` keeps; whether all are written.
    fn write_records(&mut self, path: &Path, contents: &journal::Contents) -> bool {
        let Some(dir) = self.records.clone() else {
            return true;
        };
        for record in &contents.records {
            let name = format!(
                "{}-{}-{}-{}.{}",
                journal::unix_ms(),
                supervisor_of(path).unwrap_or(0),
                contents.id,
                record.round,
                record.ext
            );
            let written = crate::session::write_record_as(&dir, &name, &record.text)
                .and_then(|_| journal::note_written(path, record.round));
            if let Err(e) = written {
                if !self.records_failing {
                    error!(
                        "cannot write records into {}: {e}; each is kept in its game's journal \
                         and written when it can",
                        dir.display()
                    );
                    self.records_failing = true;
                }
                return false;
            }
            if self.records_failing {
                info!("records are written into {} again", dir.display());
                self.records_failing = false;
            }
        }
        true
    }

    /// Reads the journal at `path` and queues its games; a full queue leaves it for later.
    fn hand_over(&mut self, path: PathBuf) {
        if self.with_writer.contains_key(&path) {
            return;
        }
        let (contents, games) = match self.read(&path) {
            Ok(read) => read,
            Err(why) => {
                error!(
                    "cannot archive the journal {} (kept): {why}",
                    path.display()
                );
                let _ = fs::rename(&path, path.with_extension("unreadable"));
                return;
            }
        };
        let records_left = !self.write_records(&path, &contents);
        let count = games.len();
        for (i, game) in games.into_iter().enumerate() {
            let id = game.id.clone();
            let Some(writer) = &self.writer else { return };
            match writer.submit(game) {
                Ok(()) => {
                    self.game_journal.insert(id, path.clone());
                }
                Err(refused @ (Submit::Full(_) | Submit::Stopped(_))) => {
                    // The games handed over already stay with the writer; all are
                    // handed over again later (storing twice is harmless).
                    if i > 0 {
                        let kept = Kept {
                            left: i,
                            again: true,
                        };
                        self.with_writer.insert(path.clone(), kept);
                    } else if let Submit::Full(_) = refused {
                        // Read again once the writer has room: the first of those waiting.
                        self.queued_paths.insert(path.clone());
                        self.arrived.push_front(path);
                        self.writer_full = true;
                        self.retry_at.get_or_insert_with(|| Instant::now() + RETRY);
                    } else {
                        self.try_later(path);
                    }
                    return;
                }
            }
        }
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

    fn read(
        &self,
        path: &Path,
    ) -> Result<(journal::Contents, Vec<reversi_store::FinishedGame>), String> {
        let text = fs::read_to_string(path).map_err(|e| e.to_string())?;
        let contents = journal::read(&text)?;
        let modified_ms = fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(0));
        let supervisor = supervisor_of(path).ok_or("not a journal's name")?;
        let origin = Origin {
            supervisor,
            host: &self.host,
            modified_ms,
            unfinished: "the server stopped",
        };
        let games = journal_game::games(&contents, &origin)?;
        Ok((contents, games))
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

    /// Hands over the journals of earlier servers (another pid) that no live session holds;
    /// looks again later while a session still holds one.
    fn take_leftovers(&mut self) {
        let own = std::process::id();
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return;
        };
        let mut held = false;
        let mut found = 0;
        for path in entries.flatten().map(|e| e.path()) {
            let Some(pid) = supervisor_of(&path) else {
                continue;
            };
            if pid == own
                || self.with_writer.contains_key(&path)
                || self.queued_paths.contains(&path)
            {
                continue;
            }
            if journal::in_use(&path) {
                held = true;
                continue;
            }
            found += 1;
            self.arrive(path);
        }
        if found > 0 {
            info!("archiving {found} journals left by an earlier run");
        }
        self.rescan = held;
        if held {
            self.retry_at.get_or_insert_with(|| Instant::now() + RETRY);
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

/// The supervisor pid in a journal's name, `.journal-<pid>-<id>`.
fn supervisor_of(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?;
    let (pid, id) = name.strip_prefix(".journal-")?.split_once('-')?;
    id.parse::<u64>().ok()?;
    pid.parse().ok()
}
