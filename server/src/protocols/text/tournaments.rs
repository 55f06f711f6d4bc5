//! The text protocol's tournament lines (spec/TOURNAMENTS.md §7): `GAME TOURNAMENTS`,
//! `GAME STANDINGS id` and `GAME TOURNAMENT <order> …`, read into a
//! [`crate::tournaments::orders::Request`] for the supervisor's director.

use super::error_line;
use crate::protocols::Verdict;
use crate::tournaments::orders::{self, Request};

/// The verdict on a tournament line, or `None` when `line` is none of them.
pub fn answer(line: &str, used: usize) -> Option<Verdict> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (game, rest) = words.split_first()?;
    let (command, args) = rest.split_first()?;
    if !game.eq_ignore_ascii_case("GAME") {
        return None;
    }
    let request = match (command.to_ascii_uppercase().as_str(), args) {
        ("TOURNAMENTS", []) => Ok(Request::List),
        ("TOURNAMENTS", _) => Err("GAME TOURNAMENTS takes nothing".to_owned()),
        ("STANDINGS", [id]) => id
            .parse()
            .map(Request::Standings)
            .map_err(|_| format!("{id:?} is not a tournament's number")),
        ("STANDINGS", _) => Err("GAME STANDINGS takes a tournament's number".to_owned()),
        ("TOURNAMENT", [play, id]) if play.eq_ignore_ascii_case("PLAY") => id
            .parse()
            .map(Request::Play)
            .map_err(|_| format!("{id:?} is not a tournament's number")),
        ("TOURNAMENT", args) => orders::read(args).map(Request::Order),
        _ => return None,
    };
    Some(match request {
        Ok(request) => Verdict::Tournament { request, used },
        Err(why) => Verdict::reply(error_line(&why), used),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournaments::orders::Order;

    fn request(line: &str) -> Option<Request> {
        match answer(line, line.len())? {
            Verdict::Tournament { request, used } => {
                assert_eq!(used, line.len());
                Some(request)
            }
            other => panic!("{line:?}: {other:?}"),
        }
    }

    #[test]
    fn tournament_lines_are_read() {
        assert_eq!(request("GAME TOURNAMENTS"), Some(Request::List));
        assert_eq!(request("game standings 3"), Some(Request::Standings(3)));
        assert_eq!(
            request("GAME TOURNAMENT REGISTER 3"),
            Some(Request::Order(Order::Register(3)))
        );
        assert_eq!(request("GAME TOURNAMENT play 3"), Some(Request::Play(3)));
        assert!(answer("GAME LIST", 9).is_none());
        assert!(answer("HELLO TOURNAMENTS", 17).is_none());
    }

    #[test]
    fn a_wrong_tournament_line_is_an_error_line() {
        for line in [
            "GAME STANDINGS x",
            "GAME TOURNAMENT",
            "GAME TOURNAMENT OPEN",
            "GAME TOURNAMENTS 2",
        ] {
            match answer(line, line.len()) {
                Some(Verdict::Reply { bytes, .. }) => {
                    assert!(bytes.starts_with(b"ERROR "), "{line}")
                }
                other => panic!("{line:?}: {other:?}"),
            }
        }
    }
}
