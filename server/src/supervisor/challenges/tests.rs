//! The registry, state × event: each test names the state it starts from and what happens.

use super::*;

type Registry = Challenges<u32, &'static str, u8>;

const TTL: Duration = Duration::from_secs(900);
const ALICE: u32 = 1;
const BOB: u32 = 2;
const CAROL: u32 = 3;
const HOME: u8 = 9;

fn registry() -> Registry {
    Challenges::new(Limits { ttl: TTL, max: 4 })
}

fn code(n: u64) -> Code {
    Code(n)
}

/// Draws 1, 2, 3, … as codes.
fn counter() -> impl FnMut() -> Code {
    let mut n = 0;
    move || {
        n += 1;
        Code(n)
    }
}

#[test]
fn codes_are_written_in_fours_and_read_with_any_separators() {
    assert_eq!(code(482_109_375_562).to_string(), "4821-0937-5562");
    assert_eq!(code(7).to_string(), "0000-0000-0007");
    for written in [
        "4821-0937-5562",
        "4821 0937 5562",
        "482109375562",
        "4821.0937.5562",
        "48-21-09-37-55-62",
    ] {
        assert_eq!(Code::parse(written), Ok(code(482_109_375_562)), "{written}");
    }
    for bad in ["4821-0937", "4821-0937-55621", "", "4821-0937-556x", "１２"] {
        assert!(Code::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(
        Code::parse("4821-0937").unwrap_err().to_string(),
        "\"4821-0937\" is not a code (codes are 12 digits, like 4821-0937-5562)"
    );
}

#[test]
fn random_codes_stay_below_a_trillion_and_the_biased_tail_is_drawn_again() {
    assert_eq!(Code::from_random([0; 8]), Some(code(0)));
    assert_eq!(Code::from_random([0xff; 8]), None);
    let below = Code::from_random(1_000_000_000_123u64.to_le_bytes()).unwrap();
    assert_eq!(below, code(123));
}

#[test]
fn none_then_create_gives_a_live_code_with_its_life() {
    let mut r = registry();
    let now = Instant::now();
    let (c, seconds) = r
        .create(ALICE, "draughts", false, 2, now, counter())
        .unwrap();
    assert_eq!((c, seconds), (code(1), 900));
    assert!(r.is_member(ALICE));
    assert_eq!(r.live(), 1);
    assert_eq!(r.next_deadline(), Some(now + TTL));
}

#[test]
fn a_drawn_code_that_is_live_or_remembered_is_drawn_again() {
    let mut r = registry();
    let now = Instant::now();
    let mut same = || code(5);
    r.create(ALICE, "a", false, 2, now, &mut same).unwrap();
    let mut draws = [code(5), code(6)].into_iter();
    let (c, _) = r
        .create(BOB, "b", false, 2, now, || draws.next().unwrap())
        .unwrap();
    assert_eq!(c, code(6));
    r.leave(ALICE, now);
    let mut draws = [code(5), code(7)].into_iter();
    let (c, _) = r
        .create(CAROL, "c", false, 2, now, || draws.next().unwrap())
        .unwrap();
    assert_eq!(c, code(7));
}

#[test]
fn live_then_join_completes_it_creator_first() {
    let mut r = registry();
    let now = Instant::now();
    let (c, _) = r
        .create(ALICE, "reversi", false, 2, now, counter())
        .unwrap();
    assert_eq!(
        r.join(BOB, c, HOME, now),
        Ok(Joined::Complete {
            offer: "reversi",
            players: vec![ALICE, BOB]
        })
    );
    assert!(!r.is_member(ALICE));
    assert_eq!(r.live(), 0);
    // Accepted: a late try is told so, and pays for it.
    assert_eq!(
        r.join(CAROL, c, HOME, now),
        Err(Refused::Ended(c, Ended::Accepted))
    );
    assert_eq!(
        Refused::Ended(code(482_109_375_562), Ended::Accepted).to_string(),
        "challenge 4821-0937-5562 was already accepted"
    );
}

#[test]
fn live_with_seats_left_then_join_waits_and_a_waiting_joiner_may_leave() {
    let mut r = registry();
    let now = Instant::now();
    let (c, _) = r.create(ALICE, "g", false, 3, now, counter()).unwrap();
    assert_eq!(r.join(BOB, c, HOME, now), Ok(Joined::Waiting { more: 1 }));
    assert!(r.is_member(BOB));
    assert_eq!(r.leave(BOB, now), None);
    assert!(!r.is_member(BOB));
    assert_eq!(r.join(CAROL, c, HOME, now), Ok(Joined::Waiting { more: 1 }));
    assert_eq!(
        r.join(4, c, HOME, now),
        Ok(Joined::Complete {
            offer: "g",
            players: vec![ALICE, CAROL, 4]
        })
    );
}

#[test]
fn live_then_its_creator_leaves_withdraws_it_with_its_joiners() {
    let mut r = registry();
    let now = Instant::now();
    let (c, _) = r.create(ALICE, "g", true, 3, now, counter()).unwrap();
    r.join(BOB, c, HOME, now).unwrap();
    assert_eq!(
        r.leave(ALICE, now),
        Some(Gone {
            code: c,
            creator: ALICE,
            joiners: vec![BOB]
        })
    );
    assert!(!r.is_member(BOB));
    assert!(r.lobby(now).is_empty());
    assert_eq!(
        r.join(CAROL, c, HOME, now),
        Err(Refused::Ended(c, Ended::Withdrawn))
    );
    assert_eq!(
        Refused::Ended(code(1), Ended::Withdrawn).to_string(),
        "challenge 0000-0000-0001 was withdrawn by its creator"
    );
}

#[test]
fn live_then_its_life_runs_out_expires_it_not_a_moment_before() {
    let mut r = registry();
    let now = Instant::now();
    let (c, _) = r.create(ALICE, "g", false, 2, now, counter()).unwrap();
    assert!(r.expire(now + TTL - Duration::from_millis(1)).is_empty());
    let gone = r.expire(now + TTL);
    assert_eq!(
        gone,
        vec![Gone {
            code: c,
            creator: ALICE,
            joiners: vec![]
        }]
    );
    assert_eq!(r.next_deadline(), None);
    assert_eq!(
        r.join(BOB, c, HOME, now + TTL),
        Err(Refused::Ended(c, Ended::Expired))
    );
    assert_eq!(
        Refused::Ended(code(1), Ended::Expired).to_string(),
        "challenge 0000-0000-0001 has expired"
    );
}

#[test]
fn unknown_code_is_refused_and_charged() {
    let mut r = registry();
    let now = Instant::now();
    assert_eq!(
        r.join(BOB, code(42), HOME, now),
        Err(Refused::Unknown(code(42)))
    );
    assert_eq!(
        Refused::Unknown(code(482_109_375_562)).to_string(),
        "no challenge 4821-0937-5562 (check the code)"
    );
}

#[test]
fn ten_failed_tries_then_the_eleventh_waits_for_the_refill() {
    let mut r = registry();
    let now = Instant::now();
    let (live, _) = r.create(ALICE, "g", false, 2, now, counter()).unwrap();
    for n in 0..TRIES {
        assert_eq!(
            r.join(BOB, code(100 + u64::from(n)), HOME, now),
            Err(Refused::Unknown(code(100 + u64::from(n))))
        );
    }
    // Over the limit: even a live code is not looked at, and nothing more is charged.
    let limit = Refused::TooMany { wait: TRY_REFILL };
    assert_eq!(r.join(BOB, live, HOME, now), Err(limit));
    assert_eq!(r.join(BOB, live, HOME, now), Err(limit));
    assert_eq!(
        limit.to_string(),
        "too many wrong codes or tokens from your address; wait 10 s"
    );
    let later = now + Duration::from_secs(4);
    assert_eq!(
        r.may_try(HOME, later),
        Err(Refused::TooMany {
            wait: Duration::from_secs(6)
        })
    );
    // Another address is not concerned; one refill later, one try more.
    assert!(r.may_try(HOME + 1, now).is_ok());
    let refilled = now + TRY_REFILL;
    assert!(r.join(BOB, live, HOME, refilled).is_ok());
}

#[test]
fn an_unknown_token_charges_the_same_bucket() {
    let mut r = registry();
    let now = Instant::now();
    for _ in 0..TRIES {
        assert!(r.may_try(HOME, now).is_ok());
        r.charge(HOME, now);
    }
    assert!(r.join(BOB, code(1), HOME, now).is_err());
    assert!(matches!(r.may_try(HOME, now), Err(Refused::TooMany { .. })));
}

#[test]
fn full_registry_refuses_a_new_challenge() {
    let mut r = registry();
    let now = Instant::now();
    let mut draw = counter();
    for creator in 0..4 {
        r.create(creator, "g", false, 2, now, &mut draw).unwrap();
    }
    assert_eq!(
        r.create(9, "g", false, 2, now, &mut draw),
        Err(Refused::Full(4))
    );
    assert_eq!(
        Refused::Full(1024).to_string(),
        "this server has 1024 open challenges; try again later"
    );
}

#[test]
fn lobby_lists_public_challenges_oldest_first_with_their_life_left() {
    let mut r = registry();
    let now = Instant::now();
    let mut draw = counter();
    let (a, _) = r.create(ALICE, "first", true, 2, now, &mut draw).unwrap();
    r.create(BOB, "private", false, 2, now, &mut draw).unwrap();
    let later = now + Duration::from_secs(100);
    let (c, _) = r.create(CAROL, "third", true, 2, later, &mut draw).unwrap();
    let listed = r.lobby(later);
    assert_eq!(
        listed,
        vec![
            Listing {
                code: a,
                seconds: 800,
                offer: &"first"
            },
            Listing {
                code: c,
                seconds: 900,
                offer: &"third"
            },
        ]
    );
    r.leave(ALICE, later);
    assert_eq!(r.lobby(later).len(), 1);
}

#[test]
fn ended_codes_are_forgotten_after_a_day() {
    let mut r = registry();
    let now = Instant::now();
    let (c, _) = r.create(ALICE, "g", false, 2, now, counter()).unwrap();
    r.leave(ALICE, now);
    let next_day = now + REMEMBERED_FOR;
    r.expire(next_day);
    assert_eq!(r.join(BOB, c, HOME, next_day), Err(Refused::Unknown(c)));
}

#[test]
fn ended_codes_beyond_the_most_remembered_are_forgotten_oldest_first() {
    let mut r: Registry = Challenges::new(Limits { ttl: TTL, max: 4 });
    let now = Instant::now();
    let mut draw = counter();
    for _ in 0..=REMEMBERED_AT_MOST {
        r.create(ALICE, "g", false, 2, now, &mut draw).unwrap();
        r.leave(ALICE, now);
    }
    assert_eq!(
        r.join(BOB, code(1), HOME, now),
        Err(Refused::Unknown(code(1)))
    );
    assert_eq!(
        r.join(BOB, code(2), HOME, now),
        Err(Refused::Ended(code(2), Ended::Withdrawn))
    );
}

#[test]
fn a_flood_of_failed_tries_is_reported_once_a_minute() {
    let mut r = registry();
    let now = Instant::now();
    assert_eq!(r.failed_in_minute(now), None);
    for n in 0..=WARN_TRIES_PER_MINUTE {
        r.charge(n as u8, now);
    }
    assert_eq!(r.failed_in_minute(now + Duration::from_secs(59)), None);
    assert_eq!(
        r.failed_in_minute(now + MINUTE),
        Some(WARN_TRIES_PER_MINUTE + 1)
    );
    assert_eq!(r.failed_in_minute(now + MINUTE * 2), None);
}
