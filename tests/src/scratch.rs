//! A directory of a test's own under the system's temporary one, removed with
//! everything in it when dropped: what a test (or a reversid it killed) leaves
//! there goes with it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Scratch directories made by this process so far, so that each gets its own name.
static MADE: AtomicUsize = AtomicUsize::new(0);

pub struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// A new, empty directory named after `what`, this process and a counter.
    pub fn new(what: &str) -> Scratch {
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("reversi-tests-{what}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", path.display()));
        Scratch { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The names of what is in it now, sorted.
    pub fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.path)
            .expect("read a scratch directory")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
