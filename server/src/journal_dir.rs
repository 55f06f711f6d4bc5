//! The directory running games keep their journals in (`session/journal.rs`):
//! one the user named (`--journal-dir`, or `--record-dir`), or this server's own,
//! `reversid-PID-journals` under the system's temporary directory.
//!
//! Once every session has ended the directory holds nothing: a session that records
//! its game removes its journal, and the supervisor takes the journal of one that
//! died. So at exit the server removes its own directory when it is empty, and keeps
//! it (saying where, in the log) when a journal is still there: a played game is
//! never thrown away. A directory the user named is never removed.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use log::{debug, warn};

/// Where journals are kept, and whose the directory is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JournalDir {
    /// Named on the command line: created if missing, never removed.
    Given(PathBuf),
    /// This server's own: created at start, removed at exit when empty.
    Own(PathBuf),
}

impl JournalDir {
    pub fn path(&self) -> &Path {
        match self {
            JournalDir::Given(path) | JournalDir::Own(path) => path,
        }
    }

    /// Makes sure the directory exists.
    pub fn create(&self) -> io::Result<()> {
        fs::create_dir_all(self.path())
    }

    /// At exit: removes the server's own directory if nothing in it is needed any more;
    /// otherwise logs where the journals it keeps are. Returns whether it is gone.
    pub fn close(&self) -> bool {
        let JournalDir::Own(path) = self else {
            return false;
        };
        match fs::remove_dir(path) {
            Ok(()) => {
                debug!("removed the journal directory {}", path.display());
                true
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => true,
            Err(e) if e.kind() == io::ErrorKind::DirectoryNotEmpty => {
                warn!(
                    "kept the journal directory {}: it holds {} (games not recorded)",
                    path.display(),
                    contents(path).join(", ")
                );
                false
            }
            Err(e) => {
                warn!(
                    "cannot remove the journal directory {}: {e}",
                    path.display()
                );
                false
            }
        }
    }
}

/// The names of the entries of `dir`, sorted.
fn contents(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "reversid-journal-dir-test-{name}-{}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn the_servers_own_directory_goes_when_empty() {
        let own = JournalDir::Own(scratch("own"));
        own.create().unwrap();
        assert!(own.close());
        assert!(!own.path().exists());
        assert!(own.close(), "gone already is gone");
    }

    #[test]
    fn a_journal_left_in_it_keeps_it() {
        let own = JournalDir::Own(scratch("kept"));
        own.create().unwrap();
        let journal = own.path().join(".journal-1-7");
        fs::write(&journal, "game reversi id 7 players a b\nblack f5\n").unwrap();
        assert!(!own.close());
        assert!(journal.exists(), "a played game is never thrown away");
        fs::remove_dir_all(own.path()).unwrap();
    }

    #[test]
    fn a_directory_the_user_named_is_never_removed() {
        let given = JournalDir::Given(scratch("given"));
        given.create().unwrap();
        assert!(!given.close());
        assert!(given.path().is_dir());
        fs::remove_dir(given.path()).unwrap();
    }
}
