//! Removes archived journals on a thread of its own. An unlink can wait for the disk: on
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
//! [`SPARES`]), which the supervisor gives to new sessions to take as their journals
//! (`crate::session::journal`): a new game then costs a rename, not a new inode. Spares
//! an earlier run left are taken into the pool when the directory is first scanned.

use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use log::{info, warn};

use crate::session::journal;

/// Spares kept at most: as many games as start while others end in a busy stretch. Each
/// is an empty file (an inode, no block); past this, archived journals are removed.
pub const SPARES: usize = 8192;

/// The spares ready to be taken, shared by the thread (which adds) and the loop (which
/// takes one for each session it starts).
#[derive(Clone, Default)]
pub struct Spares(Arc<Mutex<Vec<PathBuf>>>);

impl Spares {
    /// A spare for a new session's journal, if there is one.
    pub fn take(&self) -> Option<PathBuf> {
        self.0.lock().ok()?.pop()
    }

    /// Puts back a spare taken and not used (its session could not be started), room or
    /// not: it is on the disk, and only the pool leads to it.
    pub fn give_back(&self, spare: PathBuf) {
        self.add(spare);
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.lock().map_or(0, |spares| spares.len())
    }

    fn has_room(&self) -> bool {
        self.len() < SPARES
    }

    fn add(&self, spare: PathBuf) {
        if let Ok(mut spares) = self.0.lock() {
            spares.push(spare);
        }
    }
}

/// What the thread is handed.
enum Job {
    /// A journal whose games are stored: kept as a spare or removed.
    Archived(PathBuf),
    /// The spares an earlier run left: into the pool, those past its room removed.
    Found(Vec<PathBuf>),
}

/// The thread and the way to it.
pub struct Unlinker {
    jobs: Sender<Job>,
    spares: Spares,
    thread: JoinHandle<()>,
}

impl Unlinker {
    pub fn start() -> std::io::Result<Unlinker> {
        let (jobs, arrive) = channel::<Job>();
        let spares = Spares::default();
        let pool = spares.clone();
        let thread = std::thread::Builder::new()
            .name("journal-unlinker".to_owned())
            .spawn(move || {
                for job in arrive {
                    run(job, &pool);
                }
            })?;
        Ok(Unlinker {
            jobs,
            spares,
            thread,
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

    /// Takes the spares at `paths`, left by an earlier run, into the pool.
    pub fn adopt(&self, paths: Vec<PathBuf>) {
        if !paths.is_empty() {
            self.send(Job::Found(paths));
        }
    }

    fn send(&self, job: Job) {
        if let Err(unsent) = self.jobs.send(job) {
            run(unsent.0, &self.spares);
        }
    }

    /// Waits for every removal handed over (at exit, and before an upgrade's exec).
    pub fn finish(self) {
        drop(self.jobs);
        if self.thread.join().is_err() {
            warn!(
                "the journal unlinker panicked; journals left are stored again at the next start"
            );
        }
    }
}

fn run(job: Job, spares: &Spares) {
    match job {
        Job::Archived(path) => retire(&path, spares),
        Job::Found(found) => {
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
            info!("{taken} spare journals left by an earlier run are kept for new games");
        }
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

    #[test]
    fn every_journal_handed_over_is_gone_by_finish_and_kept_as_an_empty_spare() {
        let dir = scratch("spares");
        let paths: Vec<PathBuf> = (0..50).map(|i| journal::path(&dir, 7, i)).collect();
        for p in &paths {
            std::fs::write(p, b"game x id 1 players a b\n").unwrap();
        }
        let unlinker = Unlinker::start().unwrap();
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
        while let Some(spare) = spares.take() {
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
        let unlinker = Unlinker::start().unwrap();
        let spares = unlinker.spares();
        for i in 0..SPARES {
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
        assert_eq!(spares.len(), SPARES);
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
        let unlinker = Unlinker::start().unwrap();
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
        let unlinker = Unlinker::start().unwrap();
        let spares = unlinker.spares();
        unlinker.adopt(vec![link.clone()]);
        unlinker.finish();
        assert_eq!(spares.len(), 0);
        assert!(!link.exists() && std::fs::read(&target).unwrap() == b"not ours");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_spare_found_is_taken_into_the_pool() {
        let dir = scratch("found");
        let found = dir.join(".spare-6-1");
        std::fs::write(&found, b"").unwrap();
        let unlinker = Unlinker::start().unwrap();
        let spares = unlinker.spares();
        unlinker.adopt(vec![found.clone()]);
        unlinker.finish();
        assert_eq!(spares.take(), Some(found.clone()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
