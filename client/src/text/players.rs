//! The players' lines of the text protocol (spec/TEXT-PROTOCOL.md §4.4 and §5.1):
//! who sits in each seat (`GAME PLAYER`), who this connection is (`GAME GUEST`,
//! `GAME SIGNEDIN`), API tokens, the archive's listings and exported files. The
//! codec of `reversi-text` does not hold them (older clients ignore them, §3), so
//! the client reads them here from the line itself.

use std::fmt;

/// What kind of player sits in a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Account,
    Guest,
    Anonymous,
}

/// `GAME PLAYER k kind name rating`: who plays for team `team`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    pub team: u8,
    pub kind: Kind,
    /// `None` for an anonymous player.
    pub name: Option<String>,
    /// `1532` or `1500?` as the server wrote it; `None` for no rating.
    pub rating: Option<String>,
}

impl fmt::Display for Player {
    /// `Alice (1532)`, `bob~`, `anonymous`: as a board screen names a seat.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.name, self.kind) {
            (None, _) => f.write_str("anonymous")?,
            (Some(name), Kind::Guest) => write!(f, "{name}~")?,
            (Some(name), _) => f.write_str(name)?,
        }
        match &self.rating {
            Some(rating) => write!(f, " ({rating})"),
            None => Ok(()),
        }
    }
}

/// Who this client says it is when it connects (text protocol only: binary
/// Reversi connections stay anonymous).
#[derive(Clone, PartialEq, Eq)]
pub enum Identity {
    /// `GAME NAME name`: a guest.
    Guest(String),
    /// `GAME SIGNIN token`: an account, by one of its API tokens.
    Token(String),
}

impl Identity {
    /// The line that says it (it holds the token: never log it).
    pub fn line(&self) -> String {
        match self {
            Identity::Guest(name) => format!("GAME NAME {name}"),
            Identity::Token(token) => format!("GAME SIGNIN {token}"),
        }
    }
}

impl fmt::Debug for Identity {
    /// Never the token.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Identity::Guest(name) => write!(f, "Guest({name:?})"),
            Identity::Token(_) => f.write_str("Token(…)"),
        }
    }
}

/// One archived game (`GAME ARCHIVED id game ended result mode player…`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Archived {
    pub id: String,
    pub game: String,
    /// Unix milliseconds.
    pub ended_ms: u64,
    /// `1-0`, `0-1`, `1/2` or `aborted`.
    pub result: String,
    /// `rated` or `casual`.
    pub mode: String,
    /// In team order: `Alice`, `bob~`, `-`.
    pub players: Vec<String>,
}

/// One API token (`GAME APITOKEN id token label [created last]`).
#[derive(Clone, PartialEq, Eq)]
pub struct ApiToken {
    pub id: String,
    /// The secret, told once when the token is made; `None` in a listing.
    pub secret: Option<String>,
    pub label: String,
    /// Unix milliseconds (listings only).
    pub created_ms: Option<u64>,
}

impl fmt::Debug for ApiToken {
    /// Never the secret: a token in a log is a key given away.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiToken")
            .field("id", &self.id)
            .field("label", &self.label)
            .field("created_ms", &self.created_ms)
            .finish_non_exhaustive()
    }
}

/// A players' line from the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayersLine {
    Player(Player),
    /// `GAME GUEST name`.
    Guest(String),
    /// `GAME SIGNEDIN name rating…`: the name and the `game=points` words.
    SignedIn {
        name: String,
        ratings: Vec<String>,
    },
    /// `GAME SIGNEDOUT`.
    SignedOut,
    Token(ApiToken),
    /// `GAME APITOKENS n`.
    Tokens(u64),
    Archived(Archived),
    /// `GAME HISTORY n`.
    History(u64),
    /// `GAME FILE id format n`.
    File {
        id: String,
        format: String,
        lines: u64,
    },
    /// `GAME LINE text`.
    Line(String),
}

/// Reads a players' line; `None` if `line` is not one (or not well formed:
/// it is then as unknown to this client as any later addition).
pub fn parse(line: &str) -> Option<PlayersLine> {
    let rest = strip_word(line, "GAME")?;
    let (sub, rest) = rest.split_once(' ').unwrap_or((rest, ""));
    let words: Vec<&str> = rest.split_whitespace().collect();
    Some(match sub.to_ascii_uppercase().as_str() {
        "PLAYER" => PlayersLine::Player(player(&words)?),
        "GUEST" if words.len() == 1 => PlayersLine::Guest(words[0].to_owned()),
        "SIGNEDIN" => PlayersLine::SignedIn {
            name: (*words.first()?).to_owned(),
            ratings: words[1..].iter().map(|w| (*w).to_owned()).collect(),
        },
        "SIGNEDOUT" => PlayersLine::SignedOut,
        "APITOKEN" => PlayersLine::Token(token(&words)?),
        "APITOKENS" if words.len() == 1 => PlayersLine::Tokens(words[0].parse().ok()?),
        "ARCHIVED" => PlayersLine::Archived(archived(&words)?),
        "HISTORY" if words.len() == 1 => PlayersLine::History(words[0].parse().ok()?),
        "FILE" if words.len() == 3 => PlayersLine::File {
            id: words[0].to_owned(),
            format: words[1].to_owned(),
            lines: words[2].parse().ok()?,
        },
        // The text as written, blanks kept: a line of a file.
        "LINE" => PlayersLine::Line(rest.to_owned()),
        _ => return None,
    })
}

fn strip_word<'a>(line: &'a str, word: &str) -> Option<&'a str> {
    let (first, rest) = line.split_once(' ')?;
    first.eq_ignore_ascii_case(word).then_some(rest)
}

fn player(words: &[&str]) -> Option<Player> {
    let [team, kind, name, rating] = words else {
        return None;
    };
    let kind = match *kind {
        "account" => Kind::Account,
        "guest" => Kind::Guest,
        "anonymous" => Kind::Anonymous,
        _ => return None,
    };
    let word = |w: &str| (w != "-").then(|| w.to_owned());
    Some(Player {
        team: team.parse().ok().filter(|&t| t > 0)?,
        kind,
        name: word(name),
        rating: word(rating),
    })
}

/// `id secret label` (made now) or `id - label… created last` (listed): the
/// label may hold blanks, so a listing is read from both ends.
fn token(words: &[&str]) -> Option<ApiToken> {
    let (id, secret) = (words.first()?, words.get(1)?);
    if *secret != "-" {
        return Some(ApiToken {
            id: (*id).to_owned(),
            secret: Some((*secret).to_owned()),
            label: words[2..].join(" "),
            created_ms: None,
        });
    }
    let n = words.len();
    if n < 5 {
        return None;
    }
    Some(ApiToken {
        id: (*id).to_owned(),
        secret: None,
        label: words[2..n - 2].join(" "),
        created_ms: Some(words[n - 2].parse().ok()?),
    })
}

fn archived(words: &[&str]) -> Option<Archived> {
    let [id, game, ended, result, mode, players @ ..] = words else {
        return None;
    };
    Some(Archived {
        id: (*id).to_owned(),
        game: (*game).to_owned(),
        ended_ms: ended.parse().ok()?,
        result: (*result).to_owned(),
        mode: (*mode).to_owned(),
        players: players.iter().map(|p| (*p).to_owned()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_lines_of_every_kind() {
        let alice = parse("GAME PLAYER 1 account Alice 1500?").unwrap();
        let PlayersLine::Player(alice) = alice else {
            panic!("{alice:?}")
        };
        assert_eq!(alice.to_string(), "Alice (1500?)");
        let bob = parse("GAME PLAYER 2 guest bob -").unwrap();
        assert!(matches!(&bob, PlayersLine::Player(p) if p.to_string() == "bob~"));
        let nobody = parse("GAME PLAYER 2 anonymous - -").unwrap();
        assert!(matches!(&nobody, PlayersLine::Player(p) if p.to_string() == "anonymous"));
        assert_eq!(parse("GAME PLAYER 0 guest bob -"), None);
        assert_eq!(parse("GAME PLAYER 1 robot bob -"), None);
        assert_eq!(parse("GAME PLAYER 1 guest bob"), None);
    }

    #[test]
    fn who_this_connection_is() {
        assert_eq!(
            parse("GAME GUEST bob"),
            Some(PlayersLine::Guest("bob".into()))
        );
        assert_eq!(
            parse("GAME SIGNEDIN Alice reversi=1532 tictactoe=1500?"),
            Some(PlayersLine::SignedIn {
                name: "Alice".into(),
                ratings: vec!["reversi=1532".into(), "tictactoe=1500?".into()],
            })
        );
        assert_eq!(parse("GAME SIGNEDOUT"), Some(PlayersLine::SignedOut));
        assert_eq!(parse("GAME TYPE Reversi"), None);
    }

    #[test]
    fn tokens_made_and_listed_with_blanks_in_labels() {
        let made = parse("GAME APITOKEN 0123 rvt_secret my bot").unwrap();
        let PlayersLine::Token(made) = made else {
            panic!()
        };
        assert_eq!(made.secret.as_deref(), Some("rvt_secret"));
        assert_eq!(made.label, "my bot");
        assert!(!format!("{made:?}").contains("rvt_secret"));
        let listed = parse("GAME APITOKEN 0123 - my bot 1700000000000 -").unwrap();
        let PlayersLine::Token(listed) = listed else {
            panic!()
        };
        assert_eq!((listed.label.as_str(), listed.secret), ("my bot", None));
        assert_eq!(listed.created_ms, Some(1_700_000_000_000));
        assert_eq!(parse("GAME APITOKENS 2"), Some(PlayersLine::Tokens(2)));
    }

    #[test]
    fn the_archive_and_its_files() {
        let line = parse("GAME ARCHIVED h:12 reversi 1700000000000 1-0 rated Alice bob~").unwrap();
        let PlayersLine::Archived(game) = line else {
            panic!()
        };
        assert_eq!(game.players, ["Alice", "bob~"]);
        assert_eq!((game.result.as_str(), game.mode.as_str()), ("1-0", "rated"));
        assert_eq!(parse("GAME HISTORY 1"), Some(PlayersLine::History(1)));
        assert_eq!(
            parse("GAME FILE h:12 ggf 3"),
            Some(PlayersLine::File {
                id: "h:12".into(),
                format: "ggf".into(),
                lines: 3
            })
        );
        assert_eq!(
            parse("GAME LINE (;GM[Othello]  PB[Alice]"),
            Some(PlayersLine::Line("(;GM[Othello]  PB[Alice]".into()))
        );
        assert_eq!(parse("GAME LINE "), Some(PlayersLine::Line(String::new())));
    }
}
