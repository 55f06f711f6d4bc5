//! What a supervisor hands the image that replaces it (spec/DEPLOY.md "Upgrading in
//! place"): a text, one record a line, read back by the new image.
//!
//! The first line names the format and its version: `reversid-upgrade-state 1`. Every
//! other line is a record kind and its fields, separated by single spaces; byte strings
//! and paths are written in hex, so no field holds a space. A reader skips the kinds it
//! does not know (a later version may add kinds an older image can do without) and
//! refuses another version number (a change an older image cannot read safely bumps it).

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::os::fd::RawFd;
use std::path::PathBuf;
use std::time::Duration;

/// The format this image writes and reads.
pub const VERSION: u32 = 1;
const MAGIC: &str = "reversid-upgrade-state";

/// Everything the new image rebuilds itself from. Descriptors are numbers in this
/// process, left open across exec.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct State {
    /// The last game id given: the new image goes on from it.
    pub next_id: u64,
    /// Told to take no new games (`reversid ctl drain`).
    pub drained: bool,
    /// The server's own journal directory (`reversid-PID-NONCE-journals`), when it has one:
    /// running sessions write their journals there.
    pub own_journal_dir: Option<PathBuf>,
    /// The locked pid file.
    pub pid_file: Option<RawFd>,
    /// The data directory's lock (a POSIX record lock: closing any descriptor of the file
    /// would let it go).
    pub data_lock: Option<RawFd>,
    /// An earlier fork server, told to end: a child the new image reaps.
    pub retired: Vec<i32>,
    pub listeners: Vec<Listener>,
    pub sessions: Vec<Session>,
    pub tokens: Vec<Token>,
    pub conns: Vec<Conn>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listener {
    pub fd: RawFd,
    pub addr: SocketAddr,
    /// The seed listener's game and protocol names.
    pub seed: Option<(String, String)>,
}

/// A running session: a child of this process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub pid: i32,
    pub id: u64,
    pub game: String,
    /// How long it has run.
    pub age: Duration,
    pub peers: Vec<SocketAddr>,
    /// Each seat's player in words (`anonymous`, `guest NAME`, `account ID NAME RATING`),
    /// for `GAME LIST`; its own record kind, `players PID HEX`, after the session's.
    pub players: Vec<String>,
}

/// A resume token of a running session's seat, in its text form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub token: String,
    pub id: u64,
    pub seat: u8,
}

/// Where a waiting connection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    Handshake,
    Queued,
    Closing,
}

/// A waiting connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conn {
    pub fd: RawFd,
    pub standing: Standing,
    pub peer: SocketAddr,
    /// `supervisor::origin::Origin` in words: `direct`, `screened`, `check`,
    /// `relayed=ADDR`, `awaiting`, `awaiting=GAME/WIRE`.
    pub origin: String,
    pub wire: Option<String>,
    /// The game it queues for.
    pub game: Option<String>,
    pub pairing: bool,
    /// Received, not consumed yet.
    pub input: Vec<u8>,
    /// Owed to it, not sent yet.
    pub out: Vec<u8>,
    /// Who it is (`supervisor::identity::to_words`); `None`: anonymous. Its own record
    /// kind, `identity FD HEX`, after the connection's.
    pub identity: Option<String>,
}

/// Why a state text was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable(pub String);

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the upgrade state cannot be read: {}", self.0)
    }
}

fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".to_owned();
    }
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn unhex(text: &str) -> Result<Vec<u8>, Unreadable> {
    if text == "-" {
        return Ok(Vec::new());
    }
    let bad = || Unreadable(format!("not hex: {text:?}"));
    if !text.len().is_multiple_of(2) {
        return Err(bad());
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2).ok_or_else(bad)?, 16).map_err(|_| bad()))
        .collect()
}

fn path_hex(path: &std::path::Path) -> String {
    hex(std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()))
}

fn unhex_path(text: &str) -> Result<PathBuf, Unreadable> {
    let bytes = unhex(text)?;
    Ok(PathBuf::from(
        <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&bytes),
    ))
}

/// A word that may be absent: `-`.
fn word(value: Option<&str>) -> &str {
    value.unwrap_or("-")
}

fn unword(text: &str) -> Option<String> {
    (text != "-").then(|| text.to_owned())
}

impl Standing {
    fn word(self) -> &'static str {
        match self {
            Standing::Handshake => "handshake",
            Standing::Queued => "queued",
            Standing::Closing => "closing",
        }
    }

    fn of_word(word: &str) -> Result<Standing, Unreadable> {
        match word {
            "handshake" => Ok(Standing::Handshake),
            "queued" => Ok(Standing::Queued),
            "closing" => Ok(Standing::Closing),
            _ => Err(Unreadable(format!("no such standing: {word:?}"))),
        }
    }
}

impl State {
    /// The state as text.
    pub fn encode(&self) -> String {
        let mut out = format!("{MAGIC} {VERSION}\n");
        let mut line = |args: std::fmt::Arguments<'_>| {
            let _ = out.write_fmt(args);
            out.push('\n');
        };
        line(format_args!("next-id {}", self.next_id));
        if self.drained {
            line(format_args!("drained"));
        }
        if let Some(dir) = &self.own_journal_dir {
            line(format_args!("own-journal-dir {}", path_hex(dir)));
        }
        if let Some(fd) = self.pid_file {
            line(format_args!("pid-file {fd}"));
        }
        if let Some(fd) = self.data_lock {
            line(format_args!("data-lock {fd}"));
        }
        for pid in &self.retired {
            line(format_args!("retired {pid}"));
        }
        for l in &self.listeners {
            let seed = l.seed.as_ref().map(|(g, w)| format!("{g}/{w}"));
            line(format_args!(
                "listener {} {} {}",
                l.fd,
                l.addr,
                word(seed.as_deref())
            ));
        }
        for s in &self.sessions {
            let peers: Vec<String> = s.peers.iter().map(ToString::to_string).collect();
            line(format_args!(
                "session {} {} {} {} {}",
                s.pid,
                s.id,
                s.game,
                s.age.as_millis(),
                word(
                    Some(&peers.join(","))
                        .filter(|p| !p.is_empty())
                        .map(|p| p.as_str())
                )
            ));
            if !s.players.is_empty() {
                let words = s.players.join("\n");
                line(format_args!("players {} {}", s.pid, hex(words.as_bytes())));
            }
        }
        for t in &self.tokens {
            line(format_args!("token {} {} {}", t.token, t.id, t.seat));
        }
        for c in &self.conns {
            line(format_args!(
                "conn {} {} {} {} {} {} {} {} {}",
                c.fd,
                c.standing.word(),
                c.peer,
                c.origin,
                word(c.wire.as_deref()),
                word(c.game.as_deref()),
                u8::from(c.pairing),
                hex(&c.input),
                hex(&c.out)
            ));
            if let Some(identity) = &c.identity {
                line(format_args!(
                    "identity {} {}",
                    c.fd,
                    hex(identity.as_bytes())
                ));
            }
        }
        out
    }

    /// Reads a state [`State::encode`] wrote (this version, or one with kinds added).
    pub fn decode(text: &str) -> Result<State, Unreadable> {
        let mut lines = text.lines();
        let first = lines.next().unwrap_or_default();
        let version = first
            .strip_prefix(MAGIC)
            .and_then(|v| v.trim().parse::<u32>().ok())
            .ok_or_else(|| Unreadable(format!("not an upgrade state: {first:?}")))?;
        if version != VERSION {
            return Err(Unreadable(format!(
                "format version {version}, this reversid reads {VERSION}"
            )));
        }
        let mut state = State::default();
        for line in lines.filter(|l| !l.is_empty()) {
            let fields: Vec<&str> = line.split(' ').collect();
            state
                .record(&fields)
                .map_err(|Unreadable(e)| Unreadable(format!("{line:?}: {e}")))?;
        }
        Ok(state)
    }

    /// Adds the record of one line's `fields`; a kind this version does not know is skipped.
    fn record(&mut self, fields: &[&str]) -> Result<(), Unreadable> {
        match fields {
            ["next-id", n] => self.next_id = number(n)?,
            ["drained"] => self.drained = true,
            ["own-journal-dir", dir] => self.own_journal_dir = Some(unhex_path(dir)?),
            ["pid-file", fd] => self.pid_file = Some(number(fd)?),
            ["data-lock", fd] => self.data_lock = Some(number(fd)?),
            ["retired", pid] => self.retired.push(number(pid)?),
            ["listener", fd, addr, seed] => self.listeners.push(Listener {
                fd: number(fd)?,
                addr: number(addr)?,
                seed: unword(seed).map(|s| match s.split_once('/') {
                    Some((g, w)) => (g.to_owned(), w.to_owned()),
                    None => (s, String::new()),
                }),
            }),
            ["session", pid, id, game, age, peers] => self.sessions.push(Session {
                pid: number(pid)?,
                id: number(id)?,
                game: (*game).to_owned(),
                age: Duration::from_millis(number(age)?),
                peers: match unword(peers) {
                    Some(p) => p.split(',').map(number).collect::<Result<_, _>>()?,
                    None => Vec::new(),
                },
                players: Vec::new(),
            }),
            ["players", pid, words] => {
                let pid: i32 = number(pid)?;
                let words = String::from_utf8(unhex(words)?)
                    .map_err(|_| Unreadable("players that are not UTF-8".into()))?;
                match self.sessions.iter_mut().find(|s| s.pid == pid) {
                    Some(s) => s.players = words.lines().map(str::to_owned).collect(),
                    None => return Err(Unreadable(format!("players of no session {pid}"))),
                }
            }
            ["token", token, id, seat] => self.tokens.push(Token {
                token: (*token).to_owned(),
                id: number(id)?,
                seat: number(seat)?,
            }),
            ["conn", fd, standing, peer, origin, wire, game, pairing, input, out] => {
                self.conns.push(Conn {
                    fd: number(fd)?,
                    standing: Standing::of_word(standing)?,
                    peer: number(peer)?,
                    origin: (*origin).to_owned(),
                    wire: unword(wire),
                    game: unword(game),
                    pairing: *pairing == "1",
                    input: unhex(input)?,
                    out: unhex(out)?,
                    identity: None,
                })
            }
            ["identity", fd, words] => {
                let fd: RawFd = number(fd)?;
                let words = String::from_utf8(unhex(words)?)
                    .map_err(|_| Unreadable("an identity that is not UTF-8".into()))?;
                match self.conns.iter_mut().find(|c| c.fd == fd) {
                    Some(conn) => conn.identity = Some(words),
                    None => return Err(Unreadable(format!("an identity for no connection {fd}"))),
                }
            }
            [kind, ..] if KNOWN.contains(kind) => {
                return Err(Unreadable(format!("a {kind} record with the wrong fields")))
            }
            _ => {}
        }
        Ok(())
    }

    /// Every descriptor the state names: those that must stay open across exec.
    pub fn descriptors(&self) -> Vec<RawFd> {
        let listeners = self.listeners.iter().map(|l| l.fd);
        let conns = self.conns.iter().map(|c| c.fd);
        let files = self.pid_file.into_iter().chain(self.data_lock);
        listeners.chain(conns).chain(files).collect()
    }
}

/// The kinds this version writes: one of them with fields it cannot read is an error.
const KNOWN: &[&str] = &[
    "next-id",
    "drained",
    "own-journal-dir",
    "pid-file",
    "data-lock",
    "retired",
    "listener",
    "session",
    "token",
    "conn",
    "identity",
    "players",
];

fn number<T: std::str::FromStr>(text: &str) -> Result<T, Unreadable> {
    text.parse()
        .map_err(|_| Unreadable(format!("not a valid value: {text:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> State {
        State {
            next_id: 41,
            drained: true,
            own_journal_dir: Some(PathBuf::from("/tmp/a dir/reversid-1-00-journals")),
            pid_file: Some(7),
            data_lock: Some(8),
            retired: vec![1234],
            listeners: vec![
                Listener {
                    fd: 3,
                    addr: "127.0.0.1:4000".parse().unwrap(),
                    seed: None,
                },
                Listener {
                    fd: 4,
                    addr: "[::1]:4001".parse().unwrap(),
                    seed: Some(("duell".to_owned(), "seed000".to_owned())),
                },
            ],
            sessions: vec![Session {
                pid: 999,
                id: 40,
                game: "reversi".to_owned(),
                age: Duration::from_millis(1500),
                peers: vec![
                    "127.0.0.1:5000".parse().unwrap(),
                    "127.0.0.2:5001".parse().unwrap(),
                ],
                players: vec!["guest zoë".to_owned(), "account 7 Alice 1500?".to_owned()],
            }],
            tokens: vec![Token {
                token: "0ABCDEF".to_owned(),
                id: 40,
                seat: 1,
            }],
            conns: vec![Conn {
                fd: 12,
                standing: Standing::Queued,
                peer: "127.0.0.1:5002".parse().unwrap(),
                origin: "relayed=10.0.0.1:80".to_owned(),
                wire: Some("text".to_owned()),
                game: Some("reversi".to_owned()),
                pairing: false,
                input: b"GAME LIST\n".to_vec(),
                out: Vec::new(),
                identity: Some("account 7 Alice reversi=1500?".to_owned()),
            }],
        }
    }

    #[test]
    fn a_state_reads_back_as_written() {
        let state = sample();
        assert_eq!(State::decode(&state.encode()), Ok(state));
        assert_eq!(
            State::decode(&State::default().encode()),
            Ok(State::default())
        );
    }

    #[test]
    fn a_kind_a_later_version_adds_is_skipped() {
        let text = sample().encode() + "relay 17 somewhere\n";
        assert_eq!(State::decode(&text), Ok(sample()));
    }

    #[test]
    fn another_version_or_a_damaged_record_is_refused() {
        let newer = sample().encode().replacen(" 1\n", " 2\n", 1);
        assert!(State::decode(&newer).unwrap_err().0.contains("version 2"));
        assert!(State::decode("hello\n").is_err());
        let damaged = sample().encode().replace("session 999", "session x");
        assert!(State::decode(&damaged).is_err());
        let short = sample().encode() + "token 0ABC 1\n";
        assert!(State::decode(&short)
            .unwrap_err()
            .0
            .contains("wrong fields"));
    }

    #[test]
    fn the_descriptors_to_keep_are_every_one_named() {
        let mut kept = sample().descriptors();
        kept.sort_unstable();
        assert_eq!(kept, vec![3, 4, 7, 8, 12]);
    }
}
