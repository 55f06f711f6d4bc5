//! What the kit needs of a Foxes & Dolphins board it was drawn (the game sets
//! its board up at random, so the kit reads it rather than knowing it).

use reversi_games::foxes::{Board as Foxes, Species};
use reversi_games::{Cell, Piece, Point, Team};

use crate::conn::Board;
use crate::report::Finding;

/// The cells a drawn board shows. Square kinds become `'static` as `Cell`
/// wants them: each kind (a handful of short words) leaked once a check.
pub fn cells(board: &Board) -> Vec<Cell> {
    let mut kinds: Vec<&'static str> = Vec::new();
    let mut kind_of = |kind: &str| match kinds.iter().find(|k| **k == kind) {
        Some(k) => *k,
        None => {
            let k: &'static str = Box::leak(kind.to_owned().into_boxed_str());
            kinds.push(k);
            k
        }
    };
    board
        .iter()
        .map(|(&(x, y), (kind, piece))| Cell {
            at: Point::new(x, y),
            square: kind_of(kind),
            piece: piece.as_ref().map(|(name, team)| Piece {
                name: name.clone(),
                team: Team(team.saturating_sub(1)),
            }),
        })
        .collect()
}

/// A step `team` may take on the board `cells` draw.
pub fn a_step(cells: &[Cell], team: Team) -> Result<(Point, Point), Finding> {
    let board = Foxes::from_cells(cells)
        .map_err(|why| Finding::differ("the kit", "a Foxes & Dolphins board", why.0))?;
    let species = Species::of(team).expect("two teams");
    board
        .steps(species)
        .first()
        .map(|s| (s.from, s.to))
        .ok_or_else(|| Finding::differ("the kit", "a step on the drawn board", "none"))
}
