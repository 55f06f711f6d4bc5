//! Sign-in attempts, rate-limited per address and per account: a pure type,
//! fed the time, that the server asks before it checks a password or token.
//!
//! Each key gets a burst of attempts, then one more every `interval_ms` (the
//! generic cell rate algorithm: one timestamp a key). IPv6 addresses count
//! by their /64, which one host usually holds whole. Memory is bounded: when
//! the table is full, keys that are back to a full burst go first.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;

use crate::names::Name;
use crate::secret::TokenId;

/// One limit: `burst` attempts at once, then one every `interval_ms`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Limits {
    pub burst: u32,
    pub interval_ms: u64,
    /// The most keys remembered.
    pub max_keys: usize,
}

impl Limits {
    /// Per address: 20 at once, then one every 3 s.
    pub const ADDRESS: Limits = Limits {
        burst: 20,
        interval_ms: 3_000,
        max_keys: 100_000,
    };
    /// Per account: 10 at once, then one every 30 s (a guesser gets ~3000 a day).
    pub const ACCOUNT: Limits = Limits {
        burst: 10,
        interval_ms: 30_000,
        max_keys: 100_000,
    };
}

/// Refused: which limit, and when an attempt is allowed again.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TooMany {
    pub per_account: bool,
    pub retry_after_ms: u64,
}

/// Theoretical arrival times, per key.
struct Cells<K> {
    limits: Limits,
    tat: HashMap<K, u64>,
}

impl<K: Hash + Eq + Clone> Cells<K> {
    fn new(limits: Limits) -> Cells<K> {
        Cells {
            limits,
            tat: HashMap::new(),
        }
    }

    /// How long `key` must wait before an attempt at `now`; 0 if it may go.
    fn wait(&self, key: &K, now: u64) -> u64 {
        let tolerance = u64::from(self.limits.burst.saturating_sub(1)) * self.limits.interval_ms;
        let tat = self.tat.get(key).map_or(now, |&t| t.max(now));
        (tat - now).saturating_sub(tolerance)
    }

    fn take(&mut self, key: &K, now: u64) {
        if !self.tat.contains_key(key) && self.tat.len() >= self.limits.max_keys {
            self.make_room(now);
        }
        let tat = self.tat.get(key).map_or(now, |&t| t.max(now));
        self.tat.insert(key.clone(), tat + self.limits.interval_ms);
    }

    /// Undoes one [`Cells::take`] of `key`'s at `now` (a key back at a full burst is forgotten).
    fn give_back(&mut self, key: &K, now: u64) {
        let Some(tat) = self.tat.get_mut(key) else {
            return;
        };
        *tat = tat.saturating_sub(self.limits.interval_ms);
        if *tat <= now {
            self.tat.remove(key);
        }
    }

    /// Forgets keys back at a full burst; if none, the one closest to it.
    fn make_room(&mut self, now: u64) {
        self.tat.retain(|_, tat| *tat > now);
        if self.tat.len() >= self.limits.max_keys {
            let oldest = self
                .tat
                .iter()
                .min_by_key(|(_, t)| **t)
                .map(|(k, _)| k.clone());
            if let Some(key) = oldest {
                self.tat.remove(&key);
            }
        }
    }
}

/// The limiter the server keeps, one for the whole server.
pub struct SignInLimiter {
    /// Password tries by address.
    addresses: Cells<IpAddr>,
    /// Token tries by address, apart: a right one is given back to it (see
    /// [`SignInLimiter::succeeded_token`]), which must never give a password guesser tries.
    token_addresses: Cells<IpAddr>,
    accounts: Cells<String>,
}

impl Default for SignInLimiter {
    fn default() -> SignInLimiter {
        SignInLimiter::new(Limits::ADDRESS, Limits::ACCOUNT)
    }
}

impl SignInLimiter {
    pub fn new(per_address: Limits, per_account: Limits) -> SignInLimiter {
        SignInLimiter {
            addresses: Cells::new(per_address),
            token_addresses: Cells::new(per_address),
            accounts: Cells::new(per_account),
        }
    }

    /// An attempt from `address` to sign in as `account` at `now_ms`: counted
    /// against both limits if both allow it; refused (and not counted) if not.
    pub fn attempt(&mut self, address: IpAddr, account: &Name, now_ms: u64) -> Result<(), TooMany> {
        let key = account.key().to_owned();
        Self::attempt_as(
            &mut self.addresses,
            &mut self.accounts,
            address,
            key,
            now_ms,
        )
    }

    /// An attempt from `address` to sign in with an API token whose id is `token`: the
    /// token's id is limited as an account's name is, under a key no name's can equal
    /// (a name's key holds no control character), so guessing secrets of one token is
    /// slowed whatever the address, and never counts against an account's name.
    pub fn attempt_token(
        &mut self,
        address: IpAddr,
        token: &TokenId,
        now_ms: u64,
    ) -> Result<(), TooMany> {
        let key = token_key(token);
        Self::attempt_as(
            &mut self.token_addresses,
            &mut self.accounts,
            address,
            key,
            now_ms,
        )
    }

    /// A sign-in that [`SignInLimiter::attempt`] let through was right: the account's count
    /// is given back, so that only wrong tries add up against it (a bot that signs in for
    /// every game is not held back). The address's is not: an attacker signing in to an
    /// account of its own between guesses at others' would get its address's tries back.
    pub fn succeeded(&mut self, account: &Name, now_ms: u64) {
        self.accounts.give_back(&account.key().to_owned(), now_ms);
    }

    /// As [`SignInLimiter::succeeded`], for a sign-in from `address` with the token whose id
    /// is `token`; the address's token tries are given back too: a token's secret cannot be
    /// guessed (spec/TEXT-PROTOCOL.md §4.4), so its limits only slow wrong tries, and the
    /// bots of a class on one machine, signing in for every tournament game, never wait.
    /// Password tries are counted apart, so this gives a password guesser nothing.
    pub fn succeeded_token(&mut self, address: IpAddr, token: &TokenId, now_ms: u64) {
        self.accounts.give_back(&token_key(token), now_ms);
        self.token_addresses
            .give_back(&address_key(address), now_ms);
    }

    fn attempt_as(
        addresses: &mut Cells<IpAddr>,
        accounts: &mut Cells<String>,
        address: IpAddr,
        account: String,
        now_ms: u64,
    ) -> Result<(), TooMany> {
        let address = address_key(address);
        let by_address = addresses.wait(&address, now_ms);
        let by_account = accounts.wait(&account, now_ms);
        if by_address > 0 || by_account > 0 {
            return Err(TooMany {
                per_account: by_account >= by_address,
                retry_after_ms: by_address.max(by_account),
            });
        }
        addresses.take(&address, now_ms);
        accounts.take(&account, now_ms);
        Ok(())
    }
}

/// A limit on one kind of request per address alone (the store's reads: its pages, a
/// history, an export), for requests that name no account.
pub struct AddressLimiter {
    addresses: Cells<IpAddr>,
}

impl AddressLimiter {
    pub fn new(limits: Limits) -> AddressLimiter {
        AddressLimiter {
            addresses: Cells::new(limits),
        }
    }

    /// A request from `address` at `now_ms`: counted if allowed; refused (and not counted)
    /// if not, with the wait before the next one is allowed.
    pub fn attempt(&mut self, address: IpAddr, now_ms: u64) -> Result<(), TooMany> {
        let key = address_key(address);
        match self.addresses.wait(&key, now_ms) {
            0 => {
                self.addresses.take(&key, now_ms);
                Ok(())
            }
            wait => Err(TooMany {
                per_account: false,
                retry_after_ms: wait,
            }),
        }
    }
}

/// A token's key among the accounts' names': no name's key holds a control character.
fn token_key(token: &TokenId) -> String {
    format!("\0token {token}")
}

/// IPv4 as is (an IPv4-mapped IPv6 address too), IPv6 by its /64.
fn address_key(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(_) => address,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::from(segments)
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: Limits = Limits {
        burst: 3,
        interval_ms: 1000,
        max_keys: 4,
    };

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn name(text: &str) -> Name {
        Name::new(text).unwrap()
    }

    #[test]
    fn an_address_limiter_counts_each_address_and_ipv6_by_its_64() {
        let mut limiter = AddressLimiter::new(SMALL);
        for _ in 0..3 {
            assert_eq!(limiter.attempt(ip("2001:db8::1"), 0), Ok(()));
        }
        // Another address of the same /64 is the same key.
        let refused = limiter.attempt(ip("2001:db8::2"), 0).unwrap_err();
        assert_eq!(refused.retry_after_ms, 1000);
        assert!(!refused.per_account);
        // A refusal is not counted: one more is allowed an interval later.
        assert_eq!(limiter.attempt(ip("2001:db8::1"), 1000), Ok(()));
        assert!(limiter.attempt(ip("2001:db8::1"), 1000).is_err());
        assert_eq!(limiter.attempt(ip("2001:db8:0:1::1"), 1000), Ok(()));
        assert_eq!(limiter.attempt(ip("10.0.0.1"), 1000), Ok(()));
    }

    #[test]
    fn a_burst_passes_then_one_attempt_per_interval() {
        let mut limiter = SignInLimiter::new(SMALL, Limits::ACCOUNT);
        let alice = name("alice");
        for _ in 0..3 {
            assert_eq!(limiter.attempt(ip("10.0.0.1"), &alice, 0), Ok(()));
        }
        let refused = limiter.attempt(ip("10.0.0.1"), &alice, 0).unwrap_err();
        assert_eq!(refused.retry_after_ms, 1000);
        assert!(!refused.per_account);
        assert_eq!(
            limiter
                .attempt(ip("10.0.0.1"), &alice, 999)
                .unwrap_err()
                .retry_after_ms,
            1
        );
        assert_eq!(limiter.attempt(ip("10.0.0.1"), &alice, 1000), Ok(()));
        assert!(limiter.attempt(ip("10.0.0.1"), &alice, 1000).is_err());
        // Another address is not held back.
        assert_eq!(limiter.attempt(ip("10.0.0.2"), &alice, 1000), Ok(()));
    }

    #[test]
    fn an_account_is_limited_across_addresses_and_spellings() {
        let mut limiter = SignInLimiter::new(Limits::ADDRESS, SMALL);
        for (i, spelling) in ["bob", "BOB", "Bob"].iter().enumerate() {
            let address = ip(&format!("10.0.0.{i}"));
            assert_eq!(limiter.attempt(address, &name(spelling), 0), Ok(()));
        }
        let refused = limiter
            .attempt(ip("10.9.9.9"), &name("bOb"), 500)
            .unwrap_err();
        assert!(refused.per_account);
        assert_eq!(refused.retry_after_ms, 500);
        assert_eq!(limiter.attempt(ip("10.9.9.9"), &name("carol"), 500), Ok(()));
    }

    #[test]
    fn refused_attempts_are_not_counted() {
        let mut limiter = SignInLimiter::new(SMALL, Limits::ACCOUNT);
        for _ in 0..3 {
            limiter.attempt(ip("10.0.0.1"), &name("alice"), 0).unwrap();
        }
        for _ in 0..100 {
            assert!(limiter.attempt(ip("10.0.0.1"), &name("alice"), 0).is_err());
        }
        assert_eq!(
            limiter.attempt(ip("10.0.0.1"), &name("alice"), 1000),
            Ok(())
        );
    }

    #[test]
    fn right_sign_ins_are_given_back_to_the_account_not_the_address() {
        let mut limiter = SignInLimiter::new(Limits::ADDRESS, SMALL);
        let alice = name("alice");
        let token = TokenId::parse("0123456789abcdef").unwrap();
        // A bot signing in right again and again, by password or token, from addresses of
        // its own, is never held back by its account's count.
        for n in 0..10 {
            let from = ip(&format!("10.0.0.{n}"));
            assert_eq!(limiter.attempt(from, &alice, 0), Ok(()));
            limiter.succeeded(&alice, 0);
            assert_eq!(limiter.attempt_token(from, &token, 0), Ok(()));
            limiter.succeeded_token(from, &token, 0);
        }
        // Wrong ones count as before, and a right one gives back only its own.
        for _ in 0..2 {
            assert_eq!(limiter.attempt(ip("10.1.0.1"), &alice, 0), Ok(()));
        }
        assert_eq!(limiter.attempt(ip("10.1.0.1"), &alice, 0), Ok(()));
        limiter.succeeded(&alice, 0);
        assert_eq!(limiter.attempt(ip("10.1.0.1"), &alice, 0), Ok(()));
        assert!(
            limiter
                .attempt(ip("10.1.0.1"), &alice, 0)
                .unwrap_err()
                .per_account
        );
        // Giving back what was never taken changes nothing.
        limiter.succeeded(&name("zed99"), 0);
        assert!(!limiter.accounts.tat.contains_key("zed99"));
    }

    #[test]
    fn an_address_gets_no_tries_back_from_its_right_sign_ins() {
        let mut limiter = SignInLimiter::new(SMALL, Limits::ACCOUNT);
        let (mine, victims) = (name("mallory"), ["alice", "bob", "carol", "dave"]);
        let here = ip("10.0.0.1");
        let mut refused = false;
        for victim in victims {
            refused |= limiter.attempt(here, &name(victim), 0).is_err();
            if limiter.attempt(here, &mine, 0).is_ok() {
                limiter.succeeded(&mine, 0);
            }
        }
        assert!(
            refused,
            "guesses at others' accounts are held back by the address"
        );
    }

    #[test]
    fn a_token_is_limited_by_its_id_apart_from_every_name() {
        let mut limiter = SignInLimiter::new(Limits::ADDRESS, SMALL);
        let token = TokenId::parse("0123456789abcdef").unwrap();
        let other = TokenId::parse("0123456789abcde0").unwrap();
        // The name that the token's id with a letter before it would make.
        let lookalike = name("t0123456789abcde");
        for n in 0..3 {
            let address = ip(&format!("10.0.0.{n}"));
            assert_eq!(limiter.attempt_token(address, &token, 0), Ok(()));
        }
        let refused = limiter.attempt_token(ip("10.0.1.1"), &token, 0);
        assert!(refused.unwrap_err().per_account);
        assert_eq!(limiter.attempt_token(ip("10.0.1.1"), &other, 0), Ok(()));
        for _ in 0..3 {
            assert_eq!(limiter.attempt(ip("10.0.2.1"), &lookalike, 0), Ok(()));
        }
    }

    #[test]
    fn ipv6_counts_by_its_slash_64_and_mapped_ipv4_as_ipv4() {
        let mut limiter = SignInLimiter::new(SMALL, Limits::ACCOUNT);
        let alice = name("alice");
        limiter.attempt(ip("2001:db8::1"), &alice, 0).unwrap();
        limiter.attempt(ip("2001:db8::ffff:2"), &alice, 0).unwrap();
        limiter.attempt(ip("2001:db8:0:0:1::3"), &alice, 0).unwrap();
        assert!(limiter.attempt(ip("2001:db8::4"), &alice, 0).is_err());
        assert!(limiter.attempt(ip("2001:db8:0:1::1"), &alice, 0).is_ok());
        for _ in 0..3 {
            limiter.attempt(ip("192.0.2.1"), &alice, 0).unwrap();
        }
        assert!(limiter.attempt(ip("::ffff:192.0.2.1"), &alice, 0).is_err());
    }

    #[test]
    fn memory_is_bounded_and_rested_keys_go_first() {
        let generous = Limits {
            burst: 1000,
            ..SMALL
        };
        let mut limiter = SignInLimiter::new(SMALL, generous);
        let alice = name("alice");
        for i in 0..3 {
            limiter.attempt(ip("10.0.0.1"), &alice, 0).unwrap();
            limiter
                .attempt(ip(&format!("10.0.1.{i}")), &alice, 0)
                .unwrap();
        }
        // Table full (4 keys): at 1500 ms the single-attempt keys have rested and go,
        // the busy one stays and is still limited.
        limiter.attempt(ip("10.0.2.1"), &alice, 1500).unwrap();
        assert!(limiter.addresses.tat.len() <= SMALL.max_keys);
        assert!(limiter.attempt(ip("10.0.0.1"), &alice, 1500).is_ok());
        assert!(limiter.attempt(ip("10.0.0.1"), &alice, 1500).is_err());
        // With no rested key, the table still never grows past its bound.
        for i in 0..20 {
            let _ = limiter.attempt(ip(&format!("10.0.3.{i}")), &alice, 1500);
            assert!(limiter.addresses.tat.len() <= SMALL.max_keys);
        }
    }

    #[test]
    fn right_token_sign_ins_cost_their_address_nothing_and_give_password_guesses_nothing() {
        let mut limiter = SignInLimiter::new(SMALL, Limits::ACCOUNT);
        let here = ip("10.0.0.1");
        let token = TokenId::parse("0123456789abcdef").unwrap();
        // A class's bots on one machine sign in for game after game.
        for _ in 0..100 {
            assert_eq!(limiter.attempt_token(here, &token, 0), Ok(()));
            limiter.succeeded_token(here, &token, 0);
        }
        // Its password tries are counted apart, and were not given any back.
        let mut refused = false;
        for victim in ["alice", "bob", "carol", "dave"] {
            refused |= limiter.attempt(here, &name(victim), 0).is_err();
            if limiter.attempt_token(here, &token, 0).is_ok() {
                limiter.succeeded_token(here, &token, 0);
            }
        }
        assert!(refused, "password guesses are held back by the address");
        // Wrong tokens from the address are held back in their own count.
        let wrong = TokenId::parse("fedcba9876543210").unwrap();
        let refused = (0..4).any(|_| limiter.attempt_token(here, &wrong, 0).is_err());
        assert!(refused, "wrong token tries are held back by the address");
    }
}
