//! The board: terrain and the animals on it, and what a step may do.

use crate::game::{Cell, Illegal, Piece, Point, Team};

use super::rng::Rng;
use super::terrain::{Size, Terrain};

/// How far from land a fox may be (the seed: "more than two steps off the land").
pub const FOX_REACH: usize = 2;

/// A team's animals. The first to join plays the foxes (the seed's Join).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Species {
    Fox,
    Dolphin,
}

impl Species {
    pub const BOTH: [Species; 2] = [Species::Fox, Species::Dolphin];

    pub fn team(self) -> Team {
        match self {
            Species::Fox => Team::FIRST,
            Species::Dolphin => Team::SECOND,
        }
    }

    pub fn of(team: Team) -> Option<Species> {
        match team {
            Team::FIRST => Some(Species::Fox),
            Team::SECOND => Some(Species::Dolphin),
            _ => None,
        }
    }

    /// The name of one, as `DRAW PIECE` draws it.
    pub fn name(self) -> &'static str {
        match self {
            Species::Fox => "fox",
            Species::Dolphin => "dolphin",
        }
    }

    pub fn other(self) -> Species {
        match self {
            Species::Fox => Species::Dolphin,
            Species::Dolphin => Species::Fox,
        }
    }
}

/// A step the rules allow.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Step {
    pub species: Species,
    pub from: Point,
    pub to: Point,
    /// Whether the animal eats the one on `to`.
    pub eats: bool,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Board {
    terrain: Terrain,
    animals: Vec<Option<Species>>,
}

impl Board {
    /// A random start: an island of three tenths of the board, `n` foxes on
    /// distinct land tiles, `n` dolphins on distinct water tiles.
    pub fn generate(size: Size, rng: &mut Rng) -> Board {
        let area = size.tiles() * 3 / 10;
        let terrain = Terrain::island(size, area, rng);
        let mut animals = vec![None; size.tiles()];
        let n = usize::from(size.get());
        for species in Species::BOTH {
            let on_land = species == Species::Fox;
            let tiles = (0..size.tiles())
                .filter(|&i| terrain.is_land(i) == on_land)
                .collect();
            for i in rng.sample(tiles, n) {
                animals[i] = Some(species);
            }
        }
        Board { terrain, animals }
    }

    /// A board from its parts; the caller checks the island.
    pub fn from_parts(terrain: Terrain, animals: Vec<Option<Species>>) -> Board {
        Board { terrain, animals }
    }

    pub fn size(&self) -> Size {
        self.terrain.size()
    }

    pub fn terrain(&self) -> &Terrain {
        &self.terrain
    }

    pub fn terrain_mut(&mut self) -> &mut Terrain {
        &mut self.terrain
    }

    pub fn animal(&self, i: usize) -> Option<Species> {
        self.animals[i]
    }

    pub fn count(&self, species: Species) -> usize {
        self.animals.iter().filter(|&&a| a == Some(species)).count()
    }

    /// Where `species` stands.
    pub fn tiles_of(&self, species: Species) -> impl Iterator<Item = usize> + '_ {
        (0..self.animals.len()).filter(move |&i| self.animals[i] == Some(species))
    }

    pub fn cell(&self, i: usize) -> Cell {
        Cell {
            at: self.size().point(i),
            square: if self.terrain.is_land(i) {
                "land"
            } else {
                "water"
            },
            piece: self.animals[i].map(|s| Piece {
                name: s.name().to_owned(),
                team: s.team(),
            }),
        }
    }

    pub fn cells(&self) -> Vec<Cell> {
        (0..self.animals.len()).map(|i| self.cell(i)).collect()
    }

    /// Whether the fox on tile `i` could move at all: land within reach.
    pub fn fox_can_move(&self, i: usize) -> bool {
        self.terrain.land_within(i, FOX_REACH)
    }

    /// The step a `species` player asks for, from `from` to `to`, if the rules allow it.
    pub fn check(&self, species: Species, from: Point, to: Point) -> Result<Step, Illegal> {
        let size = self.size();
        let n = size.get();
        let on_board = |p: Point| {
            size.index(p)
                .ok_or_else(|| Illegal::new(format!("{p} is not on the board (1 1 to {n} {n})")))
        };
        let (f, t) = (on_board(from)?, on_board(to)?);
        if self.animals[f] != Some(species) {
            return Err(Illegal::new(format!(
                "there is no {} on {from}",
                species.name()
            )));
        }
        if size.distance(f, t) != 1 {
            return Err(Illegal::new(format!(
                "an animal moves one step to a neighbouring tile: {from} to {to} is not one"
            )));
        }
        if self.animals[t] == Some(species) {
            return Err(Illegal::new(format!(
                "a {} is already on {to}",
                species.name()
            )));
        }
        let (land_from, land_to) = (self.terrain.is_land(f), self.terrain.is_land(t));
        match species {
            Species::Dolphin if land_from => {
                return Err(Illegal::new("a dolphin stranded on land cannot move"))
            }
            Species::Dolphin if land_to => {
                return Err(Illegal::new("a dolphin cannot move onto land"))
            }
            Species::Fox if !self.fox_can_move(f) => {
                return Err(Illegal::new(
                    "this fox is too far out in the water to move (no land within 2 steps)",
                ))
            }
            Species::Fox if !self.terrain.land_within(t, FOX_REACH) => {
                return Err(Illegal::new(
                    "a fox never swims more than 2 steps from land",
                ))
            }
            Species::Fox if !land_to && self.animals[t].is_some() => {
                return Err(Illegal::new("a fox cannot attack a dolphin in the water"))
            }
            _ => {}
        }
        Ok(Step {
            species,
            from,
            to,
            eats: self.animals[t].is_some(),
        })
    }

    /// Plays a step `check` allowed on this board.
    pub fn apply(&mut self, step: &Step) {
        let size = self.size();
        if let (Some(f), Some(t)) = (size.index(step.from), size.index(step.to)) {
            self.animals[f] = None;
            self.animals[t] = Some(step.species);
        }
    }

    /// Every step `species` may take now.
    pub fn steps(&self, species: Species) -> Vec<Step> {
        let size = self.size();
        self.tiles_of(species)
            .flat_map(|f| size.neighbours(f).map(move |t| (f, t)))
            .filter_map(|(f, t)| self.check(species, size.point(f), size.point(t)).ok())
            .collect()
    }
}
