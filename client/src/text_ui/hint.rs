//! `hint`: a move suggested by the game's own computer player, for any game
//! built into this client whose player reads the drawn board or the moves
//! (Reversi's engine, Duell's, Foxes & Dolphins'). The general player needs
//! the rules, which a drawing does not have, so other games get no hint.

use std::time::Duration;

use reversi_client::bots::{self, Strength};
use reversi_client::drawn::DrawnGame;
use reversi_client::text::Game;
use reversi_games::{registry, Action, Team};

/// How long the player may think: quick enough to wait for.
const THINKING: Duration = Duration::from_millis(300);

/// The line `hint` prints: `hint: d3`, or why there is none.
pub fn hint(game: Option<&Game>) -> String {
    match suggest(game) {
        Ok(squares) => format!("hint: {squares}"),
        Err(why) => format!("refused: {why}"),
    }
}

fn suggest(game: Option<&Game>) -> Result<String, String> {
    let game = game.ok_or("no game yet")?;
    let team = game.team().ok_or("you are watching: viewers cannot play")?;
    if !game.ready {
        return Err("not your turn".to_owned());
    }
    let module = registry::find(&game.game)
        .ok_or_else(|| format!("this client does not know {}", game.game))?;
    if module.own_bot().is_none() {
        return Err(format!("no hint for {}", module.info.title));
    }
    let drawn = DrawnGame::new(module, game)?;
    let strength = Strength {
        move_time: Some(THINKING),
        ..Strength::default()
    };
    let mut player = bots::for_game(module, &strength);
    match player.choose(&drawn, Team(team - 1), THINKING) {
        Some(Action::Move(points)) => {
            let names: Vec<String> = points
                .iter()
                .map(|p| game.board.square_name(p.x, p.y))
                .collect();
            Ok(names.join(" "))
        }
        Some(_) | None => Err("no move to suggest".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_client::text::Seat;
    use reversi_games::Viewer;

    /// Reversi's start, drawn as the server draws it, black (team 1) to move.
    fn reversi_start(ready: bool) -> Game {
        let seat = Seat::Player {
            team: 1,
            name: "black".into(),
        };
        let mut game = super::super::test_game("Reversi", ("ReversiBoard", 8, 8), seat);
        let labels = reversi_games::reversi::INFO.board.labels.unwrap();
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect();
        game.board.name_columns(names(labels.columns)).unwrap();
        game.board.name_rows(names(labels.rows)).unwrap();
        let start = (registry::find("reversi").unwrap().new_game)(&Default::default());
        for cell in start.view(Viewer::Spectator) {
            game.board
                .draw_square(cell.square, cell.at.x, cell.at.y)
                .unwrap();
            if let Some(piece) = cell.piece {
                game.board
                    .draw_piece(&piece.name, piece.team.number())
                    .unwrap();
            }
        }
        game.ready = ready;
        game
    }

    #[test]
    fn reversi_gets_a_legal_move_from_its_engine() {
        let hint = hint(Some(&reversi_start(true)));
        let legal = ["hint: d3", "hint: c4", "hint: f5", "hint: e6"];
        assert!(legal.contains(&hint.as_str()), "{hint}");
    }

    #[test]
    fn no_hint_out_of_turn_or_for_a_game_without_its_own_player() {
        assert_eq!(hint(None), "refused: no game yet");
        assert_eq!(hint(Some(&reversi_start(false))), "refused: not your turn");
        let mut tictactoe = reversi_start(true);
        tictactoe.game = "TicTacToe".into();
        assert_eq!(hint(Some(&tictactoe)), "refused: no hint for Tic-Tac-Toe");
    }
}
