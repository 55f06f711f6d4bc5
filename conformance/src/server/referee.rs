//! The kit's own referee: it plays a move on its copy of the game, sends it
//! to the server, and judges what every player and viewer is sent after it
//! (TEXT-PROTOCOL.md §5.2, §5.3, §6.1) against that copy.

use reversi_games::{Action, Game, Outcome, Standing, Team, Update, Viewer};

use crate::conn::{Conn, Recv};
use crate::report::Finding;
use crate::server::table::{past_draws, same_board, Table};

/// `MOVE n x1 y1 …`: `action`'s squares in seed 000's form.
pub fn coordinates(action: &Action) -> String {
    let Action::Move(points) = action else {
        unreachable!("the kit sends only moves in coordinate form")
    };
    let squares: Vec<String> = points.iter().map(|p| p.to_string()).collect();
    format!("MOVE {} {}", points.len(), squares.join(" "))
}

/// `MOVE notation`: `action` in the game's own notation.
pub fn notation(game: &dyn Game, team: Team, action: &Action) -> String {
    let mut copy = game.clone_box();
    let update = copy
        .play(team, action, 0)
        .expect("the kit plays legal moves");
    let moved = update.moved.expect("a move is announced");
    format!("MOVE {}", moved.notation)
}

/// `team`'s player sends `line`, which is `action`; every player of `table`
/// and every viewer in `viewers` must be told the move as `game` plays it.
pub fn judge_move(
    table: &mut Table,
    viewers: &mut [Conn],
    game: &mut dyn Game,
    (team, action, line): (Team, &Action, &str),
) -> Result<(), Finding> {
    let update = game
        .play(team, action, 0)
        .map_err(|why| Finding::differ("the kit", "a legal move", why.0))?;
    table.players[usize::from(team.0)].send(line)?;
    for (t, conn) in table.players.iter_mut().enumerate() {
        let seat = Team(t as u8);
        judge_update(conn, game, &update, Viewer::Team(seat))?;
        judge_next(conn, game, Some(seat))?;
    }
    for conn in viewers {
        judge_update(conn, game, &update, Viewer::Spectator)?;
        judge_next(conn, game, None)?;
    }
    Ok(())
}

/// §5.3: `GAME MOVED`, the `DRAW` lines, `GAME NEWS`; leaves the next line unread.
fn judge_update(
    conn: &mut Conn,
    game: &dyn Game,
    update: &Update,
    viewer: Viewer,
) -> Result<(), Finding> {
    let Some(update) = game.relay(update, viewer) else {
        return Ok(());
    };
    if let Some(moved) = &update.moved {
        conn.next_is(&format!(
            "GAME MOVED {} {}",
            moved.team.number(),
            moved.notation
        ))?;
    }
    let after = past_draws(conn);
    same_board(conn, &game.view(viewer))?;
    match (after, &update.news) {
        (Recv::Line(line), Some(news)) if line == format!("GAME NEWS {news}") => Ok(()),
        (got, Some(news)) => Err(conn.differ(format!("\"GAME NEWS {news}\""), got.show())),
        (Recv::Line(line), None) => {
            conn.unread(line);
            Ok(())
        }
        (got, None) => Err(conn.differ("the lines after the move", got.show())),
    }
}

/// What follows a move: `GAME TURN` and `READY` to the mover (§5.2), or the end (§6.1).
fn judge_next(conn: &mut Conn, game: &dyn Game, seat: Option<Team>) -> Result<(), Finding> {
    if let Some(outcome) = game.outcome() {
        return judge_end(conn, outcome, seat);
    }
    let Some(turn) = game.turn() else {
        return Ok(());
    };
    conn.next_is(&format!("GAME TURN {}", turn.number()))?;
    if seat == Some(turn) {
        conn.next_is("READY")?;
    }
    Ok(())
}

/// §6.1: `GAME OVER` to all, `RESULT` to players.
pub fn judge_end(conn: &mut Conn, outcome: &Outcome, seat: Option<Team>) -> Result<(), Finding> {
    conn.next_is(&game_over(outcome))?;
    match seat {
        Some(team) => conn.next_is(&result(outcome.standing(team), outcome.why())),
        None => Ok(()),
    }
}

/// The `GAME OVER` line of `outcome`.
pub fn game_over(outcome: &Outcome) -> String {
    match outcome.winner() {
        Some(team) => format!("GAME OVER {} {}", team.number(), outcome.why()),
        None => format!("GAME OVER DRAW {}", outcome.why()),
    }
}

/// The `RESULT` line of `standing` (§6.1).
pub fn result(standing: Standing, why: &str) -> String {
    match standing {
        Standing::Win => format!("RESULT WIN Your team has won: {why}"),
        Standing::Lose => format!("RESULT LOSE Your team has lost: {why}"),
        Standing::Draw => format!("RESULT DRAW The game is drawn: {why}"),
    }
}

/// The lines of a forfeit (§6.2) for the team `loser` whose *why* is `why`:
/// `GAME OVER` with the other team winning, and each player's `RESULT`.
pub fn forfeit_lines(loser: Team, why: &str) -> (String, [String; 2]) {
    let winner = loser.other();
    let over = format!("GAME OVER {} {why}", winner.number());
    let mut results = [String::new(), String::new()];
    results[usize::from(loser.0)] = result(Standing::Lose, why);
    results[usize::from(winner.0)] = result(Standing::Win, why);
    (over, results)
}

/// Plays `moves` (in the game's notation, each sent as `MOVE <move>` by the
/// team to move) and judges every announcement of each.
pub fn play_script(
    table: &mut Table,
    viewers: &mut [Conn],
    game: &mut dyn Game,
    moves: &[&str],
) -> Result<(), Finding> {
    for text in moves {
        let team = game.turn().ok_or_else(|| {
            Finding::differ("the kit", format!("a turn for {text}"), "the game is over")
        })?;
        let action = game
            .parse_action(text)
            .map_err(|why| Finding::differ("the kit", format!("a move: {text}"), why.0))?;
        judge_move(
            table,
            viewers,
            game,
            (team, &action, &format!("MOVE {text}")),
        )?;
    }
    Ok(())
}

/// The kit's copy of the game must end as the spec's example says, before
/// the server is held to it.
pub fn kit_ends(game: &dyn Game, expected: &str) -> Result<(), Finding> {
    let got = game.outcome().map(game_over);
    if got.as_deref() == Some(expected) {
        Ok(())
    } else {
        Err(Finding::differ(
            "the kit's own rules",
            expected,
            format!("{got:?}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forfeit_names_the_loser_and_tells_each_player_its_result() {
        let (over, results) = forfeit_lines(Team::FIRST, "X left the game");
        assert_eq!(over, "GAME OVER 2 X left the game");
        assert_eq!(
            results[0],
            "RESULT LOSE Your team has lost: X left the game"
        );
        assert_eq!(results[1], "RESULT WIN Your team has won: X left the game");
    }

    #[test]
    fn the_end_by_the_rules_in_6_1s_words() {
        let draw = Outcome::Draw {
            why: "32-32".into(),
        };
        assert_eq!(game_over(&draw), "GAME OVER DRAW 32-32");
        assert_eq!(
            result(draw.standing(Team::FIRST), draw.why()),
            "RESULT DRAW The game is drawn: 32-32"
        );
        let win = Outcome::Win {
            team: Team::SECOND,
            why: "38-26".into(),
        };
        assert_eq!(game_over(&win), "GAME OVER 2 38-26");
    }

    #[test]
    fn a_move_is_written_in_both_forms() {
        let game = crate::rules::opening("draughts");
        let action = game.parse_action("11-15").unwrap();
        assert_eq!(coordinates(&action), "MOVE 2 6 6 5 5");
        assert_eq!(notation(game.as_ref(), Team::FIRST, &action), "MOVE 11-15");
    }
}
