//! The tournament as a pure state machine: events in (an organiser's orders, a game's result, the
//! time), commands out (start this game, this player has a bye, stop that game), never any I/O.
//! The whole state serialises to JSON, so that the store can keep it and a restarted server
//! carries on where it was.
//!
//! ```text
//! Created --OpenRegistration--> Registration{open} --CloseRegistration/OpenRegistration--> Registration{closed/open}
//! Registration --Start, or Tick past the start time--> Running{round 1}
//! Running{round n} --last GameEnded of round n--> Running{round n+1} ... --> Finished
//! Running --Pause--> Running{paused} --Resume--> Running (the next round is paired only when not paused)
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::crosstable::Crosstable;
use crate::record::{ByeRecord, GameRecord, History, Outcome, Points, Seat};
use crate::round_robin;
use crate::settings::{Format, Settings, Start};
use crate::standings::{standings, Standing};
use crate::swiss;

/// Where a tournament is in its life.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    Created,
    Registration {
        open: bool,
    },
    /// `round` is the round paired last (1-based).
    Running {
        round: u32,
        paused: bool,
    },
    /// `early` says why the tournament ended before its last round, if it did.
    Finished {
        early: Option<String>,
    },
}

impl Phase {
    fn name(&self) -> &'static str {
        match self {
            Phase::Created => "created",
            Phase::Registration { open: true } => "registration open",
            Phase::Registration { open: false } => "registration closed",
            Phase::Running { paused: false, .. } => "running",
            Phase::Running { paused: true, .. } => "paused",
            Phase::Finished { .. } => "finished",
        }
    }
}

/// What happens to a tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    OpenRegistration,
    CloseRegistration,
    Register {
        account: String,
    },
    /// Before the start: leaves the list. Once running: no more games (see the crate's doc).
    Withdraw {
        account: String,
    },
    Start,
    /// The time now; starts a tournament whose start time has come.
    Tick {
        unix_seconds: u64,
    },
    GameEnded {
        round: u32,
        board: u32,
        outcome: Outcome,
    },
    Pause,
    Resume,
}

/// What the server must do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Command {
    /// A round has been paired: its games and byes follow.
    RoundPaired { round: u32 },
    StartGame {
        round: u32,
        board: u32,
        first: String,
        second: String,
    },
    /// `account` sits this round out with these points.
    Bye {
        round: u32,
        account: String,
        points: Points,
    },
    /// Stop this game: `loser` has withdrawn and lost it by forfeit (already recorded).
    StopGame {
        round: u32,
        board: u32,
        loser: String,
    },
    /// The tournament is over; `early` says why, if it ended before its last round.
    Finished { early: Option<String> },
}

/// Why an event was refused; the state is then unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    NotNow {
        event: &'static str,
        phase: &'static str,
    },
    RegistrationClosed,
    AlreadyRegistered {
        account: String,
    },
    NotRegistered {
        account: String,
    },
    AlreadyWithdrawn {
        account: String,
    },
    TooFewPlayers {
        players: usize,
    },
    /// A Swiss needs at least one round, and no more than a round-robin of its players takes.
    RoundsOutOfRange {
        rounds: u32,
        most: u32,
    },
    NoSuchGame {
        round: u32,
        board: u32,
    },
    AlreadyEnded {
        round: u32,
        board: u32,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotNow { event, phase } => {
                write!(f, "cannot {event} while the tournament is {phase}")
            }
            Refusal::RegistrationClosed => f.write_str("registration is closed"),
            Refusal::AlreadyRegistered { account } => write!(f, "{account} is already registered"),
            Refusal::NotRegistered { account } => write!(f, "{account} is not registered"),
            Refusal::AlreadyWithdrawn { account } => write!(f, "{account} has already withdrawn"),
            Refusal::TooFewPlayers { players } => {
                write!(f, "a tournament needs at least 2 players, it has {players}")
            }
            Refusal::RoundsOutOfRange { rounds, most } => {
                write!(
                    f,
                    "a Swiss of these players takes 1 to {most} rounds, not {rounds}"
                )
            }
            Refusal::NoSuchGame { round, board } => {
                write!(f, "round {round} has no game on board {board}")
            }
            Refusal::AlreadyEnded { round, board } => {
                write!(
                    f,
                    "the game of round {round} on board {board} has already ended"
                )
            }
        }
    }
}

impl std::error::Error for Refusal {}

/// A registered player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    pub account: String,
    pub withdrawn: bool,
}

/// A tournament: its settings, entrants (in pairing-number order), phase and history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tournament {
    settings: Settings,
    phase: Phase,
    entrants: Vec<Entrant>,
    history: History,
}

impl Tournament {
    pub fn new(settings: Settings) -> Tournament {
        Tournament {
            settings,
            phase: Phase::Created,
            entrants: Vec::new(),
            history: History::default(),
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    pub fn entrants(&self) -> &[Entrant] {
        &self.entrants
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    /// The number of rounds the tournament will have with its present entrants.
    pub fn rounds(&self) -> u32 {
        self.settings.format.rounds(self.entrants.len())
    }

    pub fn accounts(&self) -> Vec<String> {
        self.entrants.iter().map(|e| e.account.clone()).collect()
    }

    pub fn standings(&self) -> Vec<Standing> {
        standings(
            self.entrants.len(),
            &self.history,
            &self.settings.format.tie_breaks(),
        )
    }

    /// The crosstable over the rounds paired so far.
    pub fn crosstable(&self) -> Crosstable {
        let rounds = self
            .history
            .games
            .iter()
            .map(|g| g.round)
            .chain(self.history.byes.iter().map(|b| b.round));
        let tie_breaks = self.settings.format.tie_breaks();
        Crosstable::new(
            &self.accounts(),
            &self.history,
            rounds.max().unwrap_or(0),
            &tie_breaks,
        )
    }

    /// The whole state as JSON, for the store.
    pub fn snapshot(&self) -> String {
        serde_json::to_string(self).expect("a tournament holds only strings, numbers and lists")
    }

    /// A tournament from a `snapshot`.
    pub fn restore(snapshot: &str) -> Result<Tournament, serde_json::Error> {
        serde_json::from_str(snapshot)
    }

    /// Applies `event`; on a refusal nothing has changed.
    pub fn handle(&mut self, event: Event) -> Result<Vec<Command>, Refusal> {
        match event {
            Event::OpenRegistration => self.set_registration(true, "open registration"),
            Event::CloseRegistration => self.set_registration(false, "close registration"),
            Event::Register { account } => self.register(account),
            Event::Withdraw { account } => self.withdraw(&account),
            Event::Start => self.start(),
            Event::Tick { unix_seconds } => Ok(self.tick(unix_seconds)),
            Event::GameEnded {
                round,
                board,
                outcome,
            } => self.game_ended(round, board, outcome),
            Event::Pause => self.pause(),
            Event::Resume => self.resume(),
        }
    }

    fn refuse(&self, event: &'static str) -> Refusal {
        Refusal::NotNow {
            event,
            phase: self.phase.name(),
        }
    }

    fn set_registration(
        &mut self,
        open: bool,
        event: &'static str,
    ) -> Result<Vec<Command>, Refusal> {
        match self.phase {
            Phase::Created | Phase::Registration { .. } => {
                self.phase = Phase::Registration { open };
                Ok(Vec::new())
            }
            _ => Err(self.refuse(event)),
        }
    }

    fn register(&mut self, account: String) -> Result<Vec<Command>, Refusal> {
        match self.phase {
            Phase::Registration { open: true } => {}
            Phase::Registration { open: false } => return Err(Refusal::RegistrationClosed),
            _ => return Err(self.refuse("register")),
        }
        if self.seat_of(&account).is_some() {
            return Err(Refusal::AlreadyRegistered { account });
        }
        self.entrants.push(Entrant {
            account,
            withdrawn: false,
        });
        Ok(Vec::new())
    }

    fn seat_of(&self, account: &str) -> Option<Seat> {
        self.entrants.iter().position(|e| e.account == account)
    }

    fn withdraw(&mut self, account: &str) -> Result<Vec<Command>, Refusal> {
        let not_registered = || Refusal::NotRegistered {
            account: account.to_string(),
        };
        match self.phase {
            Phase::Created | Phase::Registration { .. } => {
                let seat = self.seat_of(account).ok_or_else(not_registered)?;
                self.entrants.remove(seat);
                Ok(Vec::new())
            }
            Phase::Running { round, paused } => {
                let seat = self.seat_of(account).ok_or_else(not_registered)?;
                if self.entrants[seat].withdrawn {
                    return Err(Refusal::AlreadyWithdrawn {
                        account: account.to_string(),
                    });
                }
                self.entrants[seat].withdrawn = true;
                let mut commands = self.forfeit_game_in_play(seat, round);
                if !paused && self.history.round_complete(round) {
                    commands.extend(self.advance(round));
                }
                Ok(commands)
            }
            Phase::Finished { .. } => Err(self.refuse("withdraw")),
        }
    }

    /// A withdrawing player loses its unfinished game of `round` by forfeit.
    fn forfeit_game_in_play(&mut self, seat: Seat, round: u32) -> Vec<Command> {
        let game = self
            .history
            .games
            .iter_mut()
            .find(|g| g.round == round && g.outcome.is_none() && g.side_of(seat).is_some());
        let Some(game) = game else {
            return Vec::new();
        };
        let side = game
            .side_of(seat)
            .expect("the game was found by the player's side");
        game.outcome = Some(Outcome::forfeit_by(side));
        let (round, board) = (game.round, game.board);
        vec![Command::StopGame {
            round,
            board,
            loser: self.entrants[seat].account.clone(),
        }]
    }

    fn start(&mut self) -> Result<Vec<Command>, Refusal> {
        if !matches!(self.phase, Phase::Registration { .. }) {
            return Err(self.refuse("start"));
        }
        let players = self.entrants.len();
        if players < 2 {
            return Err(Refusal::TooFewPlayers { players });
        }
        if let Format::Swiss { rounds } = self.settings.format {
            let most = round_robin::rounds(players, 1);
            if rounds == 0 || rounds > most {
                return Err(Refusal::RoundsOutOfRange { rounds, most });
            }
        }
        Ok(self.advance(0))
    }

    fn tick(&mut self, now: u64) -> Vec<Command> {
        let Start::At { unix_seconds } = self.settings.start else {
            return Vec::new();
        };
        if !matches!(self.phase, Phase::Registration { .. }) || now < unix_seconds {
            return Vec::new();
        }
        match self.start() {
            Ok(commands) => commands,
            Err(refusal) => self.finish(Some(format!("not started at its start time: {refusal}"))),
        }
    }

    fn game_ended(
        &mut self,
        round: u32,
        board: u32,
        outcome: Outcome,
    ) -> Result<Vec<Command>, Refusal> {
        let Phase::Running {
            round: current,
            paused,
        } = self.phase
        else {
            return Err(self.refuse("report a result"));
        };
        let game = self
            .history
            .games
            .iter_mut()
            .find(|g| g.round == round && g.board == board);
        let game = game.ok_or(Refusal::NoSuchGame { round, board })?;
        if game.outcome.is_some() {
            return Err(Refusal::AlreadyEnded { round, board });
        }
        game.outcome = Some(outcome);
        if !paused && self.history.round_complete(current) {
            return Ok(self.advance(current));
        }
        Ok(Vec::new())
    }

    fn pause(&mut self) -> Result<Vec<Command>, Refusal> {
        match self.phase {
            Phase::Running {
                round,
                paused: false,
            } => {
                self.phase = Phase::Running {
                    round,
                    paused: true,
                };
                Ok(Vec::new())
            }
            _ => Err(self.refuse("pause")),
        }
    }

    fn resume(&mut self) -> Result<Vec<Command>, Refusal> {
        let Phase::Running {
            round,
            paused: true,
        } = self.phase
        else {
            return Err(self.refuse("resume"));
        };
        self.phase = Phase::Running {
            round,
            paused: false,
        };
        if self.history.round_complete(round) {
            return Ok(self.advance(round));
        }
        Ok(Vec::new())
    }

    /// Pairs the rounds after `done` until one has a game to play, or finishes the tournament.
    fn advance(&mut self, mut done: u32) -> Vec<Command> {
        let mut commands = Vec::new();
        loop {
            if done >= self.rounds() {
                commands.extend(self.finish(None));
                return commands;
            }
            done += 1;
            self.phase = Phase::Running {
                round: done,
                paused: false,
            };
            match self.pair_round(done) {
                Ok(paired) => commands.extend(paired),
                Err(reason) => {
                    commands.extend(self.finish(Some(reason)));
                    return commands;
                }
            }
            if !self.history.round_complete(done) {
                return commands;
            }
        }
    }

    fn finish(&mut self, early: Option<String>) -> Vec<Command> {
        self.phase = Phase::Finished {
            early: early.clone(),
        };
        vec![Command::Finished { early }]
    }

    /// Pairs `round`, records its games and byes, and says what to start.
    fn pair_round(&mut self, round: u32) -> Result<Vec<Command>, String> {
        let (games, bye, bye_points) = match self.settings.format {
            Format::RoundRobin { double } => {
                let schedule =
                    round_robin::schedule(self.entrants.len(), if double { 2 } else { 1 });
                let this = &schedule[round as usize - 1];
                (this.games.clone(), this.rests, Points::LOSS)
            }
            Format::Swiss { .. } => {
                let active: Vec<Seat> = (0..self.entrants.len())
                    .filter(|&s| !self.entrants[s].withdrawn)
                    .collect();
                if active.len() < 2 {
                    return Err(format!("{} player(s) left to pair", active.len()));
                }
                let pairing = swiss::pair(&active, &self.history, self.settings.initial_side)
                    .map_err(|e| e.to_string())?;
                (pairing.games, pairing.bye, self.settings.bye_score.points())
            }
        };
        let mut commands = vec![Command::RoundPaired { round }];
        for (index, (first, second)) in games.into_iter().enumerate() {
            commands.extend(self.add_game(round, index as u32 + 1, first, second));
        }
        if let Some(seat) = bye.filter(|&s| !self.entrants[s].withdrawn) {
            self.history.byes.push(ByeRecord {
                round,
                seat,
                points: bye_points,
            });
            commands.push(Command::Bye {
                round,
                account: self.entrants[seat].account.clone(),
                points: bye_points,
            });
        }
        Ok(commands)
    }

    /// Records a game; one with a withdrawn player is forfeited at once instead of started.
    fn add_game(&mut self, round: u32, board: u32, first: Seat, second: Seat) -> Option<Command> {
        let outcome = match (
            self.entrants[first].withdrawn,
            self.entrants[second].withdrawn,
        ) {
            (true, true) => Some(Outcome::BothForfeit),
            (true, false) => Some(Outcome::FirstForfeits),
            (false, true) => Some(Outcome::SecondForfeits),
            (false, false) => None,
        };
        self.history.games.push(GameRecord {
            round,
            board,
            first,
            second,
            outcome,
        });
        outcome.is_none().then(|| Command::StartGame {
            round,
            board,
            first: self.entrants[first].account.clone(),
            second: self.entrants[second].account.clone(),
        })
    }
}
