//! The text protocol's players' lines before a game (TEXT-PROTOCOL.md §4.4): `GAME NAME`,
//! `GAME REGISTER`, `GAME SIGNIN`, `GAME SIGNOUT`, `GAME APITOKEN`, `GAME APITOKENS`,
//! `GAME HISTORY`, `GAME EXPORT`, and what the server says back. A password or a
//! token is read here into the types that never print it ([`reversi_store::Password`],
//! [`reversi_store::ApiToken`]); [`loggable`] hides them from the log.

use reversi_store::{ApiToken, GameId, Name, Password, TokenId};

use super::challenges::WAITING_ALREADY;
use super::error_line;
use crate::protocols::players::{
    Answer, Archived, Credentials, Format, Request, HISTORY_DEFAULT, HISTORY_MAX,
};
use crate::protocols::{Lobby, Stage, Verdict};

/// The verdict on a players' line, or `None` when `line` is none of them.
pub fn answer(lobby: &Lobby<'_>, stage: Stage, line: &str, used: usize) -> Option<Verdict> {
    let (command, rest) = command(line)?;
    let request = match read(lobby, &command, rest)? {
        Ok(request) => request,
        Err(why) => return Some(Verdict::reply(error_line(&why), used)),
    };
    if stage == Stage::Queued && request.changes_identity() {
        return Some(Verdict::reply(error_line(WAITING_ALREADY), used));
    }
    Some(Verdict::Player { request, used })
}

/// `GAME <command> rest`: the command in capitals and the rest of the line as written.
fn command(line: &str) -> Option<(String, &str)> {
    let (game, rest) = split_word(line)?;
    if !game.eq_ignore_ascii_case("GAME") {
        return None;
    }
    let (command, rest) = split_word(rest)?;
    Some((command.to_ascii_uppercase(), rest))
}

/// The first word of `text` and what follows it (its blanks skipped).
fn split_word(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_start();
    if text.is_empty() {
        return None;
    }
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    Some((&text[..end], text[end..].trim_start()))
}

/// The request a players' command asks for (`None`: not a players' command).
fn read(lobby: &Lobby<'_>, command: &str, rest: &str) -> Option<Result<Request, String>> {
    let rest = rest.trim_end();
    let words: Vec<&str> = rest.split_whitespace().collect();
    Some(match command {
        "NAME" => one_word("GAME NAME", "a name", &words).and_then(|w| name(w).map(Request::Name)),
        "REGISTER" => name_and_password("GAME REGISTER", rest)
            .map(|(name, password)| Request::Register { name, password }),
        "SIGNIN" => sign_in(rest, &words).map(Request::SignIn),
        "SIGNOUT" => none("GAME SIGNOUT", &words).map(|()| Request::SignOut),
        "APITOKENS" => none("GAME APITOKENS", &words).map(|()| Request::Tokens),
        "APITOKEN" => api_token(rest),
        "HISTORY" => history(lobby, &words),
        "EXPORT" => export(&words),
        _ => return None,
    })
}

fn name(word: &str) -> Result<Name, String> {
    Name::new(word).map_err(|why| format!("{:?} is not a name: {why}", shorten(word)))
}

/// At most 40 characters of what a client wrote, for an error line.
fn shorten(text: &str) -> String {
    text.chars().take(40).collect()
}

fn one_word<'a>(message: &str, what: &str, words: &[&'a str]) -> Result<&'a str, String> {
    match words {
        [word] => Ok(word),
        [] => Err(format!("{message} needs {what}")),
        _ => Err(format!("{message} takes {what}, one word")),
    }
}

fn none(message: &str, words: &[&str]) -> Result<(), String> {
    match words {
        [] => Ok(()),
        _ => Err(format!("{message} takes nothing after it")),
    }
}

/// `name password…`: the password is the rest of the line, blanks inside kept.
fn name_and_password(message: &str, rest: &str) -> Result<(Name, Password), String> {
    let Some((word, password)) = split_word(rest).filter(|(_, p)| !p.is_empty()) else {
        return Err(format!("{message} needs a name and a password"));
    };
    let name = name(word)?;
    let password = Password::new(password).map_err(|why| why.to_string())?;
    Ok((name, password))
}

/// One word: an API token; two or more: a name and a password.
fn sign_in(rest: &str, words: &[&str]) -> Result<Credentials, String> {
    match words {
        [] => Err("GAME SIGNIN needs a name and a password, or an API token".to_owned()),
        [token] => ApiToken::parse(token)
            .map(Credentials::Token)
            .ok_or_else(|| {
                "that is not an API token (rvt_…); a password comes after the name".to_owned()
            }),
        _ => name_and_password("GAME SIGNIN", rest)
            .map(|(name, password)| Credentials::Password { name, password }),
    }
}

/// `NEW label` or `REVOKE id`.
fn api_token(rest: &str) -> Result<Request, String> {
    let usage = "GAME APITOKEN NEW label, or GAME APITOKEN REVOKE id";
    let Some((what, rest)) = split_word(rest) else {
        return Err(usage.to_owned());
    };
    match what.to_ascii_uppercase().as_str() {
        "NEW" if rest.is_empty() => Err("GAME APITOKEN NEW needs a label".to_owned()),
        "NEW" => Ok(Request::NewToken {
            label: rest.to_owned(),
        }),
        "REVOKE" => {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let word = one_word("GAME APITOKEN REVOKE", "a token's id", &words)?;
            TokenId::parse(word).map(Request::Revoke).ok_or_else(|| {
                format!(
                    "{:?} is not a token's id (16 hexadecimal digits, as GAME APITOKENS lists them)",
                    shorten(word)
                )
            })
        }
        _ => Err(usage.to_owned()),
    }
}

/// `[name] [game] [count]`, each optional, in that order: `name=NAME` is always the name
/// (an account may be called like a game: `name=reversi`); otherwise a word that names a
/// game served is the game, a number the count, another word the name.
fn history(lobby: &Lobby<'_>, words: &[&str]) -> Result<Request, String> {
    let (mut who, mut game, mut count) = (None, None, None);
    for &word in words {
        let named = word
            .get(..NAME_IS.len())
            .filter(|start| start.eq_ignore_ascii_case(NAME_IS))
            .map(|_| &word[NAME_IS.len()..]);
        if let Some(named) = named {
            if who.is_some() || game.is_some() || count.is_some() {
                return Err(history_usage());
            }
            who = Some(name(named)?);
        } else if let Ok(n) = word.parse::<usize>() {
            if count.is_some() || !(1..=HISTORY_MAX).contains(&n) {
                return Err(format!("GAME HISTORY lists 1 to {HISTORY_MAX} games"));
            }
            count = Some(n);
        } else if let Some(module) = lobby.game(word) {
            if game.is_some() || count.is_some() {
                return Err(history_usage());
            }
            game = Some(module);
        } else {
            if who.is_some() || game.is_some() || count.is_some() {
                return Err(history_usage());
            }
            who = Some(name(word)?);
        }
    }
    Ok(Request::History {
        name: who,
        game,
        count: count.unwrap_or(HISTORY_DEFAULT),
    })
}

/// What marks `GAME HISTORY`'s word as the name whatever it reads like.
const NAME_IS: &str = "name=";

fn history_usage() -> String {
    "GAME HISTORY [name] [game] [count], in that order (name=NAME for a name that is a game's)"
        .to_owned()
}

/// `id [format]`.
fn export(words: &[&str]) -> Result<Request, String> {
    let (id, format) = match words {
        [id] => (id, None),
        [id, format] => (id, Some(format)),
        _ => return Err("GAME EXPORT id [ggf|pdn|txt|json]".to_owned()),
    };
    let id = GameId::new(id).ok_or_else(|| format!("{:?} is not a game's id", shorten(id)))?;
    let format = match format {
        None => None,
        Some(word) => Some(
            Format::from_word(word)
                .ok_or_else(|| format!("no format {:?} (ggf, pdn, txt or json)", shorten(word)))?,
        ),
    };
    Ok(Request::Export { id, format })
}

/// A players' line as the log may show it: never a password nor a token's secret, also
/// where a client put them by mistake (a token pasted into `GAME APITOKEN REVOKE` or
/// `GAME NAME`, a password after a misspelt `GAME LOGIN`). `None`: the line as it is.
pub fn loggable(line: &str) -> Option<String> {
    credentials(line).or_else(|| without_tokens(line))
}

/// Every word that holds `rvt_` (an API token, whole or cut) as `<token ID>` or `<hidden>`.
fn without_tokens(line: &str) -> Option<String> {
    let holds_token = |word: &str| word.to_ascii_lowercase().contains(TOKEN_MARK);
    if !line.split_whitespace().any(holds_token) {
        return None;
    }
    let words: Vec<String> = (line.split_whitespace())
        .map(|word| match ApiToken::parse(word) {
            Some(token) => format!("<token {}>", token.id()),
            None if holds_token(word) => "<hidden>".to_owned(),
            None => word.to_owned(),
        })
        .collect();
    Some(words.join(" "))
}

/// How every API token begins (`reversi_store::ApiToken`).
const TOKEN_MARK: &str = "rvt_";

/// Commands that read like a sign-in a client misspelt: what follows may be a password.
const LIKE_SIGN_IN: [&str; 5] = ["SIGN", "LOGIN", "LOGON", "REGIST", "PASS"];

/// `GAME REGISTER` and `GAME SIGNIN` (and look-alikes) with their secrets hidden.
fn credentials(line: &str) -> Option<String> {
    let (command, rest) = command(line)?;
    let shown = match command.as_str() {
        "REGISTER" | "SIGNIN" => match split_word(rest) {
            // The first word only if it is a name: a token or a password typed first
            // (`GAME SIGNIN rvt_… extra`, `GAME SIGNIN secret words`) is no name.
            Some((word, more)) if !more.trim().is_empty() => match Name::new(word) {
                Ok(_) => format!("{word} <password>"),
                Err(_) => "<hidden> <password>".to_owned(),
            },
            Some((word, _)) => match ApiToken::parse(word) {
                Some(token) => format!("<token {}>", token.id()),
                None => "<hidden>".to_owned(),
            },
            None => String::new(),
        },
        "SIGNOUT" => return None,
        _ if LIKE_SIGN_IN.iter().any(|w| command.starts_with(w)) && !rest.is_empty() => {
            "<hidden>".to_owned()
        }
        _ => return None,
    };
    Some(format!("GAME {command} {shown}"))
}

/// The lines of an answer.
pub fn tell(answer: &Answer) -> Vec<u8> {
    let text = match answer {
        Answer::Guest(name) => format!("GAME GUEST {name}\n"),
        Answer::SignedIn { name, ratings } => {
            let words: String = ratings
                .iter()
                .map(|(game, rating)| format!(" {game}={rating}"))
                .collect();
            format!("GAME SIGNEDIN {name}{words}\n")
        }
        Answer::SignedOut => "GAME SIGNEDOUT\n".to_owned(),
        Answer::NewToken { token, label } => {
            format!("GAME APITOKEN {} {} {label}\n", token.id(), token.reveal())
        }
        Answer::Tokens(tokens) => {
            let mut out: String = tokens
                .iter()
                .map(|t| {
                    let used = t.last_used_ms.map_or("-".to_owned(), |ms| ms.to_string());
                    format!(
                        "GAME APITOKEN {} - {} {} {used}\n",
                        t.id, t.label, t.created_ms
                    )
                })
                .collect();
            out.push_str(&format!("GAME APITOKENS {}\n", tokens.len()));
            out
        }
        Answer::Revoked(id) => format!("GAME NEWS API token {id} revoked\n"),
        Answer::History(games) => {
            let mut out: String = games.iter().map(archived).collect();
            out.push_str(&format!("GAME HISTORY {}\n", games.len()));
            out
        }
        Answer::File { id, format, text } => {
            let lines: Vec<&str> = text.lines().collect();
            let mut out = format!("GAME FILE {id} {} {}\n", format.word(), lines.len());
            for line in lines {
                out.push_str(&format!("GAME LINE {line}\n"));
            }
            out
        }
    };
    text.into_bytes()
}

fn archived(game: &Archived) -> String {
    let mode = if game.rated { "rated" } else { "casual" };
    format!(
        "GAME ARCHIVED {} {} {} {} {mode} {}\n",
        game.id,
        game.game,
        game.ended_ms,
        game.result,
        game.players.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::players::Listed;
    use crate::protocols::tests::lobby;
    use crate::terms::ShownRating;

    fn read_line(stage: Stage, line: &str) -> Verdict {
        answer(&lobby(), stage, line, line.len()).expect("a players' line")
    }

    fn request(line: &str) -> Request {
        match read_line(Stage::Handshake, line) {
            Verdict::Player { request, used } => {
                assert_eq!(used, line.len());
                request
            }
            other => panic!("{line}: {other:?}"),
        }
    }

    fn error(stage: Stage, line: &str) -> String {
        match read_line(stage, line) {
            Verdict::Reply { bytes, .. } => String::from_utf8(bytes).unwrap(),
            other => panic!("{line}: {other:?}"),
        }
    }

    fn password(text: &str) -> Password {
        Password::new(text).unwrap()
    }

    #[test]
    fn names_registrations_and_sign_ins_read_their_words() {
        let alice = Name::new("Alice").unwrap();
        assert_eq!(request("GAME NAME Alice"), Request::Name(alice.clone()));
        assert_eq!(
            request("game register Alice correct horse  battery "),
            Request::Register {
                name: alice.clone(),
                password: password("correct horse  battery"),
            }
        );
        assert_eq!(
            request("GAME SIGNIN Alice correct horse"),
            Request::SignIn(Credentials::Password {
                name: alice,
                password: password("correct horse"),
            })
        );
        let token = format!("rvt_0123456789abcdef_{}", "ab".repeat(32));
        assert_eq!(
            request(&format!("GAME SIGNIN {token}")),
            Request::SignIn(Credentials::Token(ApiToken::parse(&token).unwrap()))
        );
        assert_eq!(request("GAME SIGNOUT"), Request::SignOut);
        assert_eq!(request("GAME APITOKENS"), Request::Tokens);
        assert_eq!(
            request("GAME APITOKEN NEW my bot"),
            Request::NewToken {
                label: "my bot".into()
            }
        );
        assert_eq!(
            request("GAME APITOKEN revoke 0123456789ABCDEF"),
            Request::Revoke(TokenId::parse("0123456789abcdef").unwrap())
        );
    }

    #[test]
    fn history_and_export_read_their_optional_words() {
        let reversi = lobby().game("reversi");
        assert_eq!(
            request("GAME HISTORY"),
            Request::History {
                name: None,
                game: None,
                count: HISTORY_DEFAULT
            }
        );
        assert_eq!(
            request("GAME HISTORY Bob reversi 5"),
            Request::History {
                name: Some(Name::new("Bob").unwrap()),
                game: reversi,
                count: 5
            }
        );
        // An account called like a game is named with `name=`, in any case; a bare
        // word that names a game is the game.
        for line in [
            "GAME HISTORY name=reversi reversi 5",
            "GAME HISTORY NAME=Reversi reversi 5",
        ] {
            let Request::History { name, game, count } = request(line) else {
                panic!("{line}: no history");
            };
            assert_eq!(name.map(|n| n.key().to_owned()), Some("reversi".to_owned()));
            assert_eq!((game.map(|g| g.info.name), count), (Some("reversi"), 5));
        }
        assert_eq!(
            request("GAME HISTORY reversi"),
            Request::History {
                name: None,
                game: reversi,
                count: HISTORY_DEFAULT
            }
        );
        assert_eq!(
            request("GAME HISTORY name=Bob"),
            request("GAME HISTORY Bob"),
        );
        assert_eq!(
            request("GAME HISTORY 7"),
            Request::History {
                name: None,
                game: None,
                count: 7
            }
        );
        assert_eq!(
            request("GAME EXPORT host-a:3 GGF"),
            Request::Export {
                id: GameId::new("host-a:3").unwrap(),
                format: Some(Format::Ggf)
            }
        );
        assert_eq!(
            request("GAME EXPORT host-a:3"),
            Request::Export {
                id: GameId::new("host-a:3").unwrap(),
                format: None
            }
        );
    }

    #[test]
    fn every_malformed_players_line_gets_its_error() {
        for (line, want) in [
            ("GAME NAME", "ERROR GAME NAME needs a name\n"),
            ("GAME NAME a b", "ERROR GAME NAME takes a name, one word\n"),
            (
                "GAME NAME x",
                "ERROR \"x\" is not a name: a name has 3 to 20",
            ),
            (
                "GAME NAME game",
                "ERROR \"game\" is not a name: that name is reserved",
            ),
            (
                "GAME REGISTER Alice",
                "ERROR GAME REGISTER needs a name and a password\n",
            ),
            (
                "GAME REGISTER Alice short",
                "ERROR a password has 8 to 256 bytes, not 5\n",
            ),
            (
                "GAME SIGNIN",
                "ERROR GAME SIGNIN needs a name and a password, or an API token",
            ),
            (
                "GAME SIGNIN Alice",
                "ERROR that is not an API token (rvt_…)",
            ),
            (
                "GAME SIGNOUT now",
                "ERROR GAME SIGNOUT takes nothing after it\n",
            ),
            (
                "GAME APITOKEN",
                "ERROR GAME APITOKEN NEW label, or GAME APITOKEN REVOKE id\n",
            ),
            (
                "GAME APITOKEN NEW",
                "ERROR GAME APITOKEN NEW needs a label\n",
            ),
            (
                "GAME APITOKEN REVOKE xyz",
                "ERROR \"xyz\" is not a token's id",
            ),
            (
                "GAME HISTORY 0",
                "ERROR GAME HISTORY lists 1 to 100 games\n",
            ),
            (
                "GAME HISTORY 101",
                "ERROR GAME HISTORY lists 1 to 100 games\n",
            ),
            (
                "GAME HISTORY reversi Bob",
                "ERROR GAME HISTORY [name] [game] [count], in that order \
                 (name=NAME for a name that is a game's)\n",
            ),
            (
                "GAME HISTORY reversi name=Bob",
                "ERROR GAME HISTORY [name] [game] [count], in that order \
                 (name=NAME for a name that is a game's)\n",
            ),
            ("GAME HISTORY name=x", "ERROR \"x\" is not a name"),
            ("GAME EXPORT", "ERROR GAME EXPORT id [ggf|pdn|txt|json]\n"),
            (
                "GAME EXPORT a:1 png",
                "ERROR no format \"png\" (ggf, pdn, txt or json)\n",
            ),
        ] {
            let got = error(Stage::Handshake, line);
            assert!(got.starts_with(want), "{line}: {got}");
        }
    }

    #[test]
    fn a_queued_client_keeps_who_it_is_but_may_look_things_up() {
        for line in [
            "GAME NAME Alice",
            "GAME SIGNIN Alice correct horse",
            "GAME SIGNOUT",
        ] {
            assert_eq!(
                error(Stage::Queued, line),
                format!("ERROR {WAITING_ALREADY}\n")
            );
        }
        assert!(matches!(
            read_line(Stage::Queued, "GAME HISTORY"),
            Verdict::Player { .. }
        ));
        assert!(answer(&lobby(), Stage::Handshake, "GAME TYPE reversi", 1).is_none());
        assert!(answer(&lobby(), Stage::Handshake, "NAME Alice", 1).is_none());
    }

    #[test]
    fn passwords_and_secrets_never_reach_the_log() {
        let token = format!("rvt_0123456789abcdef_{}", "ab".repeat(32));
        for (line, shown) in [
            (
                "GAME SIGNIN Alice hunter2hunter2",
                "GAME SIGNIN Alice <password>",
            ),
            (
                "game register Alice hunter2 hunter2",
                "GAME REGISTER Alice <password>",
            ),
            (
                &format!("GAME SIGNIN {token}"),
                "GAME SIGNIN <token 0123456789abcdef>",
            ),
            ("GAME SIGNIN hunter2hunter2", "GAME SIGNIN <hidden>"),
            // A token or a password where the name goes, with more after it.
            (
                &format!("GAME SIGNIN {token} now"),
                "GAME SIGNIN <hidden> <password>",
            ),
            (
                "GAME REGISTER hunter2!! hunter2!!",
                "GAME REGISTER <hidden> <password>",
            ),
        ] {
            assert_eq!(loggable(line).as_deref(), Some(shown), "{line}");
        }
        assert_eq!(loggable("GAME NAME Alice"), None);
        assert_eq!(loggable("GAME SIGNOUT"), None);
        // Secrets where they do not belong: a token pasted whole or cut, in any line, and
        // what follows a misspelt sign-in.
        for (line, shown) in [
            (
                format!("GAME APITOKEN REVOKE {token}"),
                "GAME APITOKEN REVOKE <token 0123456789abcdef>",
            ),
            (format!("GAME NAME {}", &token[..40]), "GAME NAME <hidden>"),
            (format!("MOVE name=RVT_{}", &token[4..]), "MOVE <hidden>"),
            (
                "GAME LOGIN Alice hunter2hunter2".to_owned(),
                "GAME LOGIN <hidden>",
            ),
            (
                "game signup Alice hunter2hunter2".to_owned(),
                "GAME SIGNUP <hidden>",
            ),
        ] {
            assert_eq!(loggable(&line).as_deref(), Some(shown), "{line}");
        }
        let new = Answer::NewToken {
            token: ApiToken::parse(&token).unwrap(),
            label: "bot".into(),
        };
        assert!(!format!("{new:?}").contains(&"ab".repeat(32)));
    }

    mod fuzzed {
        use super::*;
        use proptest::prelude::*;

        /// A players' command, in any case, and then anything a line may hold.
        fn line() -> impl Strategy<Value = String> {
            let command = prop::sample::select(vec![
                "NAME",
                "REGISTER",
                "SIGNIN",
                "signin",
                "SIGNOUT",
                "APITOKEN",
                "APITOKENS",
                "HISTORY",
                "EXPORT",
            ]);
            let word =
                "([a-zA-Z0-9_.~@\\]\"-]{0,12}|rvt_[0-9a-f]{16}_[0-9a-f]{64}|[0-9]{1,4}|\\PC{0,8})";
            let rest = prop::collection::vec(word, 0..5).prop_map(|w| w.join(" "));
            (command, rest).prop_map(|(c, rest)| format!("GAME {c} {rest}"))
        }

        proptest! {
            /// Any line gets a request or one clear ERROR line, and never a panic.
            #[test]
            fn every_players_line_is_a_request_or_one_error_line(line in line()) {
                for stage in [Stage::Handshake, Stage::Queued] {
                    match answer(&lobby(), stage, &line, line.len()) {
                        Some(Verdict::Player { used, .. }) => prop_assert_eq!(used, line.len()),
                        Some(Verdict::Reply { bytes, .. }) => {
                            let text = String::from_utf8(bytes).unwrap();
                            prop_assert!(text.starts_with("ERROR ") && text.len() > 7, "{}", text);
                            prop_assert_eq!(text.matches('\n').count(), 1, "{}", text);
                        }
                        other => prop_assert!(false, "{line}: {other:?}"),
                    }
                }
            }

            /// What the log shows of a sign-in or a registration is its command, a name at
            /// most, and placeholders: never the words after the first.
            #[test]
            fn the_log_never_shows_what_follows_the_name(
                command in prop::sample::select(vec!["SIGNIN", "REGISTER"]),
                first in "[a-zA-Z0-9_]{1,25}|rvt_[0-9a-f]{16}_[0-9a-f]{64}",
                secret in "[ -~]{1,40}",
            ) {
                let shown = loggable(&format!("game {command} {first} {secret}")).unwrap();
                let after = shown.strip_prefix(&format!("GAME {command} ")).unwrap();
                let name_ok = Name::new(&first).is_ok();
                // A token alone (the secret was blanks) shows its id, which is no secret.
                if let Some(id) = after.strip_prefix("<token ").and_then(|a| a.strip_suffix('>')) {
                    prop_assert!(first.starts_with("rvt_") && first.contains(id), "{}", shown);
                    prop_assert!(secret.trim().is_empty(), "{}", shown);
                    return Ok(());
                }
                let words: Vec<&str> = after.split(' ').collect();
                match words.as_slice() {
                    [shown_first, "<password>"] => prop_assert!(
                        (name_ok && *shown_first == first) || *shown_first == "<hidden>",
                        "{}", shown
                    ),
                    [only] => prop_assert!(only.starts_with('<'), "{}", shown),
                    _ => prop_assert!(false, "{}", shown),
                }
            }

            /// A name, once valid, is one word that no format around it can misread: no
            /// blank or control, nothing of `Name@address`, `name~`, GGF's `]`, PDN's `"`.
            #[test]
            fn a_valid_name_is_one_safe_word(raw in "\\PC{1,24}|[a-zA-Z][a-zA-Z0-9_.@~\\]\"-]{2,20}") {
                if let Ok(name) = Name::new(&raw) {
                    let shown = name.as_str();
                    prop_assert!((3..=20).contains(&shown.chars().count()));
                    prop_assert!(
                        !shown.chars().any(|c| c.is_whitespace()
                            || c.is_control()
                            || matches!(c, '@' | '~' | ']' | '[' | '"' | '\\' | ';')),
                        "{:?}", shown
                    );
                    prop_assert_eq!(Name::new(shown), Ok(name.clone()));
                }
            }
        }
    }

    #[test]
    fn answers_are_lines() {
        let told = |a: Answer| String::from_utf8(tell(&a)).unwrap();
        assert_eq!(told(Answer::Guest("bob".into())), "GAME GUEST bob\n");
        let ratings = vec![
            (
                "reversi".to_owned(),
                ShownRating {
                    points: 1532,
                    provisional: false,
                },
            ),
            (
                "tictactoe".to_owned(),
                ShownRating {
                    points: 1500,
                    provisional: true,
                },
            ),
        ];
        assert_eq!(
            told(Answer::SignedIn {
                name: "Alice".into(),
                ratings
            }),
            "GAME SIGNEDIN Alice reversi=1532 tictactoe=1500?\n"
        );
        assert_eq!(told(Answer::SignedOut), "GAME SIGNEDOUT\n");
        let listed = |last_used_ms| Listed {
            id: "0123456789abcdef".into(),
            label: "my bot".into(),
            created_ms: 17,
            last_used_ms,
        };
        assert_eq!(
            told(Answer::Tokens(vec![listed(None), listed(Some(60_017))])),
            "GAME APITOKEN 0123456789abcdef - my bot 17 -\n\
             GAME APITOKEN 0123456789abcdef - my bot 17 60017\nGAME APITOKENS 2\n"
        );
        assert_eq!(
            told(Answer::Revoked("0123456789abcdef".into())),
            "GAME NEWS API token 0123456789abcdef revoked\n"
        );
        let game = Archived {
            id: "h:1".into(),
            game: "reversi".into(),
            ended_ms: 99,
            result: "1-0".into(),
            rated: true,
            players: vec!["Alice".into(), "bob~".into()],
        };
        assert_eq!(
            told(Answer::History(vec![game])),
            "GAME ARCHIVED h:1 reversi 99 1-0 rated Alice bob~\nGAME HISTORY 1\n"
        );
        assert_eq!(
            told(Answer::File {
                id: "h:1".into(),
                format: Format::Txt,
                text: "a\n\nb\n".into()
            }),
            "GAME FILE h:1 txt 3\nGAME LINE a\nGAME LINE \nGAME LINE b\n"
        );
    }
}
