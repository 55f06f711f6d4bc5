//! The AVX2 implementation. Lanes hold the directions with shifts 1, 8, 9, 7;
//! left shifts cover one half of each direction pair and right shifts the other.

use super::INNER_COLUMNS;
use std::arch::x86_64::*;

const INNER: i64 = INNER_COLUMNS as i64;

/// Shift amount per lane.
#[inline]
#[target_feature(enable = "avx2")]
fn shifts() -> __m256i {
    _mm256_set_epi64x(7, 9, 8, 1)
}

/// Opponent discs per lane, masked against wrapping except vertically.
#[inline]
#[target_feature(enable = "avx2")]
fn masked(o: u64) -> __m256i {
    let mask = _mm256_set_epi64x(INNER, INNER, -1, INNER);
    _mm256_and_si256(_mm256_set1_epi64x(o as i64), mask)
}

/// ORs the four lanes together.
#[inline]
#[target_feature(enable = "avx2")]
fn or_lanes(v: __m256i) -> u64 {
    let h = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    let h = _mm_or_si128(h, _mm_unpackhi_epi64(h, h));
    _mm_cvtsi128_si64(h) as u64
}

/// Run of opponent discs from `from` in the left-shift direction per lane.
#[inline]
#[target_feature(enable = "avx2")]
fn run_left(from: __m256i, o: __m256i, s: __m256i, s2: __m256i) -> __m256i {
    let mut f = _mm256_and_si256(_mm256_sllv_epi64(from, s), o);
    f = _mm256_or_si256(f, _mm256_and_si256(_mm256_sllv_epi64(f, s), o));
    let pairs = _mm256_and_si256(o, _mm256_sllv_epi64(o, s));
    f = _mm256_or_si256(f, _mm256_and_si256(_mm256_sllv_epi64(f, s2), pairs));
    _mm256_or_si256(f, _mm256_and_si256(_mm256_sllv_epi64(f, s2), pairs))
}

/// Mirror image of [`run_left`].
#[inline]
#[target_feature(enable = "avx2")]
fn run_right(from: __m256i, o: __m256i, s: __m256i, s2: __m256i) -> __m256i {
    let mut f = _mm256_and_si256(_mm256_srlv_epi64(from, s), o);
    f = _mm256_or_si256(f, _mm256_and_si256(_mm256_srlv_epi64(f, s), o));
    let pairs = _mm256_and_si256(o, _mm256_srlv_epi64(o, s));
    f = _mm256_or_si256(f, _mm256_and_si256(_mm256_srlv_epi64(f, s2), pairs));
    _mm256_or_si256(f, _mm256_and_si256(_mm256_srlv_epi64(f, s2), pairs))
}

/// Legal moves for the side owning `p` against `o`, as a bitboard.
///
/// # Safety
/// Callers outside AVX2-enabled code must first check the CPU has AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub fn moves(p: u64, o: u64) -> u64 {
    let s = shifts();
    let s2 = _mm256_add_epi64(s, s);
    let pv = _mm256_set1_epi64x(p as i64);
    let ov = masked(o);
    let l = _mm256_sllv_epi64(run_left(pv, ov, s, s2), s);
    let r = _mm256_srlv_epi64(run_right(pv, ov, s, s2), s);
    or_lanes(_mm256_or_si256(l, r)) & !(p | o)
}

/// Rays from each square, one lane per direction (E, N, NE, NW, matching
/// the lane shifts 1, 8, 9, 7), towards higher indices (`UP`) and lower
/// indices (`DOWN`), the square itself excluded.
#[repr(C, align(32))]
struct Rays([[u64; 4]; 64]);

static UP: Rays = Rays(super::rays(1));
static DOWN: Rays = Rays(super::rays(-1));

/// Loads the four rays of `sq` from `table`.
#[inline]
#[target_feature(enable = "avx2")]
fn load(table: &Rays, sq: u32) -> __m256i {
    let row = &table.0[(sq & 63) as usize];
    // SAFETY: `row` is a valid, 32-byte aligned (repr(align(32)) on a
    // table of 32-byte rows) array of four u64, exactly one __m256i.
    unsafe { _mm256_load_si256(row.as_ptr().cast()) }
}

/// Discs flipped when the side owning `p` plays on square `sq` (0..64)
/// against `o`. Zero if the move is illegal; the square must be empty.
///
/// Upwards, the first non-opponent square of each ray is its lowest set
/// bit (`b & -b`); downwards it is the highest, found by smearing the
/// ray's non-opponent squares towards the origin's far end.
///
/// # Safety
/// Callers outside AVX2-enabled code must first check the CPU has AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
    let pv = _mm256_set1_epi64x(p as i64);
    let ov = _mm256_set1_epi64x(o as i64);
    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi64x(1);

    let up = load(&UP, sq);
    let b = _mm256_andnot_si256(ov, up);
    let first = _mm256_and_si256(b, _mm256_sub_epi64(zero, b));
    let out = _mm256_and_si256(first, pv);
    let run = _mm256_and_si256(_mm256_sub_epi64(out, one), up);
    let upf = _mm256_andnot_si256(_mm256_cmpeq_epi64(out, zero), run);

    let s = shifts();
    let s2 = _mm256_add_epi64(s, s);
    let s4 = _mm256_add_epi64(s2, s2);
    let down = load(&DOWN, sq);
    let b = _mm256_andnot_si256(ov, down);
    let mut sm = _mm256_or_si256(b, _mm256_srlv_epi64(b, s));
    sm = _mm256_or_si256(sm, _mm256_srlv_epi64(sm, s2));
    sm = _mm256_or_si256(sm, _mm256_srlv_epi64(sm, s4));
    let last = _mm256_andnot_si256(_mm256_srlv_epi64(sm, s), b);
    let out = _mm256_and_si256(last, pv);
    let run = _mm256_andnot_si256(sm, down);
    let downf = _mm256_andnot_si256(_mm256_cmpeq_epi64(out, zero), run);
    or_lanes(_mm256_or_si256(upf, downf))
}
