//! What the operator asks on the control socket, read from one line; and the answer's
//! framing (spec/DEPLOY.md "Control socket"). The tournament orders are the text protocol's
//! words (`crate::tournaments::orders`), read by the same code.

use crate::tournaments::orders::{self, Order};

/// One request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// `TOURNAMENTS`: every tournament's `GAME TOURNAMENT …` line.
    Tournaments,
    /// `STANDINGS id`: the crosstable and the games, as `GAME STANDINGS` answers them.
    Standings(u64),
    /// `EXPORT id csv|json`: the final standings' export, as the pages serve it.
    Export {
        id: u64,
        form: Export,
    },
    /// `TOURNAMENT …`: an order given as the operator (every organiser's right).
    Order(Order),
    /// `TOURNAMENT REGISTER id account`: the operator registers an account.
    Enter {
        id: u64,
        account: String,
    },
    /// `ACCOUNT CREATE name`: a new account and an API token for it.
    CreateAccount(reversi_store::Name),
    /// `DRAIN`, `RESUME`, `UPGRADE`: as `reversid ctl drain|resume|upgrade` (SIGUSR1,
    /// SIGUSR2, SIGWINCH).
    Drain,
    Resume,
    Upgrade,
}

/// An export's form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Export {
    Csv,
    Json,
}

/// Reads a request line; the error says what was wrong (sent back as `ERROR …`).
pub fn read(line: &str) -> Result<Request, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((verb, rest)) = words.split_first() else {
        return Err("an empty line asks nothing".into());
    };
    match (verb.to_ascii_uppercase().as_str(), rest) {
        ("TOURNAMENTS", []) => Ok(Request::Tournaments),
        ("STANDINGS", [id]) => Ok(Request::Standings(number(id)?)),
        ("EXPORT", [id, form]) => Ok(Request::Export {
            id: number(id)?,
            form: export_form(form)?,
        }),
        ("TOURNAMENT", rest) => tournament(rest),
        ("DRAIN", []) => Ok(Request::Drain),
        ("RESUME", []) => Ok(Request::Resume),
        ("UPGRADE", []) => Ok(Request::Upgrade),
        ("ACCOUNT", [create, name]) if create.eq_ignore_ascii_case("CREATE") => {
            let name = reversi_store::Name::new(name).map_err(|e| format!("{name:?}: {e}"))?;
            Ok(Request::CreateAccount(name))
        }
        ("ACCOUNT", _) => Err("ACCOUNT CREATE takes a name".into()),
        ("TOURNAMENTS" | "DRAIN" | "RESUME" | "UPGRADE", _) => {
            Err(format!("{verb} takes no arguments"))
        }
        ("STANDINGS", _) => Err("STANDINGS takes a tournament's number".into()),
        ("EXPORT", _) => Err("EXPORT takes a tournament's number and csv or json".into()),
        _ => Err(format!(
            "no request {verb}: TOURNAMENTS, STANDINGS, EXPORT, TOURNAMENT, ACCOUNT, DRAIN, RESUME \
             or UPGRADE"
        )),
    }
}

/// The words after `TOURNAMENT`: the text protocol's orders, except that the operator
/// registers and withdraws a named account (`REGISTER id account`, `WITHDRAW id account`)
/// where a player names none (itself).
fn tournament(words: &[&str]) -> Result<Request, String> {
    let verb = words.first().map(|v| v.to_ascii_uppercase());
    match (verb.as_deref(), words) {
        (Some("REGISTER"), [_, id, account]) => Ok(Request::Enter {
            id: number(id)?,
            account: (*account).to_owned(),
        }),
        (Some("WITHDRAW"), [_, id, account]) => Ok(Request::Order(Order::Remove {
            id: number(id)?,
            account: (*account).to_owned(),
        })),
        (Some(verb @ ("REGISTER" | "WITHDRAW")), _) => {
            Err(format!("{verb} takes a tournament's number and an account"))
        }
        _ => orders::read(words).map(Request::Order),
    }
}

fn number(word: &str) -> Result<u64, String> {
    word.parse()
        .map_err(|_| format!("{word:?} is not a tournament's number"))
}

fn export_form(word: &str) -> Result<Export, String> {
    match word.to_ascii_lowercase().as_str() {
        "csv" => Ok(Export::Csv),
        "json" => Ok(Export::Json),
        _ => Err(format!("{word:?}: an export is csv or json")),
    }
}

/// The answer to a request: `OK n` and its `n` lines, or `ERROR why` alone. Counted first,
/// so that no line of the answer (a CSV row, say) can be taken for its end.
pub fn answer(result: Result<Vec<String>, String>) -> String {
    match result {
        Ok(lines) => {
            let mut text = format!("OK {}\n", lines.len());
            for line in lines {
                text.push_str(&line);
                text.push('\n');
            }
            text
        }
        Err(why) => error(&why),
    }
}

/// `ERROR why`, on one line whatever `why` holds.
pub fn error(why: &str) -> String {
    format!("ERROR {}\n", why.replace(['\r', '\n'], " "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_request_reads() {
        assert_eq!(read("TOURNAMENTS"), Ok(Request::Tournaments));
        assert_eq!(read("standings 3"), Ok(Request::Standings(3)));
        assert_eq!(
            read("EXPORT 3 json"),
            Ok(Request::Export {
                id: 3,
                form: Export::Json
            })
        );
        assert_eq!(
            read("TOURNAMENT START 3"),
            Ok(Request::Order(Order::Start(3)))
        );
        assert_eq!(
            read("TOURNAMENT REGISTER 3 Ann"),
            Ok(Request::Enter {
                id: 3,
                account: "Ann".into()
            })
        );
        assert_eq!(
            read("TOURNAMENT withdraw 3 Ann"),
            Ok(Request::Order(Order::Remove {
                id: 3,
                account: "Ann".into()
            }))
        );
        assert_eq!(read("DRAIN"), Ok(Request::Drain));
        assert_eq!(read("RESUME"), Ok(Request::Resume));
        assert_eq!(read("upgrade"), Ok(Request::Upgrade));
        assert_eq!(
            read("ACCOUNT CREATE Bot7"),
            Ok(Request::CreateAccount(
                reversi_store::Name::new("Bot7").unwrap()
            ))
        );
        assert!(matches!(
            read("TOURNAMENT CREATE name=A game=tictactoe format=rr time=5+3"),
            Ok(Request::Order(Order::Create(_)))
        ));
    }

    #[test]
    fn bad_requests_say_what_was_wrong() {
        for (line, says) in [
            ("JUMP", "no request JUMP"),
            ("TOURNAMENTS 1", "takes no arguments"),
            ("STANDINGS x", "not a tournament's number"),
            ("EXPORT 1 xml", "csv or json"),
            ("EXPORT 1", "csv or json"),
            ("TOURNAMENT REGISTER 3", "an account"),
            ("TOURNAMENT WITHDRAW 3", "an account"),
            ("TOURNAMENT CREATE game=x", "CREATE needs name="),
            ("TOURNAMENT", "needs a verb"),
            ("ACCOUNT CREATE", "takes a name"),
            ("ACCOUNT CREATE 7up", "starts with a letter"),
        ] {
            let e = read(line).unwrap_err();
            assert!(e.contains(says), "{line}: {e}");
        }
    }

    #[test]
    fn answers_are_counted_and_errors_one_line() {
        assert_eq!(answer(Ok(vec![])), "OK 0\n");
        assert_eq!(
            answer(Ok(vec!["a".into(), "OK 1".into()])),
            "OK 2\na\nOK 1\n"
        );
        assert_eq!(
            answer(Err("no\ntournament".into())),
            "ERROR no tournament\n"
        );
    }
}
