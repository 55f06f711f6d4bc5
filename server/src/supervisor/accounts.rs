//! Players' requests on the supervisor's side (TEXT-PROTOCOL.md §4.4): checked against
//! the connection's identity (identity.rs) and the sign-in limits here, answered by the
//! account workers (`crate::store::accounts`) off the loop, and applied when the answer
//! comes back, if the connection is still there. While a request is out, the
//! connection's further lines wait, so that a client may send `GAME SIGNIN` and
//! `GAME TYPE` together and play signed in.

use std::net::IpAddr;
use std::sync::Arc;

use log::error;
use reversi_store::{AccountId, Limits, Name, SignInLimiter, TooMany};

use super::identity::{Identity, Signed};
use super::pending::State;
use super::Supervisor;
use crate::protocols::players::{Answer, Credentials, Request};
use crate::protocols::Told;
use crate::store::accounts::{Busy, Done, Job, Workers};

/// Registrations per address: 5 at once, then one every 10 minutes (an account is cheap
/// to make and each costs an Argon2 hash).
pub const REGISTRATIONS: Limits = Limits {
    burst: 5,
    interval_ms: 600_000,
    max_keys: 100_000,
};

const NO_STORE: &str = "this server keeps no accounts (--no-store)";
const BUSY: &str = "the server is busy; try again";

/// The supervisor's part: the workers (none without a store), the limits, the tickets.
#[derive(Default)]
pub struct Players {
    workers: Option<Workers>,
    sign_ins: SignInLimiter,
    registrations: Option<SignInLimiter>,
    next_ticket: u64,
}

impl Players {
    /// Starts the workers of `setting`'s store; `wake` wakes the loop when answers are in.
    pub fn start(&mut self, setting: &crate::store::Setting, wake: Arc<dyn Fn() + Send + Sync>) {
        match Workers::start(setting, wake) {
            Ok(workers) => self.workers = Some(workers),
            Err(e) => error!("cannot start the account workers: {e}; accounts are off"),
        }
    }

    /// Hands connection `index`'s request to a worker; the answer will carry the ticket.
    fn submit(
        &mut self,
        index: usize,
        request: Request,
        account: Option<(AccountId, Name)>,
    ) -> Result<u64, Busy> {
        let workers = self.workers.as_ref().ok_or(Busy)?;
        self.next_ticket += 1;
        let job = Job {
            ticket: (index, self.next_ticket),
            request,
            account,
        };
        workers.submit(job).map(|()| self.next_ticket)
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
            Request::SignIn(Credentials::Token(token)) => {
                // A token is limited by its id, as a name would be (`t` + 15 of its digits
                // is a valid name no one can hold: names are keyed apart from these).
                let id = token.id().as_str();
                match Name::new(&format!("t{}", &id[..15])) {
                    Ok(key) => self.sign_ins.attempt(address, &key, now_ms),
                    Err(_) => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }
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
            return self.apply(index, Ok(Answer::SignedOut), None);
        }
        if self.players.workers.is_none() {
            return match request {
                Request::Name(name) => {
                    self.apply(index, Ok(Answer::Guest(name.as_str().to_owned())), None)
                }
                _ => self.tell(index, &Told::Error(NO_STORE.to_owned())),
            };
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
        for Done {
            ticket: (index, ticket),
            answer,
            signed,
        } in answers
        {
            let Some(conn) = self.pending.get_mut(index) else {
                continue;
            };
            if conn.in_flight != Some(ticket) || conn.state == State::Closing {
                continue;
            }
            conn.in_flight = None;
            self.apply(index, answer, signed);
            self.service(index);
        }
    }

    /// Applies an answer to connection `index`'s identity and tells it.
    fn apply(
        &mut self,
        index: usize,
        answer: Result<Answer, String>,
        signed: Option<(AccountId, Name)>,
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
        self.tell(index, &Told::Player(answer));
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
        // Other requests are not sign-ins.
        for _ in 0..100 {
            assert!(players.attempt(here, &Request::Tokens, 0).is_ok());
        }
    }
}
