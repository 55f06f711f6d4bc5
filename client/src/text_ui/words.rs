//! What the text-protocol client tells a person, in words, for both the
//! full-screen view and the line mode. Teams have the names the server gave
//! (`GAME TEAMS`, `GAME TEAM`), else they are "team k".

use std::time::{Duration, Instant};

use reversi_client::text::clock::{format_left, LOW};
use reversi_client::text::{
    Board, Challenge, Game, Notice, Offer, Seat, Standing, Terms, TimeControl,
};

use super::numbering::Numbering;

/// A team as people read it: `X (team 1, you)`, `white (team 2)` or `team 2`.
pub fn team(game: Option<&Game>, team: u8) -> String {
    let Some(game) = game else {
        return format!("team {team}");
    };
    // Who plays it, where the server said (`GAME PLAYER`): `Black, Alice (1532)`.
    let player = game
        .player_names(team)
        .map(|names| format!(", {names}"))
        .unwrap_or_default();
    match &game.seat {
        Seat::Player { team: mine, name } if *mine == team => {
            format!("{name}{player} (team {team}, you)")
        }
        _ => match game.team_name(team) {
            Some(name) => format!("{name}{player} (team {team})"),
            None => format!("team {team}{player}"),
        },
    }
}

/// `text` (lines of [`notice`], [`team`], [`header`]) told of a player
/// named `who` instead of "you": the demo shows a game two bots play.
pub fn third_person(text: &str, who: &str) -> String {
    text.replace("you play ", &format!("{who} plays "))
        .replace(", you)", &format!(", {who})"))
}

/// The rules of the game, from its module in the games crate, for both
/// views' help: `Rules of English draughts: ...`.
pub fn rules(game: &Game) -> Option<String> {
    let info = reversi_games::registry::find(&game.game)?.info;
    Some(format!("Rules of {}: {}", info.title, info.rules))
}

/// What the clocks shown mean, for both views' help.
pub const CLOCK_HELP: &str = "Clocks: the time a team has for its move, as the server tells it \
(GAME CLOCK), counts down beside the team; LOW warns under 10 s. A game's own countdowns \
(GAME TIMER: Foxes & Dolphins' tide and quiet rule) count down under them. Binary Reversi's \
protocol sends no clock, so over it none is shown: its move time limit still applies.";

/// A clock as shown.
pub struct ClockLine {
    /// `black (team 1, you): 27 s running`, with `LOW` under ten seconds,
    /// so the warning reads without colour.
    pub text: String,
    pub running: bool,
    pub low: bool,
}

/// Each team's clock at `now`, team 1 first.
pub fn clocks(game: &Game, now: Instant) -> Vec<ClockLine> {
    game.clocks
        .iter()
        .map(|clock| {
            let running = game.running_clock() == Some(clock.team);
            let left = clock.time.left(now, running);
            let low = running && left < LOW;
            let state = match (running, low) {
                (true, true) => " running, LOW",
                (true, false) => " running",
                (false, _) => " (stopped)",
            };
            let text = format!(
                "{}: {}{state}",
                team(Some(game), clock.team),
                format_left(left)
            );
            ClockLine { text, running, low }
        })
        .collect()
}

/// Each of the game's own countdowns at `now`: `tide in 7 s: the tide turns`.
pub fn timers(game: &Game, now: Instant) -> Vec<String> {
    game.timers
        .iter()
        .map(|timer| {
            // The rematch window runs after the game; the game's own timers stop with it.
            let runs = game.over.is_none() || timer.name == "rematch";
            let left = format_left(timer.time.left(now, runs));
            format!("{} in {left}: {}", timer.name, timer.text)
        })
        .collect()
}

/// Each team whose player dropped: how long its seat is held, or that a win or a
/// draw may be claimed.
pub fn away(game: &Game, now: Instant) -> Vec<String> {
    game.away
        .iter()
        .map(|away| {
            let who = team(Some(game), away.team);
            let left = away.time.left(now, true);
            if away.time.ms == 0 {
                format!("{who} did not come back: w claims the win, d a draw")
            } else {
                format!("{who} is away: seat held {}", format_left(left))
            }
        })
        .collect()
}

/// The pieces each team has on the board: `X (team 1, you) 3, O (team 2) 2`.
pub fn counts(game: &Game) -> String {
    let mut counts: std::collections::BTreeMap<u8, usize> =
        (1..=game.teams.len() as u8).map(|k| (k, 0)).collect();
    for (_, piece) in game.board.pieces() {
        *counts.entry(piece.team).or_default() += 1;
    }
    let parts: Vec<String> = counts
        .iter()
        .map(|(&k, n)| format!("{} {n}", team(Some(game), k)))
        .collect();
    format!("pieces on the board: {}", parts.join(", "))
}

/// One line about the game: what it is and who this client is in it.
pub fn header(game: &Game) -> String {
    let board = &game.board;
    let who = match &game.seat {
        Seat::Player { team, name } => format!("you play {name} (team {team})"),
        Seat::Viewer { id } => format!("watching game {id}"),
    };
    let round = if game.round > 1 {
        format!(", game {}", game.round)
    } else {
        String::new()
    };
    format!(
        "{} on {} {}x{}{round}: {who}",
        game.game,
        board.name(),
        board.width(),
        board.height()
    )
}

/// Whose move it is, or how the game ended.
pub fn status(game: &Game) -> String {
    if let Some(over) = &game.over {
        let ended = match over.winner {
            Some(k) => format!("game over: {} won ({})", team(Some(game), k), over.why),
            None => format!("game over: a draw ({})", over.why),
        };
        return match &over.result {
            Some((standing, _)) => format!("{}: {ended}", verdict(*standing)),
            None => ended,
        };
    }
    if game.ready {
        return "Your move.".to_owned();
    }
    match game.turn {
        Some(k) if game.team() == Some(k) => "your team's move".to_owned(),
        Some(k) => format!("{} to move", team(Some(game), k)),
        None => "waiting for the server".to_owned(),
    }
}

/// The heading of the list of moves. A viewer is sent the board as it
/// stands when it joins, not the moves before (spec/TEXT-PROTOCOL.md §7),
/// so its list starts there and says so.
pub fn moves_heading(game: &Game) -> String {
    let count = game.moves.len();
    match game.seat {
        Seat::Player { .. } => format!("moves ({count})"),
        Seat::Viewer { .. } => {
            format!("moves since you began watching ({count}; earlier ones are not sent)")
        }
    }
}

/// The legal moves as a line, `legal moves: d3 c4 f5 e6`, where the client
/// knows them; else why not.
pub fn legal_moves(game: Option<&Game>) -> String {
    match game {
        None => "refused: no game yet".to_owned(),
        Some(game) => match &game.legal {
            Some(moves) => format!("legal moves: {}", moves.join(" ")),
            None if !game.ready => "refused: not your turn".to_owned(),
            None => "refused: this client does not know this game's rules".to_owned(),
        },
    }
}

/// Where the cursor is: "cursor at d3", or "cursor at 3 6, square 11" in a
/// game whose notation numbers the squares.
pub fn cursor(game: &Game, (x, y): (u8, u8)) -> String {
    let at = game.board.square_name(x, y);
    match Numbering::of(&game.game).and_then(|n| n.number(x, y)) {
        Some(number) => format!("cursor at {at}, square {number}"),
        None => format!("cursor at {at}"),
    }
}

fn verdict(standing: Standing) -> &'static str {
    match standing {
        Standing::Win => "YOU WIN",
        Standing::Lose => "YOU LOSE",
        Standing::Draw => "DRAW",
    }
}

/// Whether a notice reports a failure (the line mode prints it on stderr).
pub fn is_failure(notice: &Notice) -> bool {
    matches!(
        notice,
        Notice::Aborted(_)
            | Notice::Denied(_)
            | Notice::Closed { finished: false }
            | Notice::Violation(_)
            | Notice::ConnectFailed(_)
    )
}

/// The words for a notice; `None` for those shown otherwise (the board).
pub fn notice(notice: &Notice, game: Option<&Game>) -> Option<String> {
    Some(match notice {
        Notice::Version { version, server } => format!("server: {server}, protocol {version}"),
        Notice::Waiting { more: 1 } => "waiting for 1 more player...".to_owned(),
        Notice::Waiting { more } => format!("waiting for {more} more players..."),
        Notice::Listed(sessions) => format!("{} games running", sessions.len()),
        Notice::Started => header(game?),
        Notice::BoardChanged | Notice::Turn(_) => return None,
        Notice::YourMove => "the server waits for your move".to_owned(),
        Notice::Moved { team: k, notation } => format!("{} played {notation}", team(game, *k)),
        Notice::News(text) => format!("news: {text}"),
        Notice::Clock { team: k, ms } => {
            let left = Duration::from_millis(*ms);
            let low = if left < LOW { ", LOW" } else { "" };
            format!("clock: {} has {}{low}", team(game, *k), format_left(left))
        }
        Notice::Timer { name, ms: 0, .. } => format!("{name}: stopped"),
        Notice::Timer { name, ms, text } => {
            let left = format_left(Duration::from_millis(*ms));
            format!("{name} in {left}: {text}")
        }
        Notice::ServerRefused(why) => format!("the server refused: {why}"),
        Notice::Denied(why) => format!("the server refused: {why}"),
        Notice::Over { .. } => status(game?),
        Notice::Result { standing, why } => format!("{}: {why}", verdict(*standing)),
        Notice::Aborted(why) => format!("the server stopped the game: {why}"),
        Notice::Refused(why) => format!("refused: {why}"),
        Notice::Illegal(why) => format!("refused: {why}"),
        Notice::Quit { paired: false } => "you left the queue".to_owned(),
        Notice::Quit { paired: true } => "you left the game".to_owned(),
        Notice::Closed { finished: true } => "the server closed the connection".to_owned(),
        Notice::Closed { finished: false } => {
            "the server closed the connection before the game ended".to_owned()
        }
        Notice::Violation(what) => format!("protocol error from the server: {what}"),
        Notice::ConnectFailed(why) => why.clone(),
        Notice::Invited {
            code,
            seconds,
            game: name,
            terms,
        } => invited(code, *seconds, name, terms),
        Notice::Link(url) => format!("link for the web page: {url}"),
        Notice::Expired(code) => format!("challenge {code} expired: nobody accepted it"),
        Notice::Lobby(challenges) => lobby(challenges),
        Notice::Time(control) => time_control(control),
        Notice::Resumed(id) => format!("back in game {id}: play goes on"),
        Notice::Identified(name) => format!("the server knows you as {name}"),
        // The move list made whole after a resume: not news.
        Notice::Replayed { .. } => return None,
        Notice::Reconnecting { left } => format!(
            "connection lost, reconnecting… ({} s of the seat's grace left)",
            left.as_secs()
        ),
        Notice::Away { team: k, ms: 0 } => format!(
            "{} has not come back: claim the win (w, or claim win), a draw (d, or claim draw), \
             or wait",
            team(game, *k)
        ),
        Notice::Away { team: k, ms } => format!(
            "{}'s connection dropped; its seat is held {} s",
            team(game, *k),
            ms / 1000
        ),
        Notice::Back(k) => format!("{} is back", team(game, *k)),
        Notice::Offered {
            team: k,
            what: Offer::Draw,
        } => format!(
            "{} offers a draw (accept draw, decline draw)",
            team(game, *k)
        ),
        Notice::Offered {
            team: k,
            what: Offer::Rematch,
        } => format!(
            "{} offers a rematch: r (or rematch) accepts, n (or decline) declines",
            team(game, *k)
        ),
        Notice::Called(line) => called(line)?,
    })
}

/// A tournament's call: "round 3 board 2: Ann (moves first) against Bob".
fn called(line: &reversi_client::text::tournament::TournamentLine) -> Option<String> {
    use reversi_client::text::tournament::TournamentLine;
    Some(match line {
        TournamentLine::Paired {
            round,
            board,
            first,
            second,
            ..
        } => format!("round {round} board {board}: {first} (moves first) against {second}"),
        TournamentLine::Bye { round, points, .. } => {
            format!("round {round}: you sit it out (a bye, {points} points)")
        }
        TournamentLine::Released {
            id,
            withdrawn: true,
        } => format!("you were withdrawn from tournament {id}: no more games for you"),
        TournamentLine::Released { id, .. } => {
            format!("tournament {id} is over: no more games for you")
        }
        _ => return None,
    })
}

/// The code of a new challenge, large enough to read out, and how to use it.
fn invited(code: &str, seconds: u64, game: &str, terms: &Terms) -> String {
    let spaced: String = code
        .chars()
        .map(|c| {
            if c == '-' {
                "   ".to_owned()
            } else {
                format!("{c} ")
            }
        })
        .collect();
    format!(
        "challenge: {game}, {terms}\n\n    CODE   {spaced}\n\n\
         give your friend this code ({code}: reversi play --join {code}) or the link below; \
         it lives {} min",
        seconds.div_ceil(60)
    )
}

/// The public challenges, numbered, oldest first.
pub fn lobby(challenges: &[Challenge]) -> String {
    if challenges.is_empty() {
        return "no public challenges now".to_owned();
    }
    let mut text = format!("{} public challenges:", challenges.len());
    for (i, c) in challenges.iter().enumerate() {
        text.push_str(&format!(
            "\n  {}. {}  {}  {}",
            i + 1,
            c.code,
            c.game,
            c.terms
        ));
    }
    text
}

/// `GAME TIME` in words: "clock: 5 min + 3 s a move for each side".
pub fn time_control(control: &TimeControl) -> String {
    let secs = |ms: u64| format_left(Duration::from_millis(ms));
    match *control {
        TimeControl::Fischer { base, increment } => format!(
            "clock: {} for each side, + {} after each move",
            secs(base),
            secs(increment)
        ),
        TimeControl::Move { limit, first } => {
            format!(
                "clock: {} a move ({} for a first move)",
                secs(limit),
                secs(first)
            )
        }
        TimeControl::None => "no clock".to_owned(),
    }
}

/// How a move typed as numbers (`4 6`) names squares on `board`: x counts
/// columns from the left, y rows from the bottom (seed 000's (1, 1) is the
/// lower left), whatever names the game gives its edges. Where the edges
/// show names, the corners say how the two relate.
pub fn coordinates(board: &Board) -> String {
    let (w, h) = (board.width(), board.height());
    let numbered = (1..=w).all(|x| board.column_name(x) == x.to_string())
        && (1..=h).all(|y| board.row_name(y) == y.to_string());
    if numbered {
        return format!(
            "As numbers, a square is x y, as the edges show: 1 1 is the lower left square, \
             {w} {h} the upper right."
        );
    }
    // square_name is `d3` where both edges are named, else numbers again.
    let both_named = board.square_name(1, 1) != "1 1";
    let corner = |x: u8, y: u8| match both_named {
        true => format!("{x} {y} is {}", board.square_name(x, y)),
        false => format!(
            "{x} {y} is column {} row {}",
            board.column_name(x),
            board.row_name(y)
        ),
    };
    format!(
        "As numbers, a square is x y, counted from 1 1 at the lower left, whatever the edges \
         are called: {} (lower left), {} (upper right).",
        corner(1, 1),
        corner(w, h)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_read_without_colour_and_warn_in_words() {
        use reversi_client::text::clock::{Clock, Countdown};
        let mut game = super::super::test_game(
            "TicTacToe",
            ("TicTacToeBoard", 3, 3),
            Seat::Player {
                team: 1,
                name: "X".into(),
            },
        );
        game.teams = vec!["X".into(), "O".into()];
        let since = Instant::now();
        for (team, ms) in [(1, 12_000), (2, 30_000)] {
            let time = Countdown { ms, since };
            game.clocks.push(Clock { team, time });
        }
        let later = since + Duration::from_millis(2_500);
        let shown: Vec<String> = clocks(&game, later).into_iter().map(|c| c.text).collect();
        assert_eq!(
            shown,
            [
                "X (team 1, you): 9.5 s running, LOW",
                "O (team 2): 30 s (stopped)"
            ]
        );
        let told = notice(&Notice::Clock { team: 1, ms: 9_000 }, Some(&game)).unwrap();
        assert_eq!(told, "clock: X (team 1, you) has 9.0 s, LOW");
        let timer = Notice::Timer {
            name: "tide".into(),
            ms: 7_000,
            text: "the tide turns".into(),
        };
        assert_eq!(
            notice(&timer, Some(&game)).unwrap(),
            "tide in 7.0 s: the tide turns"
        );
        game.board.draw_square("empty", 2, 2).unwrap();
        game.board.draw_piece("x", 1).unwrap();
        assert_eq!(
            counts(&game),
            "pieces on the board: X (team 1, you) 1, O (team 2) 0"
        );
    }

    #[test]
    fn the_demo_names_the_bot_not_you() {
        let game = super::super::test_game(
            "Reversi",
            ("ReversiBoard", 8, 8),
            Seat::Player {
                team: 1,
                name: "black".into(),
            },
        );
        let said = third_person(&header(&game), "first bot");
        assert!(said.contains("first bot plays black (team 1)"), "{said}");
        let said = third_person(&team(Some(&game), 1), "first bot");
        assert_eq!(said, "black (team 1, first bot)");
        assert!(!said.contains("you"));
    }

    #[test]
    fn numbers_on_a_board_whose_rows_count_from_the_top() {
        let mut board = Board::new("ReversiBoard", 8, 8).unwrap();
        let columns = "a b c d e f g h".split(' ').map(str::to_owned).collect();
        board.name_columns(columns).unwrap();
        let rows = "8 7 6 5 4 3 2 1".split(' ').map(str::to_owned).collect();
        board.name_rows(rows).unwrap();
        let text = coordinates(&board);
        assert!(
            text.contains("1 1 is a8 (lower left), 8 8 is h1 (upper right)"),
            "{text}"
        );
    }

    #[test]
    fn a_viewer_is_told_its_moves_start_when_it_began_watching() {
        let mut game =
            super::super::test_game("Reversi", ("ReversiBoard", 8, 8), Seat::Viewer { id: 4 });
        let heading = moves_heading(&game);
        assert!(
            heading.starts_with("moves since you began watching (0"),
            "{heading}"
        );
        assert!(heading.contains("earlier ones are not sent"), "{heading}");
        game.seat = Seat::Player {
            team: 1,
            name: "black".into(),
        };
        assert_eq!(moves_heading(&game), "moves (0)");
    }

    #[test]
    fn the_cursor_says_its_square_number_where_the_notation_numbers_squares() {
        let seat = Seat::Player {
            team: 1,
            name: "black".into(),
        };
        let mut game = super::super::test_game("Draughts", ("DraughtsBoard", 8, 8), seat);
        // spec/games/draughts.md: square 11 is (6, 6); (3, 6) is a light square.
        assert_eq!(cursor(&game, (6, 6)), "cursor at 6 6, square 11");
        assert_eq!(cursor(&game, (3, 6)), "cursor at 3 6");
        game.game = "TicTacToe".into();
        assert_eq!(cursor(&game, (6, 6)), "cursor at 6 6");
    }

    #[test]
    fn numbers_on_a_numbered_board() {
        let board = Board::new("FoxesBoard", 6, 15).unwrap();
        let text = coordinates(&board);
        assert!(
            text.contains("as the edges show: 1 1 is the lower left"),
            "{text}"
        );
        assert!(text.contains("6 15 the upper right"), "{text}");
    }
}
