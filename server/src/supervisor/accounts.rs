//! Players' requests on the supervisor's side (TEXT-PROTOCOL.md §4.4): checked against
//! the connection's identity (identity.rs) and the sign-in limits here, answered by the
//! account workers (`crate::store::accounts`) off the loop, and applied when the answer
//! comes back, if the connection is still there. While a request is out, the
//! connection's further lines wait, so that a client may send `GAME SIGNIN` and
//! `GAME TYPE` together and play signed in.

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;

use log::error;
use reversi_store::{AccountId, Limits, Name, SignInLimiter, TokenId, TooMany};

use super::identity::{Identity, Signed};
use super::pending::State;
use super::ratings::{self, Refresher};
use super::reaper::Child;
use super::Supervisor;
use crate::protocols::players::{Answer, Credentials, Request};
use crate::protocols::Told;
use crate::store::accounts::{Ask, Busy, Done, Job, Out, RatingJob, Via, Workers};
use crate::terms::{SeatPlayer, ShownRating};

/// Registrations per address: 5 at once, then one every 10 minutes (an account is cheap
/// to make and each costs an Argon2 hash).
pub const REGISTRATIONS: Limits = Limits {
    burst: 5,
    interval_ms: 600_000,
    max_keys: 100_000,
};

// An export's answer fits in what a waiting connection may leave unread (with its
// `GAME FILE` line), so a reader that is slow is not closed for it.
const _: () = assert!(
    crate::store::accounts::EXPORT_MAX_BYTES + 1024 < super::turns::OUT_LIMIT,
    "GAME EXPORT's bound must stay under a waiting connection's OUT_LIMIT"
);

const NO_STORE: &str = "this server keeps no accounts (--no-store)";
const BUSY: &str = "the server is busy; try again";
/// The store is on but its account workers could not start: no name can be checked, so
/// none is taken (a guest could otherwise take an account's name).
const NO_WORKERS: &str = "accounts are unavailable on this server now (the store failed at start)";

/// The supervisor's part: the workers (none without a store), the limits, the tickets.
#[derive(Default)]
pub struct Players {
    workers: Option<Workers>,
    sign_ins: SignInLimiter,
    registrations: Option<SignInLimiter>,
    next_ticket: u64,
    /// The store is on, but the workers failed to start.
    failed: bool,
    /// Ratings that moved since their accounts signed in.
    refresher: Refresher,
}

impl Players {
    /// Starts the workers of `setting`'s store; `wake` wakes the loop when answers are in.
    pub fn start(&mut self, setting: &crate::store::Setting, wake: Arc<dyn Fn() + Send + Sync>) {
        match Workers::start(setting, wake) {
            Ok(workers) => self.workers = Some(workers),
            Err(e) => {
                error!("cannot start the account workers: {e}; accounts are off");
                self.failed = true;
            }
        }
    }

    /// The answer to `request` when there are no workers: with `--no-store` a guest's name
    /// is taken unchecked (there are no accounts), and nothing else is served.
    fn unserved(&self, request: Request) -> Result<Answer, String> {
        match request {
            _ if self.failed => Err(NO_WORKERS.to_owned()),
            Request::Name(name) => Ok(Answer::Guest(name.as_str().to_owned())),
            _ => Err(NO_STORE.to_owned()),
        }
    }

    /// Hands connection `index`'s request to a worker; the answer will carry the ticket.
    fn submit(
        &mut self,
        index: usize,
        request: Request,
        account: Option<(AccountId, Name)>,
    ) -> Result<u64, Busy> {
        let ticket = self.next_ticket();
        let workers = self.workers.as_ref().ok_or(Busy)?;
        let job = Job {
            ticket: (index, ticket),
            request,
            account,
        };
        workers.submit(job).map(|()| ticket)
    }

    /// A new ticket for a connection's request: one sequence for the account workers and the
    /// page workers (reads.rs), so that an answer for a connection that has gone is never
    /// taken for one of another request on the same index.
    pub(super) fn next_ticket(&mut self) -> u64 {
        self.next_ticket += 1;
        self.next_ticket
    }

    /// A sign-in from `address` was right: its account's count is given back (only wrong
    /// ones add up), and a token's address count too (store/src/limiter.rs says why).
    fn succeeded(&mut self, address: IpAddr, via: &Via) {
        let now_ms = reversi_store::UnixMillis::now().0.max(0) as u64;
        match via {
            Via::Password(name) => self.sign_ins.succeeded(name, now_ms),
            Via::Token(token) => self.sign_ins.succeeded_token(address, token, now_ms),
        }
    }

    /// Counts an attempt of `request` from `address` against its limits.
    fn attempt(&mut self, address: IpAddr, request: &Request, now_ms: u64) -> Result<(), TooMany> {
        match request {
            Request::Register { name, .. } => {
                let limiter = self
                    .registrations
                    .get_or_insert_with(|| SignInLimiter::new(REGISTRATIONS, Limits::ACCOUNT));
                limiter.attempt(address, name, now_ms)
            }
            Request::SignIn(Credentials::Password { name, .. }) => {
                self.sign_ins.attempt(address, name, now_ms)
            }
            // A token is limited by its whole id, apart from every account's name.
            Request::SignIn(Credentials::Token(token)) => {
                self.sign_ins.attempt_token(address, token.id(), now_ms)
            }
            _ => Ok(()),
        }
    }
}

/// Whether `request` counts against its address's reads of the store (reads.rs): every
/// request a worker answers but sign-ins and registrations, which have limits of their own.
fn counts_as_a_read(request: &Request) -> bool {
    !matches!(
        request,
        Request::SignIn(_) | Request::Register { .. } | Request::SignOut
    )
}

impl Supervisor {
    /// A player's request of connection `index`.
    pub(super) fn player_request(&mut self, index: usize, request: Request) {
        let Some(conn) = self.pending.get(index) else {
            return;
        };
        let (peer, identity) = (conn.peer, &conn.identity);
        if let Err(why) = identity.admits(&request) {
            return self.tell(index, &Told::Error(why));
        }
        let account = identity.account().map(|s| (s.id, s.name.clone()));
        if request == Request::SignOut {
            return self.apply(index, Ok(Answer::SignedOut), None, None);
        }
        if self.players.workers.is_none() {
            let answer = self.players.unserved(request);
            return self.apply(index, answer, None, None);
        }
        if counts_as_a_read(&request) {
            if let Err(limit) = self.reads.attempt(peer.ip()) {
                let why = super::reads::too_many(limit);
                self.note(peer, format_args!("{peer}: {why}"));
                return self.tell(index, &Told::Error(why));
            }
        }
        let now_ms = reversi_store::UnixMillis::now().0.max(0) as u64;
        if let Err(limit) = self.players.attempt(peer.ip(), &request, now_ms) {
            let seconds = limit.retry_after_ms.div_ceil(1000);
            let why = format!("too many sign-in attempts; try again in {seconds} s");
            self.note(peer, format_args!("{peer}: {why}"));
            return self.tell(index, &Told::Error(why));
        }
        match self.players.submit(index, request, account) {
            Ok(ticket) => {
                if let Some(conn) = self.pending.get_mut(index) {
                    conn.in_flight = Some(ticket);
                }
            }
            Err(Busy) => self.tell(index, &Told::Error(BUSY.to_owned())),
        }
    }

    /// The account workers have answered: each answer goes to its connection if that is
    /// still the one that asked (else it is dropped), which is then read on.
    pub(super) fn on_player_answers(&mut self) {
        let answers = match &self.players.workers {
            Some(workers) => workers.answers(),
            None => return,
        };
        self.deliver(answers);
    }

    /// Ends the account workers (an upgrade in place: threads end at exec) once they have
    /// answered what is queued, and delivers those answers.
    pub(super) fn finish_players(&mut self) {
        if let Some(workers) = self.players.workers.take() {
            let answers = workers.finish();
            self.deliver(answers);
        }
    }

    fn deliver(&mut self, answers: Vec<Out>) {
        for out in answers {
            match out {
                Out::Player(done) => self.deliver_answer(done),
                Out::Rating(job, rating) => self.rating_read(job, rating),
            }
        }
    }

    fn deliver_answer(&mut self, done: Done) {
        let Done {
            ticket: (index, ticket),
            mut answer,
            signed,
            via,
        } = done;
        let Some(conn) = self.pending.get_mut(index) else {
            return;
        };
        if conn.in_flight != Some(ticket) || conn.state == State::Closing {
            return;
        }
        conn.in_flight = None;
        let address = conn.peer.ip();
        // A sign-in read before a game of the account's was stored gets the rating read since.
        if let (Ok(Answer::SignedIn { ratings, .. }), Some((id, _))) = (&mut answer, &signed) {
            self.players.refresher.patch(*id, ticket, ratings);
        }
        let token = match &via {
            Some(Via::Token(token)) => Some(token.clone()),
            _ => None,
        };
        if let Some(via) = via {
            self.players.succeeded(address, &via);
        }
        self.apply(index, answer, signed, token);
        self.service(index);
    }

    /// A session ended: its accounts' ratings in its game may have moved; they are read
    /// again once the store has its games (`ratings.rs`), for the next game's `GAME PLAYER`.
    pub(super) fn ratings_may_have_moved(&mut self, child: &Child) {
        if self.players.workers.is_none() {
            return;
        }
        let accounts = child.players.iter().filter_map(|p| match p {
            SeatPlayer::Account { id, .. } => Some(*id),
            _ => None,
        });
        let ran = i64::try_from(child.started.elapsed().as_millis()).unwrap_or(i64::MAX);
        let since =
            reversi_store::UnixMillis(reversi_store::UnixMillis::now().0.saturating_sub(ran));
        let kind = child.module.info.name;
        self.players
            .refresher
            .game_ended(accounts, kind, since, Instant::now());
    }

    /// When stale ratings are next looked at.
    pub(super) fn ratings_deadline(&self) -> Option<Instant> {
        self.players.refresher.deadline()
    }

    /// Hands the ratings due to be read again to the workers.
    pub(super) fn refresh_ratings(&mut self, now: Instant) {
        if self.players.refresher.deadline().is_none_or(|t| t > now) {
            return;
        }
        let signed_in: HashSet<AccountId> = (self.pending.indices().into_iter())
            .filter_map(|i| self.account_of(i))
            .collect();
        let asks = self.players.refresher.due(now, |a| signed_in.contains(&a));
        for ask in asks {
            self.players.next_ticket += 1;
            let ticket = self.players.next_ticket;
            let job = RatingJob {
                ticket,
                ask: ask.clone(),
            };
            let sent = (self.players.workers.as_ref()).map(|w| w.read_rating(job));
            // A full queue: asked again later.
            if !matches!(sent, Some(Ok(()))) {
                (self.players.refresher).answered(&ask, None, ticket, now);
            }
        }
    }

    /// A rating read again: the account's waiting connections seat it from now on.
    fn rating_read(&mut self, job: RatingJob, rating: Option<ShownRating>) {
        let now = Instant::now();
        self.players
            .refresher
            .answered(&job.ask, rating, job.ticket, now);
        let Some(rating) = rating else {
            return;
        };
        let Ask { account, kind, .. } = &job.ask;
        for index in self.pending.indices() {
            let Some(conn) = self.pending.get_mut(index) else {
                continue;
            };
            if let super::identity::Identity::Account(signed) = &mut conn.identity {
                if signed.id == *account {
                    ratings::set(&mut signed.ratings, kind, rating);
                }
            }
        }
    }

    /// Applies an answer to connection `index`'s identity and tells it; `token`: the API
    /// token a sign-in used.
    fn apply(
        &mut self,
        index: usize,
        answer: Result<Answer, String>,
        signed: Option<(AccountId, Name)>,
        token: Option<TokenId>,
    ) {
        let answer = match answer {
            Ok(answer) => answer,
            Err(why) => return self.tell(index, &Told::Error(why)),
        };
        let Some(conn) = self.pending.get_mut(index) else {
            return;
        };
        let signed = match (&answer, signed) {
            (Answer::SignedIn { ratings, .. }, Some((id, name))) => Some(Signed {
                id,
                name,
                ratings: ratings.clone(),
                token,
            }),
            _ => None,
        };
        let peer = conn.peer;
        let was = std::mem::take(&mut conn.identity);
        conn.identity = was.after(&answer, signed);
        match &conn.identity {
            Identity::Account(signed) if matches!(answer, Answer::SignedIn { .. }) => {
                let name = signed.name.clone();
                self.note(peer, format_args!("{peer}: signed in as {name}"));
            }
            _ => {}
        }
        let revoked = match &answer {
            Answer::Revoked(id) => Some(id.clone()),
            _ => None,
        };
        self.tell(index, &Told::Player(answer));
        if let Some(id) = revoked {
            self.close_signed_in_with(index, &id);
        }
    }

    /// Token `id`, revoked by connection `by`, signs nobody in any longer: the account's other
    /// waiting connections signed in with it are closed (a leaked token is revoked to end
    /// its holder's access, and a connection may wait for hours: a queue, a tournament).
    fn close_signed_in_with(&mut self, by: usize, id: &str) {
        let Some(account) = self.account_of(by) else {
            return;
        };
        let holders: Vec<usize> = (self.pending.indices().into_iter())
            .filter(|&i| i != by)
            .filter(|&i| {
                let signed = self.pending.get(i).and_then(|c| c.identity.account());
                signed.is_some_and(|s| {
                    s.id == account && s.token.as_ref().is_some_and(|t| t.as_str() == id)
                })
            })
            .collect();
        let why = format!("API token {id} was revoked; sign in again");
        let now = Instant::now();
        for index in holders {
            if let Some(peer) = self.pending.get(index).map(|c| c.peer) {
                self.note(peer, format_args!("{peer}: {why}; closing"));
            }
            self.refuse(index, &why, now);
        }
    }

    /// The account connection `index` is signed in as, if any.
    pub(super) fn account_of(&self, index: usize) -> Option<AccountId> {
        self.pending
            .get(index)
            .and_then(|c| c.identity.account().map(|s| s.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_store::{ApiToken, Password};

    fn register(name: &str) -> Request {
        Request::Register {
            name: Name::new(name).unwrap(),
            password: Password::new("correct horse").unwrap(),
        }
    }

    #[test]
    fn without_workers_a_guest_is_unchecked_only_when_there_is_no_store() {
        let bob = || Request::Name(Name::new("Alice").unwrap());
        let mut players = Players::default();
        assert_eq!(players.unserved(bob()), Ok(Answer::Guest("Alice".into())));
        assert_eq!(players.unserved(Request::Tokens), Err(NO_STORE.to_owned()));
        // A store whose workers failed to start: an account's name cannot be checked.
        let dir = std::env::temp_dir().join(format!("reversid-noworkers-{}", std::process::id()));
        std::fs::write(&dir, b"a file where the data directory should be").unwrap();
        let setting = crate::store::Setting {
            database: reversi_store::Database::Sqlite(dir.clone()),
            data_dir: dir.clone(),
        };
        players.start(&setting, Arc::new(|| {}));
        std::fs::remove_file(&dir).unwrap();
        assert!(players.workers.is_none());
        assert_eq!(players.unserved(bob()), Err(NO_WORKERS.to_owned()));
        assert_eq!(
            players.unserved(Request::Tokens),
            Err(NO_WORKERS.to_owned())
        );
    }

    #[test]
    fn registrations_are_limited_per_address_and_sign_ins_per_account_or_token() {
        let mut players = Players::default();
        let (here, there): (IpAddr, IpAddr) =
            ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        for n in 0..5 {
            assert!(players
                .attempt(here, &register(&format!("user{n}")), 0)
                .is_ok());
        }
        let refused = players.attempt(here, &register("user5"), 0).unwrap_err();
        assert_eq!(refused.retry_after_ms, REGISTRATIONS.interval_ms);
        assert!(players.attempt(there, &register("user5"), 0).is_ok());
        // Sign-ins have limits of their own: ten tries at one account, from anywhere.
        let sign_in = Request::SignIn(Credentials::Password {
            name: Name::new("Alice").unwrap(),
            password: Password::new("wrong horse").unwrap(),
        });
        for n in 0..10 {
            let from: IpAddr = format!("10.1.0.{n}").parse().unwrap();
            assert!(players.attempt(from, &sign_in, 0).is_ok());
        }
        assert!(players.attempt(there, &sign_in, 0).unwrap_err().per_account);
        // A token is counted by its id, whatever its secret.
        let token = |secret: &str| {
            let text = format!("rvt_0123456789abcdef_{}", secret.repeat(32));
            Request::SignIn(Credentials::Token(ApiToken::parse(&text).unwrap()))
        };
        for n in 0..10 {
            let from: IpAddr = format!("10.2.0.{n}").parse().unwrap();
            let secret = format!("{:02x}", n);
            assert!(players.attempt(from, &token(&secret), 0).is_ok());
        }
        assert!(players.attempt(there, &token("ff"), 0).is_err());
        // ... and its guesses hold back neither another token nor the account whose name
        // reads like its id (the key was once `t` + 15 of its digits, a valid name).
        let other = format!("rvt_0123456789abcde0_{}", "ff".repeat(32));
        let other = Request::SignIn(Credentials::Token(ApiToken::parse(&other).unwrap()));
        assert!(players.attempt(there, &other, 0).is_ok());
        let lookalike = Request::SignIn(Credentials::Password {
            name: Name::new("t0123456789abcde").unwrap(),
            password: Password::new("wrong horse").unwrap(),
        });
        assert!(players.attempt(there, &lookalike, 0).is_ok());
        // Other requests are not sign-ins.
        for _ in 0..100 {
            assert!(players.attempt(here, &Request::Tokens, 0).is_ok());
        }
    }
}
