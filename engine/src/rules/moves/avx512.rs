//! AVX-512 code that works on eight positions at once, one per 64-bit
//! lane: the legal moves of each and the discs a given move flips in
//! each. The direction loop is unrolled, so every shift is by a constant
//! and every mask a broadcast. Used where many sibling positions need the
//! same work: perft's last two plies (each child's move count).

use std::arch::x86_64::*;

use super::INNER_COLUMNS;

/// The eight directions as (shift, wrap mask) pairs, each searched towards
/// higher (left shift) and lower (right shift) square indices.
macro_rules! for_each_direction {
    ($m:ident) => {
        $m!(1, INNER_COLUMNS);
        $m!(8, u64::MAX);
        $m!(7, INNER_COLUMNS);
        $m!(9, INNER_COLUMNS);
    };
}

/// Per lane: the squares of the run of `o` discs that starts next to
/// `from` in the left-shift direction `S` (Kogge-Stone doubling; runs are
/// at most six long). `o` must already be masked against wrapping.
#[inline]
#[target_feature(enable = "avx512f")]
fn run_left<const S: u32, const S2: u32>(from: __m512i, o: __m512i) -> __m512i {
    let mut f = _mm512_and_si512(_mm512_slli_epi64::<S>(from), o);
    f = _mm512_or_si512(f, _mm512_and_si512(_mm512_slli_epi64::<S>(f), o));
    let pairs = _mm512_and_si512(o, _mm512_slli_epi64::<S>(o));
    f = _mm512_or_si512(f, _mm512_and_si512(_mm512_slli_epi64::<S2>(f), pairs));
    _mm512_or_si512(f, _mm512_and_si512(_mm512_slli_epi64::<S2>(f), pairs))
}

/// Mirror image of [`run_left`].
#[inline]
#[target_feature(enable = "avx512f")]
fn run_right<const S: u32, const S2: u32>(from: __m512i, o: __m512i) -> __m512i {
    let mut f = _mm512_and_si512(_mm512_srli_epi64::<S>(from), o);
    f = _mm512_or_si512(f, _mm512_and_si512(_mm512_srli_epi64::<S>(f), o));
    let pairs = _mm512_and_si512(o, _mm512_srli_epi64::<S>(o));
    f = _mm512_or_si512(f, _mm512_and_si512(_mm512_srli_epi64::<S2>(f), pairs));
    _mm512_or_si512(f, _mm512_and_si512(_mm512_srli_epi64::<S2>(f), pairs))
}

/// Legal moves of `p` against `o`, lane by lane.
#[inline]
#[target_feature(enable = "avx512f")]
pub fn moves8(p: __m512i, o: __m512i) -> __m512i {
    let mut m = _mm512_setzero_si512();
    macro_rules! direction {
        ($s:literal, $mask:expr) => {{
            let om = _mm512_and_si512(o, _mm512_set1_epi64($mask as i64));
            let l = run_left::<$s, { 2 * $s }>(p, om);
            let r = run_right::<$s, { 2 * $s }>(p, om);
            m = _mm512_or_si512(m, _mm512_slli_epi64::<$s>(l));
            m = _mm512_or_si512(m, _mm512_srli_epi64::<$s>(r));
        }};
    }
    for_each_direction!(direction);
    _mm512_andnot_si512(_mm512_or_si512(p, o), m)
}

/// The discs flipped in each lane when the side owning `p` plays the
/// square whose bit is `placed` (zero where the move is illegal).
#[inline]
#[target_feature(enable = "avx512f")]
pub fn flips8(p: __m512i, o: __m512i, placed: __m512i) -> __m512i {
    let mut flips = _mm512_setzero_si512();
    macro_rules! direction {
        ($s:literal, $mask:expr) => {{
            let om = _mm512_and_si512(o, _mm512_set1_epi64($mask as i64));
            // A run flips when the square past it holds our disc.
            let l = run_left::<$s, { 2 * $s }>(placed, om);
            let ends = _mm512_test_epi64_mask(_mm512_slli_epi64::<$s>(l), p);
            flips = _mm512_mask_or_epi64(flips, ends, flips, l);
            let r = run_right::<$s, { 2 * $s }>(placed, om);
            let ends = _mm512_test_epi64_mask(_mm512_srli_epi64::<$s>(r), p);
            flips = _mm512_mask_or_epi64(flips, ends, flips, r);
        }};
    }
    for_each_direction!(direction);
    flips
}

/// Up to eight (position, move) pairs waiting to be counted together,
/// kept in vector registers (a lane is set straight from a general
/// register: storing to memory and loading a whole vector back would stall
/// on store forwarding).
struct Batch {
    p: __m512i,
    o: __m512i,
    placed: __m512i,
    len: u32,
    /// Leaves counted so far, per lane.
    total: __m512i,
}

impl Batch {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new() -> Batch {
        Batch {
            p: _mm512_setzero_si512(),
            o: _mm512_setzero_si512(),
            placed: _mm512_setzero_si512(),
            len: 0,
            total: _mm512_setzero_si512(),
        }
    }

    /// Adds the move `placed` (a single bit) of `p` against `o`; counts
    /// the batch once it is full.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vpopcntdq")]
    fn push(&mut self, p: u64, o: u64, placed: u64) {
        let lane: __mmask8 = 1 << self.len;
        self.p = _mm512_mask_set1_epi64(self.p, lane, p as i64);
        self.o = _mm512_mask_set1_epi64(self.o, lane, o as i64);
        self.placed = _mm512_mask_set1_epi64(self.placed, lane, placed as i64);
        self.len += 1;
        if self.len == 8 {
            self.count();
        }
    }

    /// Adds, for every waiting move, the legal moves of the position it
    /// leads to (one when there are none: a pass or the end counts as one
    /// leaf), and empties the batch.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vpopcntdq")]
    fn count(&mut self) {
        // Lanes from `len` on hold stale moves: not counted.
        let live: __mmask8 = ((1u32 << self.len) - 1) as u8;
        let (p, o, placed) = (self.p, self.o, self.placed);
        let f = flips8(p, o, placed);
        // The children, from the opponent's side.
        let cp = _mm512_xor_si512(o, f);
        let co = _mm512_or_si512(_mm512_or_si512(p, f), placed);
        let counts = _mm512_popcnt_epi64(moves8(cp, co));
        let counts = _mm512_max_epu64(counts, _mm512_set1_epi64(1));
        self.total = _mm512_mask_add_epi64(self.total, live, self.total, counts);
        self.len = 0;
    }
}

/// Perft's last three plies below (`p`, `o`), whose legal moves are
/// `moves`: the moves of the last two plies are counted eight at a time.
/// A position that must pass, or where the game is over, counts as one
/// leaf (Aart Bik's convention).
///
/// # Safety
/// The CPU must have AVX2, BMI1, POPCNT, AVX-512F and AVX-512 VPOPCNTDQ.
#[inline]
#[target_feature(enable = "avx2,bmi1,popcnt,avx512f,avx512vpopcntdq")]
pub fn leaves_three_plies(p: u64, o: u64, moves: u64) -> u64 {
    let mut batch = Batch::new();
    let mut single = 0;
    let mut rest = moves;
    while rest != 0 {
        let sq = rest.trailing_zeros();
        rest &= rest - 1;
        let f = super::avx2::flips(p, o, sq);
        let (cp, co) = (o ^ f, p | f | 1 << sq);
        let mut replies = super::avx2::moves(cp, co);
        if replies == 0 {
            // A pass (one ply): the leaves are the other side's moves
            // then, or one when the game is over.
            single += super::avx2::moves(co, cp).count_ones().max(1) as u64;
            continue;
        }
        while replies != 0 {
            let bit = replies & replies.wrapping_neg();
            replies &= replies - 1;
            batch.push(cp, co, bit);
        }
    }
    if batch.len > 0 {
        batch.count();
    }
    single + _mm512_reduce_add_epi64(batch.total) as u64
}
