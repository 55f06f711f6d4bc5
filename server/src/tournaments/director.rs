//! The tournament director: every tournament's machine, and each paired game's board from
//! its call to its end. Pure: the time comes in as Unix seconds, who is connected as a
//! question ([`Director::tick`]'s `present`), and what the server must do goes out as
//! [`Action`]s.
//!
//! A board's life:
//!
//! ```text
//! paired --both players present--> starting --started(game)--> playing --ended(result)--> ended
//!    |                                 |                           |
//!    |                            start failed                 no result (the session died,
//!    |                                 v                        the server restarted)
//!    +--grace passed, someone absent--> ended (forfeit)  <-- called again <--+
//! ```
//!
//! A player is called when its round is paired (`GAME PAIRED`); it has the grace (the
//! reconnect design's `--grace`) to be there, connected, signed in and not in a game. A game
//! that ends without a result is called again, so a restart in the middle of a round replays
//! the round's unfinished games.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use reversi_tournament::{Command, Event, Outcome, Phase, Settings, Tournament};

use super::orders::{format_word, Order};

/// One game of one tournament.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BoardKey {
    pub tournament: u64,
    pub round: u32,
    pub board: u32,
}

/// A game for the supervisor to start: `first` in seat 0, `second` in seat 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub key: BoardKey,
    pub game: String,
    pub time_control: String,
    pub rated: bool,
    pub first: String,
    pub second: String,
}

/// What the server must do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Seat both accounts' connections and start the game, then say
    /// [`Director::started`] (or [`Director::start_failed`]).
    Start(Pairing),
    /// Send this line to the account, if it is connected and not in a game.
    Tell { account: String, line: String },
    /// End this running game: its loser withdrew and its result is recorded.
    Stop { game: u64 },
    /// Keep the tournament in the store (through the writer thread).
    Save(Kept),
    /// The account waits for tournament `id`'s games no more: end its wait, saying why.
    Release {
        account: String,
        id: u64,
        why: Released,
    },
}

/// Why a player's wait for its tournament's games ended without a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Released {
    /// The tournament is over: no game is left to call.
    Finished,
    /// The player was withdrawn (by itself, its organiser or the operator).
    Withdrawn,
}

impl Released {
    /// Its word in `GAME RELEASED id word` (spec/TOURNAMENTS.md §7).
    pub fn word(self) -> &'static str {
        match self {
            Released::Finished => "finished",
            Released::Withdrawn => "withdrawn",
        }
    }
}

/// What the store keeps of a tournament: the machine's snapshot and what only the server
/// knows (its organiser, each board's game id).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    pub id: u64,
    pub organiser: Option<String>,
    pub snapshot: String,
    pub games: Vec<(BoardKey, u64)>,
    /// The archive's record of each board's game that ended with a result (`/games/ID`).
    #[serde(default)]
    pub records: Vec<(BoardKey, String)>,
}

/// The game played on a board: its id while it runs, its archive record once it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardGame {
    pub round: u32,
    pub board: u32,
    pub game: u64,
    pub running: bool,
    pub record: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Board {
    Called {
        first: String,
        second: String,
        forfeit_at: u64,
    },
    Starting {
        first: String,
        second: String,
        forfeit_at: u64,
    },
    Playing {
        game: u64,
    },
    Ended,
}

struct Held {
    machine: Tournament,
    organiser: Option<String>,
    boards: BTreeMap<(u32, u32), Board>,
    /// The game played on each board (the last one, when it was played again).
    games: BTreeMap<(u32, u32), u64>,
    /// The archive's record id of each board's game that ended with a result.
    records: BTreeMap<(u32, u32), String>,
    /// The `GAME BYE` line of the round's bye, by round and account: told again to a
    /// player that comes to wait after its round was paired, as its calls are.
    byes: BTreeMap<u32, (String, String)>,
}

/// Every tournament of the server.
pub struct Director {
    tournaments: BTreeMap<u64, Held>,
    next_id: u64,
    /// Seconds a called player has to be there.
    grace: u64,
    /// Running games by id.
    playing: HashMap<u64, BoardKey>,
}

impl Director {
    /// A director whose called players have `grace` seconds to be there.
    pub fn new(grace: u64) -> Director {
        Director {
            tournaments: BTreeMap::new(),
            next_id: 0,
            grace,
            playing: HashMap::new(),
        }
    }

    /// Takes back a tournament the store kept; its unfinished games of the current round are
    /// called again from `now`.
    /// A kept tournament, taken back after a start; `running(game)`: that game of the
    /// current round still runs (after an upgrade in place the sessions play on), so its
    /// board waits for its end instead of being called again.
    pub fn restore(
        &mut self,
        kept: &Kept,
        now: u64,
        running: &dyn Fn(u64) -> bool,
    ) -> Result<(), String> {
        let machine = Tournament::restore(&kept.snapshot)
            .map_err(|e| format!("tournament {}: unreadable snapshot: {e}", kept.id))?;
        let mut held = Held {
            machine,
            organiser: kept.organiser.clone(),
            boards: BTreeMap::new(),
            games: kept
                .games
                .iter()
                .map(|(k, g)| ((k.round, k.board), *g))
                .collect(),
            records: kept
                .records
                .iter()
                .map(|(k, r)| ((k.round, k.board), r.clone()))
                .collect(),
            byes: BTreeMap::new(),
        };
        if let Phase::Running { round, .. } = *held.machine.phase() {
            let accounts = held.machine.accounts();
            for g in held.machine.history().games.iter() {
                let playing = held
                    .games
                    .get(&(g.round, g.board))
                    .copied()
                    .filter(|&game| running(game));
                let board = match (g.outcome, playing) {
                    (Some(_), _) => Board::Ended,
                    (None, Some(game)) if g.round == round => {
                        let key = BoardKey {
                            tournament: kept.id,
                            round: g.round,
                            board: g.board,
                        };
                        self.playing.insert(game, key);
                        Board::Playing { game }
                    }
                    (None, None) if g.round == round => Board::Called {
                        first: accounts[g.first].clone(),
                        second: accounts[g.second].clone(),
                        forfeit_at: now + self.grace,
                    },
                    (None, _) => continue,
                };
                held.boards.insert((g.round, g.board), board);
            }
        }
        self.next_id = self.next_id.max(kept.id);
        self.tournaments.insert(kept.id, held);
        Ok(())
    }

    /// A new tournament (its registration not open yet); `organiser` `None`: the operator's.
    pub fn create(&mut self, settings: Settings, organiser: Option<String>) -> (u64, Vec<Action>) {
        self.next_id += 1;
        let id = self.next_id;
        let held = Held {
            machine: Tournament::new(settings),
            organiser,
            boards: BTreeMap::new(),
            games: BTreeMap::new(),
            records: BTreeMap::new(),
            byes: BTreeMap::new(),
        };
        self.tournaments.insert(id, held);
        (id, vec![self.save(id)])
    }

    /// `by` (an account; `None`: the operator) gives `order`. A refusal changes nothing and
    /// says why.
    pub fn order(
        &mut self,
        by: Option<&str>,
        order: Order,
        now: u64,
    ) -> Result<(u64, Vec<Action>), String> {
        if let Order::Create(settings) = order {
            return Ok(self.create(settings, by.map(str::to_owned)));
        }
        let id = order_id(&order);
        let held = self
            .tournaments
            .get(&id)
            .ok_or_else(|| format!("no tournament {id}"))?;
        if order.organisers_only() && by.is_some() && held.organiser.as_deref() != by {
            return Err(format!("only tournament {id}'s organiser may do that"));
        }
        let event = match order {
            Order::Open(_) => Event::OpenRegistration,
            Order::Close(_) => Event::CloseRegistration,
            Order::Start(_) => Event::Start,
            Order::Pause(_) => Event::Pause,
            Order::Resume(_) => Event::Resume,
            Order::Remove { account, .. } => Event::Withdraw { account },
            Order::Register(_) | Order::Withdraw(_) => {
                let account = by
                    .ok_or("the operator registers no one: players register themselves")?
                    .to_owned();
                match order {
                    Order::Register(_) => Event::Register { account },
                    _ => Event::Withdraw { account },
                }
            }
            Order::Create(_) => unreachable!("handled above"),
        };
        self.feed(id, event, now)
            .map(|actions| (id, actions))
            .map_err(|refusal| refusal.to_string())
    }

    /// The time is `now`: tournaments whose start time has come start; called players who
    /// are both `present` are seated; those still absent past the grace lose by forfeit.
    pub fn tick(&mut self, now: u64, present: impl Fn(&str) -> bool) -> Vec<Action> {
        let ids: Vec<u64> = self.tournaments.keys().copied().collect();
        let mut actions = Vec::new();
        for id in ids {
            if let Ok(more) = self.feed(id, Event::Tick { unix_seconds: now }, now) {
                actions.extend(more);
            }
            actions.extend(self.seat_called(id, now, &present));
        }
        actions
    }

    /// The game on `key` started as game `game`: kept, so that the page, made from the
    /// store, shows it running with its id to watch.
    pub fn started(&mut self, key: BoardKey, game: u64) -> Vec<Action> {
        let Some(held) = self.tournaments.get_mut(&key.tournament) else {
            return Vec::new();
        };
        match held.boards.get_mut(&(key.round, key.board)) {
            Some(board) if matches!(board, Board::Starting { .. }) => {
                *board = Board::Playing { game };
                held.games.insert((key.round, key.board), game);
                self.playing.insert(game, key);
                vec![self.save(key.tournament)]
            }
            _ => Vec::new(),
        }
    }

    /// The game on `key` could not be started (a player left meanwhile): it is called again,
    /// its grace unchanged.
    pub fn start_failed(&mut self, key: BoardKey) {
        let board = self
            .tournaments
            .get_mut(&key.tournament)
            .and_then(|h| h.boards.get_mut(&(key.round, key.board)));
        if let Some(board) = board {
            if let Board::Starting {
                first,
                second,
                forfeit_at,
            } = board.clone()
            {
                *board = Board::Called {
                    first,
                    second,
                    forfeit_at,
                };
            }
        }
    }

    /// Whether `game` is a tournament's (its end is then read and told to [`Director::ended`]).
    pub fn plays(&self, game: u64) -> bool {
        self.playing.contains_key(&game)
    }

    /// Game `game` ended with `outcome` (`None`: without a result, so it is played again),
    /// archived as `record`.
    pub fn ended(
        &mut self,
        game: u64,
        outcome: Option<Outcome>,
        record: Option<String>,
        now: u64,
    ) -> Vec<Action> {
        let Some(key) = self.playing.remove(&game) else {
            return Vec::new();
        };
        let Some(outcome) = outcome else {
            self.call_again(key, now);
            return Vec::new();
        };
        if let (Some(record), Some(held)) = (record, self.tournaments.get_mut(&key.tournament)) {
            held.records.insert((key.round, key.board), record);
        }
        let event = Event::GameEnded {
            round: key.round,
            board: key.board,
            outcome,
        };
        // A withdrawal may have recorded this game already: then the result is not news.
        self.feed(key.tournament, event, now).unwrap_or_default()
    }

    fn call_again(&mut self, key: BoardKey, now: u64) {
        let grace = self.grace;
        let Some(held) = self.tournaments.get_mut(&key.tournament) else {
            return;
        };
        let game = held
            .machine
            .history()
            .games
            .iter()
            .find(|g| g.round == key.round && g.board == key.board && g.outcome.is_none());
        let Some(game) = game else {
            return;
        };
        let accounts = held.machine.accounts();
        held.boards.insert(
            (key.round, key.board),
            Board::Called {
                first: accounts[game.first].clone(),
                second: accounts[game.second].clone(),
                forfeit_at: now + grace,
            },
        );
    }

    /// Gives `event` to tournament `id`'s machine and turns its commands into actions.
    fn feed(
        &mut self,
        id: u64,
        event: Event,
        now: u64,
    ) -> Result<Vec<Action>, reversi_tournament::Refusal> {
        let is_tick = matches!(event, Event::Tick { .. });
        let withdrawn = match &event {
            Event::Withdraw { account } => Some(account.clone()),
            _ => None,
        };
        let held = self
            .tournaments
            .get_mut(&id)
            .expect("feed is given known tournaments");
        let commands = held.machine.handle(event)?;
        if is_tick && commands.is_empty() {
            return Ok(Vec::new());
        }
        // A withdrawn player's wait ends for its withdrawal, even if the tournament ends with it.
        let mut actions: Vec<Action> = withdrawn
            .map(|account| Action::Release {
                account,
                id,
                why: Released::Withdrawn,
            })
            .into_iter()
            .collect();
        for command in commands {
            actions.extend(self.command(id, command, now));
        }
        actions.push(self.save(id));
        Ok(actions)
    }

    fn command(&mut self, id: u64, command: Command, now: u64) -> Vec<Action> {
        let grace = self.grace;
        let held = self.tournaments.get_mut(&id).expect("a known tournament");
        match command {
            Command::RoundPaired { .. } => Vec::new(),
            Command::Finished { .. } => held
                .machine
                .accounts()
                .iter()
                .map(|account| Action::Release {
                    account: account.clone(),
                    id,
                    why: Released::Finished,
                })
                .collect(),
            Command::StartGame {
                round,
                board,
                first,
                second,
            } => {
                let line = paired_line(id, round, board, &first, &second);
                let tell = [first.clone(), second.clone()].map(|account| Action::Tell {
                    account,
                    line: line.clone(),
                });
                held.boards.insert(
                    (round, board),
                    Board::Called {
                        first,
                        second,
                        forfeit_at: now + grace,
                    },
                );
                tell.into()
            }
            Command::Bye {
                round,
                account,
                points,
            } => {
                let line = format!("GAME BYE {id} {round} {points}");
                held.byes.insert(round, (account.clone(), line.clone()));
                vec![Action::Tell { account, line }]
            }
            Command::StopGame { round, board, .. } => {
                match held.boards.insert((round, board), Board::Ended) {
                    Some(Board::Playing { game }) => {
                        self.playing.remove(&game);
                        vec![Action::Stop { game }]
                    }
                    _ => Vec::new(),
                }
            }
        }
    }

    /// Called boards of tournament `id` whose players are both there start; those past
    /// their grace are forfeited by whoever is absent.
    fn seat_called(&mut self, id: u64, now: u64, present: &impl Fn(&str) -> bool) -> Vec<Action> {
        let held = self.tournaments.get_mut(&id).expect("a known tournament");
        if matches!(held.machine.phase(), Phase::Running { paused: true, .. }) {
            return Vec::new();
        }
        let settings = held.machine.settings().clone();
        let mut actions = Vec::new();
        let mut forfeits = Vec::new();
        for (&(round, board), state) in held.boards.iter_mut() {
            let Board::Called {
                first,
                second,
                forfeit_at,
            } = state
            else {
                continue;
            };
            let here = (present(first), present(second));
            let key = BoardKey {
                tournament: id,
                round,
                board,
            };
            match here {
                (true, true) => {
                    actions.extend(starting(&settings, key, first, second));
                    *state = Board::Starting {
                        first: first.clone(),
                        second: second.clone(),
                        forfeit_at: *forfeit_at,
                    };
                }
                _ if *forfeit_at <= now => {
                    forfeits.push((round, board, forfeit_of(here)));
                    *state = Board::Ended;
                }
                _ => {}
            }
        }
        for (round, board, outcome) in forfeits {
            let event = Event::GameEnded {
                round,
                board,
                outcome,
            };
            actions.extend(self.feed(id, event, now).unwrap_or_default());
        }
        actions
    }

    /// What the store keeps of tournament `id` now.
    fn save(&self, id: u64) -> Action {
        let held = &self.tournaments[&id];
        let key = |(round, board): (u32, u32)| BoardKey {
            tournament: id,
            round,
            board,
        };
        Action::Save(Kept {
            id,
            organiser: held.organiser.clone(),
            snapshot: held.machine.snapshot(),
            games: held.games.iter().map(|(&b, &g)| (key(b), g)).collect(),
            records: held
                .records
                .iter()
                .map(|(&b, r)| (key(b), r.clone()))
                .collect(),
        })
    }

    /// The tournament `id`, for its lines and pages.
    pub fn get(&self, id: u64) -> Option<&Tournament> {
        self.tournaments.get(&id).map(|h| &h.machine)
    }

    /// The game played on each board of tournament `id`.
    pub fn games_of(&self, id: u64) -> Vec<BoardGame> {
        let Some(held) = self.tournaments.get(&id) else {
            return Vec::new();
        };
        held.games
            .iter()
            .map(|(&(round, board), &game)| BoardGame {
                round,
                board,
                game,
                // Ids start again at 1 after a restart: an ended board's old id may be a
                // running game's on another board.
                running: self.playing.get(&game)
                    == Some(&BoardKey {
                        tournament: id,
                        round,
                        board,
                    }),
                record: held.records.get(&(round, board)).cloned(),
            })
            .collect()
    }

    /// The `GAME PAIRED` lines of the games `account` is called to now, and the `GAME BYE`
    /// of a running round it sits out (for a player that comes after its round was paired).
    pub fn calls(&self, account: &str) -> Vec<String> {
        let mut lines = Vec::new();
        for (id, held) in &self.tournaments {
            if let Phase::Running { round, .. } = *held.machine.phase() {
                match held.byes.get(&round) {
                    Some((sits_out, line)) if sits_out == account => lines.push(line.clone()),
                    _ => {}
                }
            }
            for (&(round, board), state) in &held.boards {
                if let Board::Called { first, second, .. } = state {
                    if first == account || second == account {
                        lines.push(paired_line(*id, round, board, first, second));
                    }
                }
            }
        }
        lines
    }

    /// Every tournament's id, oldest first.
    pub fn ids(&self) -> Vec<u64> {
        self.tournaments.keys().copied().collect()
    }

    /// `GAME TOURNAMENT id state round rounds players game format time name…` (§7).
    pub fn line(&self, id: u64) -> Option<String> {
        let t = self.get(id)?;
        let s = t.settings();
        let (state, round) = match *t.phase() {
            Phase::Created => ("created", 0),
            Phase::Registration { open: true } => ("open", 0),
            Phase::Registration { open: false } => ("closed", 0),
            Phase::Running {
                round,
                paused: false,
            } => ("running", round),
            Phase::Running {
                round,
                paused: true,
            } => ("paused", round),
            Phase::Finished { .. } => ("finished", t.rounds()),
        };
        Some(format!(
            "GAME TOURNAMENT {id} {state} {round} {} {} {} {} {} {}",
            t.rounds(),
            t.entrants().len(),
            s.game,
            format_word(s.format),
            s.time_control,
            s.name
        ))
    }

    /// `GAME CROSSTABLE id line` per line of the crosstable, `GAME BOARD id round board game
    /// running|ended` per game started (its id to watch or replay), then `GAME STANDINGS id n`.
    pub fn standings_lines(&self, id: u64) -> Option<Vec<String>> {
        let text = self.get(id)?.crosstable().to_text();
        let mut lines: Vec<String> = text
            .lines()
            .map(|l| format!("GAME CROSSTABLE {id} {l}"))
            .collect();
        for g in self.games_of(id) {
            let state = match (g.running, &g.record) {
                (true, _) => "running".to_owned(),
                (false, Some(record)) => format!("ended {record}"),
                (false, None) => "ended".to_owned(),
            };
            let (round, board, game) = (g.round, g.board, g.game);
            lines.push(format!("GAME BOARD {id} {round} {board} {game} {state}"));
        }
        lines.push(format!("GAME STANDINGS {id} {}", lines.len()));
        Some(lines)
    }
}

fn order_id(order: &Order) -> u64 {
    match order {
        Order::Open(id)
        | Order::Close(id)
        | Order::Start(id)
        | Order::Pause(id)
        | Order::Resume(id)
        | Order::Register(id)
        | Order::Withdraw(id)
        | Order::Remove { id, .. } => *id,
        Order::Create(_) => 0,
    }
}

/// `GAME PAIRED id round board first second`.
fn paired_line(id: u64, round: u32, board: u32, first: &str, second: &str) -> String {
    format!("GAME PAIRED {id} {round} {board} {first} {second}")
}

/// The start of a game both of whose players are there, and their news.
fn starting(settings: &Settings, key: BoardKey, first: &str, second: &str) -> Vec<Action> {
    let news = |account: &str| Action::Tell {
        account: account.to_owned(),
        line: format!(
            "GAME NEWS {} round {} board {}: your game is starting",
            settings.name, key.round, key.board
        ),
    };
    vec![
        news(first),
        news(second),
        Action::Start(Pairing {
            key,
            game: settings.game.clone(),
            time_control: settings.time_control.clone(),
            rated: settings.rated,
            first: first.to_owned(),
            second: second.to_owned(),
        }),
    ]
}

/// The forfeit when the grace has passed with `(first, second)` there or not.
fn forfeit_of(here: (bool, bool)) -> Outcome {
    match here {
        (true, _) => Outcome::SecondForfeits,
        (_, true) => Outcome::FirstForfeits,
        _ => Outcome::BothForfeit,
    }
}

#[cfg(test)]
#[path = "director_tests.rs"]
mod tests;
