//! Static evaluation of midgame positions.

/// Squares adjacent (in any of the eight directions) to a disc of `b`.
#[inline]
pub(crate) fn neighbours(b: u64) -> u64 {
    const NOT_A: u64 = 0xfefe_fefe_fefe_fefe;
    const NOT_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let h = b | ((b << 1) & NOT_A) | ((b >> 1) & NOT_H);
    (h | (h << 8) | (h >> 8)) & !b
}
