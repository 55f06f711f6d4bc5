//! Reversi as a game module, over `reversi-engine` (the only rules authority).
//!
//! Team 0 is black (moves first), team 1 white. On the text protocol's board
//! (1, 1) is the lower left as the players see it, and Othello diagrams put
//! row 1 at the top: square `d3` is (4, 6). A pass is never played: the
//! engine passes for a side that cannot move, so the same team simply gets
//! the turn again.

use std::time::Duration;

use reversi_engine::player::{Player, PlayerConfig};
use reversi_engine::{Game as Board, Outcome as EngineOutcome, Side, Square};

use crate::bot::Bot;

use crate::game::{
    Action, BoardSpec, Cell, Game, GameInfo, Illegal, IllegalPolicy, Labels, Millis, Moved,
    Outcome, Piece, Point, Team, Update, Viewer,
};
use crate::module::Module;
use crate::record::{self, How, RecordMeta};

pub static INFO: GameInfo = GameInfo {
    name: "reversi",
    wire_type: "Reversi",
    title: "Reversi",
    board: BoardSpec {
        name: "ReversiBoard",
        width: 8,
        height: 8,
        // As the engine writes squares (`d3`): Reversi counts rows from the
        // top, so the protocol's lowest row (y = 1) is row 8.
        labels: Some(Labels {
            columns: &["a", "b", "c", "d", "e", "f", "g", "h"],
            rows: &["8", "7", "6", "5", "4", "3", "2", "1"],
        }),
    },
    teams: &["black", "white"],
    illegal: IllegalPolicy::Retry,
    realtime: false,
    random_teams: true,
    rematch: false,
    record_ext: "ggf",
    rules: "Black begins. Place a disc so that it traps a line of the other side's discs \
(along a row, a column or a diagonal) between it and a disc of yours: the trapped discs turn to \
your colour. A move must turn at least one disc; with no such move you pass. The game ends when \
neither side can move; more discs wins.",
};

pub const MODULE: Module = Module {
    info: &INFO,
    params: &[],
    new_game: |_| Box::new(Reversi::new()),
};

/// The team of an engine side.
pub fn team(side: Side) -> Team {
    match side {
        Side::Black => Team::FIRST,
        Side::White => Team::SECOND,
    }
}

/// The engine side of a team (team 0 black, anything else white).
pub fn side(team: Team) -> Side {
    if team == Team::FIRST {
        Side::Black
    } else {
        Side::White
    }
}

/// The text protocol's point of an engine square.
pub fn point(sq: Square) -> Point {
    Point::new(sq.x() + 1, 8 - sq.y())
}

/// The engine square of a text-protocol point, if on the board.
pub fn square(p: Point) -> Option<Square> {
    let x = p.x.checked_sub(1)?;
    // y = 0 gives row 8, which Square::new refuses like any other off-board row.
    Square::new(x, 8u8.checked_sub(p.y)?)
}

#[derive(Clone, Debug, Default)]
pub struct Reversi {
    board: Board,
    /// Who played each of `board.moves()` (passes are implicit there).
    movers: Vec<Team>,
    outcome: Option<Outcome>,
}

impl Reversi {
    pub fn new() -> Reversi {
        Reversi::default()
    }

    /// The engine's game, for computer players and adapters.
    pub fn board(&self) -> &Board {
        &self.board
    }

    fn cell(&self, sq: Square) -> Cell {
        Cell {
            at: point(sq),
            square: "green",
            piece: self.board.disc(sq).map(|s| Piece {
                name: INFO.team_name(team(s)),
                team: team(s),
            }),
        }
    }

    fn judge(&self) -> Option<Outcome> {
        let (b, w) = (self.board.count(Side::Black), self.board.count(Side::White));
        self.board.outcome().map(|o| {
            let why = disc_count(o, b, w);
            match o {
                EngineOutcome::Win(s) => Outcome::Win { team: team(s), why },
                EngineOutcome::Draw => Outcome::Draw { why },
            }
        })
    }

    /// Disc counts, black then white.
    pub fn discs(&self) -> (u32, u32) {
        (self.board.count(Side::Black), self.board.count(Side::White))
    }

    /// The game in the Generic Game Format, one line.
    ///
    /// RE is black's disc margin; a game that did not end on the board gets the
    /// winner's full margin of 64 with `:r` (a forfeit) or `:t` (the move clock),
    /// and an aborted game `RE[?]`. Passes are written `PA`.
    pub fn ggf(&self, meta: &RecordMeta) -> String {
        let (b, w) = self.discs();
        let result = match (&meta.outcome, meta.how) {
            (Some(_), How::OnTheBoard) => signed(i64::from(b) - i64::from(w)),
            (Some(outcome), How::Forfeit | How::OnTime) => {
                let margin = match outcome.winner() {
                    Some(Team::FIRST) => "+64",
                    Some(_) => "-64",
                    None => "0",
                };
                let how = if meta.how == How::OnTime { "t" } else { "r" };
                format!("{margin}:{how}")
            }
            _ => "?".to_owned(),
        };
        let (date, time) = record::date_time(meta.finished);
        let player = |i: usize| meta.players.get(i).map_or("?", String::as_str);
        let mut text = format!(
            "(;GM[Othello]PC[reversid]DT[{date}_{time}.GMT]PB[{}]PW[{}]RE[{result}]TY[8]\
             BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]",
            player(0),
            player(1),
        );
        let mut expected = Team::FIRST;
        for (i, m) in self.history().into_iter().enumerate() {
            if m.team != expected {
                text.push_str(tag(expected));
                text.push_str("[PA]");
            }
            text.push_str(tag(m.team));
            text.push('[');
            text.push_str(&m.notation);
            // GGF's move is `square/eval/time`: the seconds the move took, where known.
            if let Some(took) = meta.times.get(i).copied().flatten().map(|t| t.took) {
                text.push_str(&format!("//{}.{:02}", took / 1000, took % 1000 / 10));
            }
            text.push(']');
            expected = m.team.other();
        }
        text.push_str(";)");
        text
    }
}

/// Reversi's own computer player: the engine's, at the time each move is given.
pub struct ReversiBot {
    player: Player,
    seed: u64,
}

impl ReversiBot {
    pub fn new(seed: u64) -> ReversiBot {
        ReversiBot {
            player: Player::new(PlayerConfig {
                seed,
                ..PlayerConfig::default()
            }),
            seed,
        }
    }
}

impl Bot for ReversiBot {
    fn choose(&mut self, game: &dyn Game, team: Team, budget: Duration) -> Option<Action> {
        if game.turn() != Some(team) {
            return None;
        }
        // The engine's game, rebuilt from the moves (the trait object hides the type).
        let transcript: String = game.history().iter().map(|m| m.notation.as_str()).collect();
        let board = Board::from_transcript(&transcript).ok()?;
        let config = PlayerConfig {
            move_time: Some(budget.max(Duration::from_millis(1))),
            seed: self.seed,
            ..self.player.config()
        };
        if self.player.config().move_time != config.move_time {
            self.player = Player::new(config);
        }
        let sq = self.player.choose(&board)?;
        Some(Action::Move(vec![point(sq)]))
    }
}

fn tag(team: Team) -> &'static str {
    if team == Team::FIRST {
        "B"
    } else {
        "W"
    }
}

fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

impl Game for Reversi {
    fn info(&self) -> &'static GameInfo {
        &INFO
    }

    fn turn(&self) -> Option<Team> {
        self.board.side_to_move().map(team)
    }

    fn play(&mut self, mover: Team, action: &Action, _now: Millis) -> Result<Update, Illegal> {
        let Some(to_move) = self.turn() else {
            return Err(Illegal::new("the game is over"));
        };
        if mover != to_move {
            return Err(Illegal::new("it is not your turn"));
        }
        let Action::Move(points) = action else {
            return Err(Illegal::new("Reversi has no draw offers"));
        };
        let &[p] = points.as_slice() else {
            return Err(Illegal::new("a move names exactly one square"));
        };
        let sq =
            square(p).ok_or_else(|| Illegal::new(format!("square {p} is not on the board")))?;
        let played = self
            .board
            .play(sq)
            .map_err(|e| Illegal::new(e.to_string()))?;
        self.movers.push(mover);
        self.outcome = self.judge();
        // The placed square first, then the flips in ascending order (update_board's order).
        Ok(Update {
            cells: played.changed().map(|s| self.cell(s)).collect(),
            moved: Some(Moved {
                team: mover,
                notation: sq.to_string(),
            }),
            news: match played.next {
                Some(next) if next == played.side => Some(format!(
                    "{} has no move and passes",
                    INFO.team_name(team(next.opponent()))
                )),
                _ => None,
            },
        })
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    fn view(&self, _viewer: Viewer) -> Vec<Cell> {
        Square::all().map(|s| self.cell(s)).collect()
    }

    fn parse_action(&self, text: &str) -> Result<Action, Illegal> {
        let sq: Square = text
            .trim()
            .parse()
            .map_err(|_| Illegal::new(format!("{text:?} is not a square (a1 to h8)")))?;
        Ok(Action::Move(vec![point(sq)]))
    }

    fn legal_actions(&self, mover: Team) -> Vec<Action> {
        if self.turn() != Some(mover) {
            return Vec::new();
        }
        self.board
            .legal_moves()
            .map(|s| Action::Move(vec![point(s)]))
            .collect()
    }

    fn history(&self) -> Vec<Moved> {
        self.movers
            .iter()
            .zip(self.board.moves())
            .map(|(&team, sq)| Moved {
                team,
                notation: sq.to_string(),
            })
            .collect()
    }

    fn record(&self, meta: &RecordMeta) -> String {
        self.ggf(meta)
    }
}

/// The disc count as `GAME OVER` gives it: the winner's discs first
/// (`48-0` whichever colour won), black's first in a draw.
fn disc_count(outcome: EngineOutcome, black: u32, white: u32) -> String {
    match outcome {
        EngineOutcome::Win(Side::White) => format!("{white}-{black}"),
        _ => format!("{black}-{white}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn mv(game: &Reversi, name: &str) -> Action {
        game.parse_action(name).unwrap()
    }

    #[test]
    fn the_engine_bot_plays_legal_moves_for_either_side() {
        let mut game: Box<dyn Game> = Box::new(Reversi::new());
        let mut bots = [ReversiBot::new(1), ReversiBot::new(2)];
        for _ in 0..6 {
            let team = game.turn().unwrap();
            let action = bots[usize::from(team.0)]
                .choose(&*game, team, Duration::from_millis(5))
                .unwrap();
            assert!(game.legal_actions(team).contains(&action));
            game.play(team, &action, 0).unwrap();
        }
        assert!(bots[0]
            .choose(&*game, Team::SECOND, Duration::ZERO)
            .is_none());
    }

    #[test]
    fn points_put_row_one_at_the_top() {
        let d3: Square = "d3".parse().unwrap();
        assert_eq!(point(d3), Point::new(4, 6));
        assert_eq!(square(Point::new(4, 6)), Some(d3));
        assert_eq!(square(Point::new(1, 8)), "a1".parse().ok());
        for bad in [
            Point::new(0, 1),
            Point::new(9, 1),
            Point::new(1, 0),
            Point::new(1, 9),
        ] {
            assert_eq!(square(bad), None, "{bad:?}");
        }
        for s in Square::all() {
            assert_eq!(square(point(s)), Some(s));
        }
    }

    #[test]
    fn a_move_reports_the_placed_square_first_then_the_flips() {
        let mut game = Reversi::new();
        assert_eq!(game.turn(), Some(Team::FIRST));
        let update = game.play(Team::FIRST, &mv(&game, "f5"), 0).unwrap();
        let names: Vec<String> = update
            .cells
            .iter()
            .map(|c| square(c.at).unwrap().to_string())
            .collect();
        assert_eq!(names, ["f5", "e5"]);
        assert!(update
            .cells
            .iter()
            .all(|c| c.piece.as_ref().unwrap().team == Team::FIRST));
        assert_eq!(update.moved.unwrap().notation, "f5");
        assert_eq!(game.turn(), Some(Team::SECOND));
    }

    #[test]
    fn illegal_moves_say_why_and_change_nothing() {
        let mut game = Reversi::new();
        let mut err = |t, a: &str| {
            let action = game.parse_action(a).unwrap();
            game.play(t, &action, 0).unwrap_err().0
        };
        assert_eq!(err(Team::FIRST, "a1"), "a1 flips nothing");
        assert_eq!(err(Team::FIRST, "d4"), "d4 is occupied");
        assert_eq!(err(Team::SECOND, "f5"), "it is not your turn");
        let off = game.play(Team::FIRST, &Action::Move(vec![Point::new(9, 9)]), 0);
        assert!(off.unwrap_err().0.contains("not on the board"));
        assert_eq!(game.legal_actions(Team::FIRST).len(), 4);
        assert!(game.legal_actions(Team::SECOND).is_empty());
        assert!(game.history().is_empty());
    }

    #[test]
    fn the_disc_count_puts_the_winner_first() {
        assert_eq!(disc_count(EngineOutcome::Win(Side::White), 0, 48), "48-0");
        assert_eq!(disc_count(EngineOutcome::Win(Side::Black), 33, 31), "33-31");
        assert_eq!(disc_count(EngineOutcome::Draw, 32, 32), "32-32");
    }

    #[test]
    fn a_whole_game_ends_with_the_disc_count_and_records_passes() {
        // The shortest game: black wins 13-0 after nine moves.
        let mut game = Reversi::new();
        for name in ["e6", "f4", "e3", "f6", "g5", "d6", "e7", "f5", "c5"] {
            let t = game.turn().unwrap();
            game.play(t, &mv(&game, name), 0).unwrap();
        }
        let outcome = game.outcome().unwrap().clone();
        assert_eq!(
            outcome,
            Outcome::Win {
                team: Team::FIRST,
                why: "13-0".into()
            }
        );
        let meta = RecordMeta {
            players: vec!["b".into(), "w".into()],
            finished: UNIX_EPOCH + Duration::from_secs(1),
            outcome: Some(outcome),
            how: How::OnTheBoard,
            time_control: None,
            times: Vec::new(),
        };
        let ggf = game.record(&meta);
        assert!(ggf
            .starts_with("(;GM[Othello]PC[reversid]DT[1970.01.01_00:00:01.GMT]PB[b]PW[w]RE[+13]"));
        assert!(
            ggf.ends_with("*]B[e6]W[f4]B[e3]W[f6]B[g5]W[d6]B[e7]W[f5]B[c5];)"),
            "{ggf}"
        );
    }

    #[test]
    fn passes_are_written_and_forfeits_score_the_full_margin() {
        let mut game = Reversi::new();
        game.movers = vec![Team::FIRST, Team::SECOND, Team::SECOND];
        game.board = Board::from_transcript("f5d6c3").unwrap();
        let meta = RecordMeta {
            players: vec!["b".into(), "w".into()],
            finished: UNIX_EPOCH,
            outcome: Some(Outcome::Win {
                team: Team::SECOND,
                why: "black left".into(),
            }),
            how: How::Forfeit,
            time_control: None,
            times: Vec::new(),
        };
        let ggf = game.ggf(&meta);
        assert!(ggf.ends_with("*]B[f5]W[d6]B[PA]W[c3];)"), "{ggf}");
        assert!(ggf.contains("RE[-64:r]"));
        let timed = RecordMeta {
            how: How::OnTime,
            ..meta
        };
        assert!(game.ggf(&timed).contains("RE[-64:t]"));
        let took = |ms| {
            Some(record::MoveTime {
                took: ms,
                clock: None,
            })
        };
        let with_times = RecordMeta {
            times: vec![took(1_524), None, took(60_009)],
            ..timed
        };
        let ggf = game.ggf(&with_times);
        assert!(
            ggf.ends_with("*]B[f5//1.52]W[d6]B[PA]W[c3//60.00];)"),
            "{ggf}"
        );
    }
}
