//! Logging: one line a record on stderr, with timestamp, level and pid; as plain text by
//! default, or as one JSON object a line (`--log-format json`) for log shippers. Which
//! records: `RUST_LOG`, in env_logger's syntax (its `env_filter` crate), `info` when unset.
//!
//! Why not env_logger's logger itself: it formats in a buffer of its thread's, a thread
//! local with a destructor, and the first record a session logs would register that
//! destructor with the C library (a block in malloc's heap, a count in the dynamic
//! loader's data, its lock): 16 KiB of pages each session would copy from its parent
//! (README, "Many games on one host"). Here a line is formatted in a `String` and written
//! whole, with one `write(2)` on an unbuffered stderr.
//!
//! `--log-file` is opened in append mode and put in place of stderr (fd 2), so
//! the logger, panics and anything else writing to stderr all land in it, and a
//! SIGHUP can reopen it after rotation without touching the logger.

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

/// The pid printed on every line; refreshed in each session child after fork.
static PID: AtomicU32 = AtomicU32::new(0);

/// Carries the chosen format to the fork server, which is this program started again
/// with the supervisor's environment and installs its logger before it reads the
/// command line.
const FORMAT_VAR: &str = "REVERSID_LOG_FORMAT";

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// `TIMESTAMP LEVEL [PID] MESSAGE`.
    Text,
    /// `{"ts":…,"level":…,"pid":…,"target":…,"msg":…}`.
    Json,
}

/// The logging options.
#[derive(Debug, Clone, clap::Args)]
#[group(id = "log_options")]
pub struct Options {
    /// How log lines are written: text, or json (one JSON object a line, with the fields
    /// ts, level, pid, target and msg, for log shippers).
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "text")]
    pub log_format: Format,
}

/// Chooses the format for this process and the processes it starts; call before [`init`].
pub fn choose(format: Format) {
    let name = match format {
        Format::Text => "text",
        Format::Json => "json",
    };
    // The process is single-threaded still: nothing reads the environment meanwhile.
    std::env::set_var(FORMAT_VAR, name);
}

/// Installs the logger, in the format [`choose`]n (by this process or its starter).
/// Filter from RUST_LOG, `info` when unset.
pub fn init() {
    refresh_pid();
    let json = std::env::var(FORMAT_VAR).is_ok_and(|f| f == "json");
    let filter = env_filter::Builder::new()
        .parse(std::env::var("RUST_LOG").as_deref().unwrap_or("info"))
        .build();
    let max = filter.filter();
    if log::set_boxed_logger(Box::new(Logger { filter, json })).is_ok() {
        log::set_max_level(max);
    }
}

struct Logger {
    filter: env_filter::Filter,
    json: bool,
}

impl log::Log for Logger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        self.filter.enabled(metadata)
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.filter.matches(record) {
            return;
        }
        let pid = PID.load(Ordering::Relaxed);
        let ts = format!("{:.3}", jiff::Timestamp::now());
        let mut line = match self.json {
            true => json_line(&ts, record, pid),
            false => format!("{ts} {:<5} [{pid}] {}", record.level(), record.args()),
        };
        line.push('\n');
        // Nothing to do if stderr is gone.
        let _ = io::stderr().lock().write_all(line.as_bytes());
    }

    fn flush(&self) {}
}

/// One record as a JSON object.
fn json_line(ts: &str, record: &log::Record<'_>, pid: u32) -> String {
    let mut line = String::from("{\"ts\":");
    push_json_string(&mut line, ts);
    line.push_str(",\"level\":");
    push_json_string(&mut line, record.level().as_str());
    let _ = write!(line, ",\"pid\":{pid},\"target\":");
    push_json_string(&mut line, record.target());
    line.push_str(",\"msg\":");
    push_json_string(&mut line, &record.args().to_string());
    line.push('}');
    line
}

/// Appends `s` as a JSON string (RFC 8259 §7): quotes, backslashes and control
/// characters escaped, so that a message never breaks its line.
fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Re-reads the pid for the log lines (call in a freshly forked child).
pub fn refresh_pid() {
    PID.store(std::process::id(), Ordering::Relaxed);
}

/// Opens `path` for appending and makes it the process's stderr.
pub fn redirect_stderr(path: &Path) -> io::Result<()> {
    let file: File = OpenOptions::new().create(true).append(true).open(path)?;
    // SAFETY: dup2 onto fd 2 with a valid descriptor; `file` closes its own copy on drop.
    if unsafe { libc::dup2(file.as_raw_fd(), libc::STDERR_FILENO) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_one_json_object_on_one_line() {
        let args = format_args!("game over: \"x\" \\ one\ntwo\u{1}");
        let record = log::Record::builder()
            .args(args)
            .level(log::Level::Warn)
            .target("reversid::supervisor")
            .build();
        assert_eq!(
            json_line("2026-11-26T19:50:00.123Z", &record, 42),
            "{\"ts\":\"2026-11-26T19:50:00.123Z\",\"level\":\"WARN\",\"pid\":42,\
             \"target\":\"reversid::supervisor\",\
             \"msg\":\"game over: \\\"x\\\" \\\\ one\\ntwo\\u0001\"}"
        );
    }
}
