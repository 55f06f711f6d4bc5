//! Land and water: the island, which stays 4-connected while tides take
//! tiles from its coast or add tiles along its shore.

use crate::game::{Illegal, Point};

use super::rng::Rng;

/// The board's side, 10 to 50 tiles (the seed's MinBoardSize and MaxBoardSize).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Size(u8);

impl Size {
    pub const MIN: u8 = 10;
    pub const MAX: u8 = 50;
    /// The size of the games the server starts (the seed leaves n open).
    pub const DEFAULT: Size = Size(20);

    pub fn new(n: u8) -> Result<Size, Illegal> {
        if (Size::MIN..=Size::MAX).contains(&n) {
            Ok(Size(n))
        } else {
            Err(Illegal::new(format!(
                "a board is {} to {} tiles a side, not {n}",
                Size::MIN,
                Size::MAX
            )))
        }
    }

    pub const fn get(self) -> u8 {
        self.0
    }

    /// How many tiles the board has.
    pub fn tiles(self) -> usize {
        usize::from(self.0) * usize::from(self.0)
    }

    /// The tile index of `p`, if it is on the board: row by row from (1, 1),
    /// the order of the seed's board string.
    pub fn index(self, p: Point) -> Option<usize> {
        let n = self.0;
        ((1..=n).contains(&p.x) && (1..=n).contains(&p.y))
            .then(|| usize::from(p.y - 1) * usize::from(n) + usize::from(p.x - 1))
    }

    pub fn point(self, i: usize) -> Point {
        let n = usize::from(self.0);
        Point::new((i % n) as u8 + 1, (i / n) as u8 + 1)
    }

    /// The 4-neighbours of tile `i` that are on the board.
    pub fn neighbours(self, i: usize) -> impl Iterator<Item = usize> {
        let n = usize::from(self.0);
        let (x, y) = (i % n, i / n);
        [
            (y + 1 < n).then(|| i + n),
            (y > 0).then(|| i - n),
            (x + 1 < n).then(|| i + 1),
            (x > 0).then(|| i - 1),
        ]
        .into_iter()
        .flatten()
    }

    /// Steps from `a` to `b` along rows and columns.
    pub fn distance(self, a: usize, b: usize) -> usize {
        let (pa, pb) = (self.point(a), self.point(b));
        usize::from(pa.x.abs_diff(pb.x)) + usize::from(pa.y.abs_diff(pb.y))
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Terrain {
    size: Size,
    land: Vec<bool>,
}

impl Terrain {
    /// All water.
    pub fn sea(size: Size) -> Terrain {
        Terrain {
            size,
            land: vec![false; size.tiles()],
        }
    }

    /// A random island of `area` tiles grown from the middle of the board.
    pub fn island(size: Size, area: usize, rng: &mut Rng) -> Terrain {
        let mut terrain = Terrain::sea(size);
        while terrain.land_count() < area && terrain.raise_one(rng).is_some() {}
        terrain
    }

    pub fn size(&self) -> Size {
        self.size
    }

    pub fn is_land(&self, i: usize) -> bool {
        self.land[i]
    }

    pub fn set_land(&mut self, i: usize, land: bool) {
        self.land[i] = land;
    }

    pub fn land_count(&self) -> usize {
        self.land.iter().filter(|&&l| l).count()
    }

    /// Whether land lies within `steps` steps of tile `i` (the tile itself included).
    pub fn land_within(&self, i: usize, steps: usize) -> bool {
        let n = usize::from(self.size.get());
        let (x, y) = (i % n, i / n);
        (y.saturating_sub(steps)..=(y + steps).min(n - 1)).any(|ty| {
            let left = steps - ty.abs_diff(y);
            (x.saturating_sub(left)..=(x + left).min(n - 1)).any(|tx| self.land[ty * n + tx])
        })
    }

    /// Whether all land is one 4-connected island (no land counts as one).
    pub fn is_connected(&self) -> bool {
        let Some(start) = self.land.iter().position(|&l| l) else {
            return true;
        };
        let mut seen = vec![false; self.land.len()];
        let mut stack = vec![start];
        seen[start] = true;
        let mut reached = 1;
        while let Some(i) = stack.pop() {
            for j in self.size.neighbours(i) {
                if self.land[j] && !seen[j] {
                    seen[j] = true;
                    reached += 1;
                    stack.push(j);
                }
            }
        }
        reached == self.land_count()
    }

    /// Land tiles whose loss would split the island (its articulation points),
    /// by Tarjan's depth-first low-link numbering, without recursion.
    fn cut_tiles(&self) -> Vec<bool> {
        let tiles = self.land.len();
        let mut cut = vec![false; tiles];
        let Some(root) = self.land.iter().position(|&l| l) else {
            return cut;
        };
        let mut order = vec![0u32; tiles]; // 0: not yet visited
        let mut low = vec![0u32; tiles];
        let mut counter = 1;
        order[root] = 1;
        low[root] = 1;
        let mut root_children = 0;
        // (tile, its parent, the neighbours still to look at)
        let mut stack: Vec<(usize, usize, Vec<usize>)> =
            vec![(root, usize::MAX, self.size.neighbours(root).collect())];
        while let Some(top) = stack.last_mut() {
            let (v, parent) = (top.0, top.1);
            if let Some(w) = top.2.pop() {
                if !self.land[w] {
                    continue;
                }
                if order[w] == 0 {
                    counter += 1;
                    order[w] = counter;
                    low[w] = counter;
                    if v == root {
                        root_children += 1;
                    }
                    stack.push((w, v, self.size.neighbours(w).collect()));
                } else if w != parent {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            stack.pop();
            if let Some(&(p, _, _)) = stack.last() {
                low[p] = low[p].min(low[v]);
                if p != root && low[v] >= order[p] {
                    cut[p] = true;
                }
            }
        }
        cut[root] = root_children > 1;
        cut
    }

    /// Land tiles touching water or the board's edge.
    fn coast(&self) -> Vec<usize> {
        (0..self.land.len())
            .filter(|&i| self.land[i])
            .filter(|&i| self.size.neighbours(i).filter(|&j| self.land[j]).count() < 4)
            .collect()
    }

    /// Water tiles touching land: where the island can grow.
    fn shore(&self) -> Vec<usize> {
        (0..self.land.len())
            .filter(|&i| !self.land[i])
            .filter(|&i| self.size.neighbours(i).any(|j| self.land[j]))
            .collect()
    }

    /// The water takes one tile of the coast that the island can lose
    /// without splitting (any such tile if none is on the coast); the last
    /// tile of land always stays.
    pub fn sink_one(&mut self, rng: &mut Rng) -> Option<usize> {
        if self.land_count() <= 1 {
            return None;
        }
        let cut = self.cut_tiles();
        let coast: Vec<usize> = self.coast().into_iter().filter(|&i| !cut[i]).collect();
        let tile = match rng.pick(&coast) {
            Some(tile) => tile,
            None => {
                let safe: Vec<usize> = (0..self.land.len())
                    .filter(|&i| self.land[i] && !cut[i])
                    .collect();
                rng.pick(&safe)?
            }
        };
        self.land[tile] = false;
        Some(tile)
    }

    /// One water tile of the shore turns to land (the middle of the board
    /// when there is no land yet); `None` when the board is all land.
    pub fn raise_one(&mut self, rng: &mut Rng) -> Option<usize> {
        let tile = if self.land_count() == 0 {
            let middle = self.size.get() / 2 + 1;
            self.size.index(Point::new(middle, middle))
        } else {
            rng.pick(&self.shore())
        }?;
        self.land[tile] = true;
        Some(tile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(n: u8) -> Size {
        Size::new(n).unwrap()
    }

    /// The slow, obvious definition: the island falls apart without the tile.
    fn is_cut(terrain: &Terrain, i: usize) -> bool {
        let mut without = terrain.clone();
        without.land[i] = false;
        terrain.land[i] && !without.is_connected()
    }

    #[test]
    fn sizes_are_checked_and_tiles_numbered_row_by_row_from_1_1() {
        assert!(Size::new(9).is_err() && Size::new(51).is_err() && Size::new(4).is_err());
        let s = size(10);
        assert_eq!(s.index(Point::new(1, 1)), Some(0));
        assert_eq!(s.index(Point::new(4, 2)), Some(13));
        assert_eq!(s.index(Point::new(11, 1)), None);
        assert_eq!(s.index(Point::new(1, 0)), None);
        for i in 0..s.tiles() {
            assert_eq!(s.index(s.point(i)), Some(i));
            for j in s.neighbours(i) {
                assert_eq!(s.distance(i, j), 1);
            }
        }
        assert_eq!(s.neighbours(0).count(), 2);
        assert_eq!(s.neighbours(11).count(), 4);
    }

    #[test]
    fn cut_tiles_are_exactly_the_tiles_that_split_the_island() {
        let mut rng = Rng::new(3);
        for area in [1, 2, 3, 10, 30, 60] {
            for _ in 0..5 {
                let mut terrain = Terrain::island(size(10), area, &mut rng);
                // Some holes, but the island stays whole.
                for _ in 0..area / 4 {
                    terrain.sink_one(&mut rng);
                }
                assert!(terrain.is_connected());
                let cut = terrain.cut_tiles();
                for (i, &c) in cut.iter().enumerate() {
                    assert_eq!(c, is_cut(&terrain, i), "tile {i}, area {area}");
                }
            }
        }
    }

    #[test]
    fn tides_change_one_tile_at_a_time_and_keep_the_island_whole() {
        let mut rng = Rng::new(9);
        let mut terrain = Terrain::island(size(12), 40, &mut rng);
        assert_eq!(terrain.land_count(), 40);
        for _ in 0..39 {
            let tile = terrain.sink_one(&mut rng).unwrap();
            assert!(!terrain.is_land(tile));
            assert!(terrain.is_connected());
        }
        assert_eq!(terrain.land_count(), 1);
        assert_eq!(terrain.sink_one(&mut rng), None, "the last tile stays");
        for _ in 0..143 {
            let tile = terrain.raise_one(&mut rng).unwrap();
            assert!(terrain.is_land(tile));
            assert!(terrain.is_connected());
        }
        assert_eq!(terrain.raise_one(&mut rng), None, "the board is all land");
    }

    #[test]
    fn land_within_counts_steps_along_rows_and_columns() {
        let s = size(10);
        let mut terrain = Terrain::sea(s);
        let at = |x, y| s.index(Point::new(x, y)).unwrap();
        terrain.set_land(at(5, 5), true);
        assert!(terrain.land_within(at(5, 5), 0));
        assert!(terrain.land_within(at(5, 7), 2));
        assert!(terrain.land_within(at(6, 6), 2));
        assert!(!terrain.land_within(at(6, 7), 2));
        assert!(!terrain.land_within(at(5, 8), 2));
        assert!(terrain.land_within(at(5, 8), 3));
        terrain.set_land(at(1, 1), true);
        assert!(terrain.land_within(at(1, 3), 2));
        assert!(terrain.land_within(at(2, 2), 2));
    }
}
