//! The store's reads on the supervisor's side: its pages (made by the page workers,
//! `crate::store::workers`, sent by the loop) and the limit on reads per address.
//!
//! Why a limit: a page or a history costs a worker milliseconds, and the workers are shared
//! by everyone; without one, a single address asking faster than they answer would fill
//! their queue and every other reader would be told 503 (spec/STORE.md §11). Why the loop
//! sends the pages: a worker that wrote to the socket itself waited for a slow reader (up
//! to a timeout) and for the client's close, so a few clients that never read held every
//! worker; the loop's writes never wait, and a connection waiting for its page counts
//! among its address's waiting connections (`--max-pending-per-address`).

use std::net::IpAddr;
use std::time::{Duration, Instant};

use reversi_store::{AddressLimiter, Limits, TooMany, UnixMillis};

use super::pending::State;
use super::Supervisor;
use crate::protocols::pages::Page;
use crate::store::workers::{self, Made, PageJob};

/// One more read every this many milliseconds, past the burst.
const INTERVAL_MS: u64 = 100;
/// How long a page may take to be read before its connection is closed (a refusal's
/// linger is shorter: a page may be a few hundred KiB for a slow link).
const PAGE_LINGER: Duration = Duration::from_secs(5);
/// Addresses remembered at most (past it, those back at a full burst are forgotten first).
const MAX_KEYS: usize = 100_000;

/// The limits of `--store-reads-per-address burst`.
pub fn limits(burst: u32) -> Limits {
    Limits {
        burst,
        interval_ms: INTERVAL_MS,
        max_keys: MAX_KEYS,
    }
}

/// Reads per address: a pure limiter fed the time.
pub struct Reads {
    limiter: AddressLimiter,
}

impl Reads {
    pub fn new(limits: Limits) -> Reads {
        Reads {
            limiter: AddressLimiter::new(limits),
        }
    }

    /// A read from `address` now: counted, or refused with the wait.
    pub fn attempt(&mut self, address: IpAddr) -> Result<(), TooMany> {
        let now_ms = UnixMillis::now().0.max(0) as u64;
        self.limiter.attempt(address, now_ms)
    }
}

/// What a text client asking too often is told.
pub fn too_many(limit: TooMany) -> String {
    let seconds = limit.retry_after_ms.div_ceil(1000);
    format!("too many requests from your address; try again in {seconds} s")
}

impl Supervisor {
    /// An HTTP request for a store's page: counted against its address's reads, then handed
    /// to a page worker; the connection waits (its further bytes unread) for the page.
    pub(super) fn serve_page(&mut self, index: usize, page: Page) {
        let Some(conn) = self.pending.get(index) else {
            return;
        };
        let peer = conn.peer;
        if let Err(limit) = self.reads.attempt(peer.ip()) {
            self.note(peer, format_args!("{peer}: {}", too_many(limit)));
            let seconds = limit.retry_after_ms.div_ceil(1000);
            return self.linger(index, &workers::too_many(seconds));
        }
        let Some(pages) = &self.pages else {
            return self.linger(index, &workers::no_store());
        };
        let ticket = self.players.next_ticket();
        match pages.submit(PageJob {
            ticket: (index, ticket),
            page,
        }) {
            Ok(()) => {
                if let Some(conn) = self.pending.get_mut(index) {
                    conn.in_flight = Some(ticket);
                }
            }
            Err(_) => self.linger(index, &workers::busy()),
        }
    }

    /// The pages made: each is sent on its connection if that is still the one that asked,
    /// which then closes (lingering until the client has read it).
    pub(super) fn on_pages_made(&mut self) {
        let made = match &self.pages {
            Some(pages) => pages.made(),
            None => return,
        };
        for Made {
            ticket: (index, ticket),
            response,
        } in made
        {
            let Some(conn) = self.pending.get_mut(index) else {
                continue;
            };
            if conn.in_flight != Some(ticket) || conn.state == State::Closing {
                continue;
            }
            conn.in_flight = None;
            let deadline = Instant::now() + PAGE_LINGER;
            self.pending.start_closing(index, &response, deadline);
            self.service(index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_is_the_burst_and_the_interval_is_fixed() {
        let mut reads = Reads::new(limits(2));
        let alice: IpAddr = "192.0.2.1".parse().unwrap();
        assert!(reads.attempt(alice).is_ok());
        assert!(reads.attempt(alice).is_ok());
        let refused = reads.attempt(alice).unwrap_err();
        assert!(refused.retry_after_ms > 0 && refused.retry_after_ms <= INTERVAL_MS);
        assert!(reads.attempt("192.0.2.2".parse().unwrap()).is_ok());
    }

    #[test]
    fn a_refusal_says_how_long_to_wait_in_whole_seconds() {
        let limit = TooMany {
            per_account: false,
            retry_after_ms: 1001,
        };
        assert_eq!(
            too_many(limit),
            "too many requests from your address; try again in 2 s"
        );
    }
}
