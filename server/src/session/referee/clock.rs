//! The game clock of turn-based games (TEXT-PROTOCOL.md §8): the time control's
//! arithmetic, fed instants. Under Fischer each team has its own time left, charged
//! what each of its moves took beyond the lag credit, then given the increment;
//! under a per-move limit each move has the limit afresh. A seat's first move of a
//! game may also have the first-move limit, whichever is shorter.

use std::time::{Duration, Instant};

use reversi_games::record::MoveTime;
use reversi_games::{Millis, Team};

use crate::terms::TimeControl;

pub(super) struct Clock {
    control: TimeControl,
    /// A seat's first move of a game has at most this (`None`: the control alone).
    first_move: Option<Duration>,
    /// Fischer: each team's time left while its clock is stopped.
    left: Vec<Duration>,
    run: Option<Run>,
    /// Fischer: the last mover's time left after its move (for the journal).
    after_move: Option<Duration>,
    /// What the mover's actions since the last move were charged, and its clock after the
    /// latest (for the record); `None`: nothing charged since.
    charged: Option<(Duration, Duration)>,
}

/// The clock that runs: one move's.
#[derive(Clone, Copy, Debug)]
pub(super) struct Run {
    pub team: Team,
    /// When the mover's READY was sent.
    pub ready_at: Instant,
    /// The lag credited to this move (frozen at READY).
    pub credit: Duration,
    /// The time the move has before its flag, the credit aside.
    pub limit: Duration,
}

impl Run {
    /// The flag's instant: READY + the move's time + its credit.
    pub fn flag_at(&self) -> Instant {
        self.ready_at + self.limit + self.credit
    }

    /// What the clock shows at `now`: the credit is spent first.
    fn shows(&self, now: Instant) -> Duration {
        let spent = now.saturating_duration_since(self.ready_at);
        self.limit.saturating_sub(spent.saturating_sub(self.credit))
    }
}

impl Clock {
    pub fn new(control: TimeControl, first_move: Option<Duration>, teams: usize) -> Clock {
        let base = match control {
            TimeControl::Fischer { base, .. } => base,
            _ => Duration::ZERO,
        };
        Clock {
            control,
            first_move,
            left: vec![base; teams],
            run: None,
            after_move: None,
            charged: None,
        }
    }

    /// A new game (a rematch): every clock afresh.
    pub fn reset(&mut self) {
        *self = Clock::new(self.control, self.first_move, self.left.len());
    }

    pub fn control(&self) -> TimeControl {
        self.control
    }

    pub fn is_fischer(&self) -> bool {
        matches!(self.control, TimeControl::Fischer { .. })
    }

    pub fn run(&self) -> Option<Run> {
        self.run
    }

    /// The first-move limit, if it runs for a first move (for the abort timer).
    pub fn first_move(&self) -> Option<Duration> {
        self.first_move
    }

    /// The time `team`'s move has: the control's, or the first move's when shorter.
    fn limit(&self, team: Team, first: bool) -> Option<Duration> {
        let own = match self.control {
            TimeControl::None => None,
            TimeControl::PerMove { limit, .. } => Some(limit),
            TimeControl::Fischer { .. } => Some(self.left[usize::from(team.0)]),
        };
        let first = self.first_move.filter(|_| first);
        [own, first].into_iter().flatten().min()
    }

    /// `team`'s clock starts at `now` (its READY), with `credit`; `first`: the mover has
    /// not moved yet this game. No limit: nothing runs.
    pub fn start(&mut self, team: Team, first: bool, credit: Duration, now: Instant) {
        self.run = self.limit(team, first).map(|limit| Run {
            team,
            ready_at: now,
            credit,
            limit,
        });
    }

    /// The flag's instant, if a clock runs.
    pub fn deadline(&self) -> Option<Instant> {
        self.run.map(|run| run.flag_at())
    }

    pub fn stop(&mut self) {
        self.run = None;
    }

    /// The mover's legal action was read at `now`: under Fischer its team is charged what
    /// it took beyond the credit, then gains the increment if it was a move (not a draw
    /// offer). Returns the time from READY to the action, for the lag quota.
    pub fn moved(&mut self, is_move: bool, now: Instant) -> Option<Duration> {
        let run = self.run.take()?;
        let took = now.saturating_duration_since(run.ready_at);
        let charged = took.saturating_sub(run.credit);
        let before = self.charged.map_or(Duration::ZERO, |(spent, _)| spent);
        self.charged = Some((before + charged, run.limit.saturating_sub(charged)));
        if let TimeControl::Fischer { increment, .. } = self.control {
            let left = &mut self.left[usize::from(run.team.0)];
            *left = left.saturating_sub(took.saturating_sub(run.credit));
            if is_move {
                *left += increment;
            }
            self.after_move = Some(*left);
            self.charged = Some((before + charged, *left));
        }
        Some(took)
    }

    /// The time the move just made was charged (with any draw offer or jump of its turn
    /// before it) and the mover's clock after it, for the record; `None`: no clock ran.
    /// Taken once.
    pub fn take_move_time(&mut self) -> Option<MoveTime> {
        let ms = |d: Duration| d.as_millis() as Millis;
        let (spent, clock) = self.charged.take()?;
        Some(MoveTime {
            took: ms(spent),
            clock: Some(ms(clock)),
        })
    }

    /// What the clocks show at `now`, as `GAME CLOCK` lines: under Fischer every team's,
    /// team 1 first; otherwise the running move's alone.
    pub fn shown(&self, now: Instant) -> Vec<(Team, Millis)> {
        let ms = |d: Duration| d.as_millis() as Millis;
        if self.is_fischer() {
            let teams = (0..self.left.len()).map(|t| Team(t as u8));
            return teams
                .map(|team| (team, ms(self.left_of(team, now))))
                .collect();
        }
        self.run
            .iter()
            .map(|run| (run.team, ms(run.shows(now))))
            .collect()
    }

    /// Fischer: `team`'s time left at `now` (its running move's count, when it moves).
    fn left_of(&self, team: Team, now: Instant) -> Duration {
        let stopped = self.left[usize::from(team.0)];
        match self.run {
            Some(run) if run.team == team => {
                let spent = now.saturating_duration_since(run.ready_at);
                stopped.saturating_sub(spent.saturating_sub(run.credit))
            }
            _ => stopped,
        }
    }

    /// Fischer: the last mover's time left after its move, with the increment, for the
    /// journal (a per-move limit carries nothing over: nothing to keep). Taken once.
    pub fn take_after_move(&mut self) -> Option<Millis> {
        self.after_move.take().map(|d| d.as_millis() as Millis)
    }
}
