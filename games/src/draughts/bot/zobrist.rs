//! Zobrist keys: a position's 64-bit hash for the transposition table and
//! repetition checks.

use crate::draughts::board::{squares, Color, Position};

/// Keys for black men, black kings, white men and white kings on each square.
static KEYS: [[u64; 32]; 4] = {
    let mut keys = [[0; 32]; 4];
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut i = 0;
    while i < 4 * 32 {
        state = splitmix(state);
        keys[i / 32][i % 32] = state;
        i += 1;
    }
    keys
};

/// White to move.
const WHITE_TO_MOVE: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's output step: well-mixed keys from a counter, at compile time.
const fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

pub fn hash(p: &Position) -> u64 {
    let sets = [
        p.men(Color::Black),
        p.kings(Color::Black),
        p.men(Color::White),
        p.kings(Color::White),
    ];
    let mut h = if p.to_move() == Color::White {
        WHITE_TO_MOVE
    } else {
        0
    };
    for (keys, bits) in KEYS.iter().zip(sets) {
        for s in squares(bits) {
            h ^= keys[s.index()];
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_differ_in_hash_when_they_differ() {
        let start = Position::start();
        let mut white = start;
        white.set_to_move(Color::White);
        assert_ne!(hash(&start), hash(&white));
        let mut seen = std::collections::HashSet::new();
        for m in start.legal_moves() {
            assert!(seen.insert(hash(&start.play(&m))));
        }
        assert_eq!(hash(&start), hash(&Position::start()));
    }
}
