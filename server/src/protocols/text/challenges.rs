//! The text protocol's challenge lines before a game (TEXT-PROTOCOL.md §4.1–4.3):
//! `GAME INVITE`, `GAME JOIN`, `GAME LOBBY`, `GAME RESUME`, and what the server says
//! back (`GAME CODE`, `GAME LINK`, `GAME EXPIRED`, `GAME CHALLENGE`, `GAME CHALLENGES`).

use reversi_games::registry::Module;

use super::error_line;
use crate::protocols::{Invite, Lobby, Offered, Stage, Told, Verdict};

/// What a Queued or Inviting client is told when it asks for another game.
pub const WAITING_ALREADY: &str = "waiting for a game already (GAME QUIT to leave the queue)";

/// The verdict on a challenge line, or `None` when `line` is none of them.
pub fn answer(lobby: &Lobby<'_>, stage: Stage, line: &str, used: usize) -> Option<Verdict> {
    let mut words = line.split_whitespace();
    if !words.next()?.eq_ignore_ascii_case("GAME") {
        return None;
    }
    let command = words.next()?.to_ascii_uppercase();
    let error = |why: String| Some(Verdict::reply(error_line(&why), used));
    let rest = || words.clone().collect::<Vec<_>>().join(" ");
    match (stage, command.as_str()) {
        (_, "LOBBY") => Some(Verdict::Challenges { used }),
        (Stage::Queued, "INVITE" | "JOIN" | "RESUME") => error(WAITING_ALREADY.to_owned()),
        (Stage::Handshake, "INVITE") => match invite(lobby, words) {
            Ok(invite) => Some(Verdict::Invite { invite, used }),
            Err(why) => error(why),
        },
        (Stage::Handshake, "JOIN") => Some(Verdict::JoinCode { code: rest(), used }),
        (Stage::Handshake, "RESUME") => Some(Verdict::Resume {
            token: rest(),
            used,
        }),
        _ => None,
    }
}

/// Reads `GAME INVITE`'s game and options (TEXT-PROTOCOL.md §4.1).
fn invite<'a>(
    lobby: &Lobby<'_>,
    mut words: impl Iterator<Item = &'a str>,
) -> Result<Invite, String> {
    let unknown = |name: &str| format!("no game {name:?} here; games: {}", lobby.names());
    let name = words.next().unwrap_or("");
    let game = lobby.game(name).ok_or_else(|| unknown(name))?;
    let mut invite = Invite {
        game,
        time: None,
        side: None,
        public: false,
        rated: false,
    };
    for word in words {
        match word.split_once('=') {
            Some(("time", _)) if game.info.realtime => {
                return Err(format!(
                    "{} is played in real time and takes no time=",
                    game.info.name
                ))
            }
            Some(("time", spec)) => invite.time = Some(spec.to_owned()),
            Some(("side", side)) => invite.side = self::side(game, side)?,
            None if word.eq_ignore_ascii_case("public") => invite.public = true,
            None if word.eq_ignore_ascii_case("private") => invite.public = false,
            None if word.eq_ignore_ascii_case("rated") => invite.rated = true,
            None if word.eq_ignore_ascii_case("casual") => invite.rated = false,
            _ => {
                return Err(format!(
                "unknown option {word:?} (options: time=, side=, public, private, rated, casual)"
            ))
            }
        }
    }
    Ok(invite)
}

/// A `side=` value: a team's number (from 1) or name in any case, or `random` (`None`).
fn side(game: &Module, side: &str) -> Result<Option<u8>, String> {
    let teams = game.info.teams;
    if side.eq_ignore_ascii_case("random") {
        return Ok(None);
    }
    let by_number = side
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=teams.len()).contains(n))
        .map(|n| n - 1);
    let by_name = || teams.iter().position(|t| t.eq_ignore_ascii_case(side));
    match by_number.or_else(by_name) {
        Some(team) => Ok(Some(team as u8)),
        None => {
            let numbers: Vec<String> = (1..=teams.len()).map(|n| n.to_string()).collect();
            Err(format!(
                "side={side}: {}'s sides are {} (or {}, random)",
                game.info.name,
                teams.join(", "),
                numbers.join(", ")
            ))
        }
    }
}

/// The lines of what the server tells a client about challenges.
pub fn tell(told: &Told) -> Vec<u8> {
    let offered = |word: &str, o: &Offered| {
        format!(
            "GAME {word} {} {} {} {}\n",
            o.code, o.seconds, o.game, o.options
        )
    };
    match told {
        Told::Created { offered: o, link } => {
            format!("{}GAME LINK {link}\n", offered("CODE", o)).into_bytes()
        }
        Told::Expired { code } => format!("GAME EXPIRED {code}\n").into_bytes(),
        Told::Listing(listed) => {
            let mut out: String = listed.iter().map(|o| offered("CHALLENGE", o)).collect();
            out.push_str(&format!("GAME CHALLENGES {}\n", listed.len()));
            out.into_bytes()
        }
        Told::Error(why) => error_line(why),
        Told::Player(answer) => super::accounts::tell(answer),
        Told::Lines(lines) => lines
            .iter()
            .flat_map(|l| format!("{l}\n").into_bytes())
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::tests::lobby;

    fn answer_to(stage: Stage, line: &str) -> Verdict {
        answer(&lobby(), stage, line, line.len()).expect("a challenge line")
    }

    fn error_of(v: Verdict) -> String {
        match v {
            Verdict::Reply { bytes, .. } => String::from_utf8(bytes).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_invite_reads_its_game_and_every_option() {
        let Verdict::Invite { invite, used } = answer_to(
            Stage::Handshake,
            "game invite Reversi time=5+3 side=WHITE public",
        ) else {
            panic!()
        };
        assert_eq!(used, 46);
        assert_eq!(invite.game.info.name, "reversi");
        assert_eq!(invite.time.as_deref(), Some("5+3"));
        assert_eq!(
            (invite.side, invite.public, invite.rated),
            (Some(1), true, false)
        );
        let Verdict::Invite { invite, .. } = answer_to(
            Stage::Handshake,
            "GAME INVITE tictactoe side=1 public private rated",
        ) else {
            panic!()
        };
        assert!(invite.rated);
        assert_eq!(
            (invite.time, invite.side, invite.public),
            (None, Some(0), false)
        );
    }

    #[test]
    fn every_invite_error_is_its_line() {
        for (line, error) in [
            (
                "GAME INVITE chess",
                "ERROR no game \"chess\" here; games: reversi tictactoe",
            ),
            (
                "GAME INVITE foxes time=5+3",
                "ERROR foxes is played in real time and takes no time=\n",
            ),
            (
                "GAME INVITE reversi side=green",
                "ERROR side=green: reversi's sides are black, white (or 1, 2, random)\n",
            ),
            (
                "GAME INVITE reversi side=3",
                "ERROR side=3: reversi's sides are black, white (or 1, 2, random)\n",
            ),
            (
                "GAME INVITE reversi ranked",
                "ERROR unknown option \"ranked\" (options: time=, side=, public, private, rated, casual)\n",
            ),
        ] {
            let got = error_of(answer_to(Stage::Handshake, line));
            assert!(got.starts_with(error), "{line}: {got}");
        }
    }

    #[test]
    fn queued_or_inviting_clients_ask_for_no_other_game_but_may_list() {
        for line in ["GAME INVITE reversi", "GAME JOIN 1", "GAME RESUME x"] {
            assert_eq!(
                error_of(answer_to(Stage::Queued, line)),
                format!("ERROR {WAITING_ALREADY}\n")
            );
        }
        assert_eq!(
            answer_to(Stage::Queued, "GAME LOBBY"),
            Verdict::Challenges { used: 10 }
        );
    }

    #[test]
    fn join_and_resume_carry_what_was_written() {
        assert_eq!(
            answer_to(Stage::Handshake, "GAME JOIN 4821 0937 5562"),
            Verdict::JoinCode {
                code: "4821 0937 5562".into(),
                used: 24
            }
        );
        assert_eq!(
            answer_to(Stage::Handshake, "game resume abc"),
            Verdict::Resume {
                token: "abc".into(),
                used: 15
            }
        );
        assert!(answer(&lobby(), Stage::Handshake, "GAME TYPE reversi", 1).is_none());
        assert!(answer(&lobby(), Stage::Handshake, "GAMES JOIN 1", 1).is_none());
    }

    #[test]
    fn what_the_server_tells_is_lines() {
        let offered = Offered {
            code: "4821-0937-5562".into(),
            seconds: 900,
            game: "draughts",
            options: "time=5+3 side=random private".into(),
        };
        let created = Told::Created {
            offered: offered.clone(),
            link: "http://h/#join=4821-0937-5562".into(),
        };
        assert_eq!(
            String::from_utf8(tell(&created)).unwrap(),
            "GAME CODE 4821-0937-5562 900 draughts time=5+3 side=random private\n\
             GAME LINK http://h/#join=4821-0937-5562\n"
        );
        assert_eq!(
            String::from_utf8(tell(&Told::Listing(vec![offered]))).unwrap(),
            "GAME CHALLENGE 4821-0937-5562 900 draughts time=5+3 side=random private\n\
             GAME CHALLENGES 1\n"
        );
        assert_eq!(tell(&Told::Listing(vec![])), b"GAME CHALLENGES 0\n");
        assert_eq!(
            tell(&Told::Expired {
                code: "4821-0937-5562".into()
            }),
            b"GAME EXPIRED 4821-0937-5562\n"
        );
    }
}
