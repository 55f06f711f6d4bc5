//! A computer player for Foxes & Dolphins, one step at a time: eat when it
//! can, bring animals out of danger, hunt the nearest prey, and keep the
//! rest away from where the next tide strikes (foxes off the coast,
//! dolphins off the shore). It reads only the drawn board, so it plays the
//! same from a client's copy; it is asked for a step when its cooldown ends,
//! like a person.

use std::time::Duration;

use crate::bot::{Bot, RandomBot};
use crate::game::{Action, Game, Team, Viewer};

use super::board::{Board, Species, Step};
use super::terrain::Size;

const FAR: u32 = u32::MAX;

pub struct FoxesBot {
    /// Breaks ties between equally good steps.
    rng: RandomBot,
}

impl FoxesBot {
    pub fn new(seed: u64) -> FoxesBot {
        FoxesBot {
            rng: RandomBot::new(seed),
        }
    }

    /// The step `species` should take on `board`, if any is worth taking.
    pub fn plan(&mut self, board: &Board, species: Species) -> Option<Step> {
        let steps = board.steps(species);
        let eat: Vec<Step> = steps.iter().copied().filter(|s| s.eats).collect();
        if !eat.is_empty() {
            return Some(eat[self.rng.below(eat.len())]);
        }
        let wanted = match species {
            Species::Fox => fox_priorities(board, &steps),
            Species::Dolphin => dolphin_priorities(board, &steps),
        };
        wanted
            .into_iter()
            .find_map(|scored| self.best(&steps, scored))
    }

    /// The step of lowest score among those scored (`None` for the others), ties at random.
    fn best(&mut self, steps: &[Step], scores: Vec<Option<u32>>) -> Option<Step> {
        let low = scores.iter().flatten().min()?;
        let best: Vec<Step> = steps
            .iter()
            .zip(&scores)
            .filter(|(_, s)| s.as_ref() == Some(low))
            .map(|(step, _)| *step)
            .collect();
        Some(best[self.rng.below(best.len())])
    }
}

impl Bot for FoxesBot {
    fn choose(&mut self, game: &dyn Game, team: Team, _budget: Duration) -> Option<Action> {
        if game.outcome().is_some() {
            return None;
        }
        let species = Species::of(team)?;
        let board = Board::from_cells(&game.view(Viewer::Team(team))).ok()?;
        self.plan(&board, species)
            .map(|s| Action::Move(vec![s.from, s.to]))
    }
}

/// For each kind of step in order of urgency, a score per step (lower is
/// better) or `None` where the step is not of that kind.
type Priorities = Vec<Vec<Option<u32>>>;

/// Foxes: out of the water (most urgent where it is deepest), toward the
/// nearest stranded dolphin, off the coast.
fn fox_priorities(board: &Board, steps: &[Step]) -> Priorities {
    let size = board.size();
    let terrain = board.terrain();
    let land = |i: usize| terrain.is_land(i);
    let to_land = distances(size, (0..size.tiles()).filter(|&i| land(i)), |_| true);
    let stranded = board.tiles_of(Species::Dolphin).filter(|&i| land(i));
    let to_prey = distances(size, stranded, land);
    let to_water = distances(size, (0..size.tiles()).filter(|&i| !land(i)), |_| true);
    // Inland: no water next to it, so a tide must first take a tile between.
    let inland = (0..size.tiles()).filter(|&i| to_water[i] >= 2);
    let to_inland = distances(size, inland, land);
    vec![
        score(steps, |s| {
            let (f, t) = tiles(size, s);
            (to_land[t] < to_land[f]).then_some(FAR - to_land[f])
        }),
        score(steps, |s| {
            let (f, t) = tiles(size, s);
            (land(f) && to_prey[t] < to_prey[f]).then_some(to_prey[f])
        }),
        score(steps, |s| {
            let (f, t) = tiles(size, s);
            (to_water[f] <= 1 && to_inland[t] < to_inland[f]).then_some(to_water[f])
        }),
    ]
}

/// Dolphins: toward the nearest fox in the water, away from the shore.
fn dolphin_priorities(board: &Board, steps: &[Step]) -> Priorities {
    let size = board.size();
    let terrain = board.terrain();
    let water = |i: usize| !terrain.is_land(i);
    let swimming = board.tiles_of(Species::Fox).filter(|&i| water(i));
    let to_prey = distances(size, swimming, water);
    let to_land = distances(size, (0..size.tiles()).filter(|&i| !water(i)), |_| true);
    vec![
        score(steps, |s| {
            let (f, t) = tiles(size, s);
            (to_prey[t] < to_prey[f]).then_some(to_prey[f])
        }),
        score(steps, |s| {
            let (f, t) = tiles(size, s);
            (to_land[f] <= 1 && to_land[t] > to_land[f]).then_some(to_land[f])
        }),
    ]
}

fn score(steps: &[Step], f: impl Fn(&Step) -> Option<u32>) -> Vec<Option<u32>> {
    steps.iter().map(f).collect()
}

/// The tiles a step leaves and reaches (a step of the board is on it).
fn tiles(size: Size, s: &Step) -> (usize, usize) {
    let at = |p| size.index(p).unwrap_or(0);
    (at(s.from), at(s.to))
}

/// Steps from the nearest source to every tile, moving only through
/// `passable` tiles (the sources themselves always count); `FAR` where none
/// reaches.
fn distances(
    size: Size,
    sources: impl Iterator<Item = usize>,
    passable: impl Fn(usize) -> bool,
) -> Vec<u32> {
    let mut dist = vec![FAR; size.tiles()];
    let mut queue = std::collections::VecDeque::new();
    for s in sources {
        dist[s] = 0;
        queue.push_back(s);
    }
    while let Some(i) = queue.pop_front() {
        for j in size.neighbours(i) {
            if dist[j] == FAR && passable(j) {
                dist[j] = dist[i] + 1;
                queue.push_back(j);
            }
        }
    }
    dist
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foxes::arena::play_out;
    use crate::foxes::game::Foxes;
    use crate::foxes::letters::picture;
    use crate::foxes::timing::Timing;
    use crate::game::{Millis, Outcome};

    /// Four hours of game time: far beyond any game the quiet limit lets run.
    const LIMIT: Millis = 4 * 3_600_000;

    /// One game of the bot against a random mover; the bot plays `species`.
    fn game_against_random(size: Size, seed: u64, species: Species) -> (Outcome, Millis) {
        let mut game = Foxes::new(size, seed, Timing::STANDARD);
        let mut bot = FoxesBot::new(seed);
        let mut random = RandomBot::new(seed ^ 0x5eed);
        let bots: [&mut dyn Bot; 2] = match species {
            Species::Fox => [&mut bot, &mut random],
            Species::Dolphin => [&mut random, &mut bot],
        };
        let outcome = play_out(&mut game, bots, LIMIT).expect("the quiet limit ends every game");
        let end = game.events().last().map_or(0, |e| match e {
            crate::foxes::event::Event::Step { at, .. }
            | crate::foxes::event::Event::Tide { at, .. } => *at,
        });
        (outcome, end)
    }

    #[test]
    fn it_beats_a_random_mover_with_either_species() {
        let size = Size::new(12).unwrap();
        for seed in 1..=4 {
            let species = Species::BOTH[seed as usize % 2];
            let (outcome, _) = game_against_random(size, seed, species);
            assert_eq!(
                outcome.winner(),
                Some(species.team()),
                "seed {seed}: {outcome:?}"
            );
        }
    }

    /// The figure the issue asks for: at least 95 wins in 100 games against a
    /// random mover on the standard board with the standard times, 50 with
    /// each species. Slow in a debug build:
    /// `cargo test -p reversi-games --release -- --ignored foxes_bot --nocapture`.
    #[test]
    #[ignore]
    fn foxes_bot_wins_95_of_100_against_a_random_mover() {
        let mut wins = [0; 2];
        let mut longest: Millis = 0;
        for seed in 1..=100 {
            let species = Species::BOTH[seed as usize % 2];
            let (outcome, end) = game_against_random(Size::DEFAULT, seed, species);
            longest = longest.max(end);
            if outcome.winner() == Some(species.team()) {
                wins[seed as usize % 2] += 1;
            }
        }
        println!(
            "the Foxes & Dolphins bot won {} of 100 games against a random mover \
             ({} of 50 as foxes, {} of 50 as dolphins; the longest lasted {} s of game time)",
            wins[0] + wins[1],
            wins[0],
            wins[1],
            longest / 1000
        );
        assert!(wins[0] + wins[1] >= 95, "{wins:?}");
    }

    #[test]
    fn it_eats_rescues_hunts_and_keeps_clear_of_the_tide() {
        let mut bot = FoxesBot::new(1);
        let plan = |bot: &mut FoxesBot, b: &Board, s| {
            let step = bot.plan(b, s).unwrap();
            (step.from.x, step.from.y, step.to.x, step.to.y)
        };
        // A fox next to a stranded dolphin eats it.
        let b = picture(
            "
              WWWWWWWWWW
              WWWWWWWWWW
              WWWWWWWWWW
              WWWWWWWWWW
              WWWLLLLWWW
              WWWLLFEWWW
              WWWLLLLWWW
              WWWWWWWWWW
              WWWWWWWWWW
              DWWWWWWWWW
            ",
        );
        assert_eq!(plan(&mut bot, &b, Species::Fox), (6, 5, 7, 5));
        // A fox in the water gets out before anything else; a dolphin goes for it.
        let b = picture(
            "
              WWWWWWWWWW
              WWWWWWWWWW
              WWWWWWWWWW
              WWWWWWWWWW
              WWWLLLLWWW
              WWWLLLLGWW
              WWWLLLLWWW
              WWWWWWWWWW
              WWWWWWWWWW
              DWWWWWWWWW
            ",
        );
        assert_eq!(plan(&mut bot, &b, Species::Fox), (8, 5, 7, 5));
        let b = picture(
            "
              WWWWWWWWWW
              WWWWWWWWWW
              WWWWWWWWWW
              WWWWWWWWWW
              WWWLLLLWWW
              WWWLLFLWWW
              WWWLLLLWWW
              WWWWWWWGWW
              WWWWWWWWWW
              WWWWWWWDWW
            ",
        );
        assert_eq!(plan(&mut bot, &b, Species::Dolphin), (8, 1, 8, 2));
        // A fox on the coast moves inland; a dolphin by the shore swims off.
        let b = picture(
            "
              WWWWWWWWWW
              WWWWWWWWWW
              WWLLLLLWWW
              WWLLLLLWWW
              WWLLLLLWWW
              WWLLLLLWWW
              WWLLLLFWWW
              WWWDWWWWWW
              WWWWWWWWWW
              WWWWWWWWWW
            ",
        );
        let f = plan(&mut bot, &b, Species::Fox);
        assert!(f == (7, 4, 6, 4) || f == (7, 4, 7, 5), "{f:?}");
        let d = plan(&mut bot, &b, Species::Dolphin);
        assert_eq!((d.0, d.1, d.2), (4, 3, 4));
        assert_eq!(d.3, 2, "away from the land");
    }
}
