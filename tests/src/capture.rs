//! Packet captures for the dissector test: dumpcap records a loopback port,
//! tshark reads the file back through a Lua dissector.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use crate::PATIENCE;

/// Whether `program` is an executable file on PATH.
pub fn on_path(program: &str) -> bool {
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| {
        std::fs::metadata(dir.join(program))
            .map(|m| {
                m.is_file()
                    && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0
            })
            .unwrap_or(false)
    })
}

/// A running dumpcap writing the TCP traffic of one loopback port to a file.
/// Killed when dropped; the file is removed too unless a test failed.
pub struct Capture {
    child: Child,
    path: PathBuf,
}

impl Capture {
    /// Starts capturing TCP port `port` on `lo`, on which something must be
    /// listening, and returns once packets sent to it are being recorded.
    /// An error carries dumpcap's own words (no permission to capture, no
    /// such interface, ...).
    pub fn start(port: u16) -> Result<Capture, String> {
        let path = std::env::temp_dir().join(format!(
            "reversi-capture-{}-{port}.pcapng",
            std::process::id()
        ));
        let mut child = Command::new("dumpcap")
            .args(["-i", "lo", "-f", &format!("tcp port {port}"), "-w"])
            .arg(&path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run dumpcap: {e}"))?;
        let stderr = child.stderr.take().expect("piped stderr");
        let (lines, said) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        let capture = Capture { child, path };
        let mut heard = Vec::new();
        loop {
            match said.recv_timeout(PATIENCE) {
                Ok(line) if line.starts_with("File:") => break,
                Ok(line) => heard.push(line),
                Err(_) => {
                    return Err(format!(
                        "dumpcap did not start capturing: {}",
                        heard.join(" / ")
                    ))
                }
            }
        }
        // Keep draining dumpcap's messages so it never blocks on a full pipe.
        std::thread::spawn(move || while said.recv().is_ok() {});
        capture.wait_until_recording(port)?;
        Ok(capture)
    }

    /// dumpcap names its file before the kernel hands it packets, and writes
    /// them in batches: knock on the port (connect, close) until the file
    /// grows, so the caller's first packet is surely recorded.
    fn wait_until_recording(&self, port: u16) -> Result<(), String> {
        let size = || std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0);
        let deadline = Instant::now() + PATIENCE;
        let headers = size();
        while size() <= headers {
            if Instant::now() > deadline {
                return Err(format!("nothing recorded on port {port} in {PATIENCE:?}"));
            }
            drop(TcpStream::connect(("127.0.0.1", port)));
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }

    /// Stops the capture and returns the file. `settle` is left for the last
    /// packets to reach dumpcap, which drops what it has not read when told
    /// to stop.
    pub fn finish(&mut self, settle: Duration) -> &Path {
        std::thread::sleep(settle);
        let _ = kill(Pid::from_raw(self.child.id() as i32), Signal::SIGINT);
        let _ = self.child.wait();
        &self.path
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if std::thread::panicking() {
            eprintln!("capture kept for a look: {}", self.path.display());
        } else {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Runs tshark on `capture` with the Lua dissector `script` and returns, per
/// frame, the values of `fields` (`-T fields`; several occurrences of a
/// field in one frame are joined with commas).
pub fn tshark_fields(
    capture: &Path,
    script: &Path,
    options: &[&str],
    fields: &[&str],
) -> Result<Vec<Vec<String>>, String> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-X")
        .arg(format!("lua_script:{}", script.display()))
        .arg("-r")
        .arg(capture)
        .args(options)
        .args(["-T", "fields", "-E", "separator=/t", "-E", "occurrence=a"]);
    for field in fields {
        cmd.args(["-e", field]);
    }
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run tshark: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "tshark failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| line.split('\t').map(str::to_owned).collect())
        .collect())
}
