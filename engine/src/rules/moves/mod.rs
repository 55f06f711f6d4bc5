//! Legal-move generation and flip computation on bitboards.
//!
//! Two implementations of the same two functions:
//! - `portable`: plain `u64` shifts, works everywhere;
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
pub(crate) const INNER_COLUMNS: u64 = crate::rules::bitboard::NOT_A & crate::rules::bitboard::NOT_H;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
pub(crate) mod portable;

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

/// Which move generator this process uses (see [`kernel`]).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum KernelKind {
    /// Plain 64-bit integer code, on any CPU.
    Portable,
    /// 256-bit vectors, on x86-64 CPUs with AVX2 (and BMI1, POPCNT).
    Avx2,
    /// AVX2, plus 512-bit vectors working on eight positions at once
    /// where that pays (perft), on CPUs with AVX-512F and VPOPCNTDQ.
    Avx512,
}

/// The move generator chosen for this CPU (detected once, then cached):
/// the fastest it supports, or at most the one the environment variable
/// `REVERSI_ENGINE_KERNEL` names (`portable`, `avx2` or `avx512`; to
/// compare them).
pub fn kernel() -> KernelKind {
    static CHOSEN: OnceLock<KernelKind> = OnceLock::new();
    *CHOSEN.get_or_init(|| {
        let cap = match std::env::var("REVERSI_ENGINE_KERNEL").as_deref() {
            Ok("portable") => KernelKind::Portable,
            Ok("avx2") => KernelKind::Avx2,
            _ => KernelKind::Avx512,
        };
        detected().min(cap)
    })
}

/// The best move generator this CPU supports.
fn detected() -> KernelKind {
    #[cfg(target_arch = "x86_64")]
    if Avx2::detect().is_some() {
        let avx512 = std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512vpopcntdq");
        return if avx512 {
            KernelKind::Avx512
        } else {
            KernelKind::Avx2
        };
    }
    KernelKind::Portable
}

/// Runs `f` with the chosen kernel. Generic search code is entered through
/// this so its inner loops are monomorphised per kernel.
macro_rules! with_kernel {
    (|$k:ident| $body:expr) => {{
        #[cfg(target_arch = "x86_64")]
        {
            match (
                $crate::rules::moves::kernel(),
                $crate::rules::moves::Avx2::detect(),
            ) {
                (
                    $crate::rules::moves::KernelKind::Avx2
                    | $crate::rules::moves::KernelKind::Avx512,
                    Some($k),
                ) => $body,
                _ => {
                    let $k = $crate::rules::moves::Portable;
                    $body
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let $k = $crate::rules::moves::Portable;
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

    /// The AVX-512 lanes, each a different position and move, against the
    /// portable code.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_lanes_match_portable() {
        use std::arch::x86_64::*;
        if detected() < KernelKind::Avx512 {
            return;
        }
        let mut runner = proptest::test_runner::TestRunner::default();
        let lanes = proptest::collection::vec((position(), 0u32..64), 8);
        runner
            .run(&lanes, |lanes| {
                let p: Vec<u64> = lanes.iter().map(|&((p, _), _)| p).collect();
                let o: Vec<u64> = lanes.iter().map(|&((_, o), _)| o).collect();
                // The move's square, made empty.
                let placed: Vec<u64> = lanes.iter().map(|&(_, sq)| 1u64 << sq).collect();
                let p: Vec<u64> = p.iter().zip(&placed).map(|(p, b)| p & !b).collect();
                let o: Vec<u64> = o.iter().zip(&placed).map(|(o, b)| o & !b).collect();
                let (mut flips, mut moves) = ([0u64; 8], [0u64; 8]);
                // SAFETY: AVX-512F and VPOPCNTDQ were detected above; the
                // vectors are loaded from and stored to eight-u64 arrays.
                unsafe {
                    let load = |v: &[u64]| _mm512_loadu_si512(v.as_ptr().cast());
                    let f = avx512::flips8(load(&p), load(&o), load(&placed));
                    _mm512_storeu_si512(flips.as_mut_ptr().cast(), f);
                    let m = avx512::moves8(load(&p), load(&o));
                    _mm512_storeu_si512(moves.as_mut_ptr().cast(), m);
                }
                for i in 0..8 {
                    let sq = placed[i].trailing_zeros();
                    prop_assert_eq!(flips[i], portable::flips(p[i], o[i], sq), "lane {}", i);
                    prop_assert_eq!(moves[i], portable::moves(p[i], o[i]), "lane {}", i);
                }
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn occupied_or_out_of_range_flips_nothing() {
        let (p, o) = (0x0000_0008_1000_0000, 0x0000_0010_0800_0000);
        assert_eq!(flips(p, o, 64), 0);
        assert_eq!(flips(p, o, 27), 0);
    }
}
