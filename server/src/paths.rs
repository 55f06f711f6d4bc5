//! Start-up checks of the files and directories the command line names. An
//! error names the option, the path, and what is wrong there (missing, not a
//! directory, not writable), not only the errno of the call that failed:
//! creating a file in /proc fails with "No such file or directory" although
//! /proc is there.

use std::fs;
use std::io;
use std::path::Path;

/// What is at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    Nothing,
    Directory,
    /// A file, or something that cannot be looked at.
    Other,
}

fn found(path: &Path) -> Found {
    match fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Found::Directory,
        Ok(_) => Found::Other,
        // Also when a component on the way is a file: nothing is there.
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            Found::Nothing
        }
        Err(_) => Found::Other,
    }
}

/// `why`, about `path` named by `option`, as one error.
fn error(option: &str, path: &Path, why: &str) -> io::Error {
    io::Error::other(format!("{option} {}: {why}", path.display()))
}

/// Why a directory that exists refused a new entry with `e`.
fn refused(e: &io::Error) -> String {
    match e.kind() {
        // The directory is there, so the file system itself takes no new entries.
        io::ErrorKind::NotFound => "its file system takes no new files (as /proc and /sys)".into(),
        _ => e.to_string(),
    }
}

/// Fails unless files can be created in the directory `dir` named by `option`.
pub fn check_dir(option: &str, dir: &Path) -> io::Result<()> {
    match found(dir) {
        Found::Nothing => return Err(error(option, dir, "does not exist")),
        Found::Other => return Err(error(option, dir, "is not a directory")),
        Found::Directory => {}
    }
    let probe = dir.join(format!(".reversid-probe-{}", std::process::id()));
    fs::write(&probe, b"")
        .and_then(|()| fs::remove_file(&probe))
        .map_err(|e| error(option, dir, &format!("not writable: {}", refused(&e))))
}

/// `e`, from creating the directory `dir` (and its parents) named by `option`, with
/// what is wrong there.
pub fn create_dir_error(option: &str, dir: &Path, e: io::Error) -> io::Error {
    error(option, dir, &cannot_create(dir, &e))
}

/// Why `create_dir_all(dir)` failed with `e`: the nearest path above it that exists.
fn cannot_create(dir: &Path, e: &io::Error) -> String {
    let existing = dir
        .ancestors()
        .map(|path| (path, found(path)))
        .find(|(_, what)| *what != Found::Nothing);
    match existing {
        Some((path, Found::Other)) if path == dir => "is not a directory".into(),
        Some((path, Found::Other)) => format!("{} is not a directory", path.display()),
        Some((path, _)) => format!("cannot be created in {}: {}", path.display(), refused(e)),
        None => e.to_string(),
    }
}

/// `e`, from opening or writing the file `path` named by `option`, with what is
/// wrong there.
pub fn file_error(option: &str, path: &Path, e: io::Error) -> io::Error {
    let dir = path.parent().unwrap_or(Path::new("/"));
    let why = match (found(path), found(dir)) {
        (Found::Directory, _) => "is a directory".into(),
        (_, Found::Nothing) => format!("its directory {} does not exist", dir.display()),
        (_, Found::Other) => format!("{} is not a directory", dir.display()),
        (_, Found::Directory) => refused(&e),
    };
    error(option, path, &why)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("reversid-paths-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn message(result: io::Result<()>) -> String {
        result.unwrap_err().to_string()
    }

    #[test]
    fn a_directory_is_missing_not_a_directory_or_not_writable() {
        let dir = scratch("dirs");
        let file = dir.join("plain");
        fs::write(&file, b"").unwrap();
        let missing = dir.join("missing");
        assert_eq!(
            message(check_dir("--record-dir", &missing)),
            format!("--record-dir {}: does not exist", missing.display())
        );
        assert!(message(check_dir("--x", &file)).ends_with(": is not a directory"));
        // ENOENT as root, EACCES otherwise: either way not "No such file or directory".
        let proc = message(check_dir("--x", Path::new("/proc")));
        assert!(proc.starts_with("--x /proc: not writable: "), "{proc}");
        assert!(!proc.contains("No such file"), "{proc}");
        check_dir("--x", &dir).unwrap();
        assert!(
            fs::read_dir(&dir).unwrap().count() == 1,
            "the probe is gone"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_directory_that_cannot_be_made_names_what_is_in_the_way() {
        let dir = scratch("create");
        let file = dir.join("plain");
        fs::write(&file, b"").unwrap();
        let create = |path: &Path| {
            let e = fs::create_dir_all(path).unwrap_err();
            create_dir_error("--journal-dir", path, e).to_string()
        };
        assert!(create(&file).ends_with(": is not a directory"));
        let below = file.join("sub");
        assert!(create(&below).ends_with(&format!(": {} is not a directory", file.display())));
        let proc = create(Path::new("/proc/a/b"));
        assert!(proc.contains(": cannot be created in /proc: "), "{proc}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_names_what_is_wrong_with_its_directory() {
        let dir = scratch("files");
        let enoent = || io::Error::from(io::ErrorKind::NotFound);
        let missing = dir.join("missing").join("x.pid");
        assert_eq!(
            file_error("--pid-file", &missing, enoent()).to_string(),
            format!(
                "--pid-file {}: its directory {} does not exist",
                missing.display(),
                dir.join("missing").display()
            )
        );
        assert!(file_error("--log-file", &dir, enoent())
            .to_string()
            .ends_with(": is a directory"));
        // The directory exists, so ENOENT is the file system refusing.
        let proc = file_error("--log-file", Path::new("/proc/x.log"), enoent());
        assert_eq!(
            proc.to_string(),
            "--log-file /proc/x.log: its file system takes no new files (as /proc and /sys)"
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
