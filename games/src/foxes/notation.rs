//! The game's own notation for a step: `4,1-4,2` (x,y of the tile left and
//! of the tile reached, as the text protocol numbers them), `x` instead of
//! `-` when the animal eats: `4,1x4,2`. Reading takes `X` as well (notation is
//! read in any case, spec/TEXT-PROTOCOL.md §5.3) and the seed's four numbers, `4 1 4 2`.

use crate::game::{Illegal, Point};

use super::board::Step;

pub fn write_step(step: &Step) -> String {
    let sep = if step.eats { 'x' } else { '-' };
    format!(
        "{},{}{sep}{},{}",
        step.from.x, step.from.y, step.to.x, step.to.y
    )
}

/// The two tiles of a written step.
pub fn read_step(text: &str) -> Result<[Point; 2], Illegal> {
    let bad = || {
        Illegal::new(format!(
            "{text:?} is not a step: write it as 4,1-4,2 (or 4 1 4 2)"
        ))
    };
    let numbers: Vec<u8> = text
        .split(|c: char| matches!(c, ',' | '-' | 'x' | 'X') || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    let &[x1, y1, x2, y2] = numbers.as_slice() else {
        return Err(bad());
    };
    Ok([Point::new(x1, y1), Point::new(x2, y2)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foxes::board::Species;

    #[test]
    fn steps_read_back_as_written() {
        let step = Step {
            species: Species::Dolphin,
            from: Point::new(4, 1),
            to: Point::new(4, 2),
            eats: true,
        };
        assert_eq!(write_step(&step), "4,1x4,2");
        let expected = [Point::new(4, 1), Point::new(4, 2)];
        assert_eq!(read_step("4,1x4,2").unwrap(), expected);
        assert_eq!(read_step("4,1X4,2").unwrap(), expected);
        assert_eq!(read_step(" 4,1-4,2 ").unwrap(), expected);
        assert_eq!(read_step("4 1 4 2").unwrap(), expected);
        for bad in ["", "4,1", "4,1-4", "4,1-4,2-4,3", "a,1-4,2", "4,1-4,300"] {
            assert!(read_step(bad).is_err(), "{bad}");
        }
    }
}
