//! Challenges on the supervisor's side (TEXT-PROTOCOL.md §4.1–4.3): a creator's
//! `GAME INVITE` holds its connection Inviting; `GAME JOIN code` fills the challenge
//! and starts its game with the challenge's control and sides; `GAME LOBBY` lists
//! the public ones; `GAME RESUME token` hands a returning player to its session.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use log::{info, warn};
use reversi_games::registry::Module;

use super::addresses::Host;
use super::challenges::{Challenges, Code, Gone, Joined, Refused};
use super::identity::RATED_NEEDS_ACCOUNT;
use super::{Supervisor, DRAINING};
use crate::metrics::Refused as Refusal;
use crate::protocols::{Invite, Offered, Told};
use crate::session::handoff::Role;
use crate::terms::{self, Bounds, ResumeToken, Terms, TimeControl};

/// What a challenge offers: its game, control (`None`: the game's default) and the
/// creator's team (`None`: drawn when the game starts), and how lines write it.
#[derive(Clone, Debug)]
pub struct Offer {
    pub game: &'static Module,
    pub control: Option<TimeControl>,
    pub side: Option<u8>,
    /// The game moves its players' ratings: its creator and joiners are accounts.
    pub rated: bool,
    /// Every option written out: `time=5+3 side=random private` (and ` rated`).
    pub options: String,
}

/// The supervisor's registry: connections by their slot, offers, tries per address.
pub type Registry = Challenges<usize, Offer, Host>;

/// What a challenger's `time=` is held to, per game.
pub struct TimeRules {
    pub bounds: Bounds,
    /// The first-move limit a `move:` control gets.
    pub first_move: Duration,
    /// The control a challenge without `time=` is played on.
    pub default: TimeControl,
}

/// What an account that joins its own rated challenge is told.
const RATED_AGAINST_ONESELF: &str = "a rated game is between two accounts: this challenge is yours";

/// The line a token that no session here holds gets.
const NO_SUCH_TOKEN: &str = "no running game has this token (the game may have ended)";

impl Supervisor {
    /// The time rules of `game`'s challenges: the bounds of `--min-time` and `--max-time`,
    /// and the game's default control (`--time-control`, else the move clock).
    pub(super) fn time_rules(&self, game: &Module) -> TimeRules {
        let rules = self.games.sessions.get(game.info.name).map(|c| &c.rules);
        let default = self
            .games
            .default_control(game.info.name)
            .unwrap_or(TimeControl::None);
        let first = rules
            .and_then(|r| r.first_move_timeout)
            .or(match default {
                TimeControl::PerMove { limit, .. } => Some(limit),
                _ => None,
            })
            .unwrap_or(Duration::ZERO);
        TimeRules {
            bounds: self.games.bounds(),
            first_move: first,
            default,
        }
    }

    /// `GAME INVITE`: a challenge for the connection, which is Inviting from now on.
    pub(super) fn invite(&mut self, index: usize, invite: Invite) {
        if invite.rated && self.account_of(index).is_none() {
            return self.tell(index, &Told::Error(RATED_NEEDS_ACCOUNT.to_owned()));
        }
        let Some(peer) = self.may_start_from(index) else {
            return;
        };
        let rules = self.time_rules(invite.game);
        let control = match invite.time.map(|spec| {
            TimeControl::parse(&spec, rules.first_move).and_then(|c| c.check(rules.bounds))
        }) {
            None => None,
            Some(Ok(control)) => Some(control),
            Some(Err(bad)) => return self.tell(index, &Told::Error(bad.to_string())),
        };
        let game = invite.game;
        let side = invite
            .side
            .and_then(|team| game.info.teams.get(usize::from(team)))
            .copied()
            .unwrap_or("random");
        let listed = if invite.public { "public" } else { "private" };
        let rated = if invite.rated { " rated" } else { "" };
        let offer = Offer {
            game,
            control,
            side: invite.side,
            rated: invite.rated,
            options: format!(
                "time={} side={side} {listed}{rated}",
                control.unwrap_or(rules.default)
            ),
        };
        let seats = self.group_size(game);
        let cluster = self.cluster.as_ref();
        let draw = || loop {
            let code = draw_code();
            if super::relaying::free_everywhere(cluster, code) {
                break code;
            }
        };
        let created = self.challenges.create(
            index,
            offer.clone(),
            invite.public,
            seats,
            Instant::now(),
            draw,
        );
        let (code, seconds) = match created {
            Ok(created) => created,
            Err(refused) => return self.tell(index, &Told::Error(refused.to_string())),
        };
        self.challenge_made(code, invite.public, game.info.name, &offer.options);
        self.pending.hold(index);
        let name = game.info.name;
        self.note(peer, format_args!("{peer}: invites to {name} ({listed})"));
        let offered = offered(code, seconds, &offer);
        let link = format!("{}#join={code}", self.public_url());
        self.tell(index, &Told::Created { offered, link });
        self.tell_waiting(index, seats - 1);
    }

    /// `GAME JOIN code`; false once the connection is handed to its game.
    pub(super) fn join_code(&mut self, index: usize, written: &str) -> bool {
        if !self.may_try(index) {
            return true;
        }
        let code = match Code::parse(written) {
            Ok(code) => code,
            Err(not) => {
                self.tell(index, &Told::Error(not.to_string()));
                return true;
            }
        };
        if let Some(stays) = self.join_elsewhere(index, code, written) {
            return stays;
        }
        if let Err(why) = self.may_join_rated(index, code) {
            self.tell(index, &Told::Error(why.to_owned()));
            return true;
        }
        let Some(peer) = self.may_start_from(index) else {
            return false;
        };
        let running = self.children.len();
        if running >= self.config.max_sessions {
            let why = format!("this server is full ({running} games); try again later");
            self.tell(index, &Told::Error(why));
            return true;
        }
        match self
            .challenges
            .join(index, code, Host::of(peer), Instant::now())
        {
            Err(refused) => {
                self.tell(index, &Told::Error(refused.to_string()));
                true
            }
            Ok(Joined::Waiting { more }) => {
                self.pending.hold(index);
                self.tell_waiting(index, more);
                true
            }
            Ok(Joined::Complete { offer, players }) => {
                self.challenge_ended(code, super::challenges::Ended::Accepted);
                self.note(peer, format_args!("{peer}: accepts a challenge"));
                self.start_challenge(offer, &players);
                false
            }
        }
    }

    /// A rated challenge takes accounts only, and each once: no one plays a rated game
    /// against themselves.
    fn may_join_rated(&self, index: usize, code: Code) -> Result<(), &'static str> {
        if !self.challenges.offer(code).is_some_and(|o| o.rated) {
            return Ok(());
        }
        let me = self.account_of(index).ok_or(RATED_NEEDS_ACCOUNT)?;
        let members = self.challenges.members(code);
        match members.iter().any(|&m| self.account_of(m) == Some(me)) {
            true => Err(RATED_AGAINST_ONESELF),
            false => Ok(()),
        }
    }

    /// `GAME LOBBY`: the public challenges, then their count.
    pub(super) fn list_challenges(&mut self, index: usize) {
        let now = Instant::now();
        let mut listed = self
            .challenges
            .lobby(now)
            .into_iter()
            .map(|l| offered(l.code, l.seconds, l.offer))
            .collect();
        self.other_hosts_challenges(&mut listed);
        self.tell(index, &Told::Listing(listed));
    }

    /// `GAME RESUME token`; false once the connection is handed to its session.
    pub(super) fn resume(&mut self, index: usize, written: &str) -> bool {
        if !self.may_try(index) {
            return true;
        }
        let token = match ResumeToken::parse(written) {
            Ok(token) => token,
            Err(not) => {
                self.tell(index, &Told::Error(not.to_string()));
                return true;
            }
        };
        if let Some(stays) = self.relay_resume(index, &token, written) {
            return stays;
        }
        let Some(peer) = self.pending.get(index).map(|c| c.peer) else {
            return false;
        };
        let (from, now) = (Host::of(peer), Instant::now());
        let Some((id, seat)) = self.tokens.lookup(&token) else {
            self.challenges.charge(from, now);
            self.tell(index, &Told::Error(NO_SUCH_TOKEN.to_owned()));
            return true;
        };
        match self.hand_over(index, id, Role::Seat(seat)) {
            Ok(()) => {
                self.note(
                    peer,
                    format_args!("{peer}: takes back its seat in game {id}"),
                );
                false
            }
            Err(e) => {
                self.note(
                    peer,
                    format_args!("{peer}: cannot hand back to game {id}: {e}"),
                );
                self.tell(index, &Told::Error(NO_SUCH_TOKEN.to_owned()));
                true
            }
        }
    }

    /// Connection `index` leaves (quit, closed, refused): a creator withdraws its
    /// challenge, whose joiners are told and wait no more.
    pub(super) fn leave_challenge(&mut self, index: usize) {
        if let Some(gone) = self.challenges.leave(index, Instant::now()) {
            self.challenge_ended(gone.code, super::challenges::Ended::Withdrawn);
            let why = Refused::Ended(gone.code, super::challenges::Ended::Withdrawn);
            for joiner in gone.joiners {
                self.tell(joiner, &Told::Error(why.to_string()));
                self.unhold(joiner);
            }
        }
    }

    /// Challenges whose life ran out: their creators are told and wait no more.
    pub(super) fn expire_challenges(&mut self, now: Instant) {
        for Gone {
            code,
            creator,
            joiners,
        } in self.challenges.expire(now)
        {
            self.challenge_ended(code, super::challenges::Ended::Expired);
            let code_text = code.to_string();
            self.tell(creator, &Told::Expired { code: code_text });
            self.unhold(creator);
            let why = Refused::Ended(code, super::challenges::Ended::Expired);
            for joiner in joiners {
                self.tell(joiner, &Told::Error(why.to_string()));
                self.unhold(joiner);
            }
        }
        if let Some(n) = self.challenges.failed_in_minute(now) {
            warn!("codes: {n} failed tries in the last minute");
        }
    }

    /// Starts a challenge's game: the creator on its side, the joiners on the other
    /// teams in joining order.
    fn start_challenge(&mut self, offer: Offer, players: &[usize]) {
        let game = offer.game;
        let teams = game.info.team_count();
        let fixed = self
            .games
            .sessions
            .get(game.info.name)
            .is_some_and(|c| c.rules.fixed_teams);
        let creator_team = match offer.side {
            Some(team) => usize::from(team),
            None if fixed => 0,
            None => random_below(teams),
        };
        let order = seating(players, creator_team);
        let conns: Vec<_> = order
            .into_iter()
            .filter_map(|i| self.pending.remove(i))
            .collect();
        let whole = conns.len() == players.len();
        let seats = conns.into_iter().map(|c| self.seat(c, game)).collect();
        if !whole {
            // Every way out of the loop withdraws a challenge first: this does not happen.
            let e = std::io::Error::other("a player of the challenge is gone");
            return self.cannot_start(game, seats, &e);
        }
        info!("a challenge of {} is accepted", game.info.name);
        let terms = Terms {
            control: offer.control,
            teams_by_seat: true,
            rated: offer.rated,
            ..Terms::default()
        };
        self.start_session(game, seats, terms);
    }

    /// The peer of connection `index` if its address may start a game now; else it is refused.
    fn may_start_from(&mut self, index: usize) -> Option<SocketAddr> {
        let peer = self.pending.get(index)?.peer;
        let now = Instant::now();
        if !self.takes_games() {
            self.metrics.refused(Refusal::Draining);
            self.refuse(index, DRAINING, now);
            return None;
        }
        if let Err(refusal) = self.hosts.may_play(Host::of(peer), now) {
            self.note(peer, format_args!("{peer}: refused: {refusal}"));
            self.refuse(index, &refusal.to_string(), now);
            return None;
        }
        Some(peer)
    }

    /// Whether connection `index`'s address may try a code or a token now; if not, it is
    /// told how long to wait (every join and resume is, even a malformed one).
    fn may_try(&mut self, index: usize) -> bool {
        let Some(peer) = self.pending.get(index).map(|c| c.peer) else {
            return false;
        };
        match self.challenges.may_try(Host::of(peer), Instant::now()) {
            Ok(()) => true,
            Err(limit) => {
                self.tell(index, &Told::Error(limit.to_string()));
                false
            }
        }
    }

    /// A held connection waits no more: Waiting again, with a fresh handshake timeout.
    fn unhold(&mut self, index: usize) {
        let deadline = Instant::now() + self.config.handshake_timeout;
        self.pending.release(index, deadline);
    }

    pub(super) fn tell(&mut self, index: usize, told: &Told) {
        let wire = self.pending.get(index).and_then(|c| c.wire);
        if let Some(bytes) = wire.and_then(|w| w.protocol().tell(told)) {
            self.reply(index, &bytes);
        }
    }

    fn tell_waiting(&mut self, index: usize, more: usize) {
        let wire = self.pending.get(index).and_then(|c| c.wire);
        if let Some(bytes) = wire.and_then(|w| w.protocol().waiting(more as u32)) {
            self.reply(index, &bytes);
        }
    }

    /// Where the page is, for `GAME LINK`: `--public-url`, else the first listener's (https
    /// when the server serves TLS: a browser then gets the page and its sign-in encrypted).
    fn public_url(&self) -> String {
        let first = self.listeners.first().map(|l| l.addr);
        match (
            &self.config.public_url,
            first.or(self.config.listen.first().copied()),
        ) {
            (Some(url), _) => url.clone(),
            (None, Some(addr)) if self.config.tls.is_some() => format!("https://{addr}/"),
            (None, Some(addr)) => format!("http://{addr}/"),
            (None, None) => "/".to_owned(),
        }
    }
}

/// The order of a challenge's seats: seat i plays team i mod the teams; the creator
/// (`players[0]`) sits at `creator_team`, the joiners in the other seats in order.
fn seating(players: &[usize], creator_team: usize) -> Vec<usize> {
    let mut joiners = players[1..].iter().copied();
    (0..players.len())
        .filter_map(|seat| match seat == creator_team {
            true => Some(players[0]),
            false => joiners.next(),
        })
        .collect()
}

fn offered(code: Code, seconds: u64, offer: &Offer) -> Offered {
    Offered {
        code: code.to_string(),
        seconds,
        game: offer.game.info.name,
        options: offer.options.clone(),
    }
}

/// A fresh code from the kernel's random bits. The kernel's source does not fail once
/// the system is up (getrandom(2) fails only for bad arguments): no error to give.
fn draw_code() -> Code {
    loop {
        let mut bytes = [0u8; 8];
        if terms::random_bytes(&mut bytes).is_ok() {
            if let Some(code) = Code::from_random(bytes) {
                return code;
            }
        }
    }
}

/// A number below `n`, from the kernel's random bits (the bias of 2^64 mod n is nil here).
fn random_below(n: usize) -> usize {
    let mut bytes = [0u8; 8];
    let _ = terms::random_bytes(&mut bytes);
    (u64::from_le_bytes(bytes) % n.max(1) as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::seating;

    #[test]
    fn the_creator_sits_on_its_side_and_joiners_fill_the_rest_in_order() {
        assert_eq!(seating(&[10, 20], 0), [10, 20]);
        assert_eq!(seating(&[10, 20], 1), [20, 10]);
        assert_eq!(seating(&[10, 20, 30, 40], 1), [20, 10, 30, 40]);
        assert_eq!(seating(&[10, 20, 30], 2), [20, 30, 10]);
    }
}
