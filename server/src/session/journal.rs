//! The journal: each move appended as it is played, so that a session that
//! is killed loses nothing. Without a store, a session that ends cleanly writes
//! its record and removes its journal; with one, it leaves the journal, ended
//! games and all, for the supervisor to archive (`crate::store`). Reaping a
//! session that died, the supervisor turns the journal into an aborted game's
//! record and log line ([`recover`]).
//!
//! `DIR/.journal-<supervisor pid>-<game id>`, text, one line each (spec/STORE.md §10):
//!
//! ```text
//! game <name> id <id> players <a> <b>…    the header
//! started <unix ms>                       when the game (or a rematch round) started
//! control <words>                         the game's time control, when a challenge set one
//! rated                                   the game moves ratings (a rated challenge)
//! seat <n> guest <name>                   seat n (from 0, in the header's order) is a guest
//! seat <n> account <id> <name>            seat n is the account numbered id, called name
//! <team name> <notation>\t<ms>            a move, and the ms since the last one (or the start)
//! away <team name>                        that team's seat dropped and is held (§5.5)
//! back <team name>                        it came back
//! round <n>                               a rematch round starts (then its `started`)
//! finished <unix ms> <end> <teams> <result> <why…>   the round ended (see [`finished_line`])
//! aborted <why>                           the supervisor's: the session died
//! unwritten <round> <ext> <record>        a record file the session could not write (its
//!                                         text, `\\` and `\n` escaped), for the supervisor
//! written <round>                         the supervisor's: it wrote that record since
//! ```
//!
//! Older journals have no `started`, `control`, `rated`, `seat`, `finished` nor move times; they
//! read the same (a seat without a `seat` line is anonymous).
//! The session holds an exclusive `flock` on its journal while it lives, so a later supervisor
//! can tell a journal left behind from one a running (orphaned) session still writes.
//! Appends are plain writes (no fsync): a killed process's writes are in the
//! kernel already; only a machine crash can lose the last ones.
//!
//! With a store, an archived journal is not removed but emptied and renamed
//! `DIR/.spare-<pid>-<id>` (`crate::store::unlinker`), and the supervisor gives the next
//! session a spare to take as its journal ([`Journal::with_spare`]): a rename instead of a
//! new file, so a game's start allocates no inode. On ext4 without a journal (as on some
//! hosts) the inode allocator skips every inode freed in the last seconds, reading the
//! inode table for each: with thousands of games ending and starting, creating a journal
//! cost more than the rest of a session's set-up.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use log::warn;
use reversi_store::{AccountId, Name};

use crate::terms::SeatPlayer;

/// Where game `id` of the supervisor `supervisor` keeps its journal.
pub fn path(dir: &Path, supervisor: u32, id: u64) -> PathBuf {
    dir.join(format!(".journal-{supervisor}-{id}"))
}

const JOURNAL_PREFIX: &str = ".journal-";
const SPARE_PREFIX: &str = ".spare-";

/// The name the journal at `journal` takes as a spare once archived: `.spare-<pid>-<id>`,
/// unique as journal names are. `None` for a path that is no journal's (or whose spare name
/// [`is_spare_name`] would refuse).
pub fn spare_of(journal: &Path) -> Option<PathBuf> {
    let name = journal.file_name()?.to_str()?;
    let spare = format!("{SPARE_PREFIX}{}", name.strip_prefix(JOURNAL_PREFIX)?);
    is_spare_name(&spare).then(|| journal.with_file_name(spare))
}

/// Whether `name` is a spare's file name (as [`spare_of`] makes them).
pub fn is_spare_name(name: &str) -> bool {
    name.strip_prefix(SPARE_PREFIX).is_some_and(|rest| {
        !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit() || b == b'-')
    })
}

/// Renames `from` to `to` unless `to` exists: a journal there is another game's.
fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    nix::fcntl::renameat2(
        nix::fcntl::AT_FDCWD,
        from,
        nix::fcntl::AT_FDCWD,
        to,
        nix::fcntl::RenameFlags::RENAME_NOREPLACE,
    )
    .map_err(io::Error::from)
}

/// Renames the archived journal at `journal`, emptied, to its spare name; the spare's
/// path, or why not (the caller then removes it).
pub fn make_spare(journal: &Path) -> io::Result<PathBuf> {
    let spare = spare_of(journal).ok_or_else(|| io::Error::other("not a journal's name"))?;
    rename_no_replace(journal, &spare)?;
    Ok(spare)
}

pub struct Journal {
    /// Created with the first line: a game that never starts costs no file.
    file: Option<File>,
    header: String,
    path: PathBuf,
    /// One warning at most: a full disk must not flood the log.
    failed: bool,
    /// The last move (or the round's start): a move's time is counted from it.
    last: Instant,
    /// A record is kept here: the journal must stay, whatever happens to the game.
    holds_record: bool,
    /// An empty file to take as the journal, rather than create one (see the module's
    /// documentation); taken with the first line, or at the end if none was written.
    spare: Option<PathBuf>,
}

/// Room reserved for a journal when it is made, so that a disk that fills while the game is
/// played still takes its moves, its end and a record it holds.
const RESERVE: i64 = 64 * 1024;

/// Milliseconds since the Unix epoch, now.
pub fn unix_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl Journal {
    /// The journal of a game starting now; `control`: its time control, if one was chosen.
    pub fn new(path: PathBuf, header: &str, control: Option<&str>) -> Journal {
        let mut header = format!("{header}\nstarted {}", unix_ms());
        if let Some(control) = control {
            header.push_str(&format!("\ncontrol {control}"));
        }
        Journal {
            file: None,
            header,
            path,
            failed: false,
            last: Instant::now(),
            holds_record: false,
            spare: None,
        }
    }

    /// Takes the spare at `spare`, if any, as this journal's file (a session that keeps its
    /// journal for the archive, whose spares they are).
    pub fn with_spare(mut self, spare: Option<PathBuf>) -> Journal {
        self.spare = spare;
        self
    }

    /// Takes the spare given, if any, as this journal: opens it, locks it (a spare that is
    /// locked is someone's already), renames it to this journal's name, and empties it. The
    /// lock comes before the name, so that no one ever sees this journal unlocked, and the
    /// open before the rename, so that a failing open leaves the spare a spare. `None` if
    /// there is none to take (another session took it, the server removed it, a journal
    /// has this name already): the journal is then created.
    fn take_spare(&mut self) -> Option<File> {
        let spare = self.spare.take()?;
        let file = OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&spare)
            .ok()?;
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return None;
        }
        rename_no_replace(&spare, &self.path).ok()?;
        // Failing to empty it would leave another game's lines (a spare the server did not
        // empty before it was killed) under our header: then write nothing into it.
        file.set_len(0).ok()?;
        Some(file)
    }

    /// Adds to the header whether the game is `rated` and who plays in each seat that has
    /// a name (in seat order: the header's `players`); anonymous seats are not written.
    pub fn with_players(mut self, rated: bool, players: &[SeatPlayer]) -> Journal {
        if rated {
            self.header.push_str("\nrated");
        }
        for (n, player) in players.iter().enumerate() {
            match player {
                SeatPlayer::Anonymous => {}
                SeatPlayer::Guest(name) => {
                    self.header.push_str(&format!("\nseat {n} guest {name}"))
                }
                SeatPlayer::Account { id, name, .. } => {
                    let id = id.0;
                    self.header
                        .push_str(&format!("\nseat {n} account {id} {name}"));
                }
            }
        }
        self
    }

    fn open(&mut self) -> io::Result<&mut File> {
        if self.file.is_none() {
            let mut file = match self.take_spare() {
                Some(file) => file,
                None => self.create()?,
            };
            // Held while this process lives: see the module's documentation. Waited for:
            // the archive's scan and its unlinker hold a journal's lock only for a moment,
            // and a journal left unlocked could be taken for one left behind. The room is
            // reserved without changing the size (where the file system cannot, it is not).
            // SAFETY: flock and fallocate on a descriptor we own.
            unsafe {
                libc::flock(file.as_raw_fd(), libc::LOCK_EX);
                libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, 0, RESERVE);
            }
            writeln!(file, "{}", self.header)?;
            self.file = Some(file);
        }
        Ok(self.file.as_mut().expect("just opened"))
    }

    /// Creates the journal's file. Never truncates: a journal already there is another
    /// game's (a supervisor whose pid was reused, a stale file), its moves not ours to erase.
    fn create(&self) -> io::Result<File> {
        OpenOptions::new()
            .create_new(true)
            .write(true)
            .open(&self.path)
            .map_err(|e| match e.kind() {
                io::ErrorKind::AlreadyExists => io::Error::new(
                    e.kind(),
                    "a journal of that name already exists (left untouched; \
                     this game is not journalled)",
                ),
                _ => e,
            })
    }

    /// Appends one of the referee's lines (a move, `round <n>`, `finished …`), with what
    /// the session adds: a move's time, a round's start.
    pub fn append(&mut self, line: &str) {
        let now = Instant::now();
        let text = if line.starts_with("round ") {
            self.last = now;
            format!("{line}\nstarted {}", unix_ms())
        } else if line.starts_with("finished ") {
            line.to_owned()
        } else {
            let took = now.duration_since(self.last).as_millis();
            self.last = now;
            format!("{line}\t{took}")
        };
        self.write(&text);
    }

    fn write(&mut self, text: &str) -> bool {
        match self.open().and_then(|file| writeln!(file, "{text}")) {
            Ok(()) => true,
            Err(e) => {
                if !self.failed {
                    warn!("cannot append to {}: {e}", self.path.display());
                    self.failed = true;
                }
                false
            }
        }
    }

    /// Keeps the record of round `round` that could not be written as a file: the
    /// supervisor writes it when it can. Whether the journal took it.
    pub fn keep_record(&mut self, round: u32, ext: &str, record: &str) -> bool {
        let kept = self.write(&format!("unwritten {round} {ext} {}", escape(record)));
        self.holds_record |= kept;
        kept
    }

    /// The session ends: without a store the game was recorded and the journal is no
    /// longer needed; with one (`keep`), the supervisor archives it, then removes it.
    pub fn finish(self, keep: bool) {
        if self.file.is_some() && !keep && !self.holds_record {
            let _ = fs::remove_file(&self.path);
        }
    }
}

impl Drop for Journal {
    /// A spare never taken (a session that ended, or failed to start, before its first
    /// line) goes back through the archive as an empty journal, which holds no game: left
    /// where it is, no one would ever take it.
    fn drop(&mut self) {
        if self.spare.is_some() {
            drop(self.take_spare());
        }
    }
}

/// The `finished` line of a round that ended at `ended_ms`: `end` is how (the log's word,
/// `normal`, `quit`, `drop`, `timeout`, `malformed`, `illegal`, `never-started`, `aborted`),
/// `teams` each seat's team (from 0), `winner` the winning team (`Some(None)`: a draw;
/// `None`: no result), `why` the result in words.
pub fn finished_line(
    ended_ms: i64,
    end: &str,
    teams: &[u8],
    winner: Option<Option<u8>>,
    why: &str,
) -> String {
    let teams: Vec<String> = teams.iter().map(u8::to_string).collect();
    let result = match winner {
        Some(Some(team)) => format!("win-{team}"),
        Some(None) => "draw".to_owned(),
        None => "none".to_owned(),
    };
    format!(
        "finished {ended_ms} {end} {} {result} {why}",
        teams.join(",")
    )
}

/// A journal read back: the game, its players and each round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contents {
    pub game: String,
    pub id: u64,
    /// As the header has them (the players' addresses).
    pub players: Vec<String>,
    pub control: Option<String>,
    /// The game moves ratings (`rated`).
    pub rated: bool,
    /// Who played in each seat, as `players` (a `seat` line's; anonymous without one).
    pub seats: Vec<SeatPlayer>,
    pub rounds: Vec<Round>,
    /// The supervisor's `aborted` line: the session died (during the last round).
    pub aborted: Option<String>,
    /// Records to write as files: those `unwritten` and not `written` since.
    pub records: Vec<Unwritten>,
}

/// A record the session could not write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unwritten {
    pub round: u32,
    pub ext: String,
    pub text: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Round {
    pub number: u32,
    pub started_ms: Option<i64>,
    pub moves: Vec<Move>,
    pub end: Option<RoundEnd>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    pub team: String,
    pub notation: String,
    /// `None` in an older journal.
    pub took_ms: Option<u32>,
}

/// A `finished` line, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundEnd {
    pub ended_ms: i64,
    pub end: String,
    pub teams: Vec<u8>,
    pub winner: Option<Option<u8>>,
    pub why: String,
}

/// Reads a journal's text; an error names the line that makes no sense.
pub fn read(text: &str) -> Result<Contents, String> {
    let mut lines = text.lines();
    let header = lines.next().ok_or("empty journal")?;
    let (game, id, players) =
        read_header(header).ok_or_else(|| format!("bad header {header:?}"))?;
    let mut contents = Contents {
        game,
        id,
        seats: vec![SeatPlayer::Anonymous; players.len()],
        players,
        control: None,
        rated: false,
        rounds: vec![Round {
            number: 1,
            ..Round::default()
        }],
        aborted: None,
        records: Vec::new(),
    };
    for line in lines {
        read_line(&mut contents, line).ok_or_else(|| format!("bad journal line {line:?}"))?;
    }
    Ok(contents)
}

fn read_header(line: &str) -> Option<(String, u64, Vec<String>)> {
    let mut words = line.split(' ');
    let ["game", game, "id", id, "players"] = [(); 5].map(|()| words.next().unwrap_or("")) else {
        return None;
    };
    Some((
        game.to_owned(),
        id.parse().ok()?,
        words.map(str::to_owned).collect(),
    ))
}

fn read_line(contents: &mut Contents, line: &str) -> Option<()> {
    let round = contents.rounds.last_mut().expect("one round at least");
    let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
    match word {
        "started" => round.started_ms = Some(rest.parse().ok()?),
        "control" => contents.control = Some(rest.to_owned()),
        "rated" if rest.is_empty() => contents.rated = true,
        "seat" => {
            let (n, player) = read_seat(rest)?;
            *contents.seats.get_mut(n)? = player;
        }
        "round" => contents.rounds.push(Round {
            number: rest.parse().ok()?,
            ..Round::default()
        }),
        "finished" => round.end = Some(read_end(rest)?),
        "aborted" => contents.aborted = Some(rest.to_owned()),
        // A seat's absences: the archive keeps none (they were once read as moves of a
        // team called `away`, and a game with a drop never reached the archive).
        "away" | "back" => {}
        "unwritten" => {
            let mut words = rest.splitn(3, ' ');
            let round = words.next()?.parse().ok()?;
            let ext = words.next()?.to_owned();
            let text = unescape(words.next().unwrap_or(""))?;
            contents.records.push(Unwritten { round, ext, text });
        }
        "written" => {
            let round: u32 = rest.parse().ok()?;
            contents.records.retain(|r| r.round != round);
        }
        _ => {
            let (notation, took_ms) = match rest.split_once('\t') {
                Some((notation, ms)) => (notation, Some(ms.parse().ok()?)),
                None => (rest, None),
            };
            round.moves.push(Move {
                team: word.to_owned(),
                notation: notation.to_owned(),
                took_ms,
            });
        }
    }
    Some(())
}

/// A `seat` line after its first word: the seat's number and who played in it.
fn read_seat(rest: &str) -> Option<(usize, SeatPlayer)> {
    let words: Vec<&str> = rest.split(' ').collect();
    let name = |raw: &str| Name::new(raw).ok();
    let player = match words[1..] {
        ["guest", raw] => SeatPlayer::Guest(name(raw)?),
        ["account", id, raw] => SeatPlayer::Account {
            id: AccountId(id.parse().ok()?),
            name: name(raw)?,
            rating: None,
        },
        _ => return None,
    };
    Some((words[0].parse().ok()?, player))
}

fn read_end(rest: &str) -> Option<RoundEnd> {
    let mut words = rest.splitn(5, ' ');
    let ended_ms = words.next()?.parse().ok()?;
    let end = words.next()?.to_owned();
    let teams = words
        .next()?
        .split(',')
        .map(str::parse)
        .collect::<Result<Vec<u8>, _>>()
        .ok()?;
    let winner = match words.next()? {
        "draw" => Some(None),
        "none" => None,
        win => Some(Some(win.strip_prefix("win-")?.parse().ok()?)),
    };
    let why = words.next().unwrap_or("").to_owned();
    Some(RoundEnd {
        ended_ms,
        end,
        teams,
        winner,
        why,
    })
}

/// A record's text on one line: `\\` for `\`, `\n` for a newline.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\n', "\\n")
}

fn unescape(line: &str) -> Option<String> {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                '\\' => out.push('\\'),
                _ => return None,
            },
            c => out.push(c),
        }
    }
    Some(out)
}

/// Notes in the journal at `path` that the record of `round` is written now.
pub fn note_written(path: &Path, round: u32) -> io::Result<()> {
    let mut file = OpenOptions::new().append(true).open(path)?;
    writeln!(file, "written {round}")
}

/// Whether a live process (the session writing it) holds the journal at `path`.
pub fn in_use(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    // SAFETY: flock on a descriptor we own; the lock goes with it.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    rc != 0
}

/// A journal left behind by a session that did not end cleanly.
pub struct Orphan {
    /// `<team name> <notation>` of every move played.
    pub moves: Vec<String>,
}

/// Takes the journal of game `id`, if its session left one: reads it, and writes an aborted
/// game's record into `record_dir` as `<unix-millis>-<id>-aborted.txt` (its header, every
/// move, and a last line `aborted <why>`). Without a store the journal then goes; with one
/// (`keep`) it stays, `aborted <why>` appended, for the supervisor to archive.
pub fn recover(
    dir: &Path,
    supervisor: u32,
    id: u64,
    why: &str,
    record_dir: Option<&Path>,
    keep: bool,
) -> Option<Orphan> {
    let journal = path(dir, supervisor, id);
    let text = fs::read_to_string(&journal).ok()?;
    let header = text.lines().next().unwrap_or_default();
    let moves: Vec<String> = match read(&text) {
        Ok(contents) => contents
            .rounds
            .iter()
            .flat_map(|r| &r.moves)
            .map(|m| format!("{} {}", m.team, m.notation))
            .collect(),
        Err(_) => Vec::new(),
    };
    if let Some(records) = record_dir {
        let millis = unix_ms();
        let mut record = format!("{header}\n");
        for line in &moves {
            record.push_str(&format!("{line}\n"));
        }
        record.push_str(&format!("aborted {why}\n"));
        let target = records.join(format!("{millis}-{id}-aborted.txt"));
        let tmp = records.join(format!(".{millis}-{id}-aborted.tmp"));
        if let Err(e) = fs::write(&tmp, record).and_then(|()| fs::rename(&tmp, &target)) {
            warn!("cannot write {}: {e}", target.display());
        }
    }
    if keep {
        let appended = OpenOptions::new()
            .append(true)
            .open(&journal)
            .and_then(|mut file| writeln!(file, "aborted {why}"));
        if let Err(e) = appended {
            warn!("cannot append to {}: {e}", journal.display());
        }
    } else {
        let _ = fs::remove_file(&journal);
    }
    Some(Orphan { moves })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_already_there_is_never_truncated() {
        let dir =
            std::env::temp_dir().join(format!("reversid-journal-exists-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let there = path(&dir, 1, 3);
        fs::write(&there, "game x id 3 players a b\nX b2\n").unwrap();
        let mut j = Journal::new(there.clone(), "game y id 3 players c d", None);
        let err = j.open().expect_err("refused");
        assert!(err.to_string().contains("already exists"), "{err}");
        j.append("O a1");
        assert!(j.failed, "the failure is reported");
        assert_eq!(
            fs::read_to_string(&there).unwrap(),
            "game x id 3 players a b\nX b2\n"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("reversid-journal-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn an_archived_journal_becomes_a_spare_the_next_game_takes_emptied() {
        let dir = scratch("spare");
        let archived = path(&dir, 1, 3);
        fs::write(&archived, "game x id 3 players a b\nX b2\t40\n").unwrap();
        let spare = make_spare(&archived).unwrap();
        assert_eq!(spare, dir.join(".spare-1-3"));
        assert!(is_spare_name(".spare-1-3") && !archived.exists());
        let mut j = Journal::new(path(&dir, 2, 9), "game y id 9 players c d", None)
            .with_spare(Some(spare.clone()));
        j.append("O a1");
        drop(j);
        assert!(!spare.exists(), "the spare was taken");
        let text = fs::read_to_string(path(&dir, 2, 9)).unwrap();
        assert!(
            text.starts_with("game y id 9 players c d\nstarted "),
            "{text}"
        );
        assert!(
            !text.contains("X b2"),
            "the archived game's moves are gone: {text}"
        );
        assert!(
            text.ends_with("O a1\t0\n") || text.contains("\nO a1\t"),
            "{text}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_spare_gone_is_no_loss_and_a_journal_there_is_never_replaced_by_one() {
        let dir = scratch("spare-gone");
        // Taken by another session already: the journal is created.
        let mut j = Journal::new(path(&dir, 1, 4), "game x id 4 players a b", None)
            .with_spare(Some(dir.join(".spare-1-1")));
        j.append("X b2");
        assert!(!j.failed && path(&dir, 1, 4).exists());
        // A journal already bears the name: the spare stays a spare, the journal untouched.
        let there = path(&dir, 1, 5);
        fs::write(&there, "game x id 5 players a b\n").unwrap();
        let spare = dir.join(".spare-1-2");
        fs::write(&spare, "").unwrap();
        let mut j = Journal::new(there.clone(), "game y id 5 players c d", None)
            .with_spare(Some(spare.clone()));
        j.append("O a1");
        assert!(j.failed && spare.exists());
        assert_eq!(
            fs::read_to_string(&there).unwrap(),
            "game x id 5 players a b\n"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_spare_never_taken_goes_back_as_an_empty_journal_for_the_archive() {
        let dir = scratch("spare-back");
        let spare = dir.join(".spare-1-1");
        fs::write(&spare, "left by a crash before it was emptied\n").unwrap();
        let j = Journal::new(path(&dir, 1, 6), "game x id 6 players a b", None)
            .with_spare(Some(spare.clone()));
        j.finish(true);
        assert!(!spare.exists());
        assert_eq!(fs::read_to_string(path(&dir, 1, 6)).unwrap(), "");
        // A session that fails before its first line drops its journal: the same.
        let spare = dir.join(".spare-1-2");
        fs::write(&spare, "").unwrap();
        drop(
            Journal::new(path(&dir, 1, 7), "game x id 7 players a b", None)
                .with_spare(Some(spare.clone())),
        );
        assert!(!spare.exists() && path(&dir, 1, 7).exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_spare_another_process_holds_is_not_taken() {
        let dir = scratch("spare-held");
        let spare = dir.join(".spare-1-1");
        fs::write(&spare, "").unwrap();
        let held = File::open(&spare).unwrap();
        // SAFETY: flock on a descriptor this test owns.
        assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
        let mut j = Journal::new(path(&dir, 1, 8), "game x id 8 players a b", None)
            .with_spare(Some(spare.clone()));
        j.append("X b2");
        assert!(
            !j.failed && spare.exists(),
            "created, the spare left to its holder"
        );
        drop((j, held));
        // A spare that is a link to elsewhere is never followed.
        let target = dir.join("elsewhere");
        fs::write(&target, "not ours\n").unwrap();
        let link = dir.join(".spare-1-3");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let mut j = Journal::new(path(&dir, 1, 9), "game x id 9 players a b", None)
            .with_spare(Some(link.clone()));
        j.append("X b2");
        assert_eq!(fs::read_to_string(&target).unwrap(), "not ours\n");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn spare_names_are_made_from_journal_names_only() {
        assert_eq!(
            spare_of(Path::new("/d/.journal-7-12")),
            Some(PathBuf::from("/d/.spare-7-12"))
        );
        assert_eq!(spare_of(Path::new("/d/game.txt")), None);
        assert_eq!(spare_of(Path::new("/d/.journal-7-+5")), None);
        assert!(is_spare_name(".spare-7-12"));
        for name in [
            ".spare-",
            ".spare-../x",
            ".journal-7-12",
            "spare-7-12",
            ".spare-7-1.unreadable",
        ] {
            assert!(!is_spare_name(name), "{name}");
        }
    }

    #[test]
    fn a_journal_left_behind_becomes_an_aborted_record() {
        let dir =
            std::env::temp_dir().join(format!("reversid-journal-test-{}", std::process::id()));
        let records = dir.join("records");
        fs::create_dir_all(&records).unwrap();
        let mut j = Journal::new(path(&dir, 1, 7), "game tictactoe id 7 players a b", None);
        j.append("X b2");
        j.append("O a1");
        drop(j); // killed: no finish
        let orphan = recover(&dir, 1, 7, "killed by SIGKILL", Some(&records), false).unwrap();
        assert_eq!(orphan.moves, ["X b2", "O a1"]);
        let kept: Vec<_> = fs::read_dir(&records).unwrap().flatten().collect();
        assert_eq!(kept.len(), 1);
        let text = fs::read_to_string(kept[0].path()).unwrap();
        assert_eq!(
            text,
            "game tictactoe id 7 players a b\nX b2\nO a1\naborted killed by SIGKILL\n"
        );
        assert!(
            recover(&dir, 1, 7, "again", None, false).is_none(),
            "taken once"
        );
        let mut j = Journal::new(path(&dir, 1, 8), "game x", None);
        j.append("X b2");
        j.finish(false);
        assert!(
            recover(&dir, 1, 8, "", None, false).is_none(),
            "a finished game leaves none"
        );
        Journal::new(path(&dir, 1, 9), "game x", None).finish(false);
        assert!(
            !path(&dir, 1, 9).exists(),
            "a game without moves never made a file"
        );
        assert!(
            recover(&dir, 1, 8, "", None, false).is_none(),
            "a finished game leaves none"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_journal_reads_back_with_its_rounds_times_and_ends() {
        let dir =
            std::env::temp_dir().join(format!("reversid-journal-read-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let at = path(&dir, 1, 4);
        let mut j = Journal::new(
            at.clone(),
            "game tictactoe id 4 players 1.2.3.4:5 6.7.8.9:10",
            Some("5m+3s"),
        );
        j.append("X b2");
        j.append(&finished_line(
            1000,
            "normal",
            &[0, 1],
            Some(Some(0)),
            "X wins (three in a row)",
        ));
        j.append("round 2");
        j.append("O a1");
        assert!(in_use(&at), "held while its session lives");
        j.finish(true);
        let text = fs::read_to_string(&at).unwrap();
        assert!(!in_use(&at), "no one holds it now");
        let read = read(&text).unwrap();
        assert_eq!((read.game.as_str(), read.id), ("tictactoe", 4));
        assert_eq!(read.players, ["1.2.3.4:5", "6.7.8.9:10"]);
        assert_eq!(read.control.as_deref(), Some("5m+3s"));
        assert_eq!(read.rounds.len(), 2);
        let first = &read.rounds[0];
        assert!(first.started_ms.is_some() && read.rounds[1].started_ms.is_some());
        assert_eq!(first.moves[0].notation, "b2");
        assert!(first.moves[0].took_ms.is_some());
        let end = first.end.as_ref().unwrap();
        assert_eq!((end.ended_ms, end.end.as_str()), (1000, "normal"));
        assert_eq!(
            (end.teams.as_slice(), end.winner),
            (&[0u8, 1][..], Some(Some(0)))
        );
        assert_eq!(end.why, "X wins (three in a row)");
        assert_eq!(read.rounds[1].end, None, "still playing when it stopped");
        let old = read_old("game reversi id 1 players a b\nblack f5\n");
        assert_eq!(
            old.rounds[0].moves[0].took_ms, None,
            "an older journal reads too"
        );
        assert!(super::read("game x\n").is_err());
        assert!(super::read("game x id 1 players a\nfinished x\n").is_err());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_record_that_could_not_be_written_is_kept_until_it_is() {
        let dir = std::env::temp_dir().join(format!("reversid-journal-rec-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let at = path(&dir, 1, 5);
        let mut j = Journal::new(at.clone(), "game tictactoe id 5 players a b", None);
        j.append("X b2");
        let record = "[Game \"Tic-tac-toe\"]\n\nX b2 \\ odd\n";
        assert!(j.keep_record(1, "txt", record));
        j.finish(false);
        assert!(at.exists(), "a journal holding a record stays");
        let contents = read(&fs::read_to_string(&at).unwrap()).unwrap();
        assert_eq!(
            contents.records,
            [Unwritten {
                round: 1,
                ext: "txt".into(),
                text: record.into()
            }]
        );
        note_written(&at, 1).unwrap();
        let contents = read(&fs::read_to_string(&at).unwrap()).unwrap();
        assert!(contents.records.is_empty(), "written since");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn who_played_and_whether_rated_read_back() {
        let dir =
            std::env::temp_dir().join(format!("reversid-journal-seats-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let at = path(&dir, 1, 6);
        let alice = SeatPlayer::Account {
            id: AccountId(42),
            name: Name::new("Alice").unwrap(),
            rating: Some(crate::terms::ShownRating {
                points: 1500,
                provisional: true,
            }),
        };
        let bob = SeatPlayer::Guest(Name::new("bob").unwrap());
        let header = "game tictactoe id 6 players a:1 b:2 c:3";
        let players = [SeatPlayer::Anonymous, alice, bob.clone()];
        let mut j = Journal::new(at.clone(), header, Some("5+3")).with_players(true, &players);
        j.append("X b2");
        j.finish(true);
        let text = fs::read_to_string(&at).unwrap();
        assert!(
            text.contains("\nrated\nseat 1 account 42 Alice\nseat 2 guest bob\n"),
            "{text}"
        );
        let read = read(&text).unwrap();
        assert!(read.rated);
        let alice_read = SeatPlayer::Account {
            id: AccountId(42),
            name: Name::new("Alice").unwrap(),
            rating: None,
        };
        assert_eq!(read.seats, [SeatPlayer::Anonymous, alice_read, bob]);
        assert_eq!(read.rounds[0].moves.len(), 1, "header lines are not moves");

        let casual = Journal::new(path(&dir, 1, 10), header, None).with_players(false, &[]);
        assert_eq!(casual.header.lines().count(), 2, "{}", casual.header);
        for bad in [
            "seat 3 guest x",
            "seat 0 guest",
            "seat 0 guest a b",
            "seat x guest a",
            "seat 0 account z Alice",
            "seat 0 robot Alice",
            "seat 0 guest \u{7}",
        ] {
            let text = format!("{header}\n{bad}\n");
            assert!(super::read(&text).is_err(), "{bad}");
        }
        let old = read_old("game reversi id 1 players a b\nblack f5\n");
        assert!(!old.rated);
        assert_eq!(old.seats, [SeatPlayer::Anonymous, SeatPlayer::Anonymous]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_seats_absences_are_not_moves() {
        let text = "game tictactoe id 6 players a:1 b:2\nstarted 1\nX b2\t40\naway O\nback O\nO a1\t9\naway O\n";
        let read = read(text).unwrap();
        let moves: Vec<&str> = (read.rounds[0].moves.iter())
            .map(|m| m.notation.as_str())
            .collect();
        assert_eq!(moves, ["b2", "a1"]);
    }

    proptest::proptest! {
        /// A `seat` line of any words reads as a seat or refuses the journal, never panics;
        /// one the session wrote reads back as the player it wrote.
        #[test]
        fn any_seat_line_reads_or_is_refused(
            words in proptest::collection::vec("[0-9]{1,3}|guest|account|[a-zA-Z]\\PC{0,6}|", 0..5),
            n in 0usize..3,
            raw in "[a-zA-Z][a-zA-Z0-9_.-]{2,12}",
        ) {
            let header = "game tictactoe id 6 players a:1 b:2 c:3";
            let _ = read(&format!("{header}\nseat {}\n", words.join(" ")));
            let Ok(name) = Name::new(&raw) else { return Ok(()) };
            let players = [
                SeatPlayer::Guest(name.clone()),
                SeatPlayer::Account { id: AccountId(n as i64 + 1), name, rating: None },
            ];
            let mut seats = vec![SeatPlayer::Anonymous; 3];
            seats[n] = players[n % 2].clone();
            let written = Journal::new(PathBuf::from("unused"), header, None)
                .with_players(false, &seats);
            let back = read(&written.header).unwrap();
            proptest::prop_assert_eq!(back.seats, seats);
        }
    }

    fn read_old(text: &str) -> Contents {
        read(text).unwrap()
    }
}
