//! A transposition table, the same for the endgame solver and the midgame
//! search (each has its own).

/// One stored position: the full board as the key (no false hits), bounds on
/// its value, how deep and how exact they are, and the best move found.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct Entry {
    pub p: u64,
    pub o: u64,
    /// The value is at least this.
    pub lower: i16,
    /// The value is at most this.
    pub upper: i16,
    /// Plies searched below the position (the solver: its empties): the
    /// costlier an entry was, the longer it is kept.
    pub depth: u8,
    /// How exact the bounds are, in the owner's terms (the solver: which
    /// pass; the midgame search: always 0).
    pub precision: u8,
    /// Best move as a square index, or [`NO_MOVE`].
    pub best: u8,
    /// Search generation, so old entries are replaced first.
    pub age: u8,
}

impl Entry {
    /// Applies the stored bounds to the window `alpha..beta`: `Err(value)`
    /// when they already decide the node, else the narrowed window.
    #[inline]
    pub fn narrow(&self, alpha: i32, beta: i32) -> Result<(i32, i32), i32> {
        let (lower, upper) = (self.lower as i32, self.upper as i32);
        if lower >= beta || lower == upper {
            return Err(lower);
        }
        if upper <= alpha {
            return Err(upper);
        }
        Ok((alpha.max(lower), beta.min(upper)))
    }
}

/// The bounds a fail-soft result `best` of a search of the window
/// `alpha..beta` proves, scores lying in `-limit..=limit`: an upper bound
/// when it failed low, a lower bound when it failed high, exact between.
#[inline]
pub(crate) fn bounds(best: i32, alpha: i32, beta: i32, limit: i32) -> (i32, i32) {
    if best <= alpha {
        (-limit, best)
    } else if best >= beta {
        (best, limit)
    } else {
        (best, best)
    }
}

/// No best move recorded.
pub(crate) const NO_MOVE: u8 = 64;

/// Two entries sharing one cache line: one kept for depth, one always
/// replaced. A probe then costs one memory access at most.
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct Bucket([Entry; 2]);

/// `n` empty buckets, on huge pages where the system gives them on
/// request (Linux's transparent huge pages in `madvise` mode): a table of
/// tens of megabytes spans thousands of 4 KB pages, more than the TLB
/// holds, and a probe would then wait for a page walk as well.
fn buckets(n: usize) -> Vec<Bucket> {
    let mut buckets: Vec<Bucket> = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    {
        // Only whole pages can be advised: the ones inside the allocation.
        const PAGE: usize = 4096;
        let start = buckets.as_mut_ptr() as usize;
        let end = start + n * std::mem::size_of::<Bucket>();
        let first = start.next_multiple_of(PAGE);
        if end > first {
            // SAFETY: the range lies within the vector's allocation, which
            // nothing has touched yet; the advice only changes how its
            // pages are backed. Failure (no huge pages) changes nothing.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    buckets.resize(n, Bucket::default());
    buckets
}

/// A fixed-size table indexed by a hash of the board.
pub(crate) struct Table {
    buckets: Vec<Bucket>,
    mask: usize,
    age: u8,
}

impl Table {
    /// A table with `1 << bits` entries (two per 64-byte bucket); `bits`
    /// is clamped to 4..=26 (at most 2 GB).
    pub fn new(bits: u32) -> Table {
        let n = 1usize << (bits.clamp(4, 26) - 1);
        Table {
            buckets: buckets(n),
            mask: n - 1,
            age: 0,
        }
    }

    /// Starts a new search: older entries become preferred for replacement.
    pub fn next_age(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    #[inline]
    fn bucket(&self, p: u64, o: u64) -> usize {
        let h = (p ^ o.rotate_left(23)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let h = h ^ (h >> 29);
        (h as usize) & self.mask
    }

    /// Starts loading this board's bucket into the cache, for a probe or
    /// a store soon after: the table is much larger than the caches, and
    /// a search otherwise waits for memory at every probe.
    #[inline]
    pub fn prefetch(&self, p: u64, o: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let bucket: *const Bucket = &self.buckets[self.bucket(p, o)];
            // SAFETY: a prefetch only hints the cache; the address is a
            // live bucket of the table.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast()) };
        }
    }

    /// The entry for this board, if stored.
    #[inline]
    pub fn probe(&self, p: u64, o: u64) -> Option<Entry> {
        self.buckets[self.bucket(p, o)]
            .0
            .iter()
            .find(|e| e.p == p && e.o == o && (e.p | e.o) != 0)
            .copied()
    }

    /// Stores bounds for this board.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &mut self,
        p: u64,
        o: u64,
        (lower, upper): (i32, i32),
        depth: u8,
        precision: u8,
        best: u8,
    ) {
        let i = self.bucket(p, o);
        let age = self.age;
        let new = Entry {
            p,
            o,
            lower: lower as i16,
            upper: upper as i16,
            depth,
            precision,
            best,
            age,
        };
        let slot = &mut self.buckets[i].0;
        if slot[0].p == p && slot[0].o == o {
            slot[0] = new;
        } else if slot[0].age != age || depth >= slot[0].depth {
            slot[1] = slot[0];
            slot[0] = new;
        } else {
            slot[1] = new;
        }
    }
}
