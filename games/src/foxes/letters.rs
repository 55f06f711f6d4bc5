//! The board as the seed's viewers receive it (`BEB <board>`): one letter a
//! tile, row by row from (1, 1), x fastest. And the way back, from that
//! string or from drawn cells, for clients and computer players that only
//! see the board.

use crate::game::{Cell, Illegal, Team};

use super::board::{Board, Species};
use super::terrain::{Size, Terrain};

/// The seed's letters: W water, L land, D a dolphin in water, E a dolphin on
/// land, F a fox on land, G a fox in water.
fn letter(land: bool, animal: Option<Species>) -> char {
    match (animal, land) {
        (None, false) => 'W',
        (None, true) => 'L',
        (Some(Species::Dolphin), false) => 'D',
        (Some(Species::Dolphin), true) => 'E',
        (Some(Species::Fox), true) => 'F',
        (Some(Species::Fox), false) => 'G',
    }
}

fn tile(letter: char) -> Option<(bool, Option<Species>)> {
    Some(match letter {
        'W' => (false, None),
        'L' => (true, None),
        'D' => (false, Some(Species::Dolphin)),
        'E' => (true, Some(Species::Dolphin)),
        'F' => (true, Some(Species::Fox)),
        'G' => (false, Some(Species::Fox)),
        _ => return None,
    })
}

impl Board {
    /// The seed's board string.
    pub fn letters(&self) -> String {
        (0..self.size().tiles())
            .map(|i| letter(self.terrain().is_land(i), self.animal(i)))
            .collect()
    }

    /// The board a seed board string describes.
    pub fn from_letters(text: &str) -> Result<Board, Illegal> {
        let len = text.chars().count();
        let n = (1..=Size::MAX).find(|&n| usize::from(n) * usize::from(n) == len);
        let size = n.map_or_else(
            || {
                Err(Illegal::new(format!(
                    "a board string has n x n letters; {len} is no square"
                )))
            },
            Size::new,
        )?;
        let mut terrain = Terrain::sea(size);
        let mut animals = Vec::with_capacity(len);
        for (i, c) in text.chars().enumerate() {
            let (land, animal) = tile(c).ok_or_else(|| {
                Illegal::new(format!("{c:?} is not one of the board letters W L D E F G"))
            })?;
            terrain.set_land(i, land);
            animals.push(animal);
        }
        checked(terrain, animals)
    }

    /// The board the cells draw (every tile once, in any order).
    pub fn from_cells(cells: &[Cell]) -> Result<Board, Illegal> {
        let n = cells.iter().map(|c| c.at.x.max(c.at.y)).max().unwrap_or(0);
        let size = Size::new(n)?;
        let mut terrain = Terrain::sea(size);
        let mut animals = vec![None; size.tiles()];
        let mut drawn = vec![false; size.tiles()];
        for cell in cells {
            let i = size
                .index(cell.at)
                .ok_or_else(|| Illegal::new(format!("{} is not on the board", cell.at)))?;
            terrain.set_land(
                i,
                match cell.square {
                    "land" => true,
                    "water" => false,
                    other => return Err(Illegal::new(format!("{other} is not land or water"))),
                },
            );
            animals[i] = match &cell.piece {
                None => None,
                Some(piece) => Some(animal(&piece.name, piece.team)?),
            };
            drawn[i] = true;
        }
        if let Some(i) = drawn.iter().position(|&d| !d) {
            return Err(Illegal::new(format!("tile {} is not drawn", size.point(i))));
        }
        checked(terrain, animals)
    }
}

fn animal(name: &str, team: Team) -> Result<Species, Illegal> {
    Species::BOTH
        .into_iter()
        .find(|s| s.name() == name && s.team() == team)
        .ok_or_else(|| {
            Illegal::new(format!(
                "{name} of team {} is not an animal of this game",
                team.number()
            ))
        })
}

/// The board, if its land is one island.
fn checked(terrain: Terrain, animals: Vec<Option<Species>>) -> Result<Board, Illegal> {
    if terrain.land_count() == 0 || !terrain.is_connected() {
        return Err(Illegal::new("the land is not one island"));
    }
    Ok(Board::from_parts(terrain, animals))
}

/// A board drawn as rows of the seed's letters separated by blanks, the
/// top row (row n) first, as a person reads a picture.
#[cfg(test)]
pub fn picture(rows: &str) -> Board {
    let rows: Vec<&str> = rows.split_whitespace().collect();
    let letters: String = rows.iter().rev().copied().collect();
    Board::from_letters(&letters).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foxes::rng::Rng;
    use crate::game::Point;

    #[test]
    fn the_board_string_reads_back_and_starts_at_1_1() {
        let board = Board::generate(Size::new(12).unwrap(), &mut Rng::new(5));
        let text = board.letters();
        assert_eq!(text.len(), 144);
        assert_eq!(Board::from_letters(&text).unwrap(), board);
        assert_eq!(Board::from_cells(&board.cells()).unwrap(), board);
        // Letter i is tile (i mod n + 1, i div n + 1).
        let size = board.size();
        for (i, c) in text.chars().enumerate() {
            let p = size.point(i);
            let cell = board.cell(size.index(p).unwrap());
            assert_eq!(c, letter(cell.square == "land", board.animal(i)), "{p}");
        }
        assert_eq!(size.point(13), Point::new(2, 2));
    }

    #[test]
    fn bad_board_strings_say_what_is_wrong() {
        // The seed's own example: 18 letters "if board size would be 4".
        let seed = Board::from_letters("WWWDWLFGWLLGDWDW").unwrap_err();
        assert_eq!(seed.0, "a board is 10 to 50 tiles a side, not 4");
        let odd = Board::from_letters("WWWDWLFGWLLGDWDWDW").unwrap_err();
        assert!(odd.0.contains("18 is no square"));
        let mut text = "W".repeat(100);
        assert_eq!(
            Board::from_letters(&text).unwrap_err().0,
            "the land is not one island"
        );
        text.replace_range(0..1, "L");
        text.replace_range(99..100, "L");
        assert!(Board::from_letters(&text).is_err());
        text.replace_range(99..100, "X");
        assert!(Board::from_letters(&text).unwrap_err().0.contains("'X'"));
    }
}
