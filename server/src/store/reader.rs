//! Reads and parses journals on a thread of its own, so that the supervisor's loop touches
//! no file for the archive. Opening, reading or listing the journal directory can wait
//! for ext4's locks while the store's writer syncs or the unlinker frees blocks: in the
//! 10,000-game burst, the loop's own `stat`s and reads of journals stalled it for up to
//! half a second. The loop sends a [`Request`] (a session's journal, or "scan the
//! directory") and gets an [`Answer`] back, with a [`Wake`] when one is ready.
//!
//! The reader hands the parsed games back rather than submitting them to the writer
//! itself: the loop keeps all the bookkeeping (which journal holds which game, when a
//! journal may be removed) in one place, and registers each game before the writer can
//! answer for it. Submitting is a channel send. What touches a file is here: the read,
//! the parse, the records a journal keeps written into `--record-dir`, the renaming of an
//! unreadable journal, the directory scan and its `flock` tests.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TryRecvError, TrySendError};
use std::thread::JoinHandle;

use log::{error, info, warn};
use reversi_store::{FinishedGame, Wake};

use super::journal_game::{self, Origin};
use crate::session::journal;

/// What the loop asks.
#[derive(Debug, PartialEq, Eq)]
pub enum Request {
    /// Read the journal at this path (a session ended, or a retry).
    Read(PathBuf),
    /// List the journals of earlier servers (another pid than `own`) that no live
    /// session holds.
    Scan { own: u32 },
}

/// What the reader found.
#[derive(Debug)]
pub enum Answer {
    /// The journal holds these games (none: it held only records). `records_left`: a
    /// record it keeps could not be written, so it must stay.
    Read {
        path: PathBuf,
        games: Vec<FinishedGame>,
        records_left: bool,
    },
    /// No journal there (the session left none, or it is archived already).
    Missing(PathBuf),
    /// It cannot be archived: renamed `*.unreadable` (kept for a human), and said why.
    Unreadable(PathBuf),
    /// The journals an earlier server left; `held`: some are still in a live session's
    /// hands (scan again later); `spares`: the spares there (`crate::store::unlinker`).
    Scanned {
        found: Vec<PathBuf>,
        held: bool,
        spares: Vec<PathBuf>,
    },
}

/// The thread and the ways to and from it.
pub struct Reader {
    requests: Option<SyncSender<Request>>,
    answers: Receiver<Answer>,
    thread: Option<JoinHandle<()>>,
}

impl Reader {
    /// Starts the thread; `capacity`: requests outstanding at most (the loop keeps under
    /// it, so neither channel ever blocks); `wake` tells the loop an answer is waiting.
    pub fn start(journals: Journals, capacity: usize, wake: Wake) -> std::io::Result<Reader> {
        let (requests, arrive) = sync_channel::<Request>(capacity);
        let (answer, answers) = sync_channel::<Answer>(capacity);
        let thread = std::thread::Builder::new()
            .name("journal-reader".to_owned())
            .spawn(move || {
                let mut journals = journals;
                for request in arrive {
                    if answer.send(journals.answer(request)).is_err() {
                        return;
                    }
                    wake();
                }
            })?;
        Ok(Reader {
            requests: Some(requests),
            answers,
            thread: Some(thread),
        })
    }

    /// Sends `request`; handed back if the channel is full or the thread gone.
    pub fn ask(&self, request: Request) -> Result<(), Request> {
        let Some(requests) = &self.requests else {
            return Err(request);
        };
        requests.try_send(request).map_err(|e| match e {
            TrySendError::Full(r) | TrySendError::Disconnected(r) => r,
        })
    }

    /// The answers ready now.
    pub fn answers(&self) -> Vec<Answer> {
        let mut ready = Vec::new();
        loop {
            match self.answers.try_recv() {
                Ok(answer) => ready.push(answer),
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return ready,
            }
        }
    }

    /// Stops the thread once the requests sent are answered; those answers are dropped
    /// (their journals stay for the next start).
    pub fn finish(mut self) {
        self.requests = None;
        if let Some(thread) = self.thread.take() {
            if thread.join().is_err() {
                warn!("the journal reader panicked; its journals are archived at the next start");
            }
        }
    }
}

/// The reader's side: where journals come from and records go. Its state is whether
/// records could be written last time (one error line while they cannot, not one a game).
pub struct Journals {
    pub dir: PathBuf,
    pub host: String,
    /// `--record-dir`, where records a session could not write are written.
    pub records: Option<PathBuf>,
    records_failing: bool,
}

impl Journals {
    pub fn new(dir: PathBuf, host: String, records: Option<PathBuf>) -> Journals {
        Journals {
            dir,
            host,
            records,
            records_failing: false,
        }
    }

    /// Does what `request` asks.
    pub fn answer(&mut self, request: Request) -> Answer {
        match request {
            Request::Read(path) => self.read_journal(path),
            Request::Scan { own } => self.scan(own),
        }
    }

    fn read_journal(&mut self, path: PathBuf) -> Answer {
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Answer::Missing(path),
            Err(e) => return unreadable(path, &e.to_string()),
        };
        if text.is_empty() {
            // A spare a session took and never wrote into, or a journal emptied for its
            // removal when the server stopped: no game.
            return Answer::Read {
                path,
                games: Vec::new(),
                records_left: false,
            };
        }
        let (contents, games) = match self.parse(&path, &text) {
            Ok(read) => read,
            Err(why) => return unreadable(path, &why),
        };
        let records_left = !self.write_records(&path, &contents);
        Answer::Read {
            path,
            games,
            records_left,
        }
    }

    fn parse(
        &self,
        path: &Path,
        text: &str,
    ) -> Result<(journal::Contents, Vec<FinishedGame>), String> {
        let contents = journal::read(text)?;
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

    /// The journals of earlier servers (another pid) that no live session holds.
    fn scan(&self, own: u32) -> Answer {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return Answer::Scanned {
                found: Vec::new(),
                held: false,
                spares: Vec::new(),
            };
        };
        let mut held = false;
        let mut found = Vec::new();
        let mut spares = Vec::new();
        for path in entries.flatten().map(|e| e.path()) {
            if path
                .file_name()
                .is_some_and(|name| journal::is_spare_name(&name.to_string_lossy()))
            {
                spares.push(path);
                continue;
            }
            match supervisor_of(&path) {
                Some(pid) if pid != own => {}
                _ => continue,
            }
            if journal::in_use(&path) {
                held = true;
            } else {
                found.push(path);
            }
        }
        Answer::Scanned {
            found,
            held,
            spares,
        }
    }
}

fn unreadable(path: PathBuf, why: &str) -> Answer {
    error!(
        "cannot archive the journal {} (kept): {why}",
        path.display()
    );
    let _ = fs::rename(&path, path.with_extension("unreadable"));
    Answer::Unreadable(path)
}

/// The supervisor pid in a journal's name, `.journal-<pid>-<id>`.
pub fn supervisor_of(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?;
    let (pid, id) = name.strip_prefix(".journal-")?.split_once('-')?;
    id.parse::<u64>().ok()?;
    pid.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::journal::finished_line;
    use std::os::fd::AsRawFd;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("reader-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn a_journal(dir: &Path, pid: u32, id: u64, extra: &str) -> PathBuf {
        let end = finished_line(2000, "normal", &[0, 1], Some(Some(0)), "X wins");
        let path = journal::path(dir, pid, id);
        let text = format!(
            "game tictactoe id {id} players a:1 b:2\nstarted 1000\nX b2\t40\n{end}\n{extra}"
        );
        fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_journal_is_read_missing_or_unreadable() {
        let dir = temp_dir("read");
        let mut journals = Journals::new(dir.clone(), "h".into(), None);
        let path = a_journal(&dir, 7, 1, "");
        let Answer::Read {
            games,
            records_left,
            ..
        } = journals.answer(Request::Read(path.clone()))
        else {
            panic!("not read");
        };
        assert_eq!((games.len(), records_left), (1, false));
        assert_eq!(games[0].id.as_str(), "7-1000-1-1");
        assert!(path.exists(), "reading removes nothing");
        let gone = journal::path(&dir, 7, 2);
        assert!(matches!(
            journals.answer(Request::Read(gone)),
            Answer::Missing(_)
        ));
        let bad = journal::path(&dir, 7, 3);
        fs::write(&bad, "game nosuchgame id 3 players a b\n").unwrap();
        assert!(matches!(
            journals.answer(Request::Read(bad.clone())),
            Answer::Unreadable(_)
        ));
        assert!(!bad.exists() && bad.with_extension("unreadable").exists());
        // An empty journal (a spare taken and never written) holds no game.
        let empty = journal::path(&dir, 7, 4);
        fs::write(&empty, "").unwrap();
        let Answer::Read {
            games,
            records_left,
            ..
        } = journals.answer(Request::Read(empty.clone()))
        else {
            panic!("an empty journal is not unreadable");
        };
        assert_eq!((games.len(), records_left), (0, false));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_scan_finds_other_servers_journals_and_says_which_are_held() {
        let dir = temp_dir("scan");
        let mut journals = Journals::new(dir.clone(), "h".into(), None);
        let own = a_journal(&dir, 7, 1, "");
        let left = a_journal(&dir, 8, 1, "");
        fs::write(dir.join("not-a-journal"), "x").unwrap();
        let spare = dir.join(".spare-6-9");
        fs::write(&spare, "").unwrap();
        let Answer::Scanned {
            found,
            held,
            spares,
        } = journals.answer(Request::Scan { own: 7 })
        else {
            panic!("not a scan");
        };
        assert_eq!((found, held), (vec![left.clone()], false));
        assert_eq!(spares, [spare]);
        // A live session of the earlier server holds its journal locked.
        let file = fs::File::open(&left).unwrap();
        // SAFETY: flock on a descriptor this test owns.
        assert_eq!(unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) }, 0);
        let Answer::Scanned { found, held, .. } = journals.answer(Request::Scan { own: 7 }) else {
            panic!("not a scan");
        };
        assert_eq!((found.len(), held), (0, true));
        drop((file, own));
        fs::remove_dir_all(&dir).unwrap();
    }

    /// State x event: records written or not, whether they could be last time.
    #[test]
    fn records_kept_in_a_journal_are_written_when_the_directory_takes_them() {
        let dir = temp_dir("records");
        let records = dir.join("records");
        let mut journals = Journals::new(dir.clone(), "h".into(), Some(records.clone()));
        let path = a_journal(&dir, 7, 1, "unwritten 1 txt the record\n");
        let read = |journals: &mut Journals| match journals.answer(Request::Read(path.clone())) {
            Answer::Read { records_left, .. } => records_left,
            other => panic!("{other:?}"),
        };
        // Not failing, the write fails (no such directory): kept, and failing.
        assert!(read(&mut journals));
        assert!(journals.records_failing);
        // Failing, the write fails again: still kept.
        assert!(read(&mut journals));
        // Failing, the write succeeds: written, noted in the journal, not failing.
        fs::create_dir_all(&records).unwrap();
        assert!(!read(&mut journals));
        assert!(!journals.records_failing);
        assert_eq!(fs::read_dir(&records).unwrap().count(), 1);
        // Written already: not written twice.
        assert!(!read(&mut journals));
        assert_eq!(fs::read_dir(&records).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_thread_answers_every_request_and_wakes_the_loop() {
        let dir = temp_dir("thread");
        let path = a_journal(&dir, 7, 1, "");
        let (woken, wakes) = std::sync::mpsc::channel();
        let journals = Journals::new(dir.clone(), "h".into(), None);
        let wake: Wake = Box::new(move || {
            let _ = woken.send(());
        });
        let reader = Reader::start(journals, 4, wake).unwrap();
        reader.ask(Request::Read(path)).unwrap();
        reader.ask(Request::Scan { own: 7 }).unwrap();
        for _ in 0..2 {
            wakes
                .recv_timeout(std::time::Duration::from_secs(10))
                .unwrap();
        }
        let answers = reader.answers();
        assert!(matches!(
            answers[..],
            [Answer::Read { .. }, Answer::Scanned { .. }]
        ));
        reader.finish();
        fs::remove_dir_all(&dir).unwrap();
    }
}
