//! A game of Foxes & Dolphins in game time: cooldowns, tides, the end.

use crate::game::{
    Action, Cell, Game, GameInfo, Illegal, Millis, Moved, Outcome, Point, Team, Timer, Update,
    Viewer,
};
use crate::record::RecordMeta;

use super::board::{Board, Species, Step};
use super::event::Event;
use super::info::INFO;
use super::notation::{read_step, write_step};
use super::rng::Rng;
use super::terrain::Size;
use super::timing::Timing;

#[derive(Clone, Debug)]
pub struct Foxes {
    board: Board,
    start: Board,
    timing: Timing,
    /// The seed of the start and the tides; `None` for a game rebuilt from a drawn board.
    seed: Option<u64>,
    rng: Rng,
    floodstate: u8,
    next_tide: Millis,
    /// When each team (foxes, dolphins) may next act.
    ready_at: [Millis; 2],
    /// The latest game time seen.
    clock: Millis,
    last_eaten: Millis,
    events: Vec<Event>,
    outcome: Option<Outcome>,
}

impl Foxes {
    /// A new game on an n x n board set up from `seed`.
    pub fn new(size: Size, seed: u64, timing: Timing) -> Foxes {
        let mut rng = Rng::new(seed);
        let board = Board::generate(size, &mut rng);
        let mut game = Foxes::from_board(board, timing);
        game.seed = Some(seed);
        game.rng = rng;
        game
    }

    /// A game from a board drawn by the server (a client's copy, for a
    /// computer player): the board is all a client sees, and the tides that
    /// follow come from the server as redrawn cells. Game time starts at 0
    /// with the first tide one period later and floodstate 0; the copy's own
    /// tides come from a generator seeded with 0.
    pub fn from_board(board: Board, timing: Timing) -> Foxes {
        Foxes {
            start: board.clone(),
            board,
            timing,
            seed: None,
            rng: Rng::new(0),
            floodstate: 0,
            next_tide: timing.tide_period,
            ready_at: [0; 2],
            clock: 0,
            last_eaten: 0,
            events: Vec::new(),
            outcome: None,
        }
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The board the game started from.
    pub fn start(&self) -> &Board {
        &self.start
    }

    pub fn timing(&self) -> Timing {
        self.timing
    }

    pub fn seed(&self) -> Option<u64> {
        self.seed
    }

    pub fn floodstate(&self) -> u8 {
        self.floodstate
    }

    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// When `team` may next act (its cooldown's end).
    pub fn ready_at(&self, team: Team) -> Option<Millis> {
        self.ready_at.get(usize::from(team.0)).copied()
    }

    /// The tide that was due at `at`: `floodstate` moves on, and the island
    /// loses (0 to 2) or gains (3 to 5) n tiles, one at a time, staying whole.
    pub(super) fn tide(&mut self, at: Millis) -> Update {
        self.floodstate = (self.floodstate + 1) % 6;
        let n = self.board.size().get();
        let rising_water = self.floodstate <= 2;
        let mut changed = Vec::new();
        for _ in 0..n {
            let terrain = self.board.terrain_mut();
            let tile = if rising_water {
                terrain.sink_one(&mut self.rng)
            } else {
                terrain.raise_one(&mut self.rng)
            };
            changed.extend(tile);
        }
        let size = self.board.size();
        let points: Vec<Point> = changed.iter().map(|&i| size.point(i)).collect();
        self.apply_tide(at, self.floodstate, &points);
        Update {
            cells: changed.iter().map(|&i| self.board.cell(i)).collect(),
            moved: None,
            news: Some(format!(
                "tide: the water {} (floodstate {})",
                if rising_water { "rises" } else { "falls" },
                self.floodstate
            )),
        }
    }

    /// Records a tide whose tiles have turned (or turns them, replaying one).
    pub(super) fn apply_tide(&mut self, at: Millis, floodstate: u8, changed: &[Point]) {
        let size = self.board.size();
        let land = floodstate >= 3;
        for i in changed.iter().filter_map(|&p| size.index(p)) {
            self.board.terrain_mut().set_land(i, land);
        }
        self.floodstate = floodstate;
        self.next_tide = at + self.timing.tide_period;
        self.events.push(Event::Tide {
            at,
            floodstate,
            changed: changed.to_vec(),
        });
    }

    fn quiet_deadline(&self) -> Millis {
        self.last_eaten + self.timing.quiet_limit
    }

    /// The end after the quiet limit: more animals win.
    fn quiet_end(&self) -> Outcome {
        let (foxes, dolphins) = (
            self.board.count(Species::Fox),
            self.board.count(Species::Dolphin),
        );
        // A server may be given any number of ms (`foxes.quiet-ms`): 120 s, but 1500 ms.
        let limit = self.timing.quiet_limit;
        let limit = if limit.is_multiple_of(1000) {
            format!("{} s", limit / 1000)
        } else {
            format!("{limit} ms")
        };
        let why = format!("nothing eaten for {limit}: {foxes} foxes, {dolphins} dolphins");
        match foxes.cmp(&dolphins) {
            std::cmp::Ordering::Greater => Outcome::Win {
                team: Species::Fox.team(),
                why,
            },
            std::cmp::Ordering::Less => Outcome::Win {
                team: Species::Dolphin.team(),
                why,
            },
            std::cmp::Ordering::Equal => Outcome::Draw { why },
        }
    }

    fn step(&mut self, species: Species, action: &Action) -> Result<Step, Illegal> {
        let Action::Move(points) = action else {
            return Err(Illegal::new("Foxes & Dolphins has no draw offers"));
        };
        let &[from, to] = points.as_slice() else {
            return Err(Illegal::new(
                "a move names two tiles: where the animal is and where it goes",
            ));
        };
        self.board.check(species, from, to)
    }
}

impl Game for Foxes {
    fn info(&self) -> &'static GameInfo {
        &INFO
    }

    fn turn(&self) -> Option<Team> {
        None
    }

    fn may_move(&self, team: Team, now: Millis) -> bool {
        self.outcome.is_none() && self.ready_at(team).is_some_and(|t| now >= t)
    }

    /// A refused attempt by a team that may act still starts its cooldown
    /// (the seed: "it does not matter whether a move is valid or not"); the
    /// board is unchanged. An attempt during the cooldown changes nothing.
    fn play(&mut self, team: Team, action: &Action, now: Millis) -> Result<Update, Illegal> {
        self.clock = self.clock.max(now);
        if self.outcome.is_some() {
            return Err(Illegal::new("the game is over"));
        }
        let species =
            Species::of(team).ok_or_else(|| Illegal::new("only foxes and dolphins play"))?;
        let ready = self.ready_at[usize::from(team.0)];
        if now < ready {
            return Err(Illegal::new(format!(
                "wait {} ms: a player moves at most once every {} ms",
                ready - now,
                self.timing.cooldown
            )));
        }
        self.ready_at[usize::from(team.0)] = now + self.timing.cooldown;
        let step = self.step(species, action)?;
        self.board.apply(&step);
        let news = step.eats.then(|| {
            self.last_eaten = now;
            format!(
                "a {} eats a {} on {}",
                species.name(),
                species.other().name(),
                step.to
            )
        });
        self.events.push(Event::Step {
            at: now,
            team,
            step,
        });
        if self.board.count(species.other()) == 0 {
            self.outcome = Some(Outcome::Win {
                team,
                why: format!(
                    "the last {} was eaten on {}",
                    species.other().name(),
                    step.to
                ),
            });
        }
        let size = self.board.size();
        let cells = [step.from, step.to]
            .iter()
            .filter_map(|&p| size.index(p))
            .map(|i| self.board.cell(i))
            .collect();
        Ok(Update {
            cells,
            moved: Some(Moved {
                team,
                notation: write_step(&step),
            }),
            news,
        })
    }

    /// The next tide, the quiet limit, or a cooldown ending after the latest
    /// time seen (so the runtime can tell the player it may move again).
    fn wake_at(&self) -> Option<Millis> {
        if self.outcome.is_some() {
            return None;
        }
        let cooldowns = self.ready_at.iter().copied().filter(|&t| t > self.clock);
        cooldowns
            .chain([self.next_tide, self.quiet_deadline()])
            .min()
    }

    fn wake(&mut self, now: Millis) -> Vec<Update> {
        self.clock = self.clock.max(now);
        let mut updates = Vec::new();
        if self.outcome.is_some() {
            return updates;
        }
        let deadline = self.quiet_deadline();
        while self.next_tide <= now && self.next_tide < deadline {
            updates.push(self.tide(self.next_tide));
        }
        if deadline <= now {
            self.outcome = Some(self.quiet_end());
        }
        updates
    }

    /// The next tide, and the end on numbers if nothing is eaten first; both
    /// stopped once the game is over.
    fn timers(&self) -> Vec<Timer> {
        let running = |due| self.outcome.is_none().then_some(due);
        vec![
            Timer {
                name: "tide",
                due: running(self.next_tide),
                text: "the tide turns",
            },
            Timer {
                name: "quiet",
                due: running(self.quiet_deadline()),
                text: "the game ends on numbers if nothing is eaten",
            },
        ]
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Everyone sees the whole board: the seed's viewers of either team get
    /// the same board string.
    fn view(&self, _viewer: Viewer) -> Vec<Cell> {
        self.board.cells()
    }

    fn parse_action(&self, text: &str) -> Result<Action, Illegal> {
        read_step(text).map(|points| Action::Move(points.to_vec()))
    }

    /// The steps the board allows `team` now, cooldown or not (there is no
    /// clock here: [`Game::may_move`] says when).
    fn legal_actions(&self, team: Team) -> Vec<Action> {
        let Some(species) = Species::of(team).filter(|_| self.outcome.is_none()) else {
            return Vec::new();
        };
        self.board
            .steps(species)
            .iter()
            .map(|s| Action::Move(vec![s.from, s.to]))
            .collect()
    }

    fn history(&self) -> Vec<Moved> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Step { team, step, .. } => Some(Moved {
                    team: *team,
                    notation: write_step(step),
                }),
                Event::Tide { .. } => None,
            })
            .collect()
    }

    fn record(&self, meta: &RecordMeta) -> String {
        super::record::write(self.seed, &self.start, self.timing, &self.events, meta)
    }
}
