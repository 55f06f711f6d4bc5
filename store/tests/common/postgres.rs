//! A private, throwaway PostgreSQL server for the tests: initdb in a temporary
//! directory owned by `postgres` (PostgreSQL refuses to run as root), pg_ctl
//! start listening on a unix socket in that directory only, stopped and
//! removed on drop. Needs Debian's `postgresql` package
//! (`scripts/install-tools.sh postgresql`); [`Server::start`] says why not
//! when it is missing, and the tests skip.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Where Debian installs PostgreSQL's programs, one directory a version.
const INSTALL_ROOT: &str = "/usr/lib/postgresql";
/// The port names the socket file only (no TCP): any number will do.
const PORT: u16 = 5432;
const USER: &str = "postgres";
/// Where the server's directory goes: not $TMPDIR, which `postgres` may not be
/// able to enter, and whose length could push the socket's path past the
/// 107 bytes a unix socket's name may have.
const PARENT: &str = "/tmp";

pub struct Server {
    bin: PathBuf,
    dir: tempfile::TempDir,
    /// Running as root: PostgreSQL's programs then run as `postgres`.
    root: bool,
    /// What `postgres` is started with (`pg_ctl -o`).
    options: String,
}

impl Server {
    /// A running server, or why there cannot be one here. It does not
    /// fsync: a test's data need not survive a crash of the machine.
    pub fn start() -> Result<Server, String> {
        Server::start_with("-c fsync=off")
    }

    /// A server that fsyncs as a production one does, for benchmarks.
    pub fn start_durable() -> Result<Server, String> {
        Server::start_with("")
    }

    fn start_with(settings: &str) -> Result<Server, String> {
        let bin = bin_dir()?;
        let dir = tempfile::Builder::new()
            .prefix("reversi-store-pg")
            .tempdir_in(PARENT)
            .map_err(|e| format!("a temporary directory: {e}"))?;
        // The directory is ours: its owner says who we are.
        let root = std::fs::metadata(dir.path()).is_ok_and(|m| m.uid() == 0);
        let mut server = Server {
            bin,
            dir,
            root,
            options: String::new(),
        };
        if root {
            run(Command::new("chown").args(["-R", USER, &server.path_str()]))?;
        }
        server.initdb()?;
        server.options = format!(
            "-c listen_addresses='' -k {} -p {PORT} {settings}",
            server.path_str()
        );
        server.start_again()?;
        Ok(server)
    }

    /// Starts the server again after [`Server::stop`] (the first start, too).
    pub fn start_again(&self) -> Result<(), String> {
        let log = self.dir.path().join("log");
        run(self
            .tool("pg_ctl")
            .args([
                "start",
                "-w",
                "-D",
                &self.data_str(),
                "-o",
                &self.options,
                "-l",
            ])
            .arg(&log))
        .map(drop)
    }

    /// Stops the server at once (its clients' connections are cut), data kept.
    pub fn stop(&self) -> Result<(), String> {
        run(self
            .tool("pg_ctl")
            .args(["stop", "-w", "-m", "immediate", "-D", &self.data_str()]))
        .map(drop)
    }

    fn initdb(&self) -> Result<(), String> {
        run(self
            .tool("initdb")
            .args(["-A", "trust", "-U", USER, "-E", "UTF8", "--no-locale", "-D"])
            .arg(self.data_str()))
        .map(drop)
    }

    fn path_str(&self) -> String {
        self.dir.path().display().to_string()
    }

    fn data_str(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    /// One of PostgreSQL's programs, run as `postgres`.
    pub fn tool(&self, name: &str) -> Command {
        let program = self.bin.join(name);
        if self.root {
            let mut command = Command::new("runuser");
            command.args(["-u", USER, "--"]).arg(program);
            command
        } else {
            Command::new(program)
        }
    }

    /// The connection string of database `db`.
    pub fn params(&self, db: &str) -> String {
        format!(
            "host={} port={PORT} user={USER} dbname={db}",
            self.path_str()
        )
    }

    /// A new, empty database named `db`.
    pub fn create_db(&self, db: &str) -> Result<(), String> {
        let host = self.path_str();
        run(self
            .tool("createdb")
            .args(["-h", &host, "-p", &PORT.to_string(), "-U", USER, db]))
        .map(drop)
    }

    /// The socket directory and port, for pg_dump and friends.
    pub fn host_args(&self) -> Vec<String> {
        vec![
            "-h".into(),
            self.path_str(),
            "-p".into(),
            PORT.to_string(),
            "-U".into(),
            USER.into(),
        ]
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.stop();
        // Files initdb made belong to postgres; root removes them with the directory.
    }
}

/// The newest installed version's bin directory.
fn bin_dir() -> Result<PathBuf, String> {
    let missing = || {
        format!("PostgreSQL is not installed (no {INSTALL_ROOT}/*/bin/initdb; scripts/install-tools.sh postgresql)")
    };
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir(INSTALL_ROOT)
        .map_err(|_| missing())?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin).ok_or_else(missing)
}

fn run(command: &mut Command) -> Result<Output, String> {
    let output = command
        .output()
        .map_err(|e| format!("running {command:?}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{command:?} failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(output)
}
