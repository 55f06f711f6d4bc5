//! English draughts as a game module: turns, captures entered jump by jump,
//! draws by rule and by agreement, and the outcome.

use crate::game::{
    Action, Cell, Game, GameInfo, Illegal, Millis, Moved, Outcome, Point, Team, Update, Viewer,
};
use crate::record::RecordMeta;

use super::board::{Color, Position, Square};
use super::draws::QuietRun;
use super::info::INFO;
use super::moves::Move;
use super::notation::parse_squares;
use super::offer::Offer;
use super::view::{self, color, team};

/// A game of English draughts.
#[derive(Clone, Debug)]
pub struct Draughts {
    start: Position,
    /// The position at the start of the turn.
    position: Position,
    /// Every finished move; the movers alternate from `start.to_move()`.
    moves: Vec<Move>,
    quiet: QuietRun,
    offer: Offer,
    /// A capture entered jump by jump and not finished yet.
    capture: Option<Capture>,
    outcome: Option<Outcome>,
}

/// The jumps made so far of a capture entered one jump at a time.
#[derive(Clone, Debug)]
struct Capture {
    /// The start square, then each landing so far.
    route: Vec<Square>,
    /// The board as it stands: the jumped pieces gone, the same side to move.
    shown: Position,
}

impl Capture {
    /// Where the jumping piece stands.
    fn at(&self) -> Square {
        self.route[self.route.len() - 1]
    }
}

impl Default for Draughts {
    fn default() -> Draughts {
        Draughts::new()
    }
}

impl Draughts {
    /// A game from the start position.
    pub fn new() -> Draughts {
        Draughts::from_position(Position::start())
    }

    /// A game from any position (a problem, a test); it may be over already.
    pub fn from_position(start: Position) -> Draughts {
        let mut game = Draughts {
            start,
            position: start,
            moves: Vec::new(),
            quiet: QuietRun::new(start),
            offer: Offer::default(),
            capture: None,
            outcome: None,
        };
        game.outcome = game.judge();
        game
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The position at the start of the turn (before any jumps entered one by one).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The board as it stands, jumps entered one by one included.
    pub fn shown(&self) -> &Position {
        self.capture.as_ref().map_or(&self.position, |c| &c.shown)
    }

    /// Every finished move, in order.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The positions the draw rules still count: those since the last
    /// capture or man move, the current one last.
    pub fn quiet_positions(&self) -> &[Position] {
        self.quiet.positions()
    }

    /// Who made the standing draw offer, if any.
    pub fn draw_offer(&self) -> Option<Color> {
        self.offer.standing()
    }

    /// The colour of `team`, if it is that team's turn.
    fn mover(&self, team: Team) -> Result<Color, Illegal> {
        if self.outcome.is_some() {
            return Err(Illegal::new("the game is over"));
        }
        match color(team) {
            Some(c) if c == self.position.to_move() => Ok(c),
            _ => Err(Illegal::new("it is not your turn")),
        }
    }

    /// The route `points` make: a whole move, or more jumps of the capture
    /// under way (starting from where its piece stands).
    fn route(&self, points: &[Point]) -> Result<Vec<Square>, Illegal> {
        let squares = points
            .iter()
            .map(|&p| view::square(p))
            .collect::<Result<Vec<_>, _>>()
            .map_err(Illegal::new)?;
        let route = match &self.capture {
            None => squares,
            Some(capture) => {
                let at = capture.at();
                if squares.first() != Some(&at) {
                    return Err(Illegal::new(format!(
                        "your capture goes on: move the piece on {at} again"
                    )));
                }
                capture.route.iter().chain(&squares[1..]).copied().collect()
            }
        };
        if route.len() < 2 {
            return Err(Illegal::new(
                "a move names the piece's square, then every square it lands on",
            ));
        }
        Ok(route)
    }

    fn play_route(&mut self, mover: Color, route: Vec<Square>) -> Result<Update, Illegal> {
        let moves = self.position.legal_moves();
        if let Some(m) = moves.iter().find(|m| m.path().eq(route.iter().copied())) {
            return Ok(self.finish(mover, *m));
        }
        let begun =
            |m: &Move| m.is_capture() && m.path().take(route.len()).eq(route.iter().copied());
        if moves.iter().any(begun) {
            return Ok(self.jump(mover, route));
        }
        let m = self
            .position
            .find_move(&route)
            .map_err(|e| Illegal::new(e.0))?;
        Ok(self.finish(mover, m))
    }

    /// Jumps that begin a capture and leave it unfinished: the turn stays.
    fn jump(&mut self, mover: Color, route: Vec<Square>) -> Update {
        let shown = self.position.after_jumps(&route);
        let cells = view::changes(self.shown(), &shown);
        let capture = Capture { route, shown };
        let mut news = vec![format!(
            "{} jumps on: the piece on {} must capture again",
            mover.name(),
            capture.at()
        )];
        self.capture = Some(capture);
        if self.offer.moved(mover) {
            news.push(lapsed(mover));
        }
        Update {
            cells,
            moved: None,
            news: Some(news.join("; ")),
        }
    }

    fn finish(&mut self, mover: Color, m: Move) -> Update {
        let after = self.position.play(&m);
        let cells = view::changes(self.shown(), &after);
        self.quiet.push(&self.position, &m, after);
        self.moves.push(m);
        self.position = after;
        self.capture = None;
        let news = self.offer.moved(mover).then(|| lapsed(mover));
        self.outcome = self.judge();
        Update {
            cells,
            moved: Some(Moved {
                team: team(mover),
                notation: m.to_string(),
            }),
            news,
        }
    }

    /// The outcome of the position at the start of the turn, if the game is over.
    fn judge(&self) -> Option<Outcome> {
        let side = self.position.to_move();
        if self.position.legal_moves().is_empty() {
            let why = if self.position.pieces(side) == 0 {
                format!("{} has no pieces left", side.name())
            } else {
                format!("{} cannot move", side.name())
            };
            return Some(Outcome::Win {
                team: team(side.opponent()),
                why,
            });
        }
        self.quiet
            .draw()
            .map(|rule| Outcome::Draw { why: rule.why() })
    }

    fn answer(&mut self, mover: Color, accept: bool) -> Result<Update, Illegal> {
        self.offer.answer(mover)?;
        let verb = if accept { "accepts" } else { "declines" };
        if accept {
            self.outcome = Some(Outcome::Draw {
                why: "agreed".to_owned(),
            });
        }
        Ok(news(format!("{} {verb} the draw", mover.name())))
    }
}

fn lapsed(mover: Color) -> String {
    format!("{} moved: the draw offer lapsed", mover.name())
}

fn news(text: String) -> Update {
    Update {
        news: Some(text),
        ..Update::default()
    }
}

fn points(squares: impl Iterator<Item = Square>) -> Action {
    Action::Move(squares.map(view::point).collect())
}

impl Game for Draughts {
    fn info(&self) -> &'static GameInfo {
        &INFO
    }

    fn turn(&self) -> Option<Team> {
        self.outcome
            .is_none()
            .then(|| team(self.position.to_move()))
    }

    fn play(&mut self, team: Team, action: &Action, _now: Millis) -> Result<Update, Illegal> {
        let mover = self.mover(team)?;
        match action {
            Action::Move(points) => {
                let route = self.route(points)?;
                self.play_route(mover, route)
            }
            Action::OfferDraw => {
                self.offer.make(mover)?;
                Ok(news(format!("{} offers a draw", mover.name())))
            }
            Action::AcceptDraw => self.answer(mover, true),
            Action::DeclineDraw => self.answer(mover, false),
        }
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    fn view(&self, _viewer: Viewer) -> Vec<Cell> {
        view::board(self.shown())
    }

    fn parse_action(&self, text: &str) -> Result<Action, Illegal> {
        let squares = parse_squares(text).map_err(|e| Illegal::new(e.0))?;
        Ok(points(squares.into_iter()))
    }

    fn legal_actions(&self, team: Team) -> Vec<Action> {
        if self.turn() != Some(team) {
            return Vec::new();
        }
        let moves = self.position.legal_moves();
        match &self.capture {
            None => moves.iter().map(|m| points(m.path())).collect(),
            Some(capture) => {
                let done = capture.route.len();
                moves
                    .iter()
                    .filter(|m| m.path().take(done).eq(capture.route.iter().copied()))
                    .map(|m| points(m.path().skip(done - 1)))
                    .collect()
            }
        }
    }

    fn history(&self) -> Vec<Moved> {
        let mut mover = self.start.to_move();
        self.moves
            .iter()
            .map(|m| {
                let moved = Moved {
                    team: team(mover),
                    notation: m.to_string(),
                };
                mover = mover.opponent();
                moved
            })
            .collect()
    }

    fn record(&self, meta: &RecordMeta) -> String {
        super::record::pdn(&self.start, &self.history(), meta)
    }
}
