//! The fork server's process: read requests from the supervisor, clone sessions.

use std::io;
use std::net::TcpStream;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use log::{error, info, warn};
use nix::sys::socket::MsgFlags;

use crate::terms::Terms;

use super::{Request, SeatHeader, DIR_VAR, MAX_MESSAGE, MAX_SEATS, READY, SOCKET_VAR};
use crate::fd_passing;
use crate::games::Games;
use crate::session::{self, handoff, Group, Seat};
use crate::spawn::{self, Parent};

/// A fork server's start: its socket to the supervisor and where to read the command line.
pub struct Invocation {
    socket: OwnedFd,
    dir: PathBuf,
}

/// How this process was started as a fork server, or `None` for a plain reversid.
pub fn invocation() -> Option<Invocation> {
    let fd: RawFd = std::env::var(SOCKET_VAR).ok()?.parse().ok()?;
    let dir = std::env::var_os(DIR_VAR)?.into();
    // SAFETY: F_GETFD only asks whether the descriptor is open.
    if fd < 3 || unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
        return None;
    }
    // SAFETY: the supervisor opened this descriptor for the fork server and nothing else
    // in this process uses it.
    let socket = unsafe { OwnedFd::from_raw_fd(fd) };
    Some(Invocation { socket, dir })
}

/// Reads the supervisor's command line (the arguments this process was started with)
/// and gives what it serves.
pub type Configure = fn() -> io::Result<Games>;

/// Serves the supervisor until it closes the socket (the supervisor decides when everything
/// stops; like every child, the fork server is out of reach of the terminal's signals, see
/// crate::spawn); `configure` reads what to serve.
pub fn run(invocation: Invocation, configure: Configure) -> ExitCode {
    crate::log::init();
    spawn::set_process_name("reversid-forks");
    let games = match configuration(&invocation.dir, configure) {
        Ok(games) => games,
        Err(e) => {
            error!("fork server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let socket = invocation.socket;
    if let Err(e) = fd_passing::send(&socket, &[&[READY]], &[], MsgFlags::empty()) {
        error!("fork server: cannot reach the supervisor: {e}");
        return ExitCode::FAILURE;
    }
    // What the fork server allocates for each request (the descriptors, the decoded
    // seats) would be written into malloc's heap, its per-thread cache and the C
    // library's arena state: pages every session shares with it, so each session
    // cloned before such a write is left holding the old copy alone. In an arena of its
    // own, a request's allocations reuse the same few pages (see crate::arena).
    if let Err(e) = crate::arena::enter() {
        warn!("fork server: no heap of its own ({e}): each session keeps a few more pages");
    }
    let mut buf = match RequestBuffer::new(MAX_MESSAGE) {
        Ok(buf) => buf,
        Err(e) => {
            error!("fork server: no memory for requests: {e}");
            return ExitCode::FAILURE;
        }
    };
    let buf = buf.bytes();
    loop {
        let received = match fd_passing::receive::<{ MAX_SEATS + 1 }>(&socket, buf) {
            Ok(Some(received)) => received,
            Ok(None) => return ExitCode::SUCCESS,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                error!("fork server: reading from the supervisor: {e}");
                return ExitCode::FAILURE;
            }
        };
        if let Some(answer) = serve(&games, &buf[..received.len], received) {
            if let Err(e) =
                fd_passing::send(&socket, &[&answer.to_le_bytes()], &[], MsgFlags::empty())
            {
                error!("fork server: answering the supervisor: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
}

/// The buffer the supervisor's requests are read into, which sessions do not inherit
/// (`MADV_WIPEONFORK`): otherwise each request written into it would leave every session
/// forked before it a private copy of the page (README, "Many games on one host").
struct RequestBuffer {
    start: std::ptr::NonNull<u8>,
    len: usize,
}

impl RequestBuffer {
    fn new(len: usize) -> io::Result<RequestBuffer> {
        // SAFETY: a fresh private anonymous mapping, which only this value uses.
        let start = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if start == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: advice on the mapping just made. Kernels before 4.14 refuse it; the
        // sessions then only cost a page more.
        unsafe { libc::madvise(start, len, libc::MADV_WIPEONFORK) };
        let start = std::ptr::NonNull::new(start.cast()).ok_or(io::ErrorKind::OutOfMemory)?;
        Ok(RequestBuffer { start, len })
    }

    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: `len` bytes mapped readable and writable (zeroes at first), borrowed
        // mutably as `self` is.
        unsafe { std::slice::from_raw_parts_mut(self.start.as_ptr(), self.len) }
    }
}

impl Drop for RequestBuffer {
    fn drop(&mut self) {
        // SAFETY: unmaps the mapping this value made, which nothing borrows any more.
        unsafe { libc::munmap(self.start.as_ptr().cast(), self.len) };
    }
}

/// The games and their session settings, from the supervisor's command line read where
/// the supervisor read it.
///
/// Read on the main thread with malloc, whose heap the fork server then leaves: the
/// parser's garbage (help texts, its tables) is given back to the kernel once it is done
/// (`malloc_trim`), and the fork server's requests and the sessions allocate from arenas of
/// their own just past that heap (crate::arena). A thread of its own would cost every
/// session a page of page tables for the thread's malloc arena, which the kernel places
/// apart from everything else.
fn configuration(dir: &Path, configure: Configure) -> io::Result<Games> {
    let here = std::env::current_dir()?;
    std::env::set_current_dir(dir)?;
    let games = std::panic::catch_unwind(configure)
        .unwrap_or_else(|_| Err(io::Error::other("reading the command line panicked")));
    std::env::set_current_dir(here)?;
    // SAFETY: only gives free memory of malloc's heaps back to the kernel.
    unsafe { libc::malloc_trim(0) };
    games
}

/// Does what one message asks; the answer to send back, if it wants one.
fn serve(games: &Games, bytes: &[u8], received: fd_passing::Received) -> Option<i32> {
    let refuse = |why: String| {
        error!("fork server: {why}");
        Some(-libc::EINVAL)
    };
    if received.truncated {
        return refuse("a request did not fit in one message".into());
    }
    let request = match Request::decode(bytes) {
        Ok(request) => request,
        Err(e) => return refuse(format!("bad request: {e}")),
    };
    if received.fds.len() != request.descriptors() {
        return refuse(format!(
            "a request came with {} descriptors instead of {}",
            received.fds.len(),
            request.descriptors()
        ));
    }
    match request {
        Request::ReopenLog => {
            reopen_log(&received.fds[0]);
            None
        }
        Request::Start {
            id,
            game,
            terms,
            seats,
            spare,
        } => Some(start(games, id, &game, terms, seats, spare, received.fds)),
    }
}

fn reopen_log(stderr: &OwnedFd) {
    // SAFETY: dup2 onto fd 2 with a descriptor this process owns.
    if unsafe { libc::dup2(stderr.as_raw_fd(), libc::STDERR_FILENO) } < 0 {
        error!(
            "fork server: cannot take the new log: {}",
            io::Error::last_os_error()
        );
    } else {
        info!("fork server: log reopened");
    }
}

/// Clones the session of game `id`: its pid, or minus an errno.
fn start(
    games: &Games,
    id: u64,
    game: &str,
    terms: Terms,
    seats: Vec<SeatHeader>,
    spare_journal: Option<String>,
    fds: Vec<OwnedFd>,
) -> i32 {
    let module = games.modules.iter().find(|m| m.info.name == game);
    let (Some(&module), Some(config)) = (module, games.sessions.get(game)) else {
        error!("fork server: asked for a game it does not serve: {game}");
        return -libc::EINVAL;
    };
    // Named after the supervisor, whose child the session will be (`CLONE_PARENT`).
    let supervisor = nix::unistd::getppid().as_raw() as u32;
    let viewers = match handoff::listener(supervisor, id) {
        Ok(listener) => listener,
        Err(e) => {
            error!("fork server: cannot make the viewers' listener of game {id}: {e}");
            return -e.raw_os_error().unwrap_or(libc::EIO);
        }
    };
    let seats: Vec<Seat> = seats
        .into_iter()
        .zip(fds)
        .map(|(header, fd)| Seat {
            stream: TcpStream::from(fd),
            peer: header.peer,
            early: header.early,
            wire: header.wire,
            token: header.token,
            player: header.player,
        })
        .collect();
    let mut keep: Vec<RawFd> = seats.iter().map(|s| s.stream.as_raw_fd()).collect();
    keep.push(viewers.as_raw_fd());
    let group = Group {
        id,
        module,
        terms,
        seats,
        spare_journal,
    };
    let forked = spawn::fork_session(
        &keep,
        Parent::CallersParent,
        (group, viewers),
        |(group, viewers), abort| session::play(config, group, abort, viewers),
    );
    match forked {
        Ok((pid, _)) => pid.as_raw(),
        Err((e, _)) => {
            error!("fork server: cannot start a session of {game}: {e}");
            -e.raw_os_error().unwrap_or(libc::EAGAIN)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_does_not_inherit_the_request_buffer() {
        let mut buf = RequestBuffer::new(MAX_MESSAGE).unwrap();
        buf.bytes()[0] = 7;
        // SAFETY: the child only reads a byte and exits, touching nothing another thread
        // of the test process may hold.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: as above; _exit runs nothing of the parent's.
            unsafe { libc::_exit(i32::from(buf.bytes()[0])) };
        }
        assert!(pid > 0, "fork: {}", io::Error::last_os_error());
        let mut status = 0;
        // SAFETY: waits for the child just forked.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status));
        assert_eq!(libc::WEXITSTATUS(status), 0, "the child saw the request");
        assert_eq!(buf.bytes()[0], 7);
    }
}
