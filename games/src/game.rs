//! The game trait and the values it trades in.
//!
//! A game is rules alone (after OpenSpiel's `State` and boardgame.io's game
//! object): who may act, what an action does, what each seat may see, and how
//! the game ended. It never reads a clock: the runtime passes the game time
//! ([`Millis`] since the game started) to the calls that need it. It never
//! sees a socket or a connection: a [`Team`] is all it knows of its players;
//! the runtime maps connections to teams, rotates team mates, runs the move
//! clock, and turns leaving or timing out into a forfeit.

use std::fmt;
use std::time::SystemTime;

use crate::params::Params;

/// Game time: milliseconds since the game started, as the runtime measures it.
pub type Millis = u64;

/// A side of the game. Games number teams from 0; the text protocol from 1
/// (seed 000's `DRAW PIECE die536 1`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Team(pub u8);

impl Team {
    /// The team that joins first (X in Tic-Tac-Toe, black in Reversi and draughts).
    pub const FIRST: Team = Team(0);
    pub const SECOND: Team = Team(1);

    /// The number the text protocol uses: 1 for the first team.
    pub fn number(self) -> u8 {
        self.0 + 1
    }

    /// The team a text-protocol number names (1-based), if `teams` has it.
    pub fn from_number(number: u32, teams: usize) -> Option<Team> {
        let index = u8::try_from(number.checked_sub(1)?).ok()?;
        (usize::from(index) < teams).then_some(Team(index))
    }

    /// The other team of a two-team game.
    pub fn other(self) -> Team {
        Team(1 - self.0.min(1))
    }
}

/// A square of the board in seed 000's coordinates: `x` first, both from 1,
/// (1, 1) the lower left corner as the players see it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Point {
    pub x: u8,
    pub y: u8,
}

impl Point {
    pub const fn new(x: u8, y: u8) -> Point {
        Point { x, y }
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.x, self.y)
    }
}

/// A piece as seed 000's `DRAW PIECE` describes it: a one-word name (the name
/// of its picture, with any orientation in it, e.g. `die536`) and its team.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    pub name: String,
    pub team: Team,
}

/// One square and what stands on it: a `DRAW SQUARE`, then a `DRAW PIECE`
/// when `piece` is some. Drawing a cell replaces whatever was there.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Cell {
    pub at: Point,
    /// The square's kind, one word (`white`, `key`, `water`, `empty`).
    pub square: &'static str,
    pub piece: Option<Piece>,
}

/// What a player asks for.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Action {
    /// Seed 000's `MOVE n x1 y1 ... xn yn`: the squares the move goes
    /// through, from the square of the piece that moves (or the only square,
    /// for a placing game).
    Move(Vec<Point>),
    /// Propose a draw (games that have draws by agreement).
    OfferDraw,
    /// Accept the opponent's standing offer.
    AcceptDraw,
    /// Decline the opponent's standing offer.
    DeclineDraw,
}

/// A move that was played, for everyone to see.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Moved {
    pub team: Team,
    /// The move in the game's own notation (`d3`, `15x24x31`).
    pub notation: String,
}

/// What changed: cells to draw again, the move that changed them (none for
/// a tide), and a line of news for the players (`draw offered`).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Update {
    pub cells: Vec<Cell>,
    pub moved: Option<Moved>,
    pub news: Option<String>,
}

/// Why an action was refused, in words for the player.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Illegal(pub String);

impl Illegal {
    pub fn new(why: impl Into<String>) -> Illegal {
        Illegal(why.into())
    }
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Illegal {}

/// How a game ended on the board (forfeits are the runtime's business).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Outcome {
    Win { team: Team, why: String },
    Draw { why: String },
}

impl Outcome {
    /// What the outcome means for `team`.
    pub fn standing(&self, team: Team) -> Standing {
        match self {
            Outcome::Win { team: winner, .. } if *winner == team => Standing::Win,
            Outcome::Win { .. } => Standing::Lose,
            Outcome::Draw { .. } => Standing::Draw,
        }
    }

    pub fn why(&self) -> &str {
        match self {
            Outcome::Win { why, .. } | Outcome::Draw { why } => why,
        }
    }

    pub fn winner(&self) -> Option<Team> {
        match self {
            Outcome::Win { team, .. } => Some(*team),
            Outcome::Draw { .. } => None,
        }
    }
}

/// One team's result.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Standing {
    Win,
    Lose,
    Draw,
}

/// Who is looking at the board (seed 004's RelayMove: a game with hidden
/// information shows each team only its part).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Viewer {
    Team(Team),
    Spectator,
}

/// What an illegal move costs (seed 000: `ERROR`, then `READY` again;
/// seed 004: the mover loses).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IllegalPolicy {
    Retry,
    Lose,
}

/// The board as `GAME BOARD <name> <width> <height>` announces it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BoardSpec {
    pub name: &'static str,
    pub width: u8,
    pub height: u8,
    /// The names the game's notation gives columns and rows, where it names
    /// squares by them (`d3`); `None` where it numbers squares some other
    /// way (draughts) or by their coordinates.
    pub labels: Option<Labels>,
}

/// Column and row names (`GAME COLUMNS`, `GAME ROWS`): a square is named by
/// its column's name, then its row's (`d3` is (4, 3) in Reversi).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Labels {
    /// One name a column, x = 1 first.
    pub columns: &'static [&'static str],
    /// One name a row, y = 1 first.
    pub rows: &'static [&'static str],
}

impl Labels {
    /// The name of square `p` (`a1` for (1, 1)), `None` off the board.
    pub fn name(&self, p: Point) -> Option<String> {
        let column = self.columns.get(usize::from(p.x).checked_sub(1)?)?;
        let row = self.rows.get(usize::from(p.y).checked_sub(1)?)?;
        Some(format!("{column}{row}"))
    }

    /// The square named `text` (any case), `None` if none is.
    pub fn read(&self, text: &str) -> Option<Point> {
        // Every column whose name starts the text, so that names that are prefixes of
        // others (`a`, `aa`) still read right; coordinates count from 1 and fit a u8.
        self.columns
            .iter()
            .zip(1..=u8::MAX)
            .filter_map(|(column, x)| {
                let head = text.get(..column.len())?;
                let rest = &text[column.len()..];
                head.eq_ignore_ascii_case(column).then_some((x, rest))
            })
            .find_map(|(x, rest)| {
                let y = self
                    .rows
                    .iter()
                    .zip(1..=u8::MAX)
                    .find_map(|(row, y)| row.eq_ignore_ascii_case(rest).then_some(y))?;
                Some(Point::new(x, y))
            })
    }
}

/// The facts about a game that hold before any game of it starts.
#[derive(Debug)]
pub struct GameInfo {
    /// The short name used to choose it (`--games`, `reversi play --game`), lower case.
    pub name: &'static str,
    /// The word of `GAME TYPE` (seed 000 spells Conquest this way).
    pub wire_type: &'static str,
    /// For people.
    pub title: &'static str,
    pub board: BoardSpec,
    /// The teams' names, in team order; their number is the number of teams.
    pub teams: &'static [&'static str],
    pub illegal: IllegalPolicy,
    /// Real time: no turns, [`Game::may_move`] says who may act now.
    pub realtime: bool,
    /// Teams drawn at random when a game starts; otherwise the first to join
    /// gets the first team.
    pub random_teams: bool,
    /// A new game with the teams swapped follows each game by default.
    pub rematch: bool,
    /// The file extension of [`Game::record`] (`ggf`, `pdn`).
    pub record_ext: &'static str,
    /// The rules in a few sentences, for a person about to play (a client's
    /// help); spec/games/ has them whole.
    pub rules: &'static str,
}

impl GameInfo {
    pub fn team_count(&self) -> usize {
        self.teams.len()
    }

    /// The name of `team` (`black`, `X`), or its number if out of range.
    pub fn team_name(&self, team: Team) -> String {
        self.teams
            .get(usize::from(team.0))
            .map_or_else(|| team.number().to_string(), |s| (*s).to_owned())
    }
}

/// How a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum How {
    /// By the rules, on the board (or by agreement).
    OnTheBoard,
    /// A player left, was disconnected, broke the protocol or played an illegal move
    /// where that loses.
    Forfeit,
    /// A player ran out of time.
    OnTime,
    /// Stopped by the server (shutdown, a crash): no result.
    Aborted,
}

/// Facts about a finished game that the rules do not know, for its record.
#[derive(Clone, Debug)]
pub struct RecordMeta {
    /// The players of each team (addresses or names), in team order.
    pub players: Vec<String>,
    pub finished: SystemTime,
    /// The result, forfeits included; `None` for an aborted game.
    pub outcome: Option<Outcome>,
    pub how: How,
    /// The time control as PGN's `TimeControl` tag writes it (`300+3`, `1/600` for a
    /// per-move limit, `-` for none); `None`: not known, no tag.
    pub time_control: Option<String>,
    /// The times of the moves of `history`, in order (shorter or `None`: not known).
    pub times: Vec<Option<MoveTime>>,
}

/// How long a move took, and the mover's clock after it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MoveTime {
    /// The time the clock charged for the move, in ms.
    pub took: Millis,
    /// The mover's clock after the move, in ms (under Fischer its time left with the
    /// increment; under a per-move limit what was left of the move's); `None`: no clock.
    pub clock: Option<Millis>,
}

/// What a new game may be given.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Settings {
    /// For games with a random set-up (logged and recorded so a game can be replayed).
    pub seed: u64,
    /// Values for the parameters its module declares (the server's
    /// `--game-option`); those not given have their defaults.
    pub params: Params,
}

/// A countdown the game runs itself (a tide, a time limit), shown to players and
/// viewers so that nothing it does comes as a surprise.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Timer {
    /// One word naming it (`tide`).
    pub name: &'static str,
    /// The game time at which it runs out; `None`: stopped, nothing is due.
    pub due: Option<Millis>,
    /// What happens then (`the tide turns`).
    pub text: &'static str,
}

/// A game in progress. Object safe: the runtime holds a `Box<dyn Game>`.
pub trait Game: CloneGame + Send {
    fn info(&self) -> &'static GameInfo;

    /// Whose turn it is in a turn-based game; `None` when the game is over or plays in real time.
    fn turn(&self) -> Option<Team>;

    /// Whether `team` may act at `now`. Turn-based games: it is its turn.
    fn may_move(&self, team: Team, now: Millis) -> bool {
        let _ = now;
        self.outcome().is_none() && self.turn() == Some(team)
    }

    /// `team` acts at `now`. On success, what to announce; on failure, why,
    /// and the board is unchanged (a real-time game may still start the
    /// team's cooldown: seed 002 makes every attempt cost one).
    fn play(&mut self, team: Team, action: &Action, now: Millis) -> Result<Update, Illegal>;

    /// When the game next wants to act on its own (a tide, a cooldown ending).
    fn wake_at(&self) -> Option<Millis> {
        None
    }

    /// Time has come to `now`: applies what fell due and says what changed.
    fn wake(&mut self, now: Millis) -> Vec<Update> {
        let _ = now;
        Vec::new()
    }

    /// The countdowns the game runs itself, always the same ones in the same order
    /// (a stopped one has no `due`); most games run none.
    fn timers(&self) -> Vec<Timer> {
        Vec::new()
    }

    /// How the game ended on the board, once it has.
    fn outcome(&self) -> Option<&Outcome>;

    /// The whole board as `viewer` may see it, every cell.
    fn view(&self, viewer: Viewer) -> Vec<Cell>;

    /// What `viewer` may see of `update` (seed 004's RelayMove); `None`: nothing.
    fn relay(&self, update: &Update, viewer: Viewer) -> Option<Update> {
        let _ = viewer;
        Some(update.clone())
    }

    /// Reads an action written in the game's own notation (`d3`, `11-15`).
    fn parse_action(&self, text: &str) -> Result<Action, Illegal>;

    /// Every action `team` may take now, for computer players.
    fn legal_actions(&self, team: Team) -> Vec<Action>;

    /// The moves so far in the game's own notation, one per entry.
    fn history(&self) -> Vec<Moved>;

    /// The whole game in the game's record format ([`GameInfo::record_ext`]).
    fn record(&self, meta: &RecordMeta) -> String;
}

/// A copy of a game to search with (computer players): every game that is
/// `Clone` has it, so a `Box<dyn Game>` can be cloned too.
pub trait CloneGame {
    fn clone_box(&self) -> Box<dyn Game>;
}

impl<T: Game + Clone + 'static> CloneGame for T {
    fn clone_box(&self) -> Box<dyn Game> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn Game> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}
