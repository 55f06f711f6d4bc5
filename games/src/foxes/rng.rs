//! The game's own random numbers: SplitMix64 (Steele, Lea and Flood, 2014),
//! small and fully determined by the seed, so a seed replays a game's start
//! and tides exactly.

#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0); the modulo bias is far below anything a
    /// board of at most 2500 tiles could show.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// One of `items`, if there are any.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        (!items.is_empty()).then(|| items[self.below(items.len())])
    }

    /// `k` distinct items of `items` (all of them if fewer), in random order.
    pub fn sample<T: Copy>(&mut self, mut items: Vec<T>, k: usize) -> Vec<T> {
        let k = k.min(items.len());
        for i in 0..k {
            let j = i + self.below(items.len() - i);
            items.swap(i, j);
        }
        items.truncate(k);
        items
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_numbers_and_samples_are_distinct() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        assert_ne!(Rng::new(7).next_u64(), Rng::new(8).next_u64());
        let mut rng = Rng::new(1);
        let mut sample = rng.sample((0..50).collect(), 20);
        assert_eq!(sample.len(), 20);
        sample.sort_unstable();
        sample.dedup();
        assert_eq!(sample.len(), 20);
        assert_eq!(rng.sample(vec![1, 2], 5).len(), 2);
        assert_eq!(rng.pick::<u8>(&[]), None);
        assert!((0..1000).all(|_| rng.below(3) < 3));
    }
}
