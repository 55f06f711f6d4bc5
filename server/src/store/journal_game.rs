//! A journal read back ([`crate::session::journal::Contents`]) as the finished games the
//! store archives: one a round, each with its moves, times and result. A round that never
//! got its `finished` line (the session or the server died) is an aborted game.

use reversi_games::registry;
use reversi_games::Team;
use reversi_store::{
    Ending, FinishedGame, GameId, Mode, MoveRecord, Outcome, Player, Seat, UnixMillis,
};

use crate::session::journal::{Contents, Round, RoundEnd};
use crate::terms::SeatPlayer;

/// Where the journal was found: its supervisor's pid (its name says it) and the host.
pub struct Origin<'a> {
    pub supervisor: u32,
    pub host: &'a str,
    /// The journal file's last change: when a game without a `finished` line stopped.
    pub modified_ms: i64,
    /// Why a game without a `finished` line stopped, when the journal does not say.
    pub unfinished: &'a str,
}

/// The games of a journal; an error says why it cannot be archived.
/// The archive's id of round `round` of game `game` of supervisor `supervisor`, whose first
/// round started at `first_started` (Unix ms).
pub fn record_id(supervisor: u32, first_started: i64, game: u64, round: u32) -> String {
    format!("{supervisor}-{first_started}-{game}-{round}")
}

pub fn games(contents: &Contents, origin: &Origin<'_>) -> Result<Vec<FinishedGame>, String> {
    let module = registry::find(&contents.game)
        .ok_or_else(|| format!("no game called {:?} here", contents.game))?;
    let first_started = contents.rounds[0].started_ms.unwrap_or(origin.modified_ms);
    contents
        .rounds
        .iter()
        .map(|round| {
            let id = record_id(origin.supervisor, first_started, contents.id, round.number);
            let id = GameId::new(&id).ok_or_else(|| format!("cannot make a game id of {id}"))?;
            let team = |name: &str| team_index(module.info, name);
            game(contents, round, id, origin, &team)
        })
        .collect()
}

fn game(
    contents: &Contents,
    round: &Round,
    id: GameId,
    origin: &Origin<'_>,
    team: &dyn Fn(&str) -> Option<u8>,
) -> Result<FinishedGame, String> {
    let moves = round
        .moves
        .iter()
        .map(|m| {
            let team = team(&m.team).ok_or_else(|| format!("no team called {:?}", m.team))?;
            Ok(MoveRecord {
                team,
                notation: m.notation.clone(),
                took_ms: m.took_ms.unwrap_or(0),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let started = round.started_ms.unwrap_or(origin.modified_ms);
    let (outcome, why, ended, teams) = match &round.end {
        Some(end) => (
            outcome(end),
            end.why.clone(),
            end.ended_ms,
            end.teams.clone(),
        ),
        None => {
            let why = contents.aborted.as_deref().unwrap_or(origin.unfinished);
            // The seats' teams are not journalled before the end: the order they joined.
            let teams = (0..contents.players.len()).map(|s| s as u8).collect();
            (Outcome::Aborted, why.to_owned(), origin.modified_ms, teams)
        }
    };
    let seats: Vec<Seat> = teams
        .into_iter()
        .enumerate()
        .map(|(s, team)| Seat {
            team,
            player: player(contents.seats.get(s)),
        })
        .collect();
    Ok(FinishedGame {
        id,
        kind: contents.game.clone(),
        mode: mode(contents.rated, &seats),
        time_control: contents.control.clone().unwrap_or_default(),
        seed: 0,
        seats,
        moves,
        outcome,
        why,
        started: UnixMillis(started),
        ended: UnixMillis(ended.max(started)),
        host: origin.host.to_owned(),
    })
}

/// The store's player of a journal's seat (none written: anonymous).
fn player(seat: Option<&SeatPlayer>) -> Player {
    match seat {
        Some(SeatPlayer::Guest(name)) => Player::Guest(name.clone()),
        Some(SeatPlayer::Account { id, .. }) => Player::Account(*id),
        Some(SeatPlayer::Anonymous) | None => Player::Anonymous,
    }
}

/// Rated only when the game was and every seat is a different account (the store rates
/// no one else, and refuses a rated game that is not so); casual otherwise.
fn mode(rated: bool, seats: &[Seat]) -> Mode {
    let accounts: std::collections::HashSet<_> = (seats.iter())
        .filter_map(|s| match s.player {
            Player::Account(id) => Some(id),
            _ => None,
        })
        .collect();
    if rated && accounts.len() == seats.len() && !seats.is_empty() {
        Mode::Rated
    } else {
        Mode::Casual
    }
}

/// The store's outcome of a round's end (the log's word for how it ended).
fn outcome(end: &RoundEnd) -> Outcome {
    let ending = match end.end.as_str() {
        "normal" | "illegal" => Ending::Rules,
        "quit" => Ending::Resignation,
        "timeout" => Ending::Time,
        // `left`/`left-draw`: a seat dropped and did not come back in its grace, and the
        // opponent claimed the game (a rated game's ratings move, whatever the end).
        "drop" | "malformed" | "left" | "left-draw" => Ending::Abandonment,
        _ => Ending::Aborted,
    };
    match (end.winner, ending) {
        (_, Ending::Aborted) | (None, _) => Outcome::Aborted,
        (Some(None), ending) => Outcome::Draw { ending },
        (Some(Some(team)), ending) => Outcome::Win { team, ending },
    }
}

/// The index of the team a journal names (`black`, `X`, or its number).
fn team_index(info: &reversi_games::GameInfo, name: &str) -> Option<u8> {
    (0..info.team_count())
        .map(|t| t as u8)
        .find(|&t| info.team_name(Team(t)) == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::journal::{finished_line, read};

    const ORIGIN: Origin<'static> = Origin {
        supervisor: 77,
        host: "h",
        modified_ms: 5000,
        unfinished: "the server stopped",
    };

    #[test]
    fn each_round_is_a_game_and_an_unfinished_one_is_aborted() {
        let end = finished_line(2000, "quit", &[1, 0], Some(Some(0)), "X wins (O left)");
        let text = format!(
            "game tictactoe id 9 players a:1 b:2\nstarted 1000\nX b2\t40\nO a1\t7\n{end}\nround 2\nstarted 3000\nO c3\t5\n"
        );
        let games = games(&read(&text).unwrap(), &ORIGIN).unwrap();
        assert_eq!(games.len(), 2);
        let first = &games[0];
        assert_eq!(first.id.as_str(), "77-1000-9-1");
        assert_eq!(
            first.outcome,
            Outcome::Win {
                team: 0,
                ending: Ending::Resignation
            }
        );
        assert_eq!(
            first.moves[0],
            MoveRecord {
                team: 0,
                notation: "b2".into(),
                took_ms: 40
            }
        );
        assert_eq!(first.moves[1].team, 1);
        assert_eq!(
            (first.started, first.ended),
            (UnixMillis(1000), UnixMillis(2000))
        );
        assert_eq!(
            first.seats[0].team, 1,
            "the seats' teams as the round had them"
        );
        let second = &games[1];
        assert_eq!(second.id.as_str(), "77-1000-9-2");
        assert_eq!(second.outcome, Outcome::Aborted);
        assert_eq!(second.why, "the server stopped");
        assert_eq!(second.ended, UnixMillis(5000));
    }

    #[test]
    fn named_seats_are_guests_and_accounts_and_only_all_accounts_rate() {
        use reversi_store::{AccountId, Name};
        let end = finished_line(2000, "normal", &[1, 0], Some(Some(0)), "X wins");
        let game_of = |extra: &str| {
            let text = format!(
                "game tictactoe id 9 players a:1 b:2\nstarted 1000\n{extra}X b2\t40\n{end}\n"
            );
            games(&read(&text).unwrap(), &ORIGIN).unwrap().remove(0)
        };
        let rated = game_of("rated\nseat 0 account 5 Alice\nseat 1 account 6 Bob\n");
        assert_eq!(rated.mode, Mode::Rated);
        assert_eq!(
            rated.seats,
            [
                Seat {
                    team: 1,
                    player: Player::Account(AccountId(5))
                },
                Seat {
                    team: 0,
                    player: Player::Account(AccountId(6))
                },
            ]
        );
        let with_guest = game_of("rated\nseat 0 account 5 Alice\nseat 1 guest bob\n");
        assert_eq!(with_guest.mode, Mode::Casual, "a guest makes it casual");
        assert_eq!(
            with_guest.seats[1].player,
            Player::Guest(Name::new("bob").unwrap())
        );
        let anonymous = game_of("rated\nseat 0 account 5 Alice\n");
        assert_eq!(anonymous.mode, Mode::Casual);
        assert_eq!(anonymous.seats[1].player, Player::Anonymous);
        let twice = game_of("rated\nseat 0 account 5 Alice\nseat 1 account 5 Alice\n");
        assert_eq!(twice.mode, Mode::Casual, "one account in two seats");
        let unrated = game_of("seat 0 account 5 Alice\nseat 1 account 6 Bob\n");
        assert_eq!(unrated.mode, Mode::Casual, "not a rated challenge");
    }

    /// A player who drops and does not come back loses (or draws, as the opponent
    /// claimed) by abandonment: the game is not aborted, and a rated one moves ratings.
    #[test]
    fn a_seat_that_left_loses_or_draws_by_abandonment() {
        let game_of = |end: &str, winner| {
            let end = finished_line(2000, end, &[0, 1], winner, "claimed");
            let text = format!(
                "game tictactoe id 9 players a:1 b:2\nrated\nseat 0 account 5 Alice\n\
                 seat 1 account 6 Bob\nstarted 1000\nX b2\t40\n{end}\n"
            );
            games(&read(&text).unwrap(), &ORIGIN).unwrap().remove(0)
        };
        let left = game_of("left", Some(Some(0)));
        assert_eq!(
            (left.mode, left.outcome),
            (
                Mode::Rated,
                Outcome::Win {
                    team: 0,
                    ending: Ending::Abandonment
                }
            )
        );
        assert_eq!(
            game_of("left-draw", Some(None)).outcome,
            Outcome::Draw {
                ending: Ending::Abandonment
            }
        );
        // Ends with no result stay aborted: no one moved, everyone left, a shutdown.
        for end in ["never-started", "deserted", "aborted"] {
            assert_eq!(game_of(end, None).outcome, Outcome::Aborted, "{end}");
        }
    }

    #[test]
    fn a_sessions_journal_of_two_accounts_archives_as_a_rated_game() {
        use crate::session::journal::{path, Journal};
        use crate::terms::SeatPlayer;
        use reversi_store::{AccountId, Name};
        let dir = std::env::temp_dir().join(format!("reversid-jg-rated-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let at = path(&dir, 77, 12);
        let account = |id, name| SeatPlayer::Account {
            id: AccountId(id),
            name: Name::new(name).unwrap(),
            rating: None,
        };
        let seats = [account(5, "Alice"), account(6, "Bob")];
        let header = "game tictactoe id 12 players a:1 b:2";
        let mut journal = Journal::new(at.clone(), header, Some("5+3")).with_players(true, &seats);
        journal.append("X b2");
        journal.append(&finished_line(9, "quit", &[0, 1], Some(Some(0)), "X wins"));
        journal.finish(true);
        let text = std::fs::read_to_string(&at).unwrap();
        let game = games(&read(&text).unwrap(), &ORIGIN).unwrap().remove(0);
        assert_eq!(
            (game.mode, game.time_control.as_str()),
            (Mode::Rated, "5+3")
        );
        let players: Vec<Player> = game.seats.into_iter().map(|s| s.player).collect();
        assert_eq!(
            players,
            [Player::Account(AccountId(5)), Player::Account(AccountId(6))]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_supervisors_aborted_line_says_why_and_bad_journals_are_refused() {
        let text =
            "game tictactoe id 3 players a:1 b:2\nstarted 10\nX b2\naborted killed by SIGKILL\n";
        let games = games(&read(text).unwrap(), &ORIGIN).unwrap();
        assert_eq!(games[0].why, "killed by SIGKILL");
        assert_eq!(games[0].moves[0].took_ms, 0);
        let unknown = read("game nosuchgame id 3 players a b\n").unwrap();
        assert!(super::games(&unknown, &ORIGIN).is_err());
        let bad_team = read("game tictactoe id 3 players a b\nblack b2\n").unwrap();
        assert!(super::games(&bad_team, &ORIGIN).is_err());
    }
}
