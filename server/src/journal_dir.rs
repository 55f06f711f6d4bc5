//! The directory running games keep their journals in (`session/journal.rs`):
//! one the user named (`--journal-dir`, or `--record-dir`), or this server's own,
//! `reversid-PID-NONCE-journals` under the system's temporary directory. The nonce
//! is random, and the directory is created exclusively: a later server that gets
//! the same pid can never take (and overwrite the journals in) an earlier one's.
//!
//! Once every session has ended the directory holds nothing: a session that records
//! its game removes its journal, and the supervisor takes the journal of one that
//! died. So at exit the server removes its own directory when it is empty, and keeps
//! it (saying where, in the log) when a journal is still there: a played game is
//! never thrown away. A directory the user named is never removed.

use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use log::{debug, warn};

/// The name of this server's own directory, chosen once per process (or inherited
/// across an upgrade in place, which keeps the pid: `crate::upgrade`).
static OWN_NAME: OnceLock<String> = OnceLock::new();

/// The server's own directory, if it has chosen one.
pub fn own_path() -> Option<PathBuf> {
    OWN_NAME.get().map(|name| std::env::temp_dir().join(name))
}

/// After an upgrade in place: the own directory is the one the old image made (its
/// running sessions write there). Call before anything names the directory.
pub fn inherit_own(path: &Path) {
    if let Some(name) = path.file_name() {
        let _ = OWN_NAME.set(name.to_string_lossy().into_owned());
    }
}

/// Where journals are kept, and whose the directory is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JournalDir {
    /// Named on the command line: created if missing, never removed.
    Given(PathBuf),
    /// This server's own: created at start, removed at exit when empty.
    Own(PathBuf),
}

impl JournalDir {
    /// This server's own directory under `parent` (the system's temporary directory).
    /// Its name is chosen once per process, so every call names the same directory.
    pub fn own_in(parent: &Path) -> JournalDir {
        let name = OWN_NAME
            .get_or_init(|| format!("reversid-{}-{:016x}-journals", std::process::id(), nonce()));
        JournalDir::Own(parent.join(name))
    }

    pub fn path(&self) -> &Path {
        match self {
            JournalDir::Given(path) | JournalDir::Own(path) => path,
        }
    }

    /// Makes sure the directory exists: a given one is created if missing; the server's
    /// own is created now, and only by this server (mode 0700; an existing one is an error).
    pub fn create(&self) -> io::Result<()> {
        match self {
            JournalDir::Given(path) => fs::create_dir_all(path),
            JournalDir::Own(path) => fs::DirBuilder::new().mode(0o700).create(path),
        }
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

/// 64 random bits (from the kernel; the clock's nanoseconds if it cannot give them).
fn nonce() -> u64 {
    let mut bytes = [0u8; 8];
    match fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes)) {
        Ok(()) => u64::from_ne_bytes(bytes),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
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
    fn the_servers_own_directory_is_its_alone() {
        let parent = scratch("parent");
        fs::create_dir_all(&parent).unwrap();
        let own = JournalDir::own_in(&parent);
        assert_eq!(own, JournalDir::own_in(&parent), "one name per process");
        let name = own
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let prefix = format!("reversid-{}-", std::process::id());
        assert!(
            name.starts_with(&prefix) && name.ends_with("-journals"),
            "{name}"
        );
        own.create().unwrap();
        let taken = own.create().unwrap_err();
        assert_eq!(taken.kind(), io::ErrorKind::AlreadyExists);
        assert!(own.close());
        fs::remove_dir_all(&parent).unwrap();
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
