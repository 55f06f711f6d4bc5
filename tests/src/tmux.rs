//! Driving a full-screen program through tmux, as a person at a terminal
//! would: keys in (`send-keys`), the screen out (`capture-pane`). Each
//! [`Tmux`] runs its own tmux server (a socket of its own), killed when
//! dropped; a shell around the program records its exit status.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::PATIENCE;

/// One program in a tmux pane of its own.
pub struct Tmux {
    socket: String,
    dir: PathBuf,
}

/// Whether tmux is installed (scripts/install-tools.sh tmux installs it).
pub fn available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

impl Tmux {
    /// Runs `program args` with `env` set in a `width` × `height` terminal.
    pub fn start(
        program: &std::path::Path,
        args: &[&str],
        env: &[(&str, &str)],
        width: u16,
        height: u16,
    ) -> Tmux {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let socket = format!("reversi-test-{}-{n}", std::process::id());
        let dir = std::env::temp_dir().join(&socket);
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let config = dir.join("tmux.conf");
        std::fs::write(&config, "set -g remain-on-exit on\nset -g status off\n")
            .expect("tmux config");
        // The shell records the exit status in a file: tmux 3.3a sometimes
        // leaves a pane's exited process unreaped, so #{pane_dead} never comes.
        let mut command = String::from("env");
        for (name, value) in env {
            command.push_str(&format!(" {}", quote(&format!("{name}={value}"))));
        }
        command.push_str(&format!(" {}", quote(&program.to_string_lossy())));
        for arg in args {
            command.push_str(&format!(" {}", quote(arg)));
        }
        let status = dir.join("status");
        command.push_str(&format!(
            "; echo $? > {}.new && mv {0}.new {0}",
            quote(&status.to_string_lossy())
        ));
        let tmux = Tmux { socket, dir };
        let out = tmux.run(&[
            "-f",
            &config.to_string_lossy(),
            "new-session",
            "-d",
            "-s",
            "main",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
            &command,
        ]);
        assert!(out.status.success(), "tmux new-session: {out:?}");
        tmux
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux")
    }

    /// Types keys: tmux key names (`Enter`, `Escape`, `Left`, `Space`) or text.
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "main"];
        args.extend_from_slice(keys);
        let out = self.run(&args);
        assert!(out.status.success(), "tmux send-keys {keys:?}: {out:?}");
    }

    /// Types text literally (no key names).
    pub fn type_text(&self, text: &str) {
        let out = self.run(&["send-keys", "-t", "main", "-l", text]);
        assert!(out.status.success(), "tmux send-keys -l {text:?}: {out:?}");
    }

    /// The screen as text.
    pub fn screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-t", "main"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen with its escape sequences (colours, bold).
    pub fn screen_with_escapes(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-e", "-t", "main"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen shows everything in `wanted`; returns it.
    /// Panics with the last screen after [`PATIENCE`].
    pub fn wait_for(&self, wanted: &[&str]) -> String {
        self.wait_for_within(wanted, PATIENCE)
    }

    pub fn wait_for_within(&self, wanted: &[&str], patience: Duration) -> String {
        let deadline = Instant::now() + patience;
        loop {
            let screen = self.screen();
            if wanted.iter().all(|w| screen.contains(w)) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("the screen never showed {wanted:?}:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// The program's exit status once it has exited.
    pub fn exit_status(&self) -> Option<i32> {
        let text = std::fs::read_to_string(self.dir.join("status")).ok()?;
        text.trim().parse().ok()
    }

    /// Waits for the program to exit; returns its status.
    pub fn wait_exit(&self) -> i32 {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.exit_status() {
                return status;
            }
            if Instant::now() > deadline {
                panic!("the program did not exit:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Resizes the terminal.
    pub fn resize(&self, width: u16, height: u16) {
        let out = self.run(&[
            "resize-window",
            "-t",
            "main",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
        ]);
        assert!(out.status.success(), "tmux resize-window: {out:?}");
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
