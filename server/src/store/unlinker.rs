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

use std::path::PathBuf;
use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;

use log::warn;

/// The thread and the way to it.
pub struct Unlinker {
    paths: Sender<PathBuf>,
    thread: JoinHandle<()>,
}

impl Unlinker {
    pub fn start() -> std::io::Result<Unlinker> {
        let (paths, arrive) = channel::<PathBuf>();
        let thread = std::thread::Builder::new()
            .name("journal-unlinker".to_owned())
            .spawn(move || {
                for path in arrive {
                    remove(&path);
                }
            })?;
        Ok(Unlinker { paths, thread })
    }

    /// Removes `path` soon (here and now if the thread is gone).
    pub fn remove(&self, path: PathBuf) {
        if let Err(unsent) = self.paths.send(path) {
            remove(&unsent.0);
        }
    }

    /// Waits for every removal handed over (at exit, and before an upgrade's exec).
    pub fn finish(self) {
        drop(self.paths);
        if self.thread.join().is_err() {
            warn!(
                "the journal unlinker panicked; journals left are stored again at the next start"
            );
        }
    }
}

fn remove(path: &std::path::Path) {
    if let Ok(file) = std::fs::OpenOptions::new().write(true).open(path) {
        // Failing to empty it only leaves the freeing to the unlink.
        let _ = file.set_len(0);
    }
    if let Err(e) = std::fs::remove_file(path) {
        warn!("cannot remove the archived journal {}: {e}", path.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_handed_over_is_removed_by_finish() {
        let dir = std::env::temp_dir().join(format!("unlinker-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let paths: Vec<PathBuf> = (0..50).map(|i| dir.join(format!("j{i}"))).collect();
        for p in &paths {
            std::fs::write(p, b"x").unwrap();
        }
        let unlinker = Unlinker::start().unwrap();
        for p in &paths {
            unlinker.remove(p.clone());
        }
        // A path that is gone already is only warned about.
        unlinker.remove(dir.join("never-there"));
        unlinker.finish();
        assert!(paths.iter().all(|p| !p.exists()));
        std::fs::remove_dir(&dir).unwrap();
    }
}
