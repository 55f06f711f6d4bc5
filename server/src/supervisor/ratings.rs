//! Ratings that moved after their accounts signed in (TEXT-PROTOCOL.md §4.4, `GAME PLAYER`).
//! A connection keeps the ratings read at its sign-in; when a game with accounts ends, their
//! ratings in its kind are *stale* until the store has the game. A pure state machine: the
//! supervisor tells it of games that ended ([`Refresher::game_ended`]), asks it every
//! [`TICK`] which accounts to read again ([`Refresher::due`]: those a waiting connection is
//! signed in as), hands those to the account workers, and gives back their answers
//! ([`Refresher::answered`]): a rating read once the game is stored goes to the account's
//! waiting connections, and to a sign-in answered after it but read before it
//! ([`Refresher::patch`]). The loop never waits on the store.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use reversi_store::{AccountId, UnixMillis};

use crate::store::accounts::Ask;
use crate::terms::ShownRating;

/// How often stale ratings are looked at.
pub const TICK: Duration = Duration::from_millis(500);
/// A game not in the store by then (a store down, a session that stored nothing): its
/// players' ratings are left as they are, read again at their next sign-in.
const GIVE_UP: Duration = Duration::from_secs(600);
/// The longest wait between two reads of one account whose game is not stored yet.
const LONGEST_WAIT: Duration = Duration::from_secs(30);
/// A fresh rating patches sign-ins answered this long after it (a sign-in's read waits
/// for a worker a few seconds at most).
const KEEP_FRESH: Duration = Duration::from_secs(60);
/// Accounts read again in one tick at most: the workers' queue is the players' too.
const ASKS_A_TICK: usize = 16;
/// Stale accounts kept at most (a burst of games ending beyond it is read at sign-in).
const MOST_STALE: usize = 20_000;

struct Stale {
    since: UnixMillis,
    asked: bool,
    next_at: Instant,
    wait: Duration,
    given_up_at: Instant,
}

struct Fresh {
    /// The ticket of the read: sign-ins with earlier tickets may have read before it.
    ticket: u64,
    rating: ShownRating,
    until: Instant,
}

#[derive(Default)]
pub struct Refresher {
    stale: HashMap<(AccountId, String), Stale>,
    fresh: HashMap<AccountId, Vec<(String, Fresh)>>,
    tick_at: Option<Instant>,
}

impl Refresher {
    /// When [`Refresher::due`] has work: while anything is stale or fresh.
    pub fn deadline(&self) -> Option<Instant> {
        self.tick_at
    }

    /// A game of `kind` that `accounts` played ended; its first round started at `since`.
    pub fn game_ended(
        &mut self,
        accounts: impl IntoIterator<Item = AccountId>,
        kind: &str,
        since: UnixMillis,
        now: Instant,
    ) {
        for account in accounts {
            let key = (account, kind.to_owned());
            if self.stale.len() >= MOST_STALE && !self.stale.contains_key(&key) {
                continue;
            }
            let stale = self.stale.entry(key).or_insert(Stale {
                since,
                asked: false,
                next_at: now,
                wait: TICK,
                given_up_at: now + GIVE_UP,
            });
            // The later game is the one to wait for.
            stale.since = stale.since.max(since);
            stale.given_up_at = now + GIVE_UP;
        }
        self.tick_at.get_or_insert(now + TICK);
    }

    /// The reads due now, of accounts `signed_in` says a waiting connection is signed in as
    /// (the others wait: a sign-in reads them anyway). Forgets what it gave up on.
    pub fn due(&mut self, now: Instant, signed_in: impl Fn(AccountId) -> bool) -> Vec<Ask> {
        if self.tick_at.is_none_or(|t| t > now) {
            return Vec::new();
        }
        self.stale.retain(|_, s| s.given_up_at > now);
        for kinds in self.fresh.values_mut() {
            kinds.retain(|(_, f)| f.until > now);
        }
        self.fresh.retain(|_, kinds| !kinds.is_empty());
        let mut asks = Vec::new();
        for ((account, kind), stale) in &mut self.stale {
            if asks.len() == ASKS_A_TICK {
                break;
            }
            if stale.asked || stale.next_at > now || !signed_in(*account) {
                continue;
            }
            stale.asked = true;
            asks.push(Ask {
                account: *account,
                kind: kind.clone(),
                since: stale.since,
            });
        }
        let busy = !self.stale.is_empty() || !self.fresh.is_empty();
        self.tick_at = busy.then_some(now + TICK);
        asks
    }

    /// The workers' answer to `ask`, read with `ticket`: the rating once its game is stored,
    /// `None` if it is not yet (or the read failed, or the queue was full): asked again
    /// later. A rating is to be given to the account's waiting connections.
    pub fn answered(&mut self, ask: &Ask, rating: Option<ShownRating>, ticket: u64, now: Instant) {
        let key = (ask.account, ask.kind.clone());
        if let Some(rating) = rating {
            let kinds = self.fresh.entry(ask.account).or_default();
            kinds.retain(|(kind, _)| *kind != ask.kind);
            let until = now + KEEP_FRESH;
            kinds.push((
                ask.kind.clone(),
                Fresh {
                    ticket,
                    rating,
                    until,
                },
            ));
            self.tick_at.get_or_insert(now + TICK);
        }
        let Some(stale) = self.stale.get_mut(&key) else {
            return;
        };
        stale.asked = false;
        if rating.is_some() && stale.since <= ask.since {
            self.stale.remove(&key);
            return;
        }
        // Not stored yet, or a later game ended meanwhile: again, a little later each time.
        stale.wait = (stale.wait * 2).min(LONGEST_WAIT);
        stale.next_at = now + stale.wait;
    }

    /// A sign-in of `account` read with `ticket`: ratings read after it replace its own.
    pub fn patch(&self, account: AccountId, ticket: u64, ratings: &mut Vec<(String, ShownRating)>) {
        let Some(kinds) = self.fresh.get(&account) else {
            return;
        };
        for (kind, fresh) in kinds.iter().filter(|(_, f)| f.ticket > ticket) {
            set(ratings, kind, fresh.rating);
        }
    }
}

/// Sets `kind`'s rating in `ratings`, adding it if it has none.
pub fn set(ratings: &mut Vec<(String, ShownRating)>, kind: &str, rating: ShownRating) {
    match ratings.iter_mut().find(|(k, _)| k == kind) {
        Some((_, r)) => *r = rating,
        None => ratings.push((kind.to_owned(), rating)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALICE: AccountId = AccountId(1);
    const BOB: AccountId = AccountId(2);

    fn rating(points: u16) -> ShownRating {
        ShownRating {
            points,
            provisional: false,
        }
    }

    fn ask(account: AccountId, since: i64) -> Ask {
        Ask {
            account,
            kind: "reversi".into(),
            since: UnixMillis(since),
        }
    }

    #[test]
    fn nothing_stale_nothing_to_do() {
        let mut r = Refresher::default();
        assert_eq!(r.deadline(), None);
        assert!(r.due(Instant::now(), |_| true).is_empty());
    }

    #[test]
    fn an_ended_games_accounts_are_read_again_when_signed_in_then_forgotten() {
        let t0 = Instant::now();
        let mut r = Refresher::default();
        r.game_ended([ALICE, BOB], "reversi", UnixMillis(100), t0);
        assert_eq!(r.deadline(), Some(t0 + TICK));
        assert!(r.due(t0, |_| true).is_empty(), "not before its tick");
        // Bob has no waiting connection: only Alice is read.
        let asks = r.due(t0 + TICK, |a| a == ALICE);
        assert_eq!(asks, [ask(ALICE, 100)]);
        assert!(
            r.due(t0 + TICK * 2, |a| a == ALICE).is_empty(),
            "asked once"
        );
        r.answered(&asks[0], Some(rating(1532)), 7, t0 + TICK * 2);
        assert!(r.due(t0 + TICK * 3, |a| a == ALICE).is_empty(), "fresh now");
        let asks = r.due(t0 + TICK * 4, |_| true);
        assert_eq!(asks, [ask(BOB, 100)]);
        r.answered(&asks[0], None, 8, t0 + TICK * 4);
        // Everything is forgotten in time, and the ticks stop.
        let later = t0 + GIVE_UP + KEEP_FRESH;
        r.due(later, |_| false);
        assert_eq!(r.deadline(), None);
    }

    #[test]
    fn a_game_not_stored_yet_is_asked_again_later_each_time_then_given_up() {
        let t0 = Instant::now();
        let mut r = Refresher::default();
        r.game_ended([ALICE], "reversi", UnixMillis(100), t0);
        let (mut at, mut waits) = (t0, Vec::new());
        for _ in 0..10 {
            let next = (1..200)
                .map(|n| at + TICK * n)
                .find(|&t| !r.due(t, |_| true).is_empty())
                .expect("asked again");
            // `due` asked it: not stored yet.
            r.answered(&ask(ALICE, 100), None, 1, next);
            waits.push(next - at);
            at = next;
        }
        assert!(waits.windows(2).all(|w| w[0] <= w[1]), "{waits:?}");
        assert!(*waits.last().unwrap() <= LONGEST_WAIT + TICK);
        assert!(r.due(t0 + GIVE_UP + TICK, |_| true).is_empty());
        assert_eq!(r.stale.len(), 0, "given up");
    }

    #[test]
    fn an_answer_for_an_earlier_game_keeps_the_later_one_stale() {
        let t0 = Instant::now();
        let mut r = Refresher::default();
        r.game_ended([ALICE], "reversi", UnixMillis(100), t0);
        let asks = r.due(t0 + TICK, |_| true);
        r.game_ended([ALICE], "reversi", UnixMillis(500), t0 + TICK);
        r.answered(&asks[0], Some(rating(1510)), 3, t0 + TICK);
        let again = (2..200)
            .map(|n| r.due(t0 + TICK * n, |_| true))
            .find(|asks| !asks.is_empty())
            .expect("read again");
        assert_eq!(again, [ask(ALICE, 500)]);
    }

    #[test]
    fn a_sign_in_read_before_a_fresh_rating_gets_it() {
        let t0 = Instant::now();
        let mut r = Refresher::default();
        r.game_ended([ALICE], "reversi", UnixMillis(100), t0);
        let asks = r.due(t0 + TICK, |_| true);
        r.answered(&asks[0], Some(rating(1532)), 10, t0 + TICK);
        let signed_in = || vec![("reversi".to_owned(), rating(1500))];
        let mut earlier = signed_in();
        r.patch(ALICE, 9, &mut earlier);
        assert_eq!(earlier, [("reversi".to_owned(), rating(1532))]);
        let mut later = signed_in();
        r.patch(ALICE, 11, &mut later);
        assert_eq!(later, signed_in(), "read after the fresh one: its own");
        let mut bob = signed_in();
        r.patch(BOB, 9, &mut bob);
        assert_eq!(bob, signed_in());
        // A kind the sign-in had no rating in is added.
        let mut none = vec![];
        r.patch(ALICE, 9, &mut none);
        assert_eq!(none, [("reversi".to_owned(), rating(1532))]);
    }
}
