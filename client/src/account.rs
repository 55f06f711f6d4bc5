//! The one-shot conversations of the players' lines (spec/TEXT-PROTOCOL.md §4.4):
//! `reversi account`, `reversi token`, `reversi history`, `reversi export`. Each
//! opens a text connection, says its lines, reads the answer to its end and
//! prints it. Passwords are read from the terminal without echo (or stdin's first
//! line), never from the command line; tokens' secrets are printed only when made.

use std::io::{self, BufRead, IsTerminal, Write};

use reversi_client::exit;
use reversi_client::text::players::{self, Archived, Identity, PlayersLine};

use crate::cli::{AccountCmd, TokenCmd};
use crate::talk::Talk;

impl Talk {
    /// The next players' line, skipping the others (a ping, the greeting);
    /// `ERROR` and the end of the connection are errors.
    fn next_players(&mut self) -> Result<PlayersLine, String> {
        loop {
            if let Some(answer) = players::parse(&self.line()?) {
                return Ok(answer);
            }
        }
    }

    /// Signs in (or registers) and returns the `GAME SIGNEDIN` line's words.
    fn sign_in_with(&mut self, line: &str) -> Result<String, String> {
        self.say(line)?;
        match self.next_players()? {
            PlayersLine::SignedIn { name, ratings } if ratings.is_empty() => {
                Ok(format!("signed in as {name} (no rating yet)"))
            }
            PlayersLine::SignedIn { name, ratings } => {
                Ok(format!("signed in as {name}: {}", ratings.join(" ")))
            }
            other => Err(format!("the server answered {other:?}, not GAME SIGNEDIN")),
        }
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

/// `reversi account register|signin NAME`.
pub fn account(addr: &str, action: &AccountCmd) -> u8 {
    let result = (|| {
        let (verb, name) = match action {
            AccountCmd::Register { name } => ("REGISTER", name),
            AccountCmd::Signin { name } => ("SIGNIN", name),
        };
        let password = password(name)?;
        Talk::open(addr)?.sign_in_with(&format!("GAME {verb} {name} {password}"))
    })();
    finish(result, "account")
}

/// `reversi token new|list|revoke`.
pub fn token(addr: &str, action: &TokenCmd) -> u8 {
    let result = (|| {
        let name = match action {
            TokenCmd::New { name, .. }
            | TokenCmd::List { name }
            | TokenCmd::Revoke { name, .. } => name,
        };
        let password = password(name)?;
        let mut talk = Talk::open(addr)?;
        talk.sign_in_with(&format!("GAME SIGNIN {name} {password}"))?;
        match action {
            TokenCmd::New { label, .. } => new_token(&mut talk, label),
            TokenCmd::List { .. } => list_tokens(&mut talk),
            TokenCmd::Revoke { id, .. } => {
                talk.say(&format!("GAME APITOKEN REVOKE {id}"))?;
                // Answered with GAME NEWS, which is no players' line (an ERROR is an Err).
                talk.line()?;
                Ok(format!("token {id} revoked"))
            }
        }
    })();
    finish(result, "token")
}

fn new_token(talk: &mut Talk, label: &str) -> Result<String, String> {
    talk.say(&format!("GAME APITOKEN NEW {label}"))?;
    match talk.next_players()? {
        PlayersLine::Token(token) => {
            let secret = token.secret.ok_or("the server sent no secret")?;
            Ok(format!(
                "token {} ({}): {secret}\nshown this once: keep it in {} as token = \"{secret}\", \
                 or give it with --token",
                token.id,
                token.label,
                crate::config::path().map_or("the config file".into(), |p| p.display().to_string())
            ))
        }
        other => Err(format!("the server answered {other:?}, not GAME APITOKEN")),
    }
}

fn list_tokens(talk: &mut Talk) -> Result<String, String> {
    talk.say("GAME APITOKENS")?;
    let mut lines = Vec::new();
    loop {
        match talk.next_players()? {
            PlayersLine::Token(token) => lines.push(format!("{}  {}", token.id, token.label)),
            PlayersLine::Tokens(_) => break,
            other => return Err(format!("the server answered {other:?} in a token list")),
        }
    }
    if lines.is_empty() {
        lines.push("no API tokens".to_owned());
    }
    Ok(lines.join("\n"))
}

/// `reversi history [NAME] [--game G]`.
pub fn history(
    addr: &str,
    name: Option<&str>,
    game: Option<&str>,
    count: u32,
    identity: Option<Identity>,
) -> u8 {
    let result = (|| {
        let mut talk = Talk::open(addr)?;
        if let (Some(identity @ Identity::Token(_)), None) = (&identity, name) {
            talk.sign_in_with(&identity.line())?;
        }
        // `name=`: an account may be called like a game (TEXT-PROTOCOL.md §4.4).
        let name = name.map(|n| format!("name={n}"));
        let words: Vec<String> = [name, game.map(str::to_owned)]
            .into_iter()
            .flatten()
            .collect();
        talk.say(&format!("GAME HISTORY {} {count}", words.join(" ")))?;
        let mut games = Vec::new();
        loop {
            match talk.next_players()? {
                PlayersLine::Archived(game) => games.push(game),
                PlayersLine::History(_) => break,
                other => return Err(format!("the server answered {other:?} in a history")),
            }
        }
        Ok(history_table(&games))
    })();
    finish(result, "history")
}

/// The archived games, one a line: id, date, game, players, result, mode.
pub fn history_table(games: &[Archived]) -> String {
    if games.is_empty() {
        return "no finished games".to_owned();
    }
    let wide = games.iter().map(|g| g.id.len()).max().unwrap_or(0).max(2);
    let mut text = format!(
        "{:<wide$}  {:<16}  {:<10}  {:<7}  {:<7}  players",
        "id", "ended (UTC)", "game", "result", "mode"
    );
    for game in games {
        text.push_str(&format!(
            "\n{:<wide$}  {:<16}  {:<10}  {:<7}  {:<7}  {}",
            game.id,
            utc_minutes(game.ended_ms),
            game.game,
            game.result,
            game.mode,
            game.players.join(" - ")
        ));
    }
    text
}

/// Unix milliseconds as `2026-11-27 01:23` (UTC; civil from days, Hinnant's algorithm).
fn utc_minutes(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let (hour, minute) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}")
}

/// `reversi export ID [--format F]`: the file's lines on stdout.
pub fn export(addr: &str, id: &str, format: Option<&str>) -> u8 {
    finish(
        fetch(addr, id, format).map(|lines| lines.join("\n")),
        "export",
    )
}

/// The lines of archived game `id` in `format` (the game's own by default).
pub fn fetch(addr: &str, id: &str, format: Option<&str>) -> Result<Vec<String>, String> {
    let mut talk = Talk::open(addr)?;
    talk.say(&format!("GAME EXPORT {id} {}", format.unwrap_or("")))?;
    let PlayersLine::File { lines, .. } = talk.next_players()? else {
        return Err("the server answered without GAME FILE".to_owned());
    };
    let mut text = Vec::new();
    for _ in 0..lines {
        match talk.next_players()? {
            PlayersLine::Line(line) => text.push(line),
            other => return Err(format!("the server answered {other:?} inside a file")),
        }
    }
    Ok(text)
}

/// The password: without echo from the terminal, else stdin's first line.
fn password(name: &str) -> Result<String, String> {
    let stdin = io::stdin();
    if !stdin.is_terminal() {
        let mut line = String::new();
        stdin
            .lock()
            .read_line(&mut line)
            .map_err(|e| e.to_string())?;
        return Ok(line.trim_end_matches(['\r', '\n']).to_owned());
    }
    eprint!("password for {name}: ");
    let _ = io::stderr().flush();
    let _quiet = NoEcho::new();
    let mut line = String::new();
    let read = stdin.lock().read_line(&mut line);
    eprintln!();
    read.map_err(|e| e.to_string())?;
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}

/// The terminal's echo off while it lives.
struct NoEcho(Option<libc::termios>);

impl NoEcho {
    fn new() -> NoEcho {
        // SAFETY: termios is plain data; tcgetattr fills it for fd 0, a terminal here.
        unsafe {
            let mut saved: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut saved) != 0 {
                return NoEcho(None);
            }
            let mut quiet = saved;
            quiet.c_lflag &= !libc::ECHO;
            libc::tcsetattr(0, libc::TCSANOW, &quiet);
            NoEcho(Some(saved))
        }
    }
}

impl Drop for NoEcho {
    fn drop(&mut self) {
        if let Some(saved) = &self.0 {
            // SAFETY: restores the settings read in `new`.
            unsafe {
                libc::tcsetattr(0, libc::TCSANOW, saved);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_the_history_table() {
        assert_eq!(utc_minutes(0), "1970-01-01 00:00");
        assert_eq!(utc_minutes(1_795_742_580_000), "2026-11-27 01:23");
        let game = players::parse("GAME ARCHIVED h:7 reversi 0 1-0 rated Alice bob~").unwrap();
        let PlayersLine::Archived(game) = game else {
            panic!()
        };
        let table = history_table(&[game]);
        assert!(
            table.lines().nth(1).unwrap().contains("Alice - bob~"),
            "{table}"
        );
        assert_eq!(history_table(&[]), "no finished games");
    }
}
