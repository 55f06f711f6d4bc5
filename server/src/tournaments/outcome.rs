//! A tournament game's end as its journal says it (the `finished` line the session wrote,
//! `crate::session::journal`), as the tournament's result. The game was started with its
//! seats in team order, the first player in seat 0.

use reversi_tournament::Outcome;

use crate::session::journal::Contents;

/// The result of the game's last round; `None` when it has none (the session died, the game
/// never started, it ended without a result): the director then plays the game again.
pub fn of_journal(contents: &Contents) -> Option<Outcome> {
    if contents.aborted.is_some() {
        return None;
    }
    let end = contents.rounds.last()?.end.as_ref()?;
    let first_team = *end.teams.first()?;
    match end.winner? {
        None => Some(Outcome::Draw),
        Some(team) if team == first_team => Some(Outcome::FirstWins),
        Some(_) => Some(Outcome::SecondWins),
    }
}

/// The result in a journal's text (see [`of_journal`]; an unreadable journal has none) and the id the archive gives the game's last round, when
/// supervisor `supervisor` archives it (`crate::store::journal_game`).
pub fn of_journal_with_record(text: &str, supervisor: u32) -> (Option<Outcome>, Option<String>) {
    let Ok(contents) = crate::session::journal::read(text) else {
        return (None, None);
    };
    let record = contents.rounds[0]
        .started_ms
        .zip(contents.rounds.last())
        .map(|(started, last)| {
            crate::store::journal_game::record_id(supervisor, started, contents.id, last.number)
        });
    (of_journal(&contents), record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::journal::finished_line;

    fn of_journal_text(text: &str) -> Option<Outcome> {
        of_journal_with_record(text, 1).0
    }

    fn journal(end: &str) -> String {
        format!("game tictactoe id 7 players a b\nstarted 1000\nX b2\t10\n{end}\n")
    }

    #[test]
    fn the_winning_team_says_which_side_won() {
        let first = finished_line(2000, "normal", &[0, 1], Some(Some(0)), "X wins");
        let second = finished_line(2000, "timeout", &[0, 1], Some(Some(1)), "O wins on time");
        let draw = finished_line(2000, "normal", &[0, 1], Some(None), "draw");
        assert_eq!(of_journal_text(&journal(&first)), Some(Outcome::FirstWins));
        assert_eq!(
            of_journal_text(&journal(&second)),
            Some(Outcome::SecondWins)
        );
        assert_eq!(of_journal_text(&journal(&draw)), Some(Outcome::Draw));
    }

    #[test]
    fn the_record_is_named_as_the_archive_names_it() {
        let first = finished_line(2000, "normal", &[0, 1], Some(Some(0)), "X wins");
        assert_eq!(
            of_journal_with_record(&journal(&first), 42),
            (Some(Outcome::FirstWins), Some("42-1000-7-1".to_owned()))
        );
    }

    #[test]
    fn a_game_without_a_result_has_none() {
        let none = finished_line(2000, "never-started", &[0, 1], None, "no result");
        assert_eq!(of_journal_text(&journal(&none)), None);
        assert_eq!(
            of_journal_text("game tictactoe id 7 players a b\nX b2\n"),
            None
        );
        let aborted = "game tictactoe id 7 players a b\nX b2\naborted killed by SIGKILL\n";
        assert_eq!(of_journal_text(aborted), None);
        assert_eq!(of_journal_text(""), None);
    }
}
