//! Legal moves and playing them (WCDF rules).
//!
//! Capturing is compulsory, but any capturing sequence may be chosen; a
//! sequence goes on while the jumping piece can jump again; men move and
//! jump forward only, kings both ways; a man that reaches the crown row is
//! crowned and its move ends there. Every route is a move of its own, even
//! when two routes end on the same square (Aart Bik's perft counts them so).
//! Captured pieces leave the board as they are jumped: a landing square is
//! never a jumped square (they differ in colour parity), so this is the same
//! as removing them at the end, and no piece can be jumped twice.

use super::board::{squares, step, Color, Position, Square, ALL_DIRECTIONS};

/// The most jumps one move can make: one for each of the opponent's 12 pieces.
pub const MAX_JUMPS: usize = 12;

/// A move: the piece's square and every square it lands on.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    from: Square,
    landings: [Square; MAX_JUMPS],
    len: u8,
    /// The bits of the captured pieces.
    captured: u64,
}

impl Move {
    fn simple(from: Square, to: Square) -> Move {
        let mut landings = [from; MAX_JUMPS];
        landings[0] = to;
        Move {
            from,
            landings,
            len: 1,
            captured: 0,
        }
    }

    pub fn from(&self) -> Square {
        self.from
    }

    pub fn to(&self) -> Square {
        self.landings[usize::from(self.len) - 1]
    }

    /// The squares the piece lands on, in order (one for a simple move).
    pub fn landings(&self) -> &[Square] {
        &self.landings[..usize::from(self.len)]
    }

    /// The start square, then every landing square.
    pub fn path(&self) -> impl Iterator<Item = Square> + '_ {
        std::iter::once(self.from).chain(self.landings().iter().copied())
    }

    pub fn is_capture(&self) -> bool {
        self.captured != 0
    }

    /// The squares of the captured pieces.
    pub fn captured(&self) -> impl Iterator<Item = Square> {
        squares(self.captured)
    }
}

impl Position {
    /// Whether the side to move has a capture (and so must capture).
    pub fn has_capture(&self) -> bool {
        let me = self.to_move;
        let (opponents, empty) = (self.pieces(me.opponent()), self.empty_squares());
        let jumpers = |pieces: u64, d: i8| step(step(pieces, d) & opponents, d) & empty != 0;
        let all = self.pieces(me);
        let kings = self.kings(me);
        me.forward().iter().any(|&d| jumpers(all, d))
            || me.opponent().forward().iter().any(|&d| jumpers(kings, d))
    }

    /// Every legal move of the side to move, appended to `out` (cleared first).
    pub fn legal_moves_into(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.has_capture() {
            self.captures_into(out);
        } else {
            self.simple_moves_into(out);
        }
    }

    /// Every legal move of the side to move, ordered by start square, then route.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::new();
        self.legal_moves_into(&mut moves);
        moves.sort_by(|a, b| (a.from, a.landings()).cmp(&(b.from, b.landings())));
        moves
    }

    /// How many legal moves the side to move has, without listing simple ones.
    pub fn count_moves(&self, scratch: &mut Vec<Move>) -> u64 {
        if self.has_capture() {
            scratch.clear();
            self.captures_into(scratch);
            scratch.len() as u64
        } else {
            self.mobility(self.to_move).into()
        }
    }

    /// How many simple moves `color` would have (captures aside).
    pub fn mobility(&self, color: Color) -> u32 {
        let empty = self.empty_squares();
        self.steps(color)
            .map(|(pieces, d)| (step(pieces, d) & empty).count_ones())
            .sum()
    }

    /// `color`'s pieces that may step in each direction.
    fn steps(&self, me: Color) -> impl Iterator<Item = (u64, i8)> {
        let (all, kings) = (self.pieces(me), self.kings(me));
        let forward = me.forward().map(move |d| (all, d));
        let backward = me.opponent().forward().map(move |d| (kings, d));
        forward.into_iter().chain(backward)
    }

    fn simple_moves_into(&self, out: &mut Vec<Move>) {
        let empty = self.empty_squares();
        for (pieces, d) in self.steps(self.to_move) {
            for from in squares(pieces) {
                for to in squares(step(from.bit(), d) & empty) {
                    out.push(Move::simple(from, to));
                }
            }
        }
    }

    fn captures_into(&self, out: &mut Vec<Move>) {
        let me = self.to_move;
        for from in squares(self.pieces(me)) {
            let king = self.kings & from.bit() != 0;
            let mut jump = Jump {
                opponents: self.pieces(me.opponent()),
                // The start square is empty once the piece leaves it: a king may pass it again.
                empty: self.empty_squares() | from.bit(),
                color: me,
                king,
                partial: Move {
                    from,
                    landings: [from; MAX_JUMPS],
                    len: 0,
                    captured: 0,
                },
            };
            jump.extend(from, out);
        }
    }

    /// The position after `m`, a legal move of the side to move.
    pub fn play(&self, m: &Move) -> Position {
        let me = self.to_move;
        let (from, to) = (m.from.bit(), m.to().bit());
        let mut next = *self;
        let mine = &mut next.pieces[me.index()];
        *mine = (*mine & !from) | to;
        next.pieces[me.opponent().index()] &= !m.captured;
        let was_king = self.kings & from != 0;
        next.kings &= !(from | m.captured);
        if was_king || to & me.crown_row() != 0 {
            next.kings |= to;
        }
        next.to_move = me.opponent();
        next
    }

    /// The board after the first jumps of a capture, `route` being its start
    /// square and the landings so far: the jumped pieces gone, the same side
    /// still to move. `route` must begin a legal capture of this position.
    pub fn after_jumps(&self, route: &[Square]) -> Position {
        let mut next = *self;
        let (Some(&from), Some(&at)) = (route.first(), route.last()) else {
            return next;
        };
        let jumped = route
            .windows(2)
            .filter_map(|w| {
                Square::at(
                    (w[0].row() + w[1].row()) / 2,
                    (w[0].column() + w[1].column()) / 2,
                )
            })
            .fold(0, |bits, s| bits | s.bit());
        let me = self.to_move;
        let mine = &mut next.pieces[me.index()];
        *mine = (*mine & !from.bit()) | at.bit();
        next.pieces[me.opponent().index()] &= !jumped;
        if self.kings & from.bit() != 0 {
            next.kings = (next.kings & !from.bit()) | at.bit();
        }
        next.kings &= !jumped;
        next
    }
}

/// A capture sequence being followed: the depth-first search over routes.
struct Jump {
    opponents: u64,
    empty: u64,
    color: Color,
    king: bool,
    partial: Move,
}

impl Jump {
    fn directions(&self) -> &'static [i8] {
        match (self.king, self.color) {
            (true, _) => &ALL_DIRECTIONS,
            (false, Color::Black) => &ALL_DIRECTIONS[..2],
            (false, Color::White) => &ALL_DIRECTIONS[2..],
        }
    }

    /// Every continuation from `at`; a route that cannot go on is a move.
    fn extend(&mut self, at: Square, out: &mut Vec<Move>) {
        let mut extended = false;
        for &d in self.directions() {
            let over = step(at.bit(), d) & self.opponents;
            let land = step(over, d) & self.empty;
            let Some(to) = squares(land).next() else {
                continue;
            };
            extended = true;
            let saved = (self.opponents, self.empty, self.partial);
            self.opponents &= !over;
            self.empty = (self.empty | over | at.bit()) & !land;
            self.partial.landings[usize::from(self.partial.len)] = to;
            self.partial.len += 1;
            self.partial.captured |= over;
            let crowned = !self.king && land & self.color.crown_row() != 0;
            if crowned {
                out.push(self.partial);
            } else {
                self.extend(to, out);
            }
            (self.opponents, self.empty, self.partial) = saved;
        }
        if !extended && self.partial.len > 0 {
            out.push(self.partial);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(p: &Position) -> Vec<String> {
        p.legal_moves().iter().map(Move::to_string).collect()
    }

    fn play(p: &Position, text: &str) -> Position {
        let m = p.legal_moves().into_iter().find(|m| m.to_string() == text);
        p.play(&m.unwrap_or_else(|| panic!("{text} is not legal")))
    }

    #[test]
    fn the_seven_opening_moves() {
        let p = Position::start();
        assert_eq!(
            names(&p),
            ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
        );
        let mut scratch = Vec::new();
        assert_eq!(p.count_moves(&mut scratch), 7);
    }

    #[test]
    fn a_capture_removes_the_piece_and_passes_the_turn() {
        let p = play(&play(&Position::start(), "11-15"), "22-18");
        assert_eq!(names(&p), ["15x22"]);
        let after = play(&p, "15x22");
        assert_eq!(after.pieces(Color::White).count_ones(), 11);
        assert_eq!(after.to_move(), Color::White);
    }
}
