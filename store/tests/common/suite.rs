//! The store's test suite, run against each backend: `tests/sqlite.rs` and
//! `tests/postgres.rs` hand each case an opener that connects to one fresh,
//! empty database (each call a new connection to the same database).

use reversi_store::*;

pub type Open<'a> = &'a dyn Fn() -> Box<dyn Store>;

/// Calls `$m!` with the name of every case, so each backend's file lists none.
#[macro_export]
macro_rules! for_each_case {
    ($m:ident) => {
        $m! {
            accounts_sign_in_with_their_password_only,
            names_are_unique_without_regard_to_case,
            tokens_are_created_listed_used_and_revoked,
            a_tokens_last_use_is_written_once_a_minute,
            an_account_holds_twenty_tokens_at_most,
            a_rated_game_moves_both_ratings_by_glicko2,
            recording_a_game_twice_stores_it_once,
            casual_games_and_guests_leave_ratings_alone,
            every_ending_with_a_result_is_rated,
            a_game_comes_back_whole_and_exports,
            profiles_and_lists_show_newest_first,
            invalid_games_are_refused,
            an_idle_players_deviation_grows,
            reopening_keeps_everything,
            the_writer_stores_in_the_background,
            concurrent_writers_lose_nothing,
            a_batch_stores_each_game_or_says_why_not
        }
    };
}

pub const T0: UnixMillis = UnixMillis(1_760_000_000_000);
pub const DAY: i64 = 24 * 60 * 60 * 1000;

pub fn name(text: &str) -> Name {
    Name::new(text).unwrap()
}

pub fn password(text: &str) -> Password {
    Password::new(text).unwrap()
}

pub fn register(store: &mut dyn Store, who: &str) -> Account {
    store
        .register(&name(who), &password("a long password"), T0)
        .unwrap()
}

/// A Reversi game of two seats that team 0 wins by the rules, ending at `T0 + at` ms.
pub fn game(id: &str, seats: [Player; 2], mode: Mode, at: i64) -> FinishedGame {
    FinishedGame {
        id: GameId::new(id).unwrap(),
        kind: "reversi".into(),
        mode,
        time_control: "5m+2s".into(),
        seed: u64::MAX - 7,
        seats: seats
            .into_iter()
            .enumerate()
            .map(|(team, player)| Seat {
                team: team as u8,
                player,
            })
            .collect(),
        moves: ["e6", "f4", "e3", "f6", "g5", "d6", "e7", "f5", "c5"]
            .iter()
            .enumerate()
            .map(|(i, m)| MoveRecord {
                team: (i % 2) as u8,
                notation: (*m).into(),
                took_ms: 250 * i as u32,
            })
            .collect(),
        outcome: Outcome::Win {
            team: 0,
            ending: Ending::Rules,
        },
        why: "13-0".into(),
        started: UnixMillis(T0.0 + at - 60_000),
        ended: UnixMillis(T0.0 + at),
        host: "host-a".into(),
    }
}

fn rated(id: &str, a: &Account, b: &Account, at: i64) -> FinishedGame {
    game(
        id,
        [Player::Account(a.id), Player::Account(b.id)],
        Mode::Rated,
        at,
    )
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

pub fn accounts_sign_in_with_their_password_only(open: Open) {
    let mut store = open();
    let alice = register(&mut *store, "Alice");
    assert_eq!(alice.name, "Alice");
    let signed = store.sign_in(&name("alice"), &password("a long password"));
    assert_eq!(signed, Ok(Some(alice.clone())));
    let wrong = store.sign_in(&name("Alice"), &password("a wrong password"));
    assert_eq!(wrong, Ok(None));
    let nobody = store.sign_in(&name("Nobody1"), &password("a long password"));
    assert_eq!(nobody, Ok(None));
    store
        .set_password(alice.id, &password("another password"))
        .unwrap();
    assert_eq!(
        store.sign_in(&name("Alice"), &password("a long password")),
        Ok(None)
    );
    let signed = store.sign_in(&name("ALICE"), &password("another password"));
    assert_eq!(signed, Ok(Some(alice.clone())));
    let missing = store.set_password(AccountId(alice.id.0 + 100), &password("whatever12"));
    assert_eq!(missing, Err(StoreError::NoSuchAccount));
}

pub fn names_are_unique_without_regard_to_case(open: Open) {
    let mut store = open();
    let first = register(&mut *store, "Zoë");
    for taken in ["zoë", "ZOË", "Zoe\u{308}", "Ｚｏë"] {
        let again = store.register(&name(taken), &password("another password"), T0);
        assert_eq!(again, Err(StoreError::NameTaken), "{taken}");
    }
    assert_eq!(store.account(&name("ZOE\u{308}")), Ok(Some(first)));
    assert_eq!(store.account(&name("Zoe")), Ok(None));
}

pub fn tokens_are_created_listed_used_and_revoked(open: Open) {
    let mut store = open();
    let alice = register(&mut *store, "alice");
    let bob = register(&mut *store, "bob");
    let bot = store.create_token(alice.id, "my bot", T0).unwrap();
    let other = store
        .create_token(alice.id, "", UnixMillis(T0.0 + 1))
        .unwrap();
    let text = bot.token.reveal();
    let presented = ApiToken::parse(&text).unwrap();
    let signed = store.token_account(&presented).unwrap().unwrap();
    assert_eq!((signed.account, signed.last_used), (alice.clone(), None));
    let listed = store.tokens(alice.id).unwrap();
    assert_eq!(listed, vec![bot.info.clone(), other.info.clone()]);
    assert_eq!(store.tokens(bob.id), Ok(vec![]));
    // A token with the right id and a wrong secret is nobody's.
    let forged = format!(
        "{}{}",
        &text[..text.len() - 1],
        if text.ends_with('0') { '1' } else { '0' }
    );
    assert_eq!(
        store.token_account(&ApiToken::parse(&forged).unwrap()),
        Ok(None)
    );
    // Only the owner revokes, once.
    assert_eq!(store.revoke_token(bob.id, &bot.info.id), Ok(false));
    assert_eq!(store.revoke_token(alice.id, &bot.info.id), Ok(true));
    assert_eq!(store.revoke_token(alice.id, &bot.info.id), Ok(false));
    assert_eq!(store.token_account(&presented), Ok(None));
    assert_eq!(store.tokens(alice.id), Ok(vec![other.info]));
    // Revoked, its use is nobody's to write.
    assert_eq!(store.record_token_use(&bot.info.id, T0), Ok(()));
    for bad in ["two\nlines", "two\u{2028}lines", "bot \u{202E}tob"] {
        let bad_label = store.create_token(alice.id, bad, T0);
        assert!(
            matches!(bad_label, Err(StoreError::Invalid(_))),
            "{bad:?}: {bad_label:?}"
        );
    }
    let nobody = store.create_token(AccountId(bob.id.0 + 100), "x", T0);
    assert!(
        matches!(nobody, Err(StoreError::NoSuchAccount)),
        "{nobody:?}"
    );
}

pub fn a_tokens_last_use_is_written_once_a_minute(open: Open) {
    let mut store = open();
    let alice = register(&mut *store, "alice");
    let bot = store.create_token(alice.id, "bot", T0).unwrap();
    let presented = ApiToken::parse(&bot.token.reveal()).unwrap();
    let last_used = |store: &mut dyn Store| store.tokens(alice.id).unwrap()[0].last_used;
    let at = |seconds: i64| UnixMillis(T0.0 + seconds * 1000);
    let signed = store.token_account(&presented).unwrap().unwrap();
    assert!(signed.use_is_due(at(1)));
    store.record_token_use(&bot.info.id, at(1)).unwrap();
    assert_eq!(last_used(&mut *store), Some(at(1)));
    let signed = store.token_account(&presented).unwrap().unwrap();
    assert_eq!(signed.last_used, Some(at(1)));
    assert!(!signed.use_is_due(at(60)));
    assert!(signed.use_is_due(at(61)));
    // Another host that writes a use within the minute changes nothing.
    store.record_token_use(&bot.info.id, at(30)).unwrap();
    assert_eq!(last_used(&mut *store), Some(at(1)));
    store.record_token_use(&bot.info.id, at(61)).unwrap();
    assert_eq!(last_used(&mut *store), Some(at(61)));
}

pub fn an_account_holds_twenty_tokens_at_most(open: Open) {
    let mut store = open();
    let alice = register(&mut *store, "alice");
    let bob = register(&mut *store, "bob");
    let tokens: Vec<NewToken> = (0..TOKENS_PER_ACCOUNT)
        .map(|n| {
            store
                .create_token(alice.id, &format!("bot {n}"), T0)
                .unwrap()
        })
        .collect();
    let more = store.create_token(alice.id, "one more", T0);
    assert!(matches!(more, Err(StoreError::TooManyTokens)), "{more:?}");
    assert_eq!(store.tokens(alice.id).unwrap().len(), TOKENS_PER_ACCOUNT);
    // Another account's are its own; a revoked token frees a place.
    assert!(store.create_token(bob.id, "bot", T0).is_ok());
    assert_eq!(store.revoke_token(alice.id, &tokens[0].info.id), Ok(true));
    assert!(store.create_token(alice.id, "one more", T0).is_ok());
    let more = store.create_token(alice.id, "and another", T0);
    assert!(matches!(more, Err(StoreError::TooManyTokens)), "{more:?}");
}

pub fn a_rated_game_moves_both_ratings_by_glicko2(open: Open) {
    let mut store = open();
    let (alice, bob) = (register(&mut *store, "alice"), register(&mut *store, "bob"));
    let g = rated("g1", &alice, &bob, 0);
    assert_eq!(store.record_game(&g), Ok(Recorded::Stored));
    let glicko = Glicko2::default();
    let new = Rating::NEW;
    let alice_after = glicko.rate(new, &[(new, Score::Win)]);
    let bob_after = glicko.rate(new, &[(new, Score::Loss)]);
    let now = g.ended;
    let a = store.rating(alice.id, "reversi", now).unwrap();
    let b = store.rating(bob.id, "reversi", now).unwrap();
    assert!(close(a.rating, alice_after.rating) && close(a.deviation, alice_after.deviation));
    assert!(close(b.rating, bob_after.rating), "{b:?} {bob_after:?}");
    assert!(a.rating > 1500.0 && b.rating < 1500.0 && a.is_provisional());
    assert_eq!(store.rating(alice.id, "draughts", now), Ok(Rating::NEW));
    let stored = store.game(&g.id).unwrap().unwrap();
    assert_eq!(stored.seats[0].before, Some(new));
    assert_eq!(stored.seats[0].after, Some(a));
    assert_eq!(stored.seats[1].after, Some(b));
    let board = store.leaderboard("reversi", 10, now).unwrap();
    let names: Vec<(u32, &str, u32)> = board
        .iter()
        .map(|s| (s.rank, s.name.as_str(), s.games))
        .collect();
    assert_eq!(names, vec![(1, "alice", 1), (2, "bob", 1)]);
    assert_eq!(store.leaderboard("draughts", 10, now), Ok(vec![]));
    // A second game starts from the first's ratings.
    let g2 = rated("g2", &bob, &alice, 1000);
    store.record_game(&g2).unwrap();
    let stored = store.game(&g2.id).unwrap().unwrap();
    assert_eq!(stored.seats[0].before, Some(b));
    assert_eq!(store.leaderboard("reversi", 10, now).unwrap()[0].games, 2);
}

pub fn recording_a_game_twice_stores_it_once(open: Open) {
    let mut store = open();
    let (alice, bob) = (register(&mut *store, "alice"), register(&mut *store, "bob"));
    let g = rated("host-a:1", &alice, &bob, 0);
    assert_eq!(store.record_game(&g), Ok(Recorded::Stored));
    let once = store.rating(alice.id, "reversi", g.ended).unwrap();
    // A journal replayed, even a changed copy: the first record stands.
    let mut again = g.clone();
    again.why = "replayed".into();
    assert_eq!(store.record_game(&again), Ok(Recorded::AlreadyStored));
    assert_eq!(store.rating(alice.id, "reversi", g.ended), Ok(once));
    assert_eq!(store.recent_games(10).unwrap().len(), 1);
    assert_eq!(store.game(&g.id).unwrap().unwrap().why, "13-0");
}

pub fn casual_games_and_guests_leave_ratings_alone(open: Open) {
    let mut store = open();
    let (alice, bob) = (register(&mut *store, "alice"), register(&mut *store, "bob"));
    let casual = game(
        "c1",
        [Player::Account(alice.id), Player::Account(bob.id)],
        Mode::Casual,
        0,
    );
    store.record_game(&casual).unwrap();
    let guests = game(
        "c2",
        [Player::Guest(name("visitor")), Player::Account(bob.id)],
        Mode::Casual,
        1,
    );
    store.record_game(&guests).unwrap();
    assert_eq!(store.rating(alice.id, "reversi", T0), Ok(Rating::NEW));
    assert_eq!(store.rating(bob.id, "reversi", T0), Ok(Rating::NEW));
    assert_eq!(store.leaderboard("reversi", 10, T0), Ok(vec![]));
    let stored = store.game(&guests.id).unwrap().unwrap();
    assert_eq!(stored.mode, Mode::Casual);
    assert_eq!(
        (stored.seats[0].name.as_str(), stored.seats[0].account),
        ("visitor", None)
    );
    assert_eq!(stored.seats[0].after, None);
    assert_eq!(stored.seats[1].account, Some(bob.id));
}

pub fn every_ending_with_a_result_is_rated(open: Open) {
    let mut store = open();
    let (alice, bob) = (register(&mut *store, "alice"), register(&mut *store, "bob"));
    let mut at = 0;
    for ending in Ending::ALL {
        let mut g = rated(&format!("e-{}", ending.word()), &alice, &bob, at);
        g.outcome = match ending {
            Ending::Aborted => Outcome::Aborted,
            Ending::Agreement => Outcome::Draw { ending },
            _ => Outcome::Win { team: 1, ending },
        };
        let before = store.rating(bob.id, "reversi", g.ended).unwrap();
        store.record_game(&g).unwrap();
        let after = store.rating(bob.id, "reversi", g.ended).unwrap();
        let stored = store.game(&g.id).unwrap().unwrap();
        assert_eq!(stored.outcome, g.outcome);
        match ending {
            Ending::Aborted => assert_eq!(after, before, "an aborted game has no result"),
            Ending::Agreement => assert!(after.deviation < before.deviation, "{ending:?}"),
            _ => assert!(
                after.rating > before.rating,
                "{ending:?}: {before:?} {after:?}"
            ),
        }
        at += 1000;
    }
}

pub fn a_game_comes_back_whole_and_exports(open: Open) {
    let mut store = open();
    let alice = register(&mut *store, "alice");
    let g = game(
        "whole",
        [Player::Account(alice.id), Player::Guest(name("Gäst"))],
        Mode::Casual,
        0,
    );
    store.record_game(&g).unwrap();
    let stored = store.game(&g.id).unwrap().unwrap();
    assert_eq!(
        (&stored.id, &stored.kind, stored.mode, &stored.time_control),
        (&g.id, &g.kind, g.mode, &g.time_control)
    );
    assert_eq!((stored.seed, &stored.moves), (g.seed, &g.moves));
    assert_eq!((&stored.outcome, &stored.why), (&g.outcome, &g.why));
    assert_eq!(
        (stored.started, stored.ended, &stored.host),
        (g.started, g.ended, &g.host)
    );
    let names: Vec<&str> = stored.seats.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["alice", "Gäst"]);
    let ggf = export::standard(&stored).unwrap();
    assert!(
        ggf.text.contains("PB[alice]PW[Gäst]RE[+13]"),
        "{}",
        ggf.text
    );
    assert!(export::json(&stored).contains("\"host\": \"host-a\""));
    assert_eq!(store.game(&GameId::new("missing").unwrap()), Ok(None));
}

pub fn profiles_and_lists_show_newest_first(open: Open) {
    let mut store = open();
    let (alice, bob) = (register(&mut *store, "alice"), register(&mut *store, "bob"));
    let carol = register(&mut *store, "carol");
    store.record_game(&rated("p1", &alice, &bob, 0)).unwrap();
    store.record_game(&rated("p2", &carol, &bob, 1000)).unwrap();
    store.record_game(&rated("p3", &bob, &alice, 2000)).unwrap();
    let mut draughts = rated("p4", &alice, &carol, 3000);
    draughts.kind = "draughts".into();
    draughts.moves.clear();
    store.record_game(&draughts).unwrap();
    let ids = |games: &[GameSummary]| games.iter().map(|g| g.id.to_string()).collect::<Vec<_>>();
    assert_eq!(ids(&store.recent_games(3).unwrap()), ["p4", "p3", "p2"]);
    let now = UnixMillis(T0.0 + 3000);
    let profile = store.profile(&name("ALICE"), 10, now).unwrap().unwrap();
    assert_eq!(profile.account, alice);
    assert_eq!(ids(&profile.recent), ["p4", "p3", "p1"]);
    assert_eq!(
        profile.recent[1].players,
        vec![(0, "bob".into()), (1, "alice".into())]
    );
    let kinds: Vec<(&str, u32, usize)> = profile
        .ratings
        .iter()
        .map(|k| (k.kind.as_str(), k.games, k.history.len()))
        .collect();
    assert_eq!(kinds, [("draughts", 1, 1), ("reversi", 2, 2)]);
    let reversi = &profile.ratings[1];
    let history: Vec<&str> = reversi.history.iter().map(|p| p.game.as_str()).collect();
    assert_eq!(history, ["p1", "p3"]);
    assert_eq!(reversi.history[1].rating, reversi.rating);
    assert_eq!(store.profile(&name("stranger"), 10, now), Ok(None));
    assert_eq!(store.leaderboard("reversi", 1, now).unwrap().len(), 1);
    // One account's games, of one kind or all, and its ratings alone.
    assert_eq!(
        ids(&store.games_of(alice.id, None, 2).unwrap()),
        ["p4", "p3"]
    );
    let reversi_only = store.games_of(alice.id, Some("reversi"), 10).unwrap();
    assert_eq!(ids(&reversi_only), ["p3", "p1"]);
    assert!(store
        .games_of(alice.id, Some("tictactoe"), 10)
        .unwrap()
        .is_empty());
    let ratings = store.ratings(alice.id, now).unwrap();
    let kinds: Vec<&str> = ratings.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(kinds, ["draughts", "reversi"]);
    assert_eq!(ratings[1].1, profile.ratings[1].rating);
    assert!(store.ratings(carol.id, now).unwrap().len() == 2);
}

pub fn invalid_games_are_refused(open: Open) {
    let mut store = open();
    let alice = register(&mut *store, "alice");
    let with_guest = game(
        "i1",
        [Player::Account(alice.id), Player::Guest(name("visitor"))],
        Mode::Rated,
        0,
    );
    let no_account = game(
        "i2",
        [
            Player::Account(alice.id),
            Player::Account(AccountId(alice.id.0 + 99)),
        ],
        Mode::Rated,
        0,
    );
    let mut bad_winner = game(
        "i3",
        [Player::Guest(name("one")), Player::Guest(name("two"))],
        Mode::Casual,
        0,
    );
    bad_winner.outcome = Outcome::Win {
        team: 5,
        ending: Ending::Rules,
    };
    let against_self = game(
        "i4",
        [Player::Account(alice.id), Player::Account(alice.id)],
        Mode::Rated,
        0,
    );
    for g in [with_guest, no_account, bad_winner, against_self] {
        let refused = store.record_game(&g);
        assert!(
            matches!(refused, Err(StoreError::Invalid(_))),
            "{}: {refused:?}",
            g.id
        );
        assert_eq!(store.game(&g.id), Ok(None));
    }
    // Nothing half-written: the refused rated game moved no rating.
    assert_eq!(store.rating(alice.id, "reversi", T0), Ok(Rating::NEW));
}

pub fn an_idle_players_deviation_grows(open: Open) {
    let mut store = open();
    let (alice, bob) = (register(&mut *store, "alice"), register(&mut *store, "bob"));
    let g = rated("idle", &alice, &bob, 0);
    store.record_game(&g).unwrap();
    let fresh = store.rating(alice.id, "reversi", g.ended).unwrap();
    let later = store
        .rating(alice.id, "reversi", UnixMillis(g.ended.0 + 30 * DAY))
        .unwrap();
    assert_eq!(later.rating, fresh.rating);
    assert!(later.deviation > fresh.deviation, "{fresh:?} {later:?}");
    assert_eq!(later, Glicko2::default().idle(fresh, 30));
    // The next rated game starts from the grown deviation.
    let g2 = rated("idle2", &alice, &bob, 30 * DAY);
    store.record_game(&g2).unwrap();
    assert_eq!(
        store.game(&g2.id).unwrap().unwrap().seats[0].before,
        Some(later)
    );
}

pub fn reopening_keeps_everything(open: Open) {
    let mut first = open();
    let (alice, bob) = (register(&mut *first, "alice"), register(&mut *first, "bob"));
    first.record_game(&rated("r1", &alice, &bob, 0)).unwrap();
    drop(first);
    // Opening again applies no migration twice and finds it all.
    let mut second = open();
    let mut third = open();
    assert_eq!(second.account(&name("alice")), Ok(Some(alice.clone())));
    assert!(third.game(&GameId::new("r1").unwrap()).unwrap().is_some());
    // Two connections at once: each sees what the other wrote.
    second
        .record_game(&rated("r2", &bob, &alice, 1000))
        .unwrap();
    assert_eq!(third.recent_games(10).unwrap().len(), 2);
}

pub fn the_writer_stores_in_the_background(open: Open) {
    let mut store = open();
    let (alice, bob) = (register(&mut *store, "alice"), register(&mut *store, "bob"));
    let woken = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = woken.clone();
    let wake: Wake = Box::new(move || {
        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    });
    let writer = Writer::start(open(), 64, Some(wake));
    for i in 0..20 {
        writer
            .submit(rated(&format!("w{i}"), &alice, &bob, i))
            .unwrap();
    }
    writer.submit(rated("w0", &alice, &bob, 0)).unwrap();
    let written = writer.finish();
    assert_eq!(written.len(), 21);
    assert!(written[..20]
        .iter()
        .all(|w| w.result == Ok(Recorded::Stored)));
    assert_eq!(written[20].result, Ok(Recorded::AlreadyStored));
    // Woken once a batch: a burst may come back in fewer batches than games.
    let wakes = woken.load(std::sync::atomic::Ordering::SeqCst);
    assert!((1..=21).contains(&wakes), "{wakes}");
    let ids: Vec<String> = written.iter().map(|w| w.id.to_string()).collect();
    assert_eq!(ids[..3], ["w0", "w1", "w2"], "in the order submitted");
    assert_eq!(store.recent_games(100).unwrap().len(), 20);
    let board = store.leaderboard("reversi", 10, T0).unwrap();
    assert_eq!((board[0].name.as_str(), board[0].games), ("alice", 20));
}

pub fn concurrent_writers_lose_nothing(open: Open) {
    let mut store = open();
    let (alice, bob) = (register(&mut *store, "alice"), register(&mut *store, "bob"));
    // Two hosts record rated games of the same players at once: each game
    // moves the ratings the other's left (a conflict is run again, not lost).
    std::thread::scope(|scope| {
        for host in ["a", "b"] {
            let mut conn = open();
            let (alice, bob) = (&alice, &bob);
            scope.spawn(move || {
                for i in 0..10 {
                    let g = rated(&format!("{host}{i}"), alice, bob, i);
                    assert_eq!(conn.record_game(&g), Ok(Recorded::Stored));
                }
            });
        }
    });
    assert_eq!(store.recent_games(100).unwrap().len(), 20);
    let board = store.leaderboard("reversi", 10, T0).unwrap();
    let games: Vec<u32> = board.iter().map(|s| s.games).collect();
    assert_eq!(games, [20, 20]);
    // Each game started from the rating the one before it left: the games
    // chain from an unrated player's rating through all 20.
    let profile = store.profile(&name("alice"), 0, T0).unwrap().unwrap();
    let mut steps = Vec::new();
    for point in &profile.ratings[0].history {
        let game = store.game(&point.game).unwrap().unwrap();
        steps.push((game.seats[0].before.unwrap(), point.rating));
    }
    let mut rating = Rating::NEW;
    for _ in 0..20 {
        let next = steps.iter().position(|(before, _)| *before == rating);
        rating = steps.swap_remove(next.expect("a rating update was lost")).1;
    }
}

pub fn a_batch_stores_each_game_or_says_why_not(open: Open) {
    let mut store = open();
    let (alice, bob) = (register(&mut *store, "alice"), register(&mut *store, "bob"));
    let first = rated("batch1", &alice, &bob, 0);
    let nobody = Player::Account(AccountId(bob.id.0 + 100));
    let refused = game(
        "batch2",
        [Player::Account(alice.id), nobody],
        Mode::Rated,
        1,
    );
    let mut nul = game(
        "batch3",
        [Player::Guest(name("visitor")), Player::Account(bob.id)],
        Mode::Casual,
        2,
    );
    nul.why = "a\0b".into();
    let casual = game(
        "batch4",
        [Player::Account(alice.id), Player::Account(bob.id)],
        Mode::Casual,
        3,
    );
    let second = rated("batch5", &bob, &alice, 4);
    let results = store.record_games(&[
        first.clone(),
        refused.clone(),
        nul,
        first.clone(),
        casual,
        second,
    ]);
    assert_eq!(results[0], Ok(Recorded::Stored));
    assert!(
        matches!(results[1], Err(StoreError::Invalid(_))),
        "{:?}",
        results[1]
    );
    assert!(
        matches!(results[2], Err(StoreError::Invalid(_))),
        "{:?}",
        results[2]
    );
    assert_eq!(
        results[3..],
        [
            Ok(Recorded::AlreadyStored),
            Ok(Recorded::Stored),
            Ok(Recorded::Stored)
        ]
    );
    assert_eq!(store.game(&refused.id), Ok(None));
    let ids: Vec<String> = store
        .recent_games(10)
        .unwrap()
        .iter()
        .map(|g| g.id.to_string())
        .collect();
    assert_eq!(ids, ["batch5", "batch4", "batch1"]);
    // The second rated game started from the first's ratings, in the same transaction.
    let after_first = store.game(&first.id).unwrap().unwrap().seats[0].after;
    let stored = store
        .game(&GameId::new("batch5").unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(stored.seats[1].before, after_first);
    assert_eq!(store.leaderboard("reversi", 10, T0).unwrap()[0].games, 2);
}
