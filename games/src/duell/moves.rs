//! Which moves a piece has: rolling its pips exactly, straight or with one
//! right-angle turn, never through a piece, landing on an empty square or an
//! enemy piece (captured).

use crate::game::{Illegal, Point, Team};

use super::board::{Board, Kind, Token};
use super::direction::Direction;
use super::notation::square_name;

/// A straight stretch of a move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Leg {
    pub dir: Direction,
    pub steps: u8,
}

/// A move the rules allow, with what it does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Move {
    pub from: Point,
    /// Where the move turns, if it does.
    pub corner: Option<Point>,
    pub to: Point,
    /// The piece as it lands (a die turned by its rolls).
    pub after: Token,
    /// The enemy piece it lands on.
    pub captured: Option<Token>,
}

impl Move {
    /// The move in Duell's notation (`a1-a6`, `d1-d3-f3`, `e7xe6`).
    pub fn notation(&self) -> String {
        let mut text = square_name(self.from);
        if let Some(corner) = self.corner {
            text.push('-');
            text.push_str(&square_name(corner));
        }
        text.push(if self.captured.is_some() { 'x' } else { '-' });
        text.push_str(&square_name(self.to));
        text
    }

    /// The squares a `MOVE` gives for it: start, corner if any, end (the seed's form).
    pub fn points(&self) -> Vec<Point> {
        [Some(self.from), self.corner, Some(self.to)]
            .into_iter()
            .flatten()
            .collect()
    }

    /// Plays it on `board` (a board it was made for).
    pub fn play_on(&self, board: &mut Board) {
        board.set(self.from, None);
        board.set(self.to, Some(self.after));
    }

    /// Whether it wins: it captures the enemy key, or brings the mover's key
    /// onto the enemy key's starting square.
    pub fn wins(&self) -> bool {
        let enemy = self.after.team.other();
        self.captured.is_some_and(|t| t.kind == Kind::Key)
            || (self.after.kind == Kind::Key && self.to == Board::key_square(enemy))
    }
}

/// Why a walk fails, cheaply (move generation tries many).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Blocked {
    OffBoard,
    Through(Point),
    Own(Point),
}

impl Blocked {
    fn illegal(self) -> Illegal {
        match self {
            Blocked::OffBoard => Illegal::new("the move leaves the board"),
            Blocked::Through(p) => Illegal::new(format!(
                "the path is blocked at {}: a piece never rolls through another",
                square_name(p)
            )),
            Blocked::Own(p) => Illegal::new(format!("your own piece stands on {}", square_name(p))),
        }
    }
}

/// Rolls `token` from `from` along `legs`, checking every square; the legs'
/// steps must already add up to the token's reach.
fn walk(board: &Board, from: Point, token: Token, legs: &[Leg]) -> Result<Move, Blocked> {
    let mut at = from;
    let mut kind = token.kind;
    let mut corner = None;
    let last = legs.len() - 1;
    for (i, leg) in legs.iter().enumerate() {
        for _ in 0..leg.steps {
            if at != from && board.at(at).is_some() {
                return Err(Blocked::Through(at));
            }
            at = leg
                .dir
                .step(at)
                .filter(|&p| Board::on_board(p))
                .ok_or(Blocked::OffBoard)?;
            if let Kind::Die(die) = kind {
                kind = Kind::Die(die.rolled(leg.dir));
            }
        }
        if i < last {
            corner = Some(at);
        }
    }
    let captured = board.at(at);
    if captured.is_some_and(|t| t.team == token.team) {
        return Err(Blocked::Own(at));
    }
    Ok(Move {
        from,
        corner,
        to: at,
        after: Token { kind, ..token },
        captured,
    })
}

/// Every way of splitting `reach` squares into one leg or two at right angles.
fn routes(reach: u8) -> impl Iterator<Item = Vec<Leg>> {
    Direction::ALL.into_iter().flat_map(move |dir| {
        let straight = std::iter::once(vec![Leg { dir, steps: reach }]);
        let bent = (1..reach).flat_map(move |first| {
            dir.turns().into_iter().map(move |turn| {
                vec![
                    Leg { dir, steps: first },
                    Leg {
                        dir: turn,
                        steps: reach - first,
                    },
                ]
            })
        });
        straight.chain(bent)
    })
}

/// Every legal move of `team`.
pub fn legal_moves(board: &Board, team: Team) -> Vec<Move> {
    board
        .pieces(team)
        .flat_map(|(from, token)| {
            routes(token.reach()).filter_map(move |legs| walk(board, from, token, &legs).ok())
        })
        .collect()
}

/// Whether `team` has any legal move.
pub fn can_move(board: &Board, team: Team) -> bool {
    board.pieces(team).any(|(from, token)| {
        routes(token.reach()).any(|legs| walk(board, from, token, &legs).is_ok())
    })
}

/// The move `team` asks for with the squares of a `MOVE`: the start, then
/// any squares along the way (the corner, or every square), then the end.
/// Two squares not in a line name an L whose corner is left out; that is
/// accepted when only one of its two corners gives a legal move.
pub fn resolve(board: &Board, team: Team, points: &[Point]) -> Result<Move, Illegal> {
    let (&from, rest) = points
        .split_first()
        .filter(|(_, rest)| !rest.is_empty())
        .ok_or_else(|| Illegal::new("a move names at least two squares: the start and the end"))?;
    if let Some(off) = points.iter().find(|&&p| !Board::on_board(p)) {
        return Err(Illegal::new(format!(
            "the square {off} is not on the board (1 1 to 9 8)"
        )));
    }
    let token = board
        .at(from)
        .ok_or_else(|| Illegal::new(format!("there is no piece on {}", square_name(from))))?;
    if token.team != team {
        return Err(Illegal::new("you do not own that piece"));
    }
    match rest {
        &[to] if Direction::between(from, to).is_none() => resolve_corner(board, from, token, to),
        _ => {
            let legs = legs(points)?;
            check_reach(token, &legs)?;
            walk(board, from, token, &legs).map_err(Blocked::illegal)
        }
    }
}

/// An L given by its ends alone: the corner is one of two squares.
fn resolve_corner(board: &Board, from: Point, token: Token, to: Point) -> Result<Move, Illegal> {
    let corners = [Point::new(to.x, from.y), Point::new(from.x, to.y)];
    let tries: Vec<Result<Move, Illegal>> = corners
        .iter()
        .map(|&corner| {
            let legs = legs(&[from, corner, to])?;
            check_reach(token, &legs)?;
            walk(board, from, token, &legs).map_err(Blocked::illegal)
        })
        .collect();
    match tries.as_slice() {
        [Ok(_), Ok(_)] => Err(Illegal::new(format!(
            "two paths lead there: name the corner ({} or {})",
            square_name(corners[0]),
            square_name(corners[1])
        ))),
        [Ok(m), Err(_)] | [Err(_), Ok(m)] => Ok(*m),
        [Err(e), _] => Err(e.clone()),
        _ => unreachable!("two corners give two tries"),
    }
}

/// The straight legs a list of squares walks, merging squares in line.
fn legs(points: &[Point]) -> Result<Vec<Leg>, Illegal> {
    let mut legs: Vec<Leg> = Vec::new();
    for pair in points.windows(2) {
        if pair[0] == pair[1] {
            return Err(Illegal::new(format!(
                "{} is named twice in a row",
                square_name(pair[0])
            )));
        }
        let (dir, steps) = Direction::between(pair[0], pair[1]).ok_or_else(|| {
            Illegal::new(format!(
                "{} to {} is not along a row or a column",
                square_name(pair[0]),
                square_name(pair[1])
            ))
        })?;
        match legs.last_mut() {
            Some(leg) if leg.dir == dir => leg.steps += steps,
            Some(leg) if leg.dir == dir.opposite() => {
                return Err(Illegal::new("a piece never turns back on its path"))
            }
            _ => legs.push(Leg { dir, steps }),
        }
    }
    if legs.len() > 2 {
        return Err(Illegal::new("a piece turns at most once"));
    }
    Ok(legs)
}

/// The seed's "range does not match the value shown": a die rolls exactly
/// its top pips, the key one square.
fn check_reach(token: Token, legs: &[Leg]) -> Result<(), Illegal> {
    let steps: u32 = legs.iter().map(|l| u32::from(l.steps)).sum();
    let reach = token.reach();
    if steps == u32::from(reach) {
        return Ok(());
    }
    Err(Illegal::new(match token.kind {
        Kind::Key => format!("the key moves one square, not {steps}"),
        Kind::Die(_) => {
            format!("the range does not match the value shown: {reach} squares, not {steps}")
        }
    }))
}
