//! `reversi demo`: the whole system in one command. Starts `reversid` (found
//! next to this executable) on a free loopback port, lets two engine bots
//! play one game on it, shows that game move by move, then stops the server.

use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use reversi_client::exit;

use crate::game_bot::{self, Options};

/// How long the server may take to start listening.
const STARTUP: Duration = Duration::from_secs(10);

/// The server binary next to the running `reversi`.
fn reversid_path() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate reversi itself: {e}"))?;
    let dir = exe
        .parent()
        .ok_or_else(|| format!("{} has no directory", exe.display()))?;
    let path = dir.join("reversid");
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "reversid not found next to reversi (looked for {}); {}",
            path.display(),
            how_to_build(dir)
        ))
    }
}

/// How to get a reversid next to a reversi in `dir`: a build of the same
/// profile as the running reversi, or an install beside it.
fn how_to_build(dir: &Path) -> String {
    let profile = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let in_target = dir.parent().is_some_and(|p| p.ends_with("target"));
    match (in_target, profile) {
        (true, "release") => "build it with `cargo build --release -p reversi-server`".to_owned(),
        (true, "debug") => "build it with `cargo build -p reversi-server`".to_owned(),
        (true, other) => format!("build it with `cargo build --profile {other} -p reversi-server`"),
        (false, _) => format!(
            "install it there with `cargo install --path server --root {}`",
            dir.parent().unwrap_or(dir).display()
        ),
    }
}

/// A loopback port with no listener on it a moment ago.
fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free loopback port: {e}"))
}

/// The server child, stopped when dropped.
struct Server(Child);

/// How long a stopped server may take to end its sessions and tidy up.
const SHUTDOWN: Duration = Duration::from_secs(3);

impl Drop for Server {
    /// SIGTERM first, so the server shuts down cleanly (ending its sessions and
    /// removing its own journal directory); SIGKILL if it has not ended in time.
    fn drop(&mut self) {
        if let Ok(Some(_)) = self.0.try_wait() {
            return; // Reaped already: its pid may be someone else's now.
        }
        // SAFETY: kill(2) on our own child's pid, which we have not reaped yet.
        unsafe { libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM) };
        let deadline = Instant::now() + SHUTDOWN;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_server(addr: &str) -> Result<Server, String> {
    let path = reversid_path()?;
    let mut command = Command::new(&path);
    command
        .args(["--listen", addr, "--fixed-colours", "--no-store"])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    let demo = std::process::id();
    // SAFETY: between fork and exec the closure calls only prctl and getppid, which are
    // async-signal-safe, and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            // The server ends with the demo however the demo ends (a SIGTERM, a crash):
            // Drop does not run then, and nobody else knows the server is there.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() as u32 != demo {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
    let child = command
        .spawn()
        .map_err(|e| format!("could not start {}: {e}", path.display()))?;
    let mut server = Server(child);
    let deadline = Instant::now() + STARTUP;
    loop {
        if TcpStream::connect(addr).is_ok() {
            return Ok(server);
        }
        if let Ok(Some(status)) = server.0.try_wait() {
            return Err(format!("reversid exited at start ({status})"));
        }
        if Instant::now() > deadline {
            return Err(format!(
                "reversid is not listening on {addr} after {STARTUP:?}"
            ));
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// Runs the demo; `options` are the bots' engine settings and pace.
pub fn run(options: &Options) -> u8 {
    let server_and_addr = free_port().and_then(|port| {
        let addr = format!("127.0.0.1:{port}");
        start_server(&addr).map(|server| (server, addr))
    });
    let (server, addr) = match server_and_addr {
        Ok(found) => found,
        Err(err) => {
            eprintln!("reversi demo: {err}");
            return exit::CONNECT_FAILED;
        }
    };
    println!(
        "demo: reversid (pid {}) listens on {addr}; two engine bots (level {}) play one game.",
        server.0.id(),
        options.level.unwrap_or_default()
    );
    println!(
        "The board is shown as the first bot sees it; the last move's squares are in (brackets).\n"
    );
    let first = Options {
        show: true,
        name: "demo: first bot".into(),
        shown_as: Some("first bot".into()),
        identity: None,
        rematch: false,
        together: None,
        ..options.clone()
    };
    let mut second = Options {
        show: false,
        name: "demo: second bot".into(),
        ..options.clone()
    };
    second.strength.seed = options.strength.seed.wrapping_add(1);
    let first_addr = addr.clone();
    let first = thread::spawn(move || game_bot::series(&first_addr, &first));
    // With --fixed-colours the first to queue plays black: give its connect
    // a head start (if the second wins the race, it is just the other colour).
    thread::sleep(Duration::from_millis(200));
    let second = thread::spawn(move || game_bot::series(&addr, &second));
    let outcomes = [first.join(), second.join()];
    drop(server);
    let mut code = exit::OK;
    for outcome in outcomes {
        match outcome {
            Ok((status, ended)) => match ended.first() {
                Some(end) => {
                    let colour = end.who.split(' ').next().unwrap_or_default();
                    println!("{colour} bot: {}", end.how);
                    code = code.max(status);
                }
                None => code = code.max(status.max(exit::SERVER_GONE)),
            },
            Err(_) => code = exit::SERVER_GONE,
        }
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_advice_builds_the_profile_that_is_running() {
        let release = how_to_build(Path::new("/w/target/release"));
        assert_eq!(
            release,
            "build it with `cargo build --release -p reversi-server`"
        );
        let debug = how_to_build(Path::new("/w/target/debug"));
        assert_eq!(debug, "build it with `cargo build -p reversi-server`");
        let installed = how_to_build(Path::new("/home/me/.cargo/bin"));
        assert!(installed.contains("cargo install --path server --root /home/me/.cargo"));
    }
}
