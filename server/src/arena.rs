//! The process's global allocator: the C library's malloc, except in a session, which
//! has a heap of its own.
//!
//! Why: a session is a clone of the fork server (or of the supervisor, with
//! `--fork-directly`) and shares its pages until it writes one. Served by malloc, a
//! session's few kilobytes of allocations land in free chunks scattered over the heap it
//! inherited, and every write there (free's bookkeeping in old chunks too) copies a page:
//! 7-8 pages for about 8 KiB live. So a child calls [`enter`] first thing after the clone:
//! from then on its allocations come from a region mapped afresh, packed into as few
//! pages as they need, and it never writes into the heap it inherited (README, "Many
//! games on one host": a session's private memory).
//!
//! The ownership rule, once a process has entered its arena: a pointer inside the
//! arena's region is the arena's, freed and reallocated there; any other pointer was
//! allocated before the clone. Freeing one does nothing (its page stays shared with the
//! parent; the session ends long before such leftovers matter), and reallocating one
//! copies it into the arena and leaves the old block as it is.
//!
//! Inside the region, the `dlmalloc` crate (a port of Doug Lea's malloc) keeps the free
//! lists; its "system" is [`Pages`], which hands out the region front to back.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::Mutex;

use dlmalloc::Dlmalloc;

/// Address space mapped for a heap at first; a heap that outgrows it maps regions twice
/// as large each time. Only the pages it touches cost memory (`MAP_NORESERVE`), and their
/// page tables only: a 1 GiB region placed by the kernel cost each session 28 KiB more.
const FIRST_REGION: usize = 16 << 20;
/// Regions a heap can have: the last would be 2^(31+24) bytes, far past any machine.
const MAX_REGIONS: usize = 32;

/// The global allocator (main.rs): malloc until the process enters its arena.
pub struct SessionHeap;

/// The arena this process allocates from; null until [`enter`] (and always in the
/// supervisor and the fork server).
static ARENA: AtomicPtr<Arena> = AtomicPtr::new(ptr::null_mut());

/// Makes every later allocation of this process come from an arena of its own (a new
/// one: blocks of an arena the process had before are then from "before the clone"). Call
/// it while the process has one thread: in a freshly cloned child before anything else,
/// and in the fork server once it has read its configuration.
///
/// Where the arena lies decides what it costs in page tables, a 4 KiB page for each
/// 2 MiB window of addresses a process has pages in (the kernel copies them at the clone
/// for every window the parent's heaps have pages in). So a clone of a process that has
/// an arena takes the untouched rest of its parent's region, beginning on the page after
/// the parent's last: both heaps in one window. Otherwise the region begins just past the
/// program break, in the window of malloc's heap top, which the process has already (the
/// process's malloc then grows by `mmap` instead: only the fork server and sessions call
/// this, and neither uses malloc afterwards).
pub fn enter() -> io::Result<()> {
    let arena = match arena().and_then(Arena::rest) {
        Some((start, end)) => Arena::place(start, end),
        None => Arena::place_after_break(FIRST_REGION)?,
    };
    ARENA.store(ptr::from_ref(arena).cast_mut(), Ordering::Release);
    Ok(())
}

/// Whether this process allocates from an arena of its own.
#[cfg(test)]
pub fn entered() -> bool {
    arena().is_some()
}

fn arena() -> Option<&'static Arena> {
    // SAFETY: a non-null value is an arena that `enter` placed in a mapping that is never
    // unmapped.
    unsafe { ARENA.load(Ordering::Acquire).as_ref() }
}

// SAFETY: each call goes to malloc or to the arena, whichever allocated the pointer
// (the ownership rule above); both give blocks that fit the layout.
unsafe impl GlobalAlloc for SessionHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match arena() {
            Some(arena) => arena.alloc(layout),
            None => System.alloc(layout),
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match arena() {
            Some(arena) => arena.alloc_zeroed(layout),
            None => System.alloc_zeroed(layout),
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match arena() {
            Some(arena) => arena.dealloc(ptr, layout),
            None => System.dealloc(ptr, layout),
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        match arena() {
            Some(arena) => arena.realloc(ptr, layout, new_size),
            None => System.realloc(ptr, layout, new_size),
        }
    }
}

/// A heap in regions of its own, the first of which holds this value in its first bytes.
struct Arena {
    regions: Regions,
    heap: Mutex<Dlmalloc<Pages>>,
    /// The heap's [`Pages`], inside `heap`: read without the lock by [`Arena::rest`], as
    /// taking it would write the page, which a clone shares with its parent.
    pages: AtomicPtr<Pages>,
}

/// The regions an arena has mapped, readable without its lock (added under it).
struct Regions {
    count: AtomicUsize,
    spans: [(AtomicUsize, AtomicUsize); MAX_REGIONS],
}

impl Regions {
    /// Records the region `start..end`; false when there is no room for another.
    fn add(&self, start: usize, end: usize) -> bool {
        let n = self.count.load(Ordering::Relaxed);
        let Some((s, e)) = self.spans.get(n) else {
            return false;
        };
        s.store(start, Ordering::Relaxed);
        e.store(end, Ordering::Relaxed);
        self.count.store(n + 1, Ordering::Release);
        true
    }

    fn contain(&self, addr: usize) -> bool {
        let n = self.count.load(Ordering::Acquire);
        self.spans[..n]
            .iter()
            .any(|(s, e)| (s.load(Ordering::Relaxed)..e.load(Ordering::Relaxed)).contains(&addr))
    }
}

/// Maps `len` bytes of fresh private memory, at `at` if that range is free (a hint: the
/// kernel's choice otherwise); its start.
fn map_region(len: usize, at: Option<usize>) -> io::Result<usize> {
    let mut flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
    if at.is_some() {
        flags |= libc::MAP_FIXED_NOREPLACE;
    }
    let hint = at.unwrap_or(0) as *mut libc::c_void;
    // SAFETY: a fresh private anonymous mapping, which only the arena uses; with
    // MAP_FIXED_NOREPLACE the kernel refuses a range that holds anything.
    let start = unsafe { libc::mmap(hint, len, libc::PROT_READ | libc::PROT_WRITE, flags, -1, 0) };
    if start == libc::MAP_FAILED {
        return match at {
            Some(_) => map_region(len, None),
            None => Err(io::Error::last_os_error()),
        };
    }
    Ok(start as usize)
}

/// The first page past the program break (none if the C library cannot say).
fn after_break() -> Option<usize> {
    // SAFETY: sbrk(0) only reads the break.
    let brk = unsafe { libc::sbrk(0) };
    (brk as isize != -1 && !brk.is_null()).then(|| (brk as usize).next_multiple_of(PAGE))
}

/// What is left of a parent's region that a clone may take for its own arena: less than
/// this, and the clone maps a region of its own.
const LEAST_REST: usize = 1 << 20;

impl Arena {
    /// Maps a first region of `len` bytes where the kernel likes and places an empty
    /// arena in it (regions are never unmapped).
    #[cfg(test)]
    fn map(len: usize) -> io::Result<&'static Arena> {
        let start = map_region(len, None)?;
        Ok(Arena::place(start, start + len))
    }

    /// Maps a first region of `len` bytes just past the program break (see [`enter`]) and
    /// places an empty arena in it.
    fn place_after_break(len: usize) -> io::Result<&'static Arena> {
        let start = map_region(len, after_break())?;
        Ok(Arena::place(start, start + len))
    }

    /// Places an empty arena at the start of `start..end`: page-aligned, mapped, writable
    /// and never touched (zero pages, which nothing else refers to).
    fn place(start: usize, end: usize) -> &'static Arena {
        let place = start as *mut Arena;
        // The heap starts beside the arena's own state, in its first page.
        let first_free = (start + size_of::<Arena>()).next_multiple_of(64);
        let pages = Pages {
            // SAFETY: only the address of the field is taken; it is written below,
            // before the heap first uses it.
            regions: unsafe { ptr::addr_of!((*place).regions) },
            next: AtomicUsize::new(first_free),
            end: AtomicUsize::new(end),
            last_len: AtomicUsize::new(end - start),
        };
        let mut heap = Dlmalloc::new_with_allocator(pages);
        // Grow a page at a time: dlmalloc writes a record at the end of each piece it
        // takes, which would otherwise cost a page of its own 64 KiB further on.
        let granular = heap.set_granularity(PAGE);
        debug_assert!(granular, "dlmalloc refused a granularity of {PAGE}");
        let arena = Arena {
            regions: Regions {
                count: AtomicUsize::new(0),
                spans: std::array::from_fn(|_| (AtomicUsize::new(0), AtomicUsize::new(0))),
            },
            heap: Mutex::new(heap),
            pages: AtomicPtr::new(ptr::null_mut()),
        };
        // SAFETY: see above; the range is large enough for the arena's state, which takes
        // a fraction of a page.
        let arena = unsafe {
            place.write(arena);
            &*place
        };
        arena.regions.add(start, end);
        let pages = ptr::from_ref(arena.heap().allocator()).cast_mut();
        arena.pages.store(pages, Ordering::Release);
        arena
    }

    /// The part of this arena's last region it has never handed out, from its next page
    /// on, if it is [`LEAST_REST`] or more: in a clone, whose copy of it nothing touched
    /// (pages given back were zeroed: `Pages::free_part`). Reads without the lock: only a
    /// clone calls it, before it has a second thread.
    fn rest(&self) -> Option<(usize, usize)> {
        // SAFETY: set by `place` to the heap's `Pages`, which live as long as the arena;
        // its counters change only under the heap's lock, never held in a fresh clone of
        // a process with one thread.
        let pages = unsafe { self.pages.load(Ordering::Acquire).as_ref()? };
        let start = pages.next.load(Ordering::Relaxed).next_multiple_of(PAGE);
        let end = pages.end.load(Ordering::Relaxed);
        (end.saturating_sub(start) >= LEAST_REST).then_some((start, end))
    }

    /// Whether `ptr` was allocated by this arena (rather than before the clone).
    fn owns(&self, ptr: *mut u8) -> bool {
        self.regions.contain(ptr as usize)
    }

    fn heap(&self) -> std::sync::MutexGuard<'_, Dlmalloc<Pages>> {
        // An allocation never panics while holding the lock; if one did, the heap's
        // state is still dlmalloc's to judge.
        self.heap.lock().unwrap_or_else(|e| e.into_inner())
    }

    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.heap().malloc(layout.size(), layout.align())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.heap().calloc(layout.size(), layout.align())
    }

    /// Frees what the arena allocated; leaves a block from before the clone alone. Free
    /// pages at the top of the heap past one go back to the kernel: a session's start
    /// holds a board view for each player and the spectators at once (a few KiB each),
    /// which would otherwise stay private pages for its whole life. (Cheap when there is
    /// nothing to give back: a look at the top chunk and the heap's one segment.)
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if self.owns(ptr) {
            let mut heap = self.heap();
            heap.free(ptr, layout.size(), layout.align());
            heap.trim(PAGE);
        }
    }

    /// Reallocates in the arena; a block from before the clone is copied in, and left.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if self.owns(ptr) {
            return self
                .heap()
                .realloc(ptr, layout.size(), layout.align(), new_size);
        }
        let new = self.heap().malloc(new_size, layout.align());
        if !new.is_null() {
            ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
        }
        new
    }
}

/// The page size [`Pages`] rounds to: 4 KiB, or a multiple of the real one on hosts
/// with larger pages, which only makes the region's first page partly unused.
const PAGE: usize = 4096;

/// dlmalloc's "system": the arena's last region, handed out front to back (a new region
/// mapped when it is used up); the end of the last piece can be given back (its pages
/// returned to the kernel, and handed out again later, zeroed). Changed under the arena's
/// lock only.
struct Pages {
    regions: *const Regions,
    /// The first byte of the last region not yet handed out, and that region's end.
    next: AtomicUsize,
    end: AtomicUsize,
    last_len: AtomicUsize,
}

// SAFETY: `regions` points into the arena's first region, which is never unmapped, and is
// only read or changed through atomics.
unsafe impl Send for Pages {}

impl Pages {
    /// Maps the next region, at least `size` bytes, and hands out from it.
    fn next_region(&self, size: usize) -> Option<()> {
        let len = (self.last_len.load(Ordering::Relaxed) * 2).max(size.next_multiple_of(PAGE));
        let start = map_region(len, None).ok()?;
        // SAFETY: see `unsafe impl Send`.
        if !unsafe { &*self.regions }.add(start, start + len) {
            // SAFETY: unmaps the region just mapped, which nothing uses.
            unsafe { libc::munmap(start as *mut libc::c_void, len) };
            return None;
        }
        self.next.store(start, Ordering::Relaxed);
        self.end.store(start + len, Ordering::Relaxed);
        self.last_len.store(len, Ordering::Relaxed);
        Some(())
    }
}

// SAFETY: `alloc` hands out each byte of the region at most once until `free_part` takes
// it back, in pieces that end on page boundaries and that dlmalloc then owns; nothing is
// remapped.
unsafe impl dlmalloc::Allocator for Pages {
    fn alloc(&self, size: usize) -> (*mut u8, usize, u32) {
        for _ in 0..2 {
            let next = self.next.load(Ordering::Relaxed);
            // To a page boundary, so that later pieces are page-aligned and adjoin this
            // one (dlmalloc then merges them into one segment).
            match next.checked_add(size).map(|end| end.next_multiple_of(PAGE)) {
                Some(end) if end <= self.end.load(Ordering::Relaxed) => {
                    self.next.store(end, Ordering::Relaxed);
                    return (next as *mut u8, end - next, 0);
                }
                _ if self.next_region(size).is_none() => break,
                _ => {}
            }
        }
        (ptr::null_mut(), 0, 0)
    }

    fn remap(&self, _ptr: *mut u8, _old: usize, _new: usize, _can_move: bool) -> *mut u8 {
        ptr::null_mut()
    }

    fn free_part(&self, ptr: *mut u8, old: usize, new: usize) -> bool {
        let (keep_end, end) = (ptr as usize + new, ptr as usize + old);
        if new == old || end != self.next.load(Ordering::Relaxed) || keep_end % PAGE != 0 {
            return false; // not the last piece: the pages after it are still in use
        }
        // SAFETY: the pages from `keep_end` on are dlmalloc's to give up, and it does;
        // MADV_DONTNEED makes them fresh zero pages if touched again.
        if unsafe {
            libc::madvise(
                keep_end as *mut libc::c_void,
                old - new,
                libc::MADV_DONTNEED,
            )
        } != 0
        {
            return false;
        }
        self.next.store(keep_end, Ordering::Relaxed);
        true
    }

    fn free(&self, _ptr: *mut u8, _size: usize) -> bool {
        false
    }

    fn can_release_part(&self, _flags: u32) -> bool {
        true
    }

    fn allocates_zeros(&self) -> bool {
        true
    }

    fn page_size(&self) -> usize {
        PAGE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: usize = 4 << 20;

    /// A small arena of its own for each test (left mapped: a few pages each).
    fn arena() -> &'static Arena {
        Arena::map(SMALL).unwrap()
    }

    fn layout(size: usize) -> Layout {
        Layout::from_size_align(size, 8).unwrap()
    }

    #[test]
    fn the_arena_allocates_inside_its_region_and_reuses_what_it_frees() {
        let arena = arena();
        unsafe {
            let a = arena.alloc(layout(100));
            assert!(arena.owns(a));
            a.write_bytes(0xAB, 100);
            arena.dealloc(a, layout(100));
            let b = arena.alloc(layout(100));
            assert_eq!(a, b, "the freed chunk was not reused");
            arena.dealloc(b, layout(100));
        }
    }

    #[test]
    fn freeing_a_block_from_before_the_arena_leaves_it_untouched() {
        let arena = arena();
        let outside = layout(64);
        unsafe {
            let old = System.alloc(outside);
            old.write_bytes(0x5A, 64);
            assert!(!arena.owns(old));
            arena.dealloc(old, outside);
            let bytes = std::slice::from_raw_parts(old, 64);
            assert!(
                bytes.iter().all(|&b| b == 0x5A),
                "free wrote into the old block"
            );
            // Nor does the arena hand it out again.
            let new = arena.alloc(outside);
            assert!(arena.owns(new));
            System.dealloc(old, outside);
        }
    }

    #[test]
    fn reallocating_a_block_from_before_the_arena_copies_it_in_and_leaves_it() {
        let arena = arena();
        let outside = layout(32);
        unsafe {
            let old = System.alloc(outside);
            for i in 0..32 {
                old.add(i).write(i as u8);
            }
            let grown = arena.realloc(old, outside, 1000);
            assert!(arena.owns(grown));
            let copied = std::slice::from_raw_parts(grown, 32);
            assert!(copied.iter().enumerate().all(|(i, &b)| b == i as u8));
            let shrunk = arena.realloc(grown, layout(1000), 16);
            assert!(arena.owns(shrunk));
            assert_eq!(std::slice::from_raw_parts(shrunk, 16), &copied[..16]);
            let left = std::slice::from_raw_parts(old, 32);
            assert!(left.iter().enumerate().all(|(i, &b)| b == i as u8));
            System.dealloc(old, outside);
        }
    }

    #[test]
    fn freeing_a_large_block_gives_the_top_pages_back() {
        let arena = arena();
        let resident = |p: *mut u8| {
            let mut v = 0u8;
            // SAFETY: mincore on a page of the arena's mapping.
            let page = (p as usize & !(PAGE - 1)) as *mut libc::c_void;
            assert_eq!(unsafe { libc::mincore(page, PAGE, &mut v) }, 0);
            v & 1 == 1
        };
        unsafe {
            let big = layout(6 * PAGE);
            let p = arena.alloc(big);
            let last = p.add(6 * PAGE - 1);
            last.write(1);
            assert!(resident(last));
            arena.dealloc(p, big);
            assert!(!resident(last), "the freed top page is still resident");
            let again = arena.alloc_zeroed(big);
            assert_eq!(again, p, "the given-back pages were not handed out again");
            assert_eq!(again.add(6 * PAGE - 1).read(), 0);
        }
    }

    #[test]
    fn alignment_and_zeroing_are_kept() {
        let arena = arena();
        unsafe {
            let aligned = Layout::from_size_align(40, 4096).unwrap();
            let p = arena.alloc(aligned);
            assert_eq!(p as usize % 4096, 0);
            p.write_bytes(0xFF, 40);
            arena.dealloc(p, aligned);
            let z = arena.alloc_zeroed(layout(4000));
            assert!(std::slice::from_raw_parts(z, 4000).iter().all(|&b| b == 0));
        }
    }

    #[test]
    fn an_arena_that_outgrows_its_region_maps_another_and_owns_both() {
        let arena = arena();
        unsafe {
            let blocks: Vec<*mut u8> = (0..12).map(|_| arena.alloc(layout(1 << 20))).collect();
            assert!(blocks.iter().all(|&b| !b.is_null() && arena.owns(b)));
            assert!(arena.regions.count.load(Ordering::Relaxed) >= 2);
            for &b in &blocks {
                b.write_bytes(1, 1 << 20);
            }
            for b in blocks {
                arena.dealloc(b, layout(1 << 20));
            }
            assert!(!arena.owns(ptr::null_mut::<u8>().wrapping_add(4096)));
        }
    }

    /// Whether `test` returns true in a forked child (as a session is: the test process
    /// itself keeps malloc).
    fn passes_in_a_child(test: impl FnOnce() -> bool) -> bool {
        // SAFETY: the child runs `test` and exits; the tests that call this take no lock
        // another thread of the test process may hold, but the allocator's, which the
        // child leaves for its own arena first.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let ok = test();
            // SAFETY: _exit runs nothing of the parent's.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) };
        }
        assert!(pid > 0, "fork: {}", io::Error::last_os_error());
        let mut status = 0;
        // SAFETY: waits for the child just forked.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
    }

    #[test]
    fn a_process_that_entered_its_arena_allocates_there_and_leaves_older_blocks_alone() {
        let before: Vec<u8> = vec![7; 100];
        assert!(passes_in_a_child(|| {
            if enter().is_err() {
                return false;
            }
            let Some(arena) = super::arena() else {
                return false;
            };
            let new = vec![1u8; 100];
            let mut grown = before;
            grown.extend_from_slice(&new);
            arena.owns(new.as_ptr().cast_mut()) && arena.owns(grown.as_mut_ptr())
        }));
        assert!(
            super::arena().is_none(),
            "the test process itself entered an arena"
        );
    }

    #[test]
    fn a_first_arena_begins_just_past_the_program_break() {
        assert!(passes_in_a_child(|| {
            let at = after_break();
            enter().is_ok()
                && at.is_some()
                && super::arena().map(|a| ptr::from_ref(a) as usize) == at
        }));
    }

    #[test]
    fn a_clone_of_a_process_with_an_arena_takes_the_rest_of_its_region() {
        assert!(passes_in_a_child(|| {
            // The parent, as the fork server: an arena with a few blocks in it.
            if enter().is_err() {
                return false;
            }
            let Some(parent) = super::arena() else {
                return false;
            };
            let kept: Vec<u8> = vec![3; 5000];
            let Some((rest, _)) = parent.rest() else {
                return false;
            };
            passes_in_a_child(move || {
                // The clone, as a session: its arena begins on the page after the
                // parent's last, in the same 2 MiB window here.
                if enter().is_err() {
                    return false;
                }
                let Some(own) = super::arena() else {
                    return false;
                };
                let start = ptr::from_ref(own) as usize;
                let mut grown = kept;
                grown.push(4);
                let new = Box::new([5u8; 100]);
                start == rest
                    && start >> 21 == (ptr::from_ref(parent) as usize) >> 21
                    && !own.owns(ptr::from_ref(parent).cast_mut().cast())
                    && own.owns(grown.as_mut_ptr())
                    && own.owns(Box::into_raw(new).cast())
                    && grown[..5000].iter().all(|&b| b == 3)
            })
        }));
    }
}
