//! Challenges: games created by a player, joined by a code (TEXT-PROTOCOL.md §4.1–4.3).
//!
//! A pure registry, fed the time: codes → the waiting creator and joiners; codes that
//! ended (accepted, expired, withdrawn), remembered for a while so that a late try gets
//! the right error; and a bucket of tries per address, which failed joins and unknown
//! resume tokens empty. The supervisor (waiting.rs) holds one and moves connections
//! as it answers.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::hash::Hash;
use std::time::{Duration, Instant};

/// Codes are this many decimal digits: 10¹² ≈ 2^39.9 of them.
const DIGITS: usize = 12;
const CODES: u64 = 1_000_000_000_000;
/// An ended code is remembered this long, and at most this many (oldest forgotten first).
pub const REMEMBERED_FOR: Duration = Duration::from_secs(24 * 3600);
pub const REMEMBERED_AT_MOST: usize = 100_000;
/// Failed tries per address: a bucket of this many, refilled one per [`TRY_REFILL`].
pub const TRIES: u32 = 10;
pub const TRY_REFILL: Duration = Duration::from_secs(10);
/// A `GAME LOBBY` answer lists at most this many challenges.
pub const LISTED_AT_MOST: usize = 200;
/// Failed tries per minute above which the host warns in its log.
pub const WARN_TRIES_PER_MINUTE: u64 = 100;
const MINUTE: Duration = Duration::from_secs(60);

/// A join code: 12 decimal digits, written `DDDD-DDDD-DDDD`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Code(u64);

/// What a client sent that is not 12 digits; its `Display` is the text after `ERROR `.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotACode(pub String);

impl Code {
    /// A code drawn uniformly from 8 random bytes (the few values that would favour
    /// low codes are drawn again).
    pub fn from_random(bytes: [u8; 8]) -> Option<Code> {
        let n = u64::from_le_bytes(bytes);
        (n < u64::MAX - u64::MAX % CODES).then_some(Code(n % CODES))
    }

    /// Reads a code as a person wrote it: separators (`-`, `.`, blanks) anywhere.
    pub fn parse(text: &str) -> Result<Code, NotACode> {
        let not = || NotACode(text.chars().take(40).collect());
        let mut n = 0u64;
        let mut digits = 0;
        for c in text.chars() {
            match c {
                '-' | '.' | ' ' | '\t' => {}
                '0'..='9' if digits < DIGITS => {
                    n = n * 10 + u64::from(c as u8 - b'0');
                    digits += 1;
                }
                _ => return Err(not()),
            }
        }
        if digits == DIGITS {
            Ok(Code(n))
        } else {
            Err(not())
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = format!("{:012}", self.0);
        write!(f, "{}-{}-{}", &digits[..4], &digits[4..8], &digits[8..])
    }
}

impl fmt::Display for NotACode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "\"{}\" is not a code (codes are 12 digits, like 4821-0937-5562)",
            self.0
        )
    }
}

/// Why a code ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ended {
    Accepted,
    Expired,
    Withdrawn,
}

/// Why a join (or a resume) was refused; its `Display` is the text after `ERROR `.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Refused {
    Unknown(Code),
    Ended(Code, Ended),
    /// The address spent its tries: the next one comes after `wait`.
    TooMany {
        wait: Duration,
    },
    /// The server has this many open challenges.
    Full(usize),
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refused::Unknown(code) => write!(f, "no challenge {code} (check the code)"),
            Refused::Ended(code, Ended::Accepted) => {
                write!(f, "challenge {code} was already accepted")
            }
            Refused::Ended(code, Ended::Expired) => write!(f, "challenge {code} has expired"),
            Refused::Ended(code, Ended::Withdrawn) => {
                write!(f, "challenge {code} was withdrawn by its creator")
            }
            Refused::TooMany { wait } => write!(
                f,
                "too many wrong codes or tokens from your address; wait {} s",
                wait.as_secs_f64().ceil() as u64
            ),
            Refused::Full(n) => write!(f, "this server has {n} open challenges; try again later"),
        }
    }
}

/// The registry's settings (`--code-ttl`, `--max-challenges`).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub ttl: Duration,
    pub max: usize,
}

/// A live challenge: what it offers, who waits in it.
#[derive(Clone, Debug)]
pub struct Challenge<M, O> {
    pub offer: O,
    pub public: bool,
    pub creator: M,
    /// Those who joined and wait for the rest, in joining order.
    pub joiners: Vec<M>,
    /// Players the game needs, the creator included.
    pub seats: usize,
    pub expires: Instant,
}

/// What a join did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Joined<M, O> {
    /// Seats remain: `more` players still to come.
    Waiting { more: usize },
    /// The challenge is complete and ended as accepted: its players, creator first,
    /// then the joiners in joining order.
    Complete { offer: O, players: Vec<M> },
}

/// A challenge that ended without a game: its code, creator, and the joiners left waiting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gone<M> {
    pub code: Code,
    pub creator: M,
    pub joiners: Vec<M>,
}

/// One public challenge as the lobby shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listing<'a, O> {
    pub code: Code,
    pub seconds: u64,
    pub offer: &'a O,
}

/// The registry: `M` names a waiting connection, `O` is what a challenge offers, `A` an address.
pub struct Challenges<M, O, A> {
    limits: Limits,
    live: HashMap<Code, Challenge<M, O>>,
    /// Oldest first: the lobby's order; and, as the life is fixed, the expiry order.
    created: VecDeque<Code>,
    member_of: HashMap<M, Code>,
    ended: HashMap<Code, Ended>,
    ended_order: VecDeque<(Instant, Code)>,
    /// Per address, the time its bucket is full again (GCRA's theoretical arrival time).
    tries: HashMap<A, Instant>,
    failed: u64,
    minute_from: Option<Instant>,
}

impl<M: Copy + Eq + Hash, O: Clone, A: Copy + Eq + Hash> Challenges<M, O, A> {
    pub fn new(limits: Limits) -> Self {
        Challenges {
            limits,
            live: HashMap::new(),
            created: VecDeque::new(),
            member_of: HashMap::new(),
            ended: HashMap::new(),
            ended_order: VecDeque::new(),
            tries: HashMap::new(),
            failed: 0,
            minute_from: None,
        }
    }

    /// Creates a challenge; `draw` gives random codes (a code live or remembered is drawn again).
    pub fn create(
        &mut self,
        creator: M,
        offer: O,
        public: bool,
        seats: usize,
        now: Instant,
        mut draw: impl FnMut() -> Code,
    ) -> Result<(Code, u64), Refused> {
        if self.live.len() >= self.limits.max {
            return Err(Refused::Full(self.limits.max));
        }
        let code = loop {
            let code = draw();
            if !self.live.contains_key(&code) && !self.ended.contains_key(&code) {
                break code;
            }
        };
        let challenge = Challenge {
            offer,
            public,
            creator,
            joiners: Vec::new(),
            seats,
            expires: now + self.limits.ttl,
        };
        self.live.insert(code, challenge);
        self.created.push_back(code);
        self.member_of.insert(creator, code);
        Ok((code, self.limits.ttl.as_secs()))
    }

    /// What live challenge `code` offers (a join checks it before it tries: a rated
    /// challenge takes accounts only).
    pub fn offer(&self, code: Code) -> Option<&O> {
        self.live.get(&code).map(|c| &c.offer)
    }

    /// Who waits in live challenge `code`: its creator, then its joiners.
    pub fn members(&self, code: Code) -> Vec<M> {
        self.live.get(&code).map_or_else(Vec::new, |c| {
            std::iter::once(c.creator)
                .chain(c.joiners.iter().copied())
                .collect()
        })
    }

    /// Whether `code` is this registry's, live or remembered as ended.
    pub fn holds(&self, code: Code) -> bool {
        self.live.contains_key(&code) || self.ended.contains_key(&code)
    }

    /// A new challenge's life (`--code-ttl`).
    pub fn life(&self) -> Duration {
        self.limits.ttl
    }

    /// Whether `member` waits in a challenge (as its creator or a joiner).
    #[cfg(test)]
    pub fn is_member(&self, member: M) -> bool {
        self.member_of.contains_key(&member)
    }

    /// `joiner`, from address `from`, joins `code`. A refusal other than the try limit
    /// costs `from` a try.
    pub fn join(
        &mut self,
        joiner: M,
        code: Code,
        from: A,
        now: Instant,
    ) -> Result<Joined<M, O>, Refused> {
        self.may_try(from, now)?;
        let Some(challenge) = self.live.get_mut(&code) else {
            self.charge(from, now);
            return Err(match self.ended.get(&code) {
                Some(&why) => Refused::Ended(code, why),
                None => Refused::Unknown(code),
            });
        };
        challenge.joiners.push(joiner);
        let more = challenge.seats.saturating_sub(1 + challenge.joiners.len());
        if more > 0 {
            self.member_of.insert(joiner, code);
            return Ok(Joined::Waiting { more });
        }
        let challenge = self.end(code, Ended::Accepted, now).expect("live");
        let mut players = vec![challenge.creator];
        players.extend(challenge.joiners);
        Ok(Joined::Complete {
            offer: challenge.offer,
            players,
        })
    }

    /// `member` left (quit, closed). A creator withdraws its challenge: returned, with
    /// the joiners left waiting; a joiner just leaves it.
    pub fn leave(&mut self, member: M, now: Instant) -> Option<Gone<M>> {
        let code = self.member_of.remove(&member)?;
        let challenge = self.live.get_mut(&code)?;
        if challenge.creator != member {
            challenge.joiners.retain(|&j| j != member);
            return None;
        }
        let challenge = self.end(code, Ended::Withdrawn, now)?;
        Some(Gone {
            code,
            creator: challenge.creator,
            joiners: challenge.joiners,
        })
    }

    /// The challenges whose life has run out by `now`; also forgets what is too old to keep.
    pub fn expire(&mut self, now: Instant) -> Vec<Gone<M>> {
        let mut gone = Vec::new();
        while let Some(&code) = self.created.front() {
            match self.live.get(&code) {
                Some(c) if c.expires > now => break,
                Some(_) => {
                    let c = self.end(code, Ended::Expired, now).expect("live");
                    gone.push(Gone {
                        code,
                        creator: c.creator,
                        joiners: c.joiners,
                    });
                }
                None => {
                    self.created.pop_front();
                }
            }
        }
        self.forget(now);
        gone
    }

    /// The next expiry, if any challenge is live (an ended one at the front wakes early: harmless).
    pub fn next_deadline(&self) -> Option<Instant> {
        self.created
            .iter()
            .find_map(|code| self.live.get(code))
            .map(|c| c.expires)
    }

    /// The live public challenges, oldest first, at most [`LISTED_AT_MOST`].
    pub fn lobby(&self, now: Instant) -> Vec<Listing<'_, O>> {
        self.created
            .iter()
            .filter_map(|code| self.live.get(code).map(|c| (code, c)))
            .filter(|(_, c)| c.public)
            .take(LISTED_AT_MOST)
            .map(|(&code, c)| Listing {
                code,
                seconds: c.expires.saturating_duration_since(now).as_secs(),
                offer: &c.offer,
            })
            .collect()
    }

    /// Whether `from` may try a code or a token now.
    pub fn may_try(&self, from: A, now: Instant) -> Result<(), Refused> {
        let full_at = self.tries.get(&from).copied().unwrap_or(now).max(now);
        let after = full_at + TRY_REFILL - now;
        match after.checked_sub(TRY_REFILL * TRIES) {
            Some(wait) if !wait.is_zero() => Err(Refused::TooMany { wait }),
            _ => Ok(()),
        }
    }

    /// A failed try of `from` (a wrong code, an unknown token).
    pub fn charge(&mut self, from: A, now: Instant) {
        let full_at = self.tries.entry(from).or_insert(now);
        *full_at = (*full_at).max(now) + TRY_REFILL;
        self.failed += 1;
    }

    /// Failed tries in the minute that just ended, when more than [`WARN_TRIES_PER_MINUTE`];
    /// called often (each minute, it also forgets the buckets that are full again).
    pub fn failed_in_minute(&mut self, now: Instant) -> Option<u64> {
        let from = *self.minute_from.get_or_insert(now);
        if now < from + MINUTE {
            return None;
        }
        self.minute_from = Some(now);
        self.tries.retain(|_, full_at| *full_at > now);
        let n = std::mem::take(&mut self.failed);
        (n > WARN_TRIES_PER_MINUTE).then_some(n)
    }

    #[cfg(test)]
    pub fn live(&self) -> usize {
        self.live.len()
    }

    fn end(&mut self, code: Code, why: Ended, now: Instant) -> Option<Challenge<M, O>> {
        let challenge = self.live.remove(&code)?;
        if self.created.front() == Some(&code) {
            self.created.pop_front();
        } else {
            self.created.retain(|&c| c != code);
        }
        self.member_of.remove(&challenge.creator);
        for joiner in &challenge.joiners {
            self.member_of.remove(joiner);
        }
        self.ended.insert(code, why);
        self.ended_order.push_back((now, code));
        self.forget(now);
        Some(challenge)
    }

    /// Forgets ended codes older than [`REMEMBERED_FOR`] or beyond [`REMEMBERED_AT_MOST`], and
    /// the buckets that are full again.
    fn forget(&mut self, now: Instant) {
        while let Some(&(at, code)) = self.ended_order.front() {
            let old = now.saturating_duration_since(at) >= REMEMBERED_FOR;
            if !old && self.ended_order.len() <= REMEMBERED_AT_MOST {
                break;
            }
            self.ended_order.pop_front();
            self.ended.remove(&code);
        }
    }
}

#[cfg(test)]
mod tests;
