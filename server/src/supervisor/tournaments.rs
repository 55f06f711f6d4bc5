//! The supervisor's side of tournaments: the thin shell around the pure director
//! (`crate::tournaments`). Once a second it gives the director the time and who is waiting
//! (`GAME TOURNAMENT PLAY`, signed in); it seats the two accounts of each game the director
//! starts, sends the director's lines, and gives back each tournament game's end, read from
//! its journal when the session is reaped. spec/TOURNAMENTS.md §7-8.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use log::{debug, error, info, warn};

use super::pending::State;
use super::Supervisor;
use crate::protocols::Told;
use crate::terms::{Terms, TimeControl};
use crate::tournaments::director::Kept;
use crate::tournaments::director::Released;
use crate::tournaments::orders::{Order, Request};
use crate::tournaments::{Action, Director};

/// How often the director is given the time.
pub(super) const TICK: Duration = Duration::from_secs(1);
/// Most tournament games started in one turn of the loop: a round's games start one a
/// turn, so that the loop serves everyone else between them (each start waits for the
/// fork server's answer).
const STARTS_A_TURN: usize = 1;
/// A called player's grace when no game has one (`--grace 0`).
const DEFAULT_GRACE: u64 = 60;

/// The director and what the shell keeps beside it.
pub(super) struct Tournaments {
    pub director: Director,
    pub options: crate::tournaments::options::Organising,
    /// Connections waiting for their tournament games, by account name, with the
    /// tournament they asked to play.
    waiting: HashMap<String, (usize, u64)>,
    /// When the director is next given the time.
    next_tick: Option<Instant>,
    /// Each changed tournament's latest state, for the keeper.
    unsaved: std::collections::BTreeMap<u64, Kept>,
    /// Keeps them in the store (none without a store).
    keeper: Option<crate::store::tournaments::Keeper>,
    /// Games the director started that the shell has not started yet ([`STARTS_A_TURN`]).
    starts: std::collections::VecDeque<crate::tournaments::Pairing>,
}

impl Tournaments {
    pub fn new(grace: Option<Duration>) -> Tournaments {
        Tournaments {
            director: Director::new(grace.map_or(DEFAULT_GRACE, |g| g.as_secs())),
            options: Default::default(),
            waiting: HashMap::new(),
            next_tick: None,
            unsaved: Default::default(),
            keeper: None,
            starts: Default::default(),
        }
    }

    /// When the loop must wake for the director (only while there is a tournament).
    pub fn deadline(&self) -> Option<Instant> {
        match self.starts.is_empty() {
            true => self.next_tick,
            false => Some(Instant::now()),
        }
    }
}

/// Seconds since the Unix epoch, now.
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Supervisor {
    /// Who may organise tournaments.
    pub fn with_tournaments(mut self, options: crate::tournaments::options::Organising) -> Self {
        self.tournaments.options = options;
        self
    }

    /// The account connection `index` is signed in as.
    fn account_name(&self, index: usize) -> Option<String> {
        let conn = self.pending.get(index)?;
        Some(conn.identity.account()?.name.as_str().to_owned())
    }

    /// A tournament line of connection `index`.
    pub(super) fn tournament_request(&mut self, index: usize, request: Request) {
        let director = &self.tournaments.director;
        let lines = match request {
            Request::List => {
                let mut lines: Vec<String> = director
                    .ids()
                    .into_iter()
                    .filter_map(|id| director.line(id))
                    .collect();
                lines.push(format!("GAME TOURNAMENTS {}", lines.len()));
                Ok(lines)
            }
            Request::Standings(id) => director
                .standings_lines(id)
                .ok_or_else(|| format!("no tournament {id}")),
            Request::Play(id) => self.wait_for_games(index, id),
            Request::Order(order) => self.tournament_order(index, order),
        };
        let told = match lines {
            Ok(lines) => Told::Lines(lines),
            Err(why) => Told::Error(why),
        };
        self.tell(index, &told);
    }

    /// `GAME TOURNAMENT PLAY id`: the connection waits, held out of every queue, until its
    /// tournament seats it.
    fn wait_for_games(&mut self, index: usize, id: u64) -> Result<Vec<String>, String> {
        let account = self
            .account_name(index)
            .ok_or("tournaments are for accounts: sign in first (GAME SIGNIN)")?;
        let t = self
            .tournaments
            .director
            .get(id)
            .ok_or_else(|| format!("no tournament {id}"))?;
        match t.entrants().iter().find(|e| e.account == account) {
            None => return Err(format!("{account} is not registered in tournament {id}")),
            Some(e) if e.withdrawn => {
                return Err(format!("{account} was withdrawn from tournament {id}"))
            }
            Some(_) => {}
        }
        if matches!(t.phase(), reversi_tournament::Phase::Finished { .. }) {
            // Nothing to wait for: the wait ends as it would have ended had it begun.
            let line = self.tournaments.director.line(id).unwrap_or_default();
            return Ok(vec![line, released_line(id, Released::Finished)]);
        }
        if self
            .pending
            .get(index)
            .is_some_and(|c| c.state == State::Handshake)
        {
            self.pending.hold(index);
        }
        let mut lines = vec![format!(
            "GAME NEWS waiting for your games of tournament {id}"
        )];
        lines.extend(self.tournaments.director.calls(&account));
        if let Some(conn) = self.pending.get(index) {
            debug!("{}: {account} waits for tournament {id}'s games", conn.peer);
        }
        self.tournaments.waiting.insert(account, (index, id));
        self.tournaments.next_tick = Some(Instant::now());
        Ok(lines)
    }

    /// An organiser's or a player's order.
    fn tournament_order(&mut self, index: usize, order: Order) -> Result<Vec<String>, String> {
        let account = self
            .account_name(index)
            .ok_or("tournaments are for accounts: sign in first (GAME SIGNIN)")?;
        if let Order::Create(_) = order {
            if self.store.is_none() {
                return Err("tournaments need the store (--data-dir or --database-url)".into());
            }
            if !self.tournaments.options.may_create(&account) {
                return Err(format!("{account} may not create tournaments"));
            }
        }
        let verb = match order {
            Order::Register(_) => Some("registered for"),
            Order::Withdraw(_) => Some("withdrawn from"),
            _ => None,
        };
        let withdraws = matches!(order, Order::Withdraw(_));
        let (id, actions) = self
            .tournaments
            .director
            .order(Some(&account), order, unix_now())?;
        // A player withdrawing from the connection that waits for its games is answered
        // here, its wait's end included, rather than told the news twice.
        let own_wait = withdraws && self.tournaments.waiting.get(&account) == Some(&(index, id));
        if own_wait {
            self.tournaments.waiting.remove(&account);
            self.pending
                .release(index, Instant::now() + self.config.handshake_timeout);
        }
        self.tournament_actions(actions);
        self.tournaments.next_tick.get_or_insert_with(Instant::now);
        let line = self.tournaments.director.line(id).unwrap_or_default();
        Ok(match verb {
            Some(verb) => {
                let name = self
                    .tournaments
                    .director
                    .get(id)
                    .map(|t| t.settings().name.clone());
                let mut lines = vec![
                    format!("GAME NEWS {verb} {}", name.unwrap_or_default()),
                    line,
                ];
                if own_wait {
                    lines.push(released_line(id, Released::Withdrawn));
                }
                lines
            }
            None => vec![line],
        })
    }

    /// At start, with the store: the tournaments it keeps carry on (their unfinished games
    /// of the current round are called again).
    pub(super) fn restore_tournaments(&mut self, setting: &crate::store::Setting) {
        let (keeper, kept) = match crate::store::tournaments::Keeper::start(setting) {
            Ok(started) => started,
            Err(e) => return error!("cannot read or keep tournaments in the store: {e}"),
        };
        // After a failed upgrade the director still holds them: only the keeper restarts.
        if !self.tournaments.director.ids().is_empty() {
            self.tournaments.keeper = Some(keeper);
            return;
        }
        let now = unix_now();
        let children = &self.children;
        let running = |game: u64| children.by_id(game).is_some();
        for (id, state) in kept {
            let restored = serde_json::from_str::<Kept>(&state)
                .map_err(|e| e.to_string())
                .and_then(|kept| self.tournaments.director.restore(&kept, now, &running));
            if let Err(e) = restored {
                error!("tournament {id} not restored: {e}");
            }
        }
        if !self.tournaments.director.ids().is_empty() {
            info!(
                "{} tournaments restored",
                self.tournaments.director.ids().len()
            );
            self.tournaments.next_tick = Some(Instant::now());
        }
        self.tournaments.keeper = Some(keeper);
    }

    /// Before an upgrade in place (threads end at exec): the latest states handed to the
    /// keeper, which stores what it holds before it stops.
    pub(super) fn finish_tournaments(&mut self) {
        // The director counts these games as started: the new image waits for them.
        while !self.tournaments.starts.is_empty() {
            self.start_due_tournament_games();
        }
        self.stop_tournaments("upgrade");
    }

    /// At the end of an upgrade or a shutdown: the latest states (the last games' results
    /// among them, recorded in this very turn) handed to the keeper, which stores them
    /// before it stops.
    pub(super) fn stop_tournaments(&mut self, why: &str) {
        self.keep_tournaments();
        drop(self.tournaments.keeper.take());
        if !self.tournaments.unsaved.is_empty() {
            warn!(
                "{why}: {} tournaments' latest changes not stored (the store's queue was full)",
                self.tournaments.unsaved.len()
            );
        }
    }

    /// The changed tournaments' latest states to the keeper; those it cannot take yet wait.
    fn keep_tournaments(&mut self) {
        let Some(keeper) = &self.tournaments.keeper else {
            return self.tournaments.unsaved.clear();
        };
        let unsaved = std::mem::take(&mut self.tournaments.unsaved);
        for (id, kept) in unsaved {
            let state = serde_json::to_string(&kept).expect("strings and numbers only");
            if keeper.save(id, state).is_err() {
                self.tournaments.unsaved.insert(id, kept);
            }
        }
    }

    /// Once a second: the director gets the time and who waits.
    pub(super) fn tick_tournaments(&mut self, now: Instant) {
        self.start_due_tournament_games();
        self.keep_tournaments();
        if self.tournaments.next_tick.is_none_or(|t| t > now) {
            return;
        }
        self.tournaments.next_tick = Some(now + TICK);
        self.forget_gone_waiters();
        let waiting = &self.tournaments.waiting;
        let actions = self
            .tournaments
            .director
            .tick(unix_now(), |account| waiting.contains_key(account));
        self.tournament_actions(actions);
    }

    /// Waiting connections that closed, or signed out, wait no more.
    fn forget_gone_waiters(&mut self) {
        let gone: Vec<String> = self
            .tournaments
            .waiting
            .iter()
            .filter(|(account, &(index, _))| {
                self.account_name(index).as_deref() != Some(account.as_str())
                    || self
                        .pending
                        .get(index)
                        .is_none_or(|c| c.state == State::Closing)
            })
            .map(|(account, _)| account.clone())
            .collect();
        for account in gone {
            self.tournaments.waiting.remove(&account);
        }
    }

    fn tournament_actions(&mut self, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::Start(pairing) => self.tournaments.starts.push_back(pairing),
                Action::Tell { account, line } => {
                    if let Some(&(index, _)) = self.tournaments.waiting.get(&account) {
                        self.tell(index, &Told::Lines(vec![line]));
                    }
                }
                Action::Release { account, id, why } => self.release_waiter(&account, id, why),
                Action::Stop { game } => {
                    if let Some(child) = self.children.by_id(game) {
                        let _ =
                            nix::sys::signal::kill(child.pid, nix::sys::signal::Signal::SIGTERM);
                    }
                }
                Action::Save(kept) => {
                    self.tournaments.unsaved.insert(kept.id, kept);
                }
            }
        }
    }

    /// `account`'s wait for tournament `id`'s games ends without a game (`why`): its
    /// connection is told, and is back in the lobby with a fresh handshake timeout. A wait
    /// for another tournament's games goes on.
    fn release_waiter(&mut self, account: &str, id: u64, why: Released) {
        let Some(&(index, waits_for)) = self.tournaments.waiting.get(account) else {
            return;
        };
        if waits_for != id {
            return;
        }
        self.tournaments.waiting.remove(account);
        let first = match why {
            Released::Finished => self.tournaments.director.line(id).unwrap_or_default(),
            Released::Withdrawn => {
                let name = self
                    .tournaments
                    .director
                    .get(id)
                    .map(|t| t.settings().name.clone());
                format!("GAME NEWS withdrawn from {}", name.unwrap_or_default())
            }
        };
        self.pending
            .release(index, Instant::now() + self.config.handshake_timeout);
        self.tell(index, &Told::Lines(vec![first, released_line(id, why)]));
    }

    /// Starts the next few of the games the director started.
    fn start_due_tournament_games(&mut self) {
        for _ in 0..STARTS_A_TURN {
            match self.tournaments.starts.pop_front() {
                Some(pairing) => self.start_tournament_game(pairing),
                None => return,
            }
        }
    }

    /// Seats both accounts of `pairing` (first in seat 0) and starts their game.
    fn start_tournament_game(&mut self, pairing: crate::tournaments::Pairing) {
        let module = self
            .games
            .modules
            .iter()
            .copied()
            .find(|m| m.info.name == pairing.game);
        let indices = [&pairing.first, &pairing.second]
            .map(|account| self.tournaments.waiting.get(account.as_str()).map(|w| w.0));
        let (Some(module), [Some(first), Some(second)]) = (module, indices) else {
            warn!(
                "tournament game {:?} cannot start: its game or a player is gone",
                pairing.key
            );
            return self.tournaments.director.start_failed(pairing.key);
        };
        let rules = self.time_rules(module);
        let control = TimeControl::parse(&pairing.time_control, rules.first_move).ok();
        let terms = Terms {
            control,
            teams_by_seat: true,
            rated: pairing.rated,
            single: true,
            ..Terms::default()
        };
        for account in [&pairing.first, &pairing.second] {
            self.tournaments.waiting.remove(account.as_str());
        }
        let conns = [first, second].map(|i| self.pending.remove(i));
        let [Some(a), Some(b)] = conns else {
            return self.tournaments.director.start_failed(pairing.key);
        };
        let seats = vec![self.seat(a, module), self.seat(b, module)];
        self.start_session(module, seats, terms);
        let game = self.next_id;
        if self.children.by_id(game).is_some() {
            info!(
                "tournament {} round {} board {}: game {game} {} vs {}",
                pairing.key.tournament,
                pairing.key.round,
                pairing.key.board,
                pairing.first,
                pairing.second
            );
            let actions = self.tournaments.director.started(pairing.key, game);
            self.tournament_actions(actions);
        } else {
            self.tournaments.director.start_failed(pairing.key);
        }
    }

    /// A session ended: a tournament game's result, read from its journal, goes to the
    /// director (before the archive takes the journal away).
    pub(super) fn tournament_game_ended(&mut self, child: &super::reaper::Child) {
        if !self.tournaments.director.plays(child.id) {
            return;
        }
        let supervisor = std::process::id();
        let (outcome, record) = self
            .games
            .sessions
            .get(child.module.info.name)
            .map(|c| crate::session::journal::path(&c.journal_dir, supervisor, child.id))
            .and_then(|path| std::fs::read_to_string(path).ok())
            .map_or((None, None), |text| {
                crate::tournaments::outcome::of_journal_with_record(&text, supervisor)
            });
        let actions = self
            .tournaments
            .director
            .ended(child.id, outcome, record, unix_now());
        self.tournament_actions(actions);
    }
}

/// The operator's side (the control socket, `crate::control`): every organiser's right on
/// every tournament. A tournament it creates has no organiser account (`organiser: None`
/// in the store): only the operator organises it.
impl Supervisor {
    /// A tournament request from the control socket: its answer's lines, or why not.
    pub(super) fn operator_tournament(
        &mut self,
        request: crate::control::request::Request,
    ) -> Result<Vec<String>, String> {
        use crate::control::request::Request as Asked;
        let director = &self.tournaments.director;
        match request {
            Asked::Tournaments => Ok(director
                .ids()
                .into_iter()
                .filter_map(|id| director.line(id))
                .collect()),
            Asked::Standings(id) => director
                .standings_lines(id)
                .ok_or_else(|| format!("no tournament {id}")),
            Asked::Export { id, form } => self.export_tournament(id, form),
            Asked::Order(order) => self.operator_order(None, order),
            Asked::Enter { id, account } => {
                self.operator_order(Some(&account), Order::Register(id))
            }
            Asked::Drain | Asked::Resume | Asked::Upgrade | Asked::CreateAccount(_) => {
                Err("not a tournament request".into())
            }
        }
    }

    /// `order` given as the operator; `account`: the one it registers.
    fn operator_order(
        &mut self,
        account: Option<&str>,
        order: Order,
    ) -> Result<Vec<String>, String> {
        if let Order::Create(_) = order {
            if self.store.is_none() {
                return Err("tournaments need the store (--data-dir or --database-url)".into());
            }
        }
        if let Some(account) = account {
            // Not looked up in the store (that is a worker's, off the loop): the name must be
            // spelt as the account spells it, which is what its player signs in as.
            reversi_store::Name::new(account).map_err(|e| format!("{account:?}: {e}"))?;
        }
        let (id, actions) = self
            .tournaments
            .director
            .order(account, order, unix_now())?;
        self.tournament_actions(actions);
        self.tournaments.next_tick.get_or_insert_with(Instant::now);
        Ok(self.tournaments.director.line(id).into_iter().collect())
    }

    /// The final standings' export, as `/tournaments/ID.csv|json` serve it from the store,
    /// here from the director (the latest state, even before the store has it).
    fn export_tournament(
        &self,
        id: u64,
        form: crate::control::request::Export,
    ) -> Result<Vec<String>, String> {
        let director = &self.tournaments.director;
        let t = director
            .get(id)
            .ok_or_else(|| format!("no tournament {id}"))?;
        let text = match form {
            crate::control::request::Export::Csv => t.crosstable().to_csv(),
            crate::control::request::Export::Json => {
                let key = |round, board| crate::tournaments::director::BoardKey {
                    tournament: id,
                    round,
                    board,
                };
                let games = director.games_of(id);
                let kept = Kept {
                    id,
                    organiser: None,
                    snapshot: t.snapshot(),
                    games: games
                        .iter()
                        .map(|g| (key(g.round, g.board), g.game))
                        .collect(),
                    records: games
                        .iter()
                        .filter_map(|g| Some((key(g.round, g.board), g.record.clone()?)))
                        .collect(),
                };
                crate::tournaments::pages::json_of(&kept, t)
            }
        };
        Ok(text.lines().map(str::to_owned).collect())
    }
}

/// `GAME RELEASED id finished|withdrawn`: the end of a wait for tournament `id`'s games.
fn released_line(id: u64, why: Released) -> String {
    format!("GAME RELEASED {id} {}", why.word())
}
