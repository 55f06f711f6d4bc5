//! Move lists sorted best-first, and the principal-variation step, shared
//! by the midgame search and the exact solver. Both order moves
//! "fastest first": the fewer replies a move leaves the opponent, the
//! sooner it is tried; each adds its own terms to the key.

use std::mem::MaybeUninit;

use crate::rules::bitboard::neighbours;
use crate::rules::moves::Kernel;

/// Room for every legal move of any board, even unreachable ones.
pub(crate) const MAX_MOVES: usize = 64;

/// A legal move, the discs it flips and its ordering key (lower first).
#[derive(Clone, Copy, Default)]
pub(crate) struct Candidate {
    pub flips: u64,
    pub key: i32,
    pub sq: u8,
}

impl Candidate {
    /// The position after this move from (`p`, `o`), from the opponent's
    /// side: its discs, then ours.
    #[inline(always)]
    pub fn child(&self, p: u64, o: u64) -> (u64, u64) {
        (o ^ self.flips, p | self.flips | 1 << self.sq)
    }
}

/// What a key function sees of one move.
pub(crate) struct Child {
    /// The square played.
    pub sq: u32,
    /// The opponent's discs after the move (the side to move there).
    pub p: u64,
    /// Our discs after the move.
    pub o: u64,
    /// The opponent's legal replies.
    pub replies: u64,
}

/// The common part of every key: the opponent's replies (corners count
/// twice) weigh most, then the empty squares next to our discs, where the
/// opponent may find moves later.
#[inline]
pub(crate) fn mobility_key(child: &Child) -> i32 {
    let replies = child.replies.count_ones() + (child.replies & crate::CORNERS).count_ones();
    let potential = (neighbours(child.o) & !(child.p | child.o)).count_ones();
    replies as i32 * 16 + potential as i32 * 2
}

/// The legal moves of a position, sorted by key. Lives on the stack of
/// the node that fills it: room for 64 moves is not initialised nor
/// copied, only the moves written are read.
pub(crate) struct MoveList {
    items: [MaybeUninit<Candidate>; MAX_MOVES],
    len: usize,
}

impl MoveList {
    /// An empty list.
    #[inline(always)]
    pub fn new() -> MoveList {
        MoveList {
            items: [const { MaybeUninit::uninit() }; MAX_MOVES],
            len: 0,
        }
    }

    /// Lists the moves in `moves` of `p` against `o`, keyed by `key` and
    /// sorted, the move `hint` (a square index, or anything above 63 for
    /// none) first. `key` may end the listing early with an error, which
    /// is returned as is (the solver's transposition cutoffs).
    #[inline]
    pub fn fill<K: Kernel, E>(
        &mut self,
        k: K,
        (p, o): (u64, u64),
        moves: u64,
        hint: u32,
        mut key: impl FnMut(&Child) -> Result<i32, E>,
    ) -> Result<(), E> {
        self.len = 0;
        let mut rest = moves;
        while rest != 0 {
            let sq = rest.trailing_zeros();
            rest &= rest - 1;
            let flips = k.flips(p, o, sq);
            let (cp, co) = (o ^ flips, p | flips | 1 << sq);
            let child = Child {
                sq,
                p: cp,
                o: co,
                replies: k.moves(cp, co),
            };
            let key = if sq == hint { i32::MIN } else { key(&child)? };
            // At most 64 bits are set in `moves`: `len` stays below 64.
            self.items[self.len] = MaybeUninit::new(Candidate {
                flips,
                key,
                sq: sq as u8,
            });
            self.len += 1;
        }
        self.sort();
        Ok(())
    }

    /// Sorts by key again (after the keys were changed).
    pub fn sort(&mut self) {
        self.as_mut_slice().sort_unstable_by_key(|c| c.key);
    }

    /// Moves the move on square `sq` (if listed) to the front, keeping the
    /// others' order.
    pub fn promote(&mut self, sq: u8) {
        let moves = self.as_mut_slice();
        if let Some(i) = moves.iter().position(|c| c.sq == sq) {
            moves[..=i].rotate_right(1);
        }
    }

    /// The moves, best first.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Candidate] {
        // SAFETY: the first `len` items were written by `fill`, and
        // `MaybeUninit<Candidate>` has the layout of `Candidate`.
        unsafe { std::slice::from_raw_parts(self.items.as_ptr().cast(), self.len) }
    }

    /// The moves, to change their keys.
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Candidate] {
        // SAFETY: as in `as_slice`.
        unsafe { std::slice::from_raw_parts_mut(self.items.as_mut_ptr().cast(), self.len) }
    }
}

/// The best child of a node so far, fail-soft, with the window as it
/// narrows.
pub(crate) struct Best {
    /// The best value so far (the floor until a child beats it).
    pub value: i32,
    /// Its move, a square index.
    pub sq: u8,
    /// The lower end of the window: raised by every better child.
    pub alpha: i32,
    beta: i32,
}

impl Best {
    /// Nothing searched yet: `floor` is below every value, `sq` the move
    /// to report if nothing beats it.
    #[inline(always)]
    pub fn new(floor: i32, sq: u8, alpha: i32, beta: i32) -> Best {
        Best {
            value: floor,
            sq,
            alpha,
            beta,
        }
    }

    /// Records a child's value; true when it refutes the node (no other
    /// child needs searching).
    #[inline(always)]
    pub fn offer(&mut self, value: i32, sq: u8) -> bool {
        if value > self.value {
            self.value = value;
            self.sq = sq;
            if value > self.alpha {
                self.alpha = value;
                return value >= self.beta;
            }
        }
        false
    }
}

/// The principal-variation step for one child: the first move gets the
/// whole window `alpha..beta`; the others a null window first, searched
/// again with a wider one only when they beat `alpha`. `value(a, b)` is
/// the child's value (for us) searched within `a..b`, fail-soft.
#[inline(always)]
pub(crate) fn pvs_child(
    first: bool,
    alpha: i32,
    beta: i32,
    mut value: impl FnMut(i32, i32) -> i32,
) -> i32 {
    if first || beta - alpha == 1 {
        return value(alpha, beta);
    }
    let v = value(alpha, alpha + 1);
    if v > alpha && v < beta {
        // Fail-soft: `v` is a lower bound, so the re-search starts there.
        value(v, beta)
    } else {
        v
    }
}
