//! `reversid tournament …`: the operator's orders, sent as one line to the control socket
//! of the reversid running with the same data directory (or `--control PATH`); the answer
//! said in words. The server's error goes to stderr and the exit status is non-zero.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};

/// How long the server may take to answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// Which server: its control socket.
#[derive(Debug, Clone, Args)]
pub struct Socket {
    /// The server's control socket (default: control.sock in the data directory).
    #[arg(long, value_name = "PATH", global = true)]
    pub control: Option<PathBuf>,

    /// The server's --data-dir, whose control.sock is used (default: the server's default,
    /// $XDG_DATA_HOME/reversid, else ~/.local/share/reversid).
    #[arg(long, value_name = "DIR", global = true)]
    pub data_dir: Option<PathBuf>,
}

/// What `reversid tournament` can ask (spec/TOURNAMENTS.md §7; the operator has every
/// organiser's right).
#[derive(Debug, Clone, Subcommand)]
pub enum Tournament {
    /// Create a tournament (its registration not open yet: `open` it).
    Create(Create),
    /// List every tournament.
    List,
    /// Show a tournament's crosstable and its games.
    Show { id: u64 },
    /// Open registration.
    Open { id: u64 },
    /// Close registration.
    Close { id: u64 },
    /// Start it: round 1 is paired and its games called.
    Start { id: u64 },
    /// Pause it: no new game is started until `resume`.
    Pause { id: u64 },
    /// Resume a paused tournament.
    Resume { id: u64 },
    /// Register an account (before the start).
    Register { id: u64, account: String },
    /// Withdraw an account (its remaining games are lost by forfeit once it has started).
    Withdraw { id: u64, account: String },
    /// Print the standings and every game with its record, as CSV (the crosstable) or JSON.
    Export {
        id: u64,
        #[arg(long, conflicts_with = "json", required_unless_present = "json")]
        csv: bool,
        #[arg(long)]
        json: bool,
    },
}

/// What `reversid account` can ask.
#[derive(Debug, Clone, Subcommand)]
pub enum Account {
    /// Create an account and print an API token for it, shown once: a bot signs in with
    /// `GAME SIGNIN TOKEN` (its password is random and never shown).
    Create { name: String },
}

impl Account {
    /// Asks the server at `socket` and says what it answered.
    pub fn run(&self, socket: &Socket) -> Result<String, String> {
        let Account::Create { name } = self;
        let lines = socket.ask(&format!("ACCOUNT CREATE {}", one_word("a name", name)?))?;
        let field = |key: &str| {
            lines
                .iter()
                .find_map(|l| l.strip_prefix(key))
                .map(str::to_owned)
                .ok_or(format!("the server's answer holds no {key:?}: {lines:?}"))
        };
        Ok(format!(
            "created account {}\nAPI token: {}\n(shown once: keep it; the bot signs in with GAME SIGNIN TOKEN)",
            field("ACCOUNT ")?,
            field("TOKEN ")?
        ))
    }
}

/// A new tournament's settings.
#[derive(Debug, Clone, Args)]
pub struct Create {
    /// Its name (blanks allowed).
    #[arg(long)]
    pub name: String,
    /// The game, as --games names it (reversi, tictactoe, …).
    #[arg(long)]
    pub game: String,
    #[arg(long, value_enum)]
    pub format: Format,
    /// The number of rounds of a Swiss (a round-robin's follow from its players).
    #[arg(long, value_name = "N")]
    pub rounds: Option<u32>,
    /// The time control, as a challenge's: 5+3, 30s+2, move:60 or none.
    #[arg(long, value_name = "CONTROL")]
    pub time: String,
    /// `hand` (by `reversid tournament start`) or a UTC time like 2026-11-27T20:00:00Z.
    #[arg(long, value_name = "hand|TIME", default_value = "hand")]
    pub start: String,
    /// Its games are rated.
    #[arg(long)]
    pub rated: bool,
    /// What a bye is worth: 1, 0.5 or 0.
    #[arg(long, value_name = "POINTS", default_value = "1")]
    pub bye: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Round-robin: everyone meets everyone once.
    Rr,
    /// Double round-robin: twice, sides swapped.
    Rr2,
    /// Swiss, over --rounds rounds.
    Swiss,
}

impl Socket {
    /// The socket's path: --control, else the data directory's.
    pub fn path(&self) -> Result<PathBuf, String> {
        if let Some(path) = &self.control {
            return Ok(path.clone());
        }
        let store = crate::store::Options {
            data_dir: self.data_dir.clone(),
            database: None,
            no_store: false,
        };
        let setting = store.setting()?.expect("a store unless --no-store");
        Ok(super::path(None, Some(&setting.data_dir)).expect("a data directory names one"))
    }
}

impl Socket {
    /// Sends `line`; the answer's lines, or what went wrong in words.
    pub fn ask(&self, line: &str) -> Result<Vec<String>, String> {
        let path = self.path()?;
        ask(&path, line).map_err(|e| match e {
            Asked::Refused(why) => why,
            Asked::Unreachable(e) => format!(
                "cannot reach reversid's control socket {}: {e} (is reversid running, with this \
                 --data-dir or --control?)",
                path.display()
            ),
        })
    }
}

impl Tournament {
    /// Asks the server at `socket` and says what it answered, in words.
    pub fn run(&self, socket: &Socket) -> Result<String, String> {
        let lines = socket.ask(&self.line()?)?;
        Ok(self.words(&lines))
    }

    /// The request line (spec/DEPLOY.md "Control socket").
    fn line(&self) -> Result<String, String> {
        Ok(match self {
            Tournament::Create(create) => create.line()?,
            Tournament::List => "TOURNAMENTS".into(),
            Tournament::Show { id } => format!("STANDINGS {id}"),
            Tournament::Open { id } => format!("TOURNAMENT OPEN {id}"),
            Tournament::Close { id } => format!("TOURNAMENT CLOSE {id}"),
            Tournament::Start { id } => format!("TOURNAMENT START {id}"),
            Tournament::Pause { id } => format!("TOURNAMENT PAUSE {id}"),
            Tournament::Resume { id } => format!("TOURNAMENT RESUME {id}"),
            Tournament::Register { id, account } => {
                format!("TOURNAMENT REGISTER {id} {}", one_word("account", account)?)
            }
            Tournament::Withdraw { id, account } => {
                format!("TOURNAMENT WITHDRAW {id} {}", one_word("account", account)?)
            }
            Tournament::Export { id, json, .. } => {
                format!("EXPORT {id} {}", if *json { "json" } else { "csv" })
            }
        })
    }

    /// The answer's lines in words (an export's as they are).
    fn words(&self, lines: &[String]) -> String {
        let said: Vec<String> = match self {
            Tournament::Export { .. } => lines.to_vec(),
            Tournament::List if lines.is_empty() => vec!["no tournaments".into()],
            Tournament::Show { .. } => show(lines),
            _ => lines.iter().map(|l| described(l)).collect(),
        };
        let mut text = said.join("\n");
        match self {
            Tournament::Create(_) => text.insert_str(0, "created "),
            Tournament::Register { account, .. } => {
                text.insert_str(0, &format!("registered {account} in "))
            }
            Tournament::Withdraw { account, .. } => {
                text.insert_str(0, &format!("withdrew {account} from "))
            }
            _ => {}
        }
        text
    }
}

impl Create {
    fn line(&self) -> Result<String, String> {
        let format = match (self.format, self.rounds) {
            (Format::Swiss, Some(rounds)) => format!("swiss:{rounds}"),
            (Format::Swiss, None) => return Err("a Swiss needs --rounds N".into()),
            (_, Some(_)) => {
                return Err(
                    "a round-robin's rounds follow from its players: --rounds is for a Swiss"
                        .into(),
                )
            }
            (Format::Rr, None) => "rr".into(),
            (Format::Rr2, None) => "rr2".into(),
        };
        if self.name.contains('_') {
            return Err("a tournament's name has no '_' (the line writes blanks so)".into());
        }
        let name = self.name.split_whitespace().collect::<Vec<_>>().join("_");
        let mut line = format!(
            "TOURNAMENT CREATE name={name} game={} format={format} time={} start={} bye={}",
            one_word("--game", &self.game)?,
            one_word("--time", &self.time)?,
            one_word("--start", &self.start)?,
            one_word("--bye", &self.bye)?,
        );
        if self.rated {
            line.push_str(" rated");
        }
        Ok(line)
    }
}

/// `value`, if it is one word.
fn one_word<'a>(what: &str, value: &'a str) -> Result<&'a str, String> {
    match value.split_whitespace().collect::<Vec<_>>()[..] {
        [word] => Ok(word),
        _ => Err(format!("{what} {value:?}: one word, without blanks")),
    }
}

/// Why a request got no answer.
pub enum Asked {
    /// The server said `ERROR why`.
    Refused(String),
    /// The socket could not be used.
    Unreachable(io::Error),
}

/// Sends `line` to the control socket at `path`; the answer's lines, or its `ERROR`.
pub fn ask(path: &std::path::Path, line: &str) -> Result<Vec<String>, Asked> {
    let unreachable = Asked::Unreachable;
    let mut stream = UnixStream::connect(path).map_err(unreachable)?;
    stream
        .set_read_timeout(Some(ANSWER_TIMEOUT))
        .map_err(unreachable)?;
    stream
        .write_all(format!("{line}\n").as_bytes())
        .map_err(unreachable)?;
    // One request: the server answers it, then closes.
    stream
        .shutdown(std::net::Shutdown::Write)
        .map_err(unreachable)?;
    let mut text = String::new();
    stream.read_to_string(&mut text).map_err(unreachable)?;
    read_answer(&text)
}

/// `OK n` and n lines, or `ERROR why`.
fn read_answer(text: &str) -> Result<Vec<String>, Asked> {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    if let Some(why) = first.strip_prefix("ERROR ") {
        return Err(Asked::Refused(why.to_owned()));
    }
    let count = first
        .strip_prefix("OK ")
        .and_then(|n| n.parse::<usize>().ok())
        .ok_or_else(|| Asked::Refused(format!("the server answered {first:?}, not OK n")))?;
    let body: Vec<String> = lines.take(count).map(str::to_owned).collect();
    if body.len() < count {
        return Err(Asked::Refused(format!(
            "the answer was cut short: {} of {count} lines",
            body.len()
        )));
    }
    Ok(body)
}

/// A `GAME TOURNAMENT id state round rounds players game format time name…` line in
/// words; any other line as it is.
fn described(line: &str) -> String {
    let Some(rest) = line.strip_prefix("GAME TOURNAMENT ") else {
        return line.to_owned();
    };
    let words: Vec<&str> = rest.splitn(9, ' ').collect();
    let [id, state, round, rounds, players, game, format, time, name] = words[..] else {
        return line.to_owned();
    };
    let format = match format {
        "rr" => "round-robin".to_owned(),
        "rr2" => "double round-robin".to_owned(),
        other => match other.strip_prefix("swiss:") {
            Some(n) => format!("Swiss over {n} rounds"),
            None => other.to_owned(),
        },
    };
    let state = match state {
        "created" => "created, registration not open yet".to_owned(),
        "open" => "registration open".to_owned(),
        "closed" => "registration closed".to_owned(),
        "running" => format!("playing round {round} of {rounds}"),
        "paused" => format!("paused in round {round} of {rounds}"),
        "finished" => "finished".to_owned(),
        other => other.to_owned(),
    };
    let players = match players {
        "1" => "1 player".to_owned(),
        n => format!("{n} players"),
    };
    format!("tournament {id} \"{name}\": {game}, {format}, time {time}; {state}; {players}")
}

/// `GAME STANDINGS`' lines in words: the crosstable as it is, then each game.
fn show(lines: &[String]) -> Vec<String> {
    let mut said = Vec::new();
    let mut games = Vec::new();
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            ["GAME", "CROSSTABLE", id, ..] => {
                let prefix = format!("GAME CROSSTABLE {id} ");
                said.push(line.strip_prefix(&prefix).unwrap_or_default().to_owned());
            }
            ["GAME", "BOARD", _, round, board, game, ref how @ ..] => {
                let how = match how {
                    ["running"] => format!("playing (watch: GAME WATCH {game})"),
                    ["ended", record] => format!("ended (replay: /games/{record})"),
                    _ => "ended".to_owned(),
                };
                games.push(format!("round {round} board {board}: game {game}, {how}"));
            }
            ["GAME", "STANDINGS", ..] => {}
            _ => said.push(line.clone()),
        }
    }
    if !games.is_empty() {
        said.push(String::new());
        said.push("games:".into());
        said.extend(games);
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;

    fn create(format: Format, rounds: Option<u32>) -> Create {
        Create {
            name: "Club  night".into(),
            game: "tictactoe".into(),
            format,
            rounds,
            time: "5+3".into(),
            start: "hand".into(),
            rated: true,
            bye: "0.5".into(),
        }
    }

    #[test]
    fn a_create_is_the_text_protocols_line() {
        assert_eq!(
            create(Format::Swiss, Some(5)).line().unwrap(),
            "TOURNAMENT CREATE name=Club_night game=tictactoe format=swiss:5 time=5+3 \
             start=hand bye=0.5 rated"
        );
        assert!(create(Format::Swiss, None).line().is_err());
        assert!(create(Format::Rr, Some(3)).line().is_err());
        let line = create(Format::Rr2, None).line().unwrap();
        let words: Vec<&str> = line.split_whitespace().collect();
        assert!(crate::control::request::read(&line).is_ok(), "{line}");
        assert_eq!(words[4], "format=rr2");
    }

    #[test]
    fn answers_are_read_by_their_count() {
        assert_eq!(
            read_answer("OK 2\nOK 1\nb\n").ok(),
            Some(vec!["OK 1".to_owned(), "b".to_owned()])
        );
        assert!(
            matches!(read_answer("ERROR no tournament 9\n"), Err(Asked::Refused(w)) if w == "no tournament 9")
        );
        assert!(
            matches!(read_answer("OK 3\na\n"), Err(Asked::Refused(w)) if w.contains("cut short"))
        );
        assert!(matches!(read_answer(""), Err(Asked::Refused(_))));
    }

    #[test]
    fn tournament_lines_are_said_in_words() {
        assert_eq!(
            described("GAME TOURNAMENT 1 running 2 6 4 tictactoe rr2 move:30 Club night"),
            "tournament 1 \"Club night\": tictactoe, double round-robin, time move:30; \
             playing round 2 of 6; 4 players"
        );
        assert_eq!(described("GAME NEWS hello"), "GAME NEWS hello");
        let shown = show(&[
            "GAME CROSSTABLE 1 #  Player Pts".into(),
            "GAME BOARD 1 1 1 7 running".into(),
            "GAME BOARD 1 1 2 8 ended 42".into(),
            "GAME STANDINGS 1 3".into(),
        ]);
        assert_eq!(
            shown,
            [
                "#  Player Pts",
                "",
                "games:",
                "round 1 board 1: game 7, playing (watch: GAME WATCH 7)",
                "round 1 board 2: game 8, ended (replay: /games/42)"
            ]
        );
    }
}
