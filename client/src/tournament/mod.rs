//! `reversi tournament …` and `reversi bot --tournament`: a tournament seen from the
//! terminal (spec/TOURNAMENTS.md §7). The one-shot questions (the list, the standings,
//! registering) are short conversations here; playing is the ordinary client waiting with
//! `GAME TOURNAMENT PLAY` ([`bot`] for a computer player, [`play`] for a person), and the
//! crosstable's screen is [`screen`].

pub mod bot;
pub mod play;
pub mod screen;

use std::io::Write;
use std::time::Duration;

use reversi_client::exit;
use reversi_client::text::tournament::{self, BoardGame, Listed, TournamentLine};
use reversi_client::text::Identity;

use crate::talk::Talk;

impl Talk {
    /// The next tournament line, skipping the others (the greeting, news).
    fn next_tournament(&mut self) -> Result<TournamentLine, String> {
        loop {
            if let Some(line) = tournament::parse(&self.line()?) {
                return Ok(line);
            }
        }
    }

    /// Signs in as `identity`'s account (an API token).
    fn sign_in(&mut self, identity: &Identity) -> Result<(), String> {
        if let Identity::Guest(name) = identity {
            return Err(format!(
                "tournaments are for accounts: {name} is a guest's name (sign in with --token)"
            ));
        }
        self.say(&identity.line())?;
        loop {
            if self.line()?.starts_with("GAME SIGNEDIN ") {
                return Ok(());
            }
        }
    }
}

/// Every tournament of the server (`GAME TOURNAMENTS`).
pub fn list(addr: &str) -> Result<Vec<Listed>, String> {
    let mut talk = Talk::open(addr)?;
    talk.say("GAME TOURNAMENTS")?;
    let mut all = Vec::new();
    loop {
        match talk.next_tournament()? {
            TournamentLine::Listed(t) => all.push(t),
            TournamentLine::Listing(_) => return Ok(all),
            other => return Err(format!("the server answered {other:?} in a listing")),
        }
    }
}

/// Tournament `id` as the listing gives it.
pub fn find(addr: &str, id: u64) -> Result<Listed, String> {
    list(addr)?
        .into_iter()
        .find(|t| t.id == id)
        .ok_or_else(|| format!("the server has no tournament {id}"))
}

/// What `GAME STANDINGS` tells of a tournament, with its listing line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standings {
    pub tournament: Listed,
    /// The crosstable's text lines, the header first (spec/TOURNAMENTS.md §4).
    pub crosstable: Vec<String>,
    pub games: Vec<BoardGame>,
}

/// Tournament `id`'s standings now.
pub fn standings(addr: &str, id: u64) -> Result<Standings, String> {
    let tournament = find(addr, id)?;
    let mut talk = Talk::open(addr)?;
    talk.say(&format!("GAME STANDINGS {id}"))?;
    let (mut crosstable, mut games) = (Vec::new(), Vec::new());
    loop {
        match talk.next_tournament()? {
            TournamentLine::Crosstable { line, .. } => crosstable.push(line),
            TournamentLine::Board { game, .. } => games.push(game),
            TournamentLine::Standings { .. } => break,
            other => return Err(format!("the server answered {other:?} in the standings")),
        }
    }
    Ok(Standings {
        tournament,
        crosstable,
        games,
    })
}

/// `reversi tournament register ID`: the signed-in account registers itself.
pub fn register(addr: &str, id: u64, identity: Option<Identity>) -> u8 {
    let result = (|| {
        let identity = identity.ok_or("registering needs an account: give --token")?;
        let mut talk = Talk::open(addr)?;
        talk.sign_in(&identity)?;
        talk.say(&format!("GAME TOURNAMENT REGISTER {id}"))?;
        loop {
            let line = talk.line()?;
            if let Some(news) = line.strip_prefix("GAME NEWS ") {
                return Ok(news.to_owned());
            }
        }
    })();
    finish(result, "tournament register")
}

/// `reversi tournament list`: one tournament a line.
pub fn print_list(addr: &str) -> u8 {
    finish(list(addr).map(|all| screen::list(&all)), "tournament list")
}

/// The terminal's width in columns (its window size, else `$COLUMNS`, else 80).
pub fn terminal_width() -> usize {
    // SAFETY: TIOCGWINSZ fills a winsize (plain data) for stdout, or fails harmlessly.
    let size = unsafe {
        let mut size: libc::winsize = std::mem::zeroed();
        (libc::ioctl(1, libc::TIOCGWINSZ, &mut size) == 0).then_some(size.ws_col)
    };
    match size.filter(|&cols| cols > 0) {
        Some(cols) => usize::from(cols),
        None => std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(80),
    }
}

/// Prints `Ok` text on stdout, an error on stderr; the exit code.
fn finish(result: Result<String, String>, command: &str) -> u8 {
    match result {
        Ok(text) => {
            println!("{text}");
            exit::OK
        }
        Err(why) => {
            eprintln!("reversi {command}: {why}");
            exit::SERVER_GONE
        }
    }
}

/// `reversi tournament standings ID [--follow]`: the crosstable, and with `follow` again
/// each time it changes until the tournament is finished.
pub fn print_standings(addr: &str, id: u64, follow: bool) -> u8 {
    use std::io::IsTerminal;
    let full_screen = std::io::stdout().is_terminal();
    let mut shown = String::new();
    loop {
        let text = match standings(addr, id) {
            Ok(s) => (
                screen::standings(&s, addr, terminal_width()),
                s.tournament.is_finished(),
            ),
            Err(why) => return finish(Err(why), "tournament standings"),
        };
        let (text, finished) = text;
        if text != shown {
            if full_screen && follow {
                // Home and clear: the table is drawn afresh where it was.
                print!("\x1b[H\x1b[2J");
            } else if !shown.is_empty() {
                println!();
            }
            println!("{text}");
            let _ = std::io::stdout().flush();
            shown = text;
        }
        if !follow || finished {
            return exit::OK;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}
