//! The control socket's file: bound mode 0600 (the file's permissions are its
//! authentication), a stale one (a crashed server's) removed, a live one never taken.

use std::io;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;

use log::info;

/// Binds the control socket at `path`. A socket file already there is another server's
/// while something answers on it (an error), else a crashed one's, removed. After an
/// upgrade in place (`taking_over`) the file is this process's own, its listener closed
/// by the exec: it is made again.
pub fn bind(path: &Path, taking_over: bool) -> io::Result<UnixListener> {
    let named =
        |e: io::Error| io::Error::new(e.kind(), format!("--control {}: {e}", path.display()));
    if taking_over {
        remove(path).map_err(named)?;
    } else {
        clear_stale(path)?;
    }
    // Made 0600 from the start: no moment in which another user could connect.
    // SAFETY: umask only swaps the process's file mode mask.
    let before = unsafe { libc::umask(0o177) };
    let bound = UnixListener::bind(path);
    // SAFETY: as above, putting the mask back.
    unsafe { libc::umask(before) };
    let listener = bound.map_err(named)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(named)?;
    Ok(listener)
}

/// The longest path a Unix socket can have (`sun_path`, less its final NUL).
const MAX_PATH: usize = 107;

/// Whether `path` is too long to be a Unix socket's: a data directory deep in the file
/// system serves without a control socket (a warning) rather than not at all.
pub fn too_long(path: &Path) -> bool {
    path.as_os_str().len() > MAX_PATH
}

/// Removes `path` if it is a socket nobody answers on; errors if someone does, or if it
/// is not a socket (never deleted: it is not ours).
fn clear_stale(path: &Path) -> io::Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(io::Error::new(
                e.kind(),
                format!("--control {}: {e}", path.display()),
            ))
        }
    };
    if !meta.file_type().is_socket() {
        return Err(io::Error::other(format!(
            "--control {}: a file that is not a socket is there (move it, or give another path)",
            path.display()
        )));
    }
    match UnixStream::connect(path) {
        Ok(_) => Err(io::Error::other(format!(
            "--control {}: another reversid uses it (it answers there; give each server its own)",
            path.display()
        ))),
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
            info!(
                "removing a stale control socket {} (a server that ended without removing it)",
                path.display()
            );
            remove(path)
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io::Error::new(
            e.kind(),
            format!("--control {}: {e}", path.display()),
        )),
    }
}

fn remove(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("reversid-control-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_socket_is_the_servers_users_alone() {
        let dir = scratch("mode");
        let path = dir.join("control.sock");
        let _listener = bind(&path, false).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_stale_socket_is_replaced_and_a_live_one_kept() {
        let dir = scratch("stale");
        let path = dir.join("control.sock");
        let live = bind(&path, false).unwrap();
        let e = bind(&path, false).unwrap_err();
        assert!(e.to_string().contains("another reversid uses it"), "{e}");
        drop(live);
        assert!(path.exists(), "a listener dropped leaves its file");
        let again = bind(&path, false).unwrap();
        assert!(UnixStream::connect(&path).is_ok());
        // Taking over: this process's own, made again without asking.
        drop(again);
        let _taken = bind(&path, true).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_path_longer_than_a_socket_can_have_is_known_before_binding() {
        let dir = scratch("long");
        let long = dir.join("d".repeat(120)).join("control.sock");
        assert!(too_long(&long));
        assert!(!too_long(&dir.join("control.sock")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_that_is_not_a_socket_is_left_alone() {
        let dir = scratch("file");
        let path = dir.join("control.sock");
        std::fs::write(&path, "mine").unwrap();
        let e = bind(&path, false).unwrap_err();
        assert!(e.to_string().contains("not a socket"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
