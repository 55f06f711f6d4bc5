//! A game known only by its drawing: the board the server's `DRAW` lines
//! describe, whose turn it is and the moves announced, as a
//! [`reversi_games::Game`] for computer players that read the board from
//! [`Game::view`] (Duell's, Foxes & Dolphins'). It has no rules of its own:
//! it cannot play, list or read actions. A bot uses it for games whose state
//! cannot be rebuilt from their moves (a random set-up the client never sees).

use reversi_games::record::RecordMeta;
use reversi_games::registry::Module;
use reversi_games::{
    Action, Cell, Game, GameInfo, Illegal, Millis, Moved, Outcome, Piece, Point, Team, Update,
    Viewer,
};

use crate::text;

/// The drawing of a game, as a [`Game`].
#[derive(Clone, Debug)]
pub struct DrawnGame {
    info: &'static GameInfo,
    cells: Vec<Cell>,
    turn: Option<Team>,
    moves: Vec<Moved>,
}

impl DrawnGame {
    /// The game `drawn` shows, for `module`'s rules. Fails if a square is not
    /// drawn yet or is of a kind the module's own boards do not have.
    pub fn new(module: &Module, drawn: &text::Game) -> Result<DrawnGame, String> {
        let info = module.info;
        let kinds: Vec<&'static str> = (module.new_game)(&Default::default())
            .view(Viewer::Spectator)
            .into_iter()
            .map(|c| c.square)
            .collect();
        let team = |k: u8| Team::from_number(u32::from(k), info.team_count());
        let board = &drawn.board;
        let mut cells = Vec::new();
        for y in 1..=board.height() {
            for x in 1..=board.width() {
                let cell = board
                    .cell(x, y)
                    .ok_or_else(|| format!("square ({x}, {y}) is not drawn yet"))?;
                let square = kinds
                    .iter()
                    .find(|k| **k == cell.square)
                    .ok_or_else(|| format!("{} has no {:?} square", info.title, cell.square))?;
                let piece = match &cell.piece {
                    Some(p) => Some(Piece {
                        name: p.name.clone(),
                        team: team(p.team).ok_or_else(|| format!("no team {}", p.team))?,
                    }),
                    None => None,
                };
                cells.push(Cell {
                    at: Point::new(x, y),
                    square,
                    piece,
                });
            }
        }
        let moves = drawn
            .moves
            .iter()
            .filter_map(|m| {
                Some(Moved {
                    team: team(m.team)?,
                    notation: m.notation.clone(),
                })
            })
            .collect();
        Ok(DrawnGame {
            info,
            cells,
            turn: drawn.turn.and_then(team),
            moves,
        })
    }

    fn no_rules() -> Illegal {
        Illegal::new("only the drawing of this game is known here, not its rules")
    }
}

impl Game for DrawnGame {
    fn info(&self) -> &'static GameInfo {
        self.info
    }

    fn turn(&self) -> Option<Team> {
        self.turn
    }

    /// Whoever the server says READY to may act: the drawing cannot tell.
    fn may_move(&self, _team: Team, _now: Millis) -> bool {
        true
    }

    fn play(&mut self, _team: Team, _action: &Action, _now: Millis) -> Result<Update, Illegal> {
        Err(DrawnGame::no_rules())
    }

    /// A bot is only asked while the game is on.
    fn outcome(&self) -> Option<&Outcome> {
        None
    }

    fn view(&self, _viewer: Viewer) -> Vec<Cell> {
        self.cells.clone()
    }

    fn parse_action(&self, _text: &str) -> Result<Action, Illegal> {
        Err(DrawnGame::no_rules())
    }

    fn legal_actions(&self, _team: Team) -> Vec<Action> {
        Vec::new()
    }

    fn history(&self) -> Vec<Moved> {
        self.moves.clone()
    }

    /// No record: the drawing has no set-up and no rules to write one with.
    fn record(&self, _meta: &RecordMeta) -> String {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_games::{registry, CloneGame};
    use reversi_text::ServerMessage;

    #[test]
    fn a_drawn_tictactoe_shows_what_was_drawn() {
        let mut client = text::Client::new();
        client.handle(text::Event::User(text::Request::Join("tictactoe".into())));
        client.handle(text::Event::Opened(Ok(())));
        let mut lines = vec![
            "GAME TYPE TicTacToe".to_owned(),
            "GAME BOARD TicTacToeBoard 3 3".to_owned(),
            "GAME TEAM 2 O".to_owned(),
        ];
        for y in 1..=3 {
            for x in 1..=3 {
                lines.push(format!("DRAW SQUARE empty {x} {y}"));
            }
        }
        lines.extend(["DRAW PIECE x 1", "GAME MOVED 1 c3", "GAME TURN 2"].map(String::from));
        for line in &lines {
            client.handle(text::Event::Received(ServerMessage::parse(line).unwrap()));
        }
        let module = registry::find("tictactoe").unwrap();
        let drawn = DrawnGame::new(module, client.game().unwrap()).unwrap();
        assert_eq!(drawn.turn(), Some(Team::SECOND));
        let view = drawn.view(Viewer::Spectator);
        assert_eq!(view.len(), 9);
        let x = view.iter().find(|c| c.piece.is_some()).unwrap();
        assert_eq!(
            (x.at, x.piece.as_ref().unwrap().team),
            (Point::new(3, 3), Team::FIRST)
        );
        assert_eq!(drawn.history()[0].notation, "c3");
        assert!(drawn
            .clone_box()
            .play(Team::SECOND, &Action::OfferDraw, 0)
            .is_err());
    }
}
