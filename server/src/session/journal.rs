//! The journal: each move appended as it is played, so that a session that
//! is killed loses nothing. A session that ends cleanly writes its record and
//! removes its journal; the supervisor, reaping one that did not, turns the
//! journal into an aborted game's record and log line ([`recover`]).
//!
//! `DIR/.journal-<supervisor pid>-<game id>`, text: a first line
//! `game <name> id <id> players <a> <b>…`, then one line a move,
//! `<team name> <notation>`, and `round <n>` when a rematch starts.
//! Appends are plain writes (no fsync): a killed process's writes are in the
//! kernel already; only a machine crash can lose the last ones.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use log::warn;

/// Where game `id` of the supervisor `supervisor` keeps its journal.
pub fn path(dir: &Path, supervisor: u32, id: u64) -> PathBuf {
    dir.join(format!(".journal-{supervisor}-{id}"))
}

pub struct Journal {
    /// Created with the first move: a game that never starts costs no file.
    file: Option<File>,
    header: String,
    path: PathBuf,
    /// One warning at most: a full disk must not flood the log.
    failed: bool,
}

impl Journal {
    pub fn new(path: PathBuf, header: &str) -> Journal {
        Journal {
            file: None,
            header: header.to_owned(),
            path,
            failed: false,
        }
    }

    fn open(&mut self) -> io::Result<&mut File> {
        if self.file.is_none() {
            // Never truncate: a journal already there is another game's (a supervisor
            // whose pid was reused, a stale file), and its moves are not ours to erase.
            let mut file = OpenOptions::new()
                .create_new(true)
                .write(true)
                .open(&self.path)
                .map_err(|e| match e.kind() {
                    io::ErrorKind::AlreadyExists => io::Error::new(
                        e.kind(),
                        "a journal of that name already exists (left untouched; \
                         this game is not journalled)",
                    ),
                    _ => e,
                })?;
            writeln!(file, "{}", self.header)?;
            self.file = Some(file);
        }
        Ok(self.file.as_mut().expect("just opened"))
    }

    pub fn append(&mut self, line: &str) {
        if let Err(e) = self.open().and_then(|file| writeln!(file, "{line}")) {
            if !self.failed {
                warn!("cannot append to {}: {e}", self.path.display());
                self.failed = true;
            }
        }
    }

    /// The game was recorded: the journal is no longer needed.
    pub fn finish(self) {
        if self.file.is_some() {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// A journal left behind by a session that did not end cleanly.
pub struct Orphan {
    /// `<team name> <notation>` of every move played.
    pub moves: Vec<String>,
}

/// Takes the journal of game `id`, if its session left one: reads it, and moves it to
/// `record_dir` as `<unix-millis>-<id>-aborted.txt` (with a last line saying why), or
/// removes it when there is no record directory.
pub fn recover(
    dir: &Path,
    supervisor: u32,
    id: u64,
    why: &str,
    record_dir: Option<&Path>,
) -> Option<Orphan> {
    let journal = path(dir, supervisor, id);
    let text = fs::read_to_string(&journal).ok()?;
    // The first line is the header: the supervisor knows the game and its players.
    let moves = text
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with("round "))
        .map(str::to_owned)
        .collect();
    let kept = record_dir.and_then(|records| {
        let millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let target = records.join(format!("{millis}-{id}-aborted.txt"));
        let mut file = OpenOptions::new().append(true).open(&journal).ok()?;
        writeln!(file, "aborted {why}").ok()?;
        fs::rename(&journal, &target).ok()
    });
    if kept.is_none() {
        let _ = fs::remove_file(&journal);
    }
    Some(Orphan { moves })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_already_there_is_never_truncated() {
        let dir =
            std::env::temp_dir().join(format!("reversid-journal-exists-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let there = path(&dir, 1, 3);
        fs::write(&there, "game x id 3 players a b\nX b2\n").unwrap();
        let mut j = Journal::new(there.clone(), "game y id 3 players c d");
        let err = j.open().expect_err("refused");
        assert!(err.to_string().contains("already exists"), "{err}");
        j.append("O a1");
        assert!(j.failed, "the failure is reported");
        assert_eq!(
            fs::read_to_string(&there).unwrap(),
            "game x id 3 players a b\nX b2\n"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_journal_left_behind_becomes_an_aborted_record() {
        let dir =
            std::env::temp_dir().join(format!("reversid-journal-test-{}", std::process::id()));
        let records = dir.join("records");
        fs::create_dir_all(&records).unwrap();
        let mut j = Journal::new(path(&dir, 1, 7), "game tictactoe id 7 players a b");
        j.append("X b2");
        j.append("O a1");
        drop(j); // killed: no finish
        let orphan = recover(&dir, 1, 7, "killed by SIGKILL", Some(&records)).unwrap();
        assert_eq!(orphan.moves, ["X b2", "O a1"]);
        let kept: Vec<_> = fs::read_dir(&records).unwrap().flatten().collect();
        assert_eq!(kept.len(), 1);
        let text = fs::read_to_string(kept[0].path()).unwrap();
        assert!(
            text.ends_with("O a1\naborted killed by SIGKILL\n"),
            "{text}"
        );
        assert!(recover(&dir, 1, 7, "again", None).is_none(), "taken once");
        let mut j = Journal::new(path(&dir, 1, 8), "game x");
        j.append("X b2");
        j.finish();
        assert!(
            recover(&dir, 1, 8, "", None).is_none(),
            "a finished game leaves none"
        );
        Journal::new(path(&dir, 1, 9), "game x").finish();
        assert!(
            !path(&dir, 1, 9).exists(),
            "a game without moves never made a file"
        );
        assert!(
            recover(&dir, 1, 8, "", None).is_none(),
            "a finished game leaves none"
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
