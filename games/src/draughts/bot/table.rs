//! The transposition table: what earlier searches learnt of a position,
//! one entry a slot, replaced by the deeper or newer search.

/// How a stored score bounds the true one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    Exact,
    /// The true score is at least this (a cut-off).
    Lower,
    /// The true score is at most this (no move reached alpha).
    Upper,
}

#[derive(Clone, Copy, Debug)]
pub struct Entry {
    key: u64,
    pub score: i32,
    pub depth: i8,
    pub bound: Bound,
    /// The index of the best move in the position's generated move list.
    pub best: u8,
    /// The search that stored it: entries of earlier moves give way.
    age: u8,
}

pub struct Table {
    slots: Vec<Option<Entry>>,
    mask: usize,
    age: u8,
}

impl Table {
    /// A table of `2^bits` entries.
    pub fn new(bits: u32) -> Table {
        let size = 1usize << bits.min(30);
        Table {
            slots: vec![None; size],
            mask: size - 1,
            age: 0,
        }
    }

    /// A new search begins: what the earlier ones stored may be replaced.
    pub fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    pub fn get(&self, key: u64) -> Option<Entry> {
        self.slots[key as usize & self.mask].filter(|e| e.key == key)
    }

    pub fn put(&mut self, key: u64, score: i32, depth: i8, bound: Bound, best: u8) {
        let slot = &mut self.slots[key as usize & self.mask];
        let keep = slot.is_some_and(|e| e.key != key && e.age == self.age && e.depth > depth);
        if !keep {
            *slot = Some(Entry {
                key,
                score,
                depth,
                bound,
                best,
                age: self.age,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_takes_16_bytes() {
        assert_eq!(std::mem::size_of::<Option<Entry>>(), 16);
    }

    #[test]
    fn entries_are_found_by_their_key_and_deeper_ones_kept() {
        let mut t = Table::new(4);
        t.put(5, 10, 3, Bound::Exact, 1);
        assert_eq!(t.get(5).unwrap().score, 10);
        assert!(t.get(5 + 16).is_none(), "same slot, other key");
        t.put(5 + 16, 20, 1, Bound::Lower, 0);
        assert_eq!(t.get(5).unwrap().score, 10, "the deeper entry stays");
        t.put(5 + 16, 20, 4, Bound::Lower, 0);
        assert!(t.get(5).is_none());
        assert_eq!(t.get(21).unwrap().bound, Bound::Lower);
        t.new_search();
        t.put(5, 10, 0, Bound::Exact, 1);
        assert!(t.get(21).is_none(), "an older search's entry gives way");
    }
}
