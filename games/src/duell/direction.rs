//! The four ways a piece moves, in the board's frame (north is toward row 8).

use std::cmp::Ordering::{Equal, Greater, Less};

use crate::game::Point;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Direction {
    North,
    South,
    East,
    West,
}

impl Direction {
    pub const ALL: [Direction; 4] = [
        Direction::North,
        Direction::South,
        Direction::East,
        Direction::West,
    ];

    pub fn opposite(self) -> Direction {
        match self {
            Direction::North => Direction::South,
            Direction::South => Direction::North,
            Direction::East => Direction::West,
            Direction::West => Direction::East,
        }
    }

    /// The two directions at right angles to this one.
    pub fn turns(self) -> [Direction; 2] {
        match self {
            Direction::North | Direction::South => [Direction::East, Direction::West],
            Direction::East | Direction::West => [Direction::North, Direction::South],
        }
    }

    /// The square one step from `p` this way, if the step stays at or above
    /// (1, 1); the upper edges are the board's to check.
    pub fn step(self, p: Point) -> Option<Point> {
        let (x, y) = (p.x, p.y);
        let (x, y) = match self {
            Direction::North => (x, y.checked_add(1)?),
            Direction::South => (x, y.checked_sub(1)?),
            Direction::East => (x.checked_add(1)?, y),
            Direction::West => (x.checked_sub(1)?, y),
        };
        (x >= 1 && y >= 1).then_some(Point::new(x, y))
    }

    /// The direction from `a` straight toward `b` and how many steps, if they
    /// share a row or a column and differ.
    pub fn between(a: Point, b: Point) -> Option<(Direction, u8)> {
        match (a.x.cmp(&b.x), a.y.cmp(&b.y)) {
            (Equal, Less) => Some((Direction::North, b.y - a.y)),
            (Equal, Greater) => Some((Direction::South, a.y - b.y)),
            (Less, Equal) => Some((Direction::East, b.x - a.x)),
            (Greater, Equal) => Some((Direction::West, a.x - b.x)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_and_spans() {
        let p = Point::new(1, 1);
        assert_eq!(Direction::South.step(p), None);
        assert_eq!(Direction::West.step(p), None);
        assert_eq!(Direction::North.step(p), Some(Point::new(1, 2)));
        assert_eq!(Direction::East.step(p), Some(Point::new(2, 1)));
        assert_eq!(
            Direction::between(p, Point::new(1, 6)),
            Some((Direction::North, 5))
        );
        assert_eq!(
            Direction::between(Point::new(5, 5), Point::new(2, 5)),
            Some((Direction::West, 3))
        );
        assert_eq!(Direction::between(p, p), None);
        assert_eq!(Direction::between(p, Point::new(2, 2)), None);
        for d in Direction::ALL {
            assert!(!d.turns().contains(&d) && !d.turns().contains(&d.opposite()));
        }
    }
}
