//! A die's orientation and how it rolls.
//!
//! The die is held in the board's frame: the faces on top, toward row 1
//! (south) and toward column 1 (west); the other three are 7 minus these.
//! Its name reads the faces from its owner's seat (`spec/games/duell.md`).

use std::fmt;

use super::direction::Direction;

/// A die lying on the board. Only the starting dice and rolls make one, so
/// its three faces are always distinct and never opposite.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Die {
    top: u8,
    south: u8,
    west: u8,
}

impl Die {
    /// The die of the starting row whose top shows `top`, as team 1 sets it
    /// up: 3 toward its owner (south) and all dice of one chirality, so the
    /// west face follows from the top (the seed's load file: `5 3 6`,
    /// `1 3 5`, `2 3 1`, `6 3 2`).
    pub(super) fn starting(top: u8) -> Die {
        let west = match top {
            1 => 5,
            2 => 1,
            5 => 6,
            6 => 2,
            // The row holds only 1, 2, 5 and 6 (3 and 4 face the players).
            _ => unreachable!("no starting die shows {top}"),
        };
        Die {
            top,
            south: 3,
            west,
        }
    }

    /// The same die turned half a circle about the vertical, as the other
    /// team sets it up facing the first.
    pub(super) fn turned(self) -> Die {
        Die {
            top: self.top,
            south: 7 - self.south,
            west: 7 - self.west,
        }
    }

    /// The die whose faces read `faces` (top, back, left) from its owner's
    /// seat, if a die of the game's handedness can show them.
    pub fn from_faces(faces: [u8; 3], first_team: bool) -> Option<Die> {
        if !faces.iter().all(|f| (1..=6).contains(f)) {
            return None;
        }
        let [top, back, left] = faces;
        let die = if first_team {
            Die {
                top,
                south: back,
                west: left,
            }
        } else {
            Die {
                top,
                south: 7 - back,
                west: 7 - left,
            }
        };
        Die::orientations().contains(&die).then_some(die)
    }

    /// The 24 ways a die of the game's handedness can lie: all that rolls reach.
    fn orientations() -> Vec<Die> {
        let mut seen = vec![Die::starting(5)];
        let mut i = 0;
        while let Some(&die) = seen.get(i) {
            for dir in Direction::ALL {
                let next = die.rolled(dir);
                if !seen.contains(&next) {
                    seen.push(next);
                }
            }
            i += 1;
        }
        seen
    }

    /// The pips on top: how far the die rolls.
    pub fn top(self) -> u8 {
        self.top
    }

    /// The die after tipping one square toward `dir`: the face on the side it
    /// tips toward goes down, the opposite one comes up.
    pub fn rolled(self, dir: Direction) -> Die {
        let Die { top, south, west } = self;
        match dir {
            Direction::North => Die {
                top: south,
                south: 7 - top,
                west,
            },
            Direction::South => Die {
                top: 7 - south,
                south: top,
                west,
            },
            Direction::East => Die {
                top: west,
                south,
                west: 7 - top,
            },
            Direction::West => Die {
                top: 7 - west,
                south,
                west: top,
            },
        }
    }

    /// Top, back and left as the owner sees them: the back is the face toward
    /// the owner's home row, the left the owner's left. Team 1 sits at row 1
    /// (south, looking north), team 2 at row 8 (looking south).
    pub fn faces(self, first_team: bool) -> [u8; 3] {
        if first_team {
            [self.top, self.south, self.west]
        } else {
            [self.top, 7 - self.south, 7 - self.west]
        }
    }
}

/// The faces as the seed's piece names write them, `536` for top 5, back 3, left 6.
pub struct Faces(pub [u8; 3]);

impl fmt::Display for Faces {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c] = self.0;
        write!(f, "{a}{b}{c}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(die: Die) -> String {
        Faces(die.faces(true)).to_string()
    }

    #[test]
    fn the_seeds_die_rolled_five_squares_up_shows_326() {
        let mut die = Die::starting(5);
        assert_eq!(name(die), "536");
        for _ in 0..5 {
            die = die.rolled(Direction::North);
        }
        assert_eq!(name(die), "326");
    }

    #[test]
    fn each_quarter_roll_turns_the_die() {
        let die = Die::starting(5); // top 5, south 3, west 6
        assert_eq!(name(die.rolled(Direction::North)), "326");
        assert_eq!(name(die.rolled(Direction::South)), "456");
        assert_eq!(name(die.rolled(Direction::East)), "632");
        assert_eq!(name(die.rolled(Direction::West)), "135");
    }

    #[test]
    fn rolling_back_undoes_a_roll_and_four_rolls_come_home() {
        for top in [1, 2, 5, 6] {
            let die = Die::starting(top);
            for dir in Direction::ALL {
                assert_eq!(die.rolled(dir).rolled(dir.opposite()), die);
                let mut d = die;
                for _ in 0..4 {
                    d = d.rolled(dir);
                }
                assert_eq!(d, die);
            }
        }
    }

    /// Rolls never change the die's handedness: every orientation reached
    /// from a starting die is one of the 24 of that same die.
    #[test]
    fn rolls_reach_exactly_the_24_orientations_of_one_die() {
        let all = Die::orientations();
        assert_eq!(all.len(), 24);
        for top in [1, 2, 5, 6] {
            assert!(all.contains(&Die::starting(top)), "{top}");
            assert!(all.contains(&Die::starting(top).turned()), "{top}");
        }
        for d in &all {
            let faces = [d.top, d.south, d.west];
            assert!(faces.iter().all(|f| (1..=6).contains(f)));
            assert!(faces.iter().all(|&f| !faces.contains(&(7 - f))));
            for first in [true, false] {
                assert_eq!(Die::from_faces(d.faces(first), first), Some(*d));
            }
        }
    }

    #[test]
    fn only_real_dice_are_read_from_names() {
        // 563 is 536 seen in a mirror: a die of the other handedness.
        assert_eq!(Die::from_faces([5, 6, 3], true), None);
        for bad in [[5, 2, 6], [5, 5, 3], [0, 3, 6], [7, 3, 6], [5, 3, 9]] {
            assert_eq!(Die::from_faces(bad, true), None, "{bad:?}");
            assert_eq!(Die::from_faces(bad, false), None, "{bad:?}");
        }
    }

    #[test]
    fn the_second_team_reads_its_die_from_its_own_seat() {
        let die = Die::starting(5).turned();
        assert_eq!(die.faces(false), [5, 3, 6]);
        assert_eq!(die.faces(true), [5, 4, 1]);
    }
}
