//! What the kit needs of a Foxes & Dolphins board it was drawn (the game sets
//! its board up at random, so the kit reads it rather than knowing it).

use reversi_games::foxes::{Board as Foxes, Species};
use reversi_games::{Cell, Piece, Point, Team};

use crate::conn::Board;
use crate::report::Finding;

/// The cells a drawn board shows. Square kinds become `'static` as `Cell`
/// wants them: a handful of short words, once a check.
pub fn cells(board: &Board) -> Vec<Cell> {
    board
        .iter()
        .map(|(&(x, y), (kind, piece))| Cell {
            at: Point::new(x, y),
            square: Box::leak(kind.clone().into_boxed_str()),
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
