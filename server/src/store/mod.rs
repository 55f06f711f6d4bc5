//! The store (crate `reversi-store`) wired into the server (spec/STORE.md §10): the
//! options and the data directory ([`options`]), opening the database at start, and the
//! supervisor's [`archive::Archive`], which hands each finished game from its session's
//! journal ([`journal_game`]) to the store's writer thread.

pub mod accounts;
pub mod archive;
pub mod journal_game;
pub mod options;
mod reader;
pub mod tournaments;
pub mod unlinker;
pub mod workers;

use std::fs;
use std::io;
use std::os::fd::AsRawFd;

use log::info;
use reversi_store::Store;

pub use options::{Options, Setting};

/// Creates the data directory and its journal directory, checks that no other server uses
/// it, and opens the database once (applying its migrations), so that a bad setting fails
/// the start, before any daemon fork.
pub fn prepare(setting: &Setting) -> io::Result<()> {
    let option = "--data-dir";
    fs::create_dir_all(setting.journal_dir())
        .map_err(|e| crate::paths::create_dir_error(option, &setting.data_dir, e))?;
    crate::paths::check_dir(option, &setting.journal_dir())?;
    drop(lock(setting)?);
    open(setting)?;
    info!("store: {}", setting.database);
    Ok(())
}

/// Locks the data directory for this process: a second server would take the journals of
/// this one's running games. A POSIX record lock, which forked sessions do not inherit (a
/// session that outlives a killed supervisor must not keep the next one out); it lasts as
/// long as the returned file is open.
pub fn lock(setting: &Setting) -> io::Result<fs::File> {
    let path = setting.lock_path();
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| crate::paths::file_error("--data-dir", &path, e))?;
    // SAFETY: a zeroed flock is a valid argument; fcntl on a descriptor we own.
    let taken = unsafe {
        let mut lock: libc::flock = std::mem::zeroed();
        lock.l_type = libc::F_WRLCK as libc::c_short;
        lock.l_whence = libc::SEEK_SET as libc::c_short;
        libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &lock)
    };
    if taken != 0 {
        return Err(io::Error::other(format!(
            "--data-dir {}: another reversid uses it (give each server its own)",
            setting.data_dir.display()
        )));
    }
    Ok(file)
}

/// A new connection to the store, its schema up to date.
pub fn open(setting: &Setting) -> io::Result<Box<dyn Store>> {
    setting
        .database
        .open()
        .map_err(|e| io::Error::other(format!("the store ({}): {e}", setting.database)))
}
