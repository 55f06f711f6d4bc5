//! Legal-move generation and flip computation on bitboards.
//!
//! Two implementations of the same two functions:
//! - [`portable`]: plain `u64` shifts, works everywhere;
//! - `avx2` (x86-64 only): the four direction pairs processed in one 256-bit
//!   register with per-lane variable shifts.
//!
//! Move generation uses a Kogge-Stone style fill: runs of opponent discs are
//! grown from the player's discs in doubling steps, so each direction costs
//! a fixed handful of operations with no loops or branches. Flips use
//! precomputed rays from the played square: the first non-opponent square
//! along a ray is its lowest (upwards) or highest (downwards) set bit. The
//! implementation is chosen once at start-up ([`kernel`]) and both are
//! checked against a direction-walking reference and each other by
//! proptests.

use std::sync::OnceLock;

/// Every square except those in columns a and h. Opponent discs are masked
/// with this for horizontal and diagonal directions so a run can never wrap
/// from one row to the next.
pub(crate) const INNER_COLUMNS: u64 = 0x7e7e_7e7e_7e7e_7e7e;

/// The portable implementation.
pub mod portable {
    use super::INNER_COLUMNS;

    /// Squares reachable from `from` by a run of `o` discs in the direction of
    /// a left shift by `s`, plus the square just past the run.
    #[inline(always)]
    fn run_left(from: u64, o: u64, s: u32) -> u64 {
        let mut f = (from << s) & o;
        f |= (f << s) & o;
        let pairs = o & (o << s);
        f |= (f << (2 * s)) & pairs;
        f |= (f << (2 * s)) & pairs;
        f
    }

    /// Mirror image of [`run_left`].
    #[inline(always)]
    fn run_right(from: u64, o: u64, s: u32) -> u64 {
        let mut f = (from >> s) & o;
        f |= (f >> s) & o;
        let pairs = o & (o >> s);
        f |= (f >> (2 * s)) & pairs;
        f |= (f >> (2 * s)) & pairs;
        f
    }

    /// Legal moves for the side owning `p` against `o`, as a bitboard.
    #[inline]
    pub fn moves(p: u64, o: u64) -> u64 {
        let oi = o & INNER_COLUMNS;
        let mut m = run_left(p, oi, 1) << 1;
        m |= run_right(p, oi, 1) >> 1;
        m |= run_left(p, o, 8) << 8;
        m |= run_right(p, o, 8) >> 8;
        m |= run_left(p, oi, 7) << 7;
        m |= run_right(p, oi, 7) >> 7;
        m |= run_left(p, oi, 9) << 9;
        m |= run_right(p, oi, 9) >> 9;
        m & !(p | o)
    }

    /// Rays from every square (see [`super::rays`]), as plain tables.
    static UP: [[u64; 4]; 64] = super::rays(1);
    static DOWN: [[u64; 4]; 64] = super::rays(-1);

    /// Discs flipped when the side owning `p` plays on square `sq` (0..64)
    /// against `o`. Zero if the move is illegal; the square must be empty.
    ///
    /// Along each ray the first square that is not the opponent's decides:
    /// upwards it is the lowest set bit of the ray's non-opponent squares,
    /// downwards the highest; if it holds `p`, the squares before it flip.
    #[inline]
    pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
        let (up, down) = (&UP[(sq & 63) as usize], &DOWN[(sq & 63) as usize]);
        let mut f = 0;
        for d in 0..4 {
            let b = !o & up[d];
            let first = b & b.wrapping_neg();
            if first & p != 0 {
                f |= (first - 1) & up[d];
            }
            let b = !o & down[d];
            if b != 0 {
                let last = 1u64 << (63 - b.leading_zeros());
                if last & p != 0 {
                    // Ray squares above `last` (the ray lies below `sq`).
                    f |= down[d] & !((last << 1) - 1);
                }
            }
        }
        f
    }
}

/// The AVX2 implementation. Lanes hold the directions with shifts 1, 8, 9, 7;
/// left shifts cover one half of each direction pair and right shifts the other.
#[cfg(target_arch = "x86_64")]
pub mod avx2 {
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
}

/// For every square, its rays in the directions E, N, NE, NW (`sign` 1) or
/// W, S, SW, SE (`sign` -1), excluding the square itself.
const fn rays(sign: i32) -> [[u64; 4]; 64] {
    let dirs = [(1, 0), (0, 1), (1, 1), (-1, 1)];
    let mut table = [[0u64; 4]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 4 {
            let (dx, dy) = (dirs[d].0 * sign, dirs[d].1 * sign);
            let (mut x, mut y) = ((sq % 8) as i32 + dx, (sq / 8) as i32 + dy);
            while x >= 0 && x < 8 && y >= 0 && y < 8 {
                table[sq][d] |= 1u64 << (y * 8 + x);
                x += dx;
                y += dy;
            }
            d += 1;
        }
        sq += 1;
    }
    table
}

/// A move generator: the interface the search code is generic over, so each
/// hot loop is compiled for one implementation with no indirect calls.
pub(crate) trait Kernel: Copy {
    /// Legal moves of `p` against `o`.
    fn moves(self, p: u64, o: u64) -> u64;
    /// Discs flipped by `p` playing `sq`.
    fn flips(self, p: u64, o: u64, sq: u32) -> u64;
}

/// The portable kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

impl Kernel for Portable {
    #[inline(always)]
    fn moves(self, p: u64, o: u64) -> u64 {
        portable::moves(p, o)
    }
    #[inline(always)]
    fn flips(self, p: u64, o: u64, sq: u32) -> u64 {
        portable::flips(p, o, sq)
    }
}

/// The AVX2 kernel. Its private field means a value exists only once
/// [`Avx2::detect`] has seen the CPU support AVX2, which is what makes the
/// calls below sound.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(());

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    /// `Some` if this CPU has AVX2 (and POPCNT and BMI1, which the
    /// AVX2-compiled search code also uses).
    pub(crate) fn detect() -> Option<Avx2> {
        (std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("bmi1"))
        .then_some(Avx2(()))
    }
}

#[cfg(target_arch = "x86_64")]
impl Kernel for Avx2 {
    #[inline(always)]
    fn moves(self, p: u64, o: u64) -> u64 {
        // SAFETY: an `Avx2` value only exists after AVX2 was detected.
        unsafe { avx2::moves(p, o) }
    }
    #[inline(always)]
    fn flips(self, p: u64, o: u64, sq: u32) -> u64 {
        // SAFETY: an `Avx2` value only exists after AVX2 was detected.
        unsafe { avx2::flips(p, o, sq) }
    }
}

/// Which implementation this process uses.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum KernelKind {
    /// [`portable`].
    Portable,
    /// `avx2`.
    Avx2,
}

/// The implementation chosen for this CPU (detected once, then cached).
pub fn kernel() -> KernelKind {
    static CHOSEN: OnceLock<KernelKind> = OnceLock::new();
    *CHOSEN.get_or_init(|| {
        if std::env::var_os("REVERSI_ENGINE_PORTABLE").is_some() {
            return KernelKind::Portable;
        }
        #[cfg(target_arch = "x86_64")]
        if Avx2::detect().is_some() {
            return KernelKind::Avx2;
        }
        KernelKind::Portable
    })
}

/// Runs `f` with the chosen kernel. Generic search code is entered through
/// this so its inner loops are monomorphised per kernel.
macro_rules! with_kernel {
    (|$k:ident| $body:expr) => {{
        #[cfg(target_arch = "x86_64")]
        {
            match ($crate::moves::kernel(), $crate::moves::Avx2::detect()) {
                ($crate::moves::KernelKind::Avx2, Some($k)) => $body,
                _ => {
                    let $k = $crate::moves::Portable;
                    $body
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let $k = $crate::moves::Portable;
            $body
        }
    }};
}
#[allow(unused_imports)]
pub(crate) use with_kernel;

/// Legal moves with the chosen implementation.
#[inline]
pub fn moves(p: u64, o: u64) -> u64 {
    with_kernel!(|k| k.moves(p, o))
}

/// Flipped discs with the chosen implementation (0 if `sq >= 64`).
#[inline]
pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
    if sq >= 64 || (p | o) >> sq & 1 != 0 {
        return 0;
    }
    with_kernel!(|k| k.flips(p, o, sq))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Straightforward reference: walk each of the eight directions.
    fn reference_flips(p: u64, o: u64, sq: u32) -> u64 {
        let (x0, y0) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut all = 0;
        for (dx, dy) in [
            (1, 0),
            (-1, 0),
            (0, 1),
            (0, -1),
            (1, 1),
            (1, -1),
            (-1, 1),
            (-1, -1),
        ] {
            let (mut x, mut y, mut run) = (x0 + dx, y0 + dy, 0u64);
            while (0..8).contains(&x) && (0..8).contains(&y) {
                let b = 1u64 << (y * 8 + x);
                if o & b != 0 {
                    run |= b;
                } else {
                    if p & b != 0 {
                        all |= run;
                    }
                    break;
                }
                x += dx;
                y += dy;
            }
        }
        all
    }

    fn reference_moves(p: u64, o: u64) -> u64 {
        (0..64)
            .filter(|&s| (p | o) >> s & 1 == 0 && reference_flips(p, o, s) != 0)
            .fold(0, |m, s| m | 1 << s)
    }

    /// Random disjoint pair of bitboards with a spread of densities.
    fn position() -> impl Strategy<Value = (u64, u64)> {
        (any::<u64>(), any::<u64>(), any::<u64>())
            .prop_map(|(a, b, c)| (a & !b & c, b & !a | (a & b & !c)))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn portable_matches_reference((p, o) in position()) {
            prop_assert_eq!(portable::moves(p, o), reference_moves(p, o));
            for sq in 0..64 {
                if (p | o) >> sq & 1 == 0 {
                    prop_assert_eq!(portable::flips(p, o, sq), reference_flips(p, o, sq));
                }
            }
        }

        #[test]
        fn avx2_matches_portable((p, o) in position()) {
            #[cfg(target_arch = "x86_64")]
            if let Some(k) = Avx2::detect() {
                prop_assert_eq!(k.moves(p, o), portable::moves(p, o));
                for sq in 0..64 {
                    if (p | o) >> sq & 1 == 0 {
                        prop_assert_eq!(k.flips(p, o, sq), portable::flips(p, o, sq));
                    }
                }
            }
        }
    }

    #[test]
    fn occupied_or_out_of_range_flips_nothing() {
        let (p, o) = (0x0000_0008_1000_0000, 0x0000_0010_0800_0000);
        assert_eq!(flips(p, o, 64), 0);
        assert_eq!(flips(p, o, 27), 0);
    }
}
