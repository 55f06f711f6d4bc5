//! The director, state x event, with fake game ends: no supervisor, no sessions.

use std::collections::HashSet;

use reversi_tournament::{Format, Outcome, Phase, Settings, Start};

use super::*;

const GRACE: u64 = 60;

fn settings(format: Format) -> Settings {
    Settings::new("Club", "tictactoe", format, "30s+1", Start::ByHand, false)
}

/// A director with tournament 1 open and `players` registered.
fn with_players(format: Format, players: &[&str]) -> Director {
    let mut d = Director::new(GRACE);
    let (id, _) = d.create(settings(format), Some("org".into()));
    assert_eq!(id, 1);
    d.order(Some("org"), Order::Open(1), 0).unwrap();
    for p in players {
        d.order(Some(p), Order::Register(1), 0).unwrap();
    }
    d
}

fn starts(actions: &[Action]) -> Vec<Pairing> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Start(p) => Some(p.clone()),
            _ => None,
        })
        .collect()
}

fn told(actions: &[Action], account: &str) -> Vec<String> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Tell { account: to, line } if to == account => Some(line.clone()),
            _ => None,
        })
        .collect()
}

/// The accounts whose wait `actions` end, and why.
fn released(actions: &[Action]) -> Vec<(String, Released)> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Release {
                account,
                id: 1,
                why,
            } => Some((account.clone(), *why)),
            _ => None,
        })
        .collect()
}

fn everyone(_: &str) -> bool {
    true
}

#[test]
fn only_the_organiser_orders_and_players_register_themselves() {
    let mut d = with_players(Format::RoundRobin { double: false }, &["a"]);
    let e = d.order(Some("a"), Order::Start(1), 0).unwrap_err();
    assert_eq!(e, "only tournament 1's organiser may do that");
    assert!(
        d.order(None, Order::Close(1), 0).is_ok(),
        "the operator may"
    );
    let e = d.order(Some("b"), Order::Register(1), 0).unwrap_err();
    assert_eq!(e, "registration is closed");
    assert!(d.order(None, Order::Register(1), 0).is_err());
    assert_eq!(
        d.order(Some("org"), Order::Open(2), 0).unwrap_err(),
        "no tournament 2"
    );
    let e = d.order(Some("org"), Order::Start(1), 0).unwrap_err();
    assert_eq!(e, "a tournament needs at least 2 players, it has 1");
}

#[test]
fn every_change_is_saved_and_a_refusal_saves_nothing() {
    let mut d = Director::new(GRACE);
    let (_, actions) = d.create(settings(Format::RoundRobin { double: false }), None);
    assert!(matches!(&actions[..], [Action::Save(k)] if k.id == 1 && k.organiser.is_none()));
    let (_, actions) = d.order(None, Order::Open(1), 0).unwrap();
    assert!(matches!(actions.last(), Some(Action::Save(_))));
    assert!(d.order(None, Order::Pause(1), 0).is_err());
    assert!(
        d.tick(5, everyone).is_empty(),
        "a tick that changes nothing saves nothing"
    );
}

#[test]
fn a_paired_round_calls_its_players_and_starts_games_when_both_are_there() {
    let mut d = with_players(Format::RoundRobin { double: false }, &["a", "b", "c", "d"]);
    let (_, actions) = d.order(Some("org"), Order::Start(1), 100).unwrap();
    assert_eq!(told(&actions, "a"), ["GAME PAIRED 1 1 1 a d"]);
    assert_eq!(
        d.calls("d"),
        ["GAME PAIRED 1 1 1 a d"],
        "told again to who comes later"
    );
    assert!(d.calls("x").is_empty());
    assert!(starts(&actions).is_empty(), "games start on the next tick");
    let here: HashSet<&str> = ["a", "d", "b"].into();
    let actions = d.tick(101, |p| here.contains(p));
    let started = starts(&actions);
    assert_eq!(started.len(), 1);
    let p = &started[0];
    assert_eq!((p.first.as_str(), p.second.as_str()), ("a", "d"));
    assert_eq!(
        (p.game.as_str(), p.time_control.as_str()),
        ("tictactoe", "30s+1")
    );
    assert_eq!(
        told(&actions, "d"),
        ["GAME NEWS Club round 1 board 1: your game is starting"]
    );
    assert!(
        starts(&d.tick(102, |p| here.contains(p))).is_empty(),
        "started once"
    );
    // Its game id is kept at once: the page, made from the store, shows it running.
    let saved = d.started(p.key, 7);
    let [Action::Save(kept)] = saved.as_slice() else {
        panic!("{saved:?}")
    };
    assert_eq!(kept.games, [(p.key, 7)]);
    assert!(d.started(p.key, 8).is_empty(), "a board starts once");
}

#[test]
fn an_absent_player_forfeits_after_the_grace() {
    let mut d = with_players(Format::RoundRobin { double: false }, &["a", "b"]);
    d.order(Some("org"), Order::Start(1), 100).unwrap();
    assert!(d.tick(100 + GRACE - 1, |p| p == "b").is_empty());
    let actions = d.tick(100 + GRACE, |p| p == "b");
    assert!(starts(&actions).is_empty());
    let t = d.get(1).unwrap();
    assert_eq!(t.history().games[0].outcome, Some(Outcome::FirstForfeits));
    assert_eq!(t.phase(), &Phase::Finished { early: None });
    assert!(matches!(actions.last(), Some(Action::Save(_))));
}

#[test]
fn both_absent_both_forfeit() {
    let mut d = with_players(Format::RoundRobin { double: false }, &["a", "b"]);
    d.order(Some("org"), Order::Start(1), 100).unwrap();
    d.tick(100 + GRACE, |_| false);
    let outcome = d.get(1).unwrap().history().games[0].outcome;
    assert_eq!(outcome, Some(Outcome::BothForfeit));
}

/// Starts every called game and ends it with `outcome`, as the supervisor would.
fn play_round(d: &mut Director, now: u64, next_game: &mut u64, outcome: Outcome) -> Vec<Action> {
    let started = starts(&d.tick(now, everyone));
    let mut actions = Vec::new();
    for p in &started {
        *next_game += 1;
        d.started(p.key, *next_game);
        assert!(d.plays(*next_game));
    }
    for game in *next_game + 1 - started.len() as u64..=*next_game {
        actions.extend(d.ended(game, Some(outcome), Some(format!("r{game}")), now));
    }
    actions
}

#[test]
fn a_double_round_robin_runs_to_its_end_from_game_results() {
    let players = ["a", "b", "c", "d"];
    let mut d = with_players(Format::RoundRobin { double: true }, &players);
    d.order(Some("org"), Order::Start(1), 0).unwrap();
    let mut game = 0;
    let mut last = Vec::new();
    for round in 1..=6u64 {
        assert_eq!(
            d.get(1).unwrap().phase(),
            &Phase::Running {
                round: round as u32,
                paused: false
            }
        );
        assert!(released(&last).is_empty(), "no wait ends before the end");
        last = play_round(&mut d, round, &mut game, Outcome::FirstWins);
    }
    assert_eq!(
        released(&last),
        players.map(|p| (p.to_owned(), Released::Finished)),
        "every player's wait ends with the tournament"
    );
    let t = d.get(1).unwrap();
    assert_eq!(t.phase(), &Phase::Finished { early: None });
    assert_eq!(game, 12, "every pair met twice");
    let points: u32 = t.standings().iter().map(|s| s.points.0).sum();
    assert_eq!(points, 12 * 2, "a win is two half points");
    assert_eq!(d.games_of(1).len(), 12);
    assert!(d
        .games_of(1)
        .iter()
        .all(|g| !g.running && g.record.is_some()));
    let lines = d.standings_lines(1).unwrap();
    assert_eq!(
        lines.len(),
        5 + 12 + 1,
        "header, 4 players, 12 boards, the end"
    );
    assert_eq!(lines[5], "GAME BOARD 1 1 1 1 ended r1");
    assert_eq!(lines[17], "GAME STANDINGS 1 17");
    assert!(lines[0].starts_with("GAME CROSSTABLE 1 "));
    assert_eq!(
        d.line(1).unwrap(),
        "GAME TOURNAMENT 1 finished 6 6 4 tictactoe rr2 30s+1 Club"
    );
}

#[test]
fn a_game_without_a_result_is_called_again() {
    let mut d = with_players(Format::RoundRobin { double: false }, &["a", "b"]);
    d.order(Some("org"), Order::Start(1), 0).unwrap();
    let p = starts(&d.tick(1, everyone)).remove(0);
    d.started(p.key, 7);
    assert!(d.ended(7, None, None, 2).is_empty());
    assert!(!d.plays(7));
    let again = starts(&d.tick(3, everyone));
    assert_eq!(again.len(), 1, "the same board, played again");
    assert_eq!(again[0].key, p.key);
}

#[test]
fn a_start_that_failed_is_tried_again_and_still_forfeits_at_the_grace() {
    let mut d = with_players(Format::RoundRobin { double: false }, &["a", "b"]);
    d.order(Some("org"), Order::Start(1), 0).unwrap();
    let p = starts(&d.tick(1, everyone)).remove(0);
    d.start_failed(p.key);
    d.tick(GRACE, |p| p == "a");
    let outcome = d.get(1).unwrap().history().games[0].outcome;
    assert_eq!(outcome, Some(Outcome::SecondForfeits));
}

#[test]
fn a_withdrawal_stops_the_running_game() {
    let mut d = with_players(Format::RoundRobin { double: false }, &["a", "b", "c", "d"]);
    d.order(Some("org"), Order::Start(1), 0).unwrap();
    let started = starts(&d.tick(1, everyone));
    for (i, p) in started.iter().enumerate() {
        d.started(p.key, 10 + i as u64);
    }
    let (_, actions) = d.order(Some("a"), Order::Withdraw(1), 2).unwrap();
    assert!(actions.contains(&Action::Stop { game: 10 }));
    assert_eq!(released(&actions), [("a".to_owned(), Released::Withdrawn)]);
    let (_, actions) = d
        .order(
            Some("org"),
            Order::Remove {
                id: 1,
                account: "b".into(),
            },
            2,
        )
        .unwrap();
    assert_eq!(released(&actions), [("b".to_owned(), Released::Withdrawn)]);
    assert!(
        d.order(Some("a"), Order::Withdraw(1), 2).is_err(),
        "withdrawn already"
    );
    assert!(!d.plays(10));
    assert!(
        d.ended(10, Some(Outcome::FirstWins), None, 3).is_empty(),
        "its end is no news"
    );
}

#[test]
fn a_paused_tournament_starts_no_game() {
    let mut d = with_players(Format::RoundRobin { double: false }, &["a", "b"]);
    d.order(Some("org"), Order::Start(1), 0).unwrap();
    d.order(Some("org"), Order::Pause(1), 0).unwrap();
    assert!(starts(&d.tick(1, everyone)).is_empty());
    d.order(Some("org"), Order::Resume(1), 0).unwrap();
    assert_eq!(starts(&d.tick(2, everyone)).len(), 1);
}

#[test]
fn a_swiss_bye_is_told() {
    let mut d = with_players(Format::Swiss { rounds: 2 }, &["a", "b", "c"]);
    let (_, actions) = d.order(Some("org"), Order::Start(1), 0).unwrap();
    assert_eq!(told(&actions, "c"), ["GAME BYE 1 1 1"]);
    // One who comes to wait later is told it too, with its calls.
    assert_eq!(d.calls("c"), ["GAME BYE 1 1 1"]);
    assert_eq!(d.calls("a"), ["GAME PAIRED 1 1 1 a b"]);
}

#[test]
fn a_tournament_starts_at_its_time() {
    let mut d = Director::new(GRACE);
    let mut s = settings(Format::RoundRobin { double: false });
    s.start = Start::At { unix_seconds: 50 };
    d.create(s, None);
    d.order(None, Order::Open(1), 0).unwrap();
    d.order(Some("a"), Order::Register(1), 0).unwrap();
    d.order(Some("b"), Order::Register(1), 0).unwrap();
    assert!(d.tick(49, everyone).is_empty());
    let actions = d.tick(50, everyone);
    let news = "GAME NEWS Club round 1 board 1: your game is starting";
    assert_eq!(told(&actions, "a"), ["GAME PAIRED 1 1 1 a b", news]);
    assert_eq!(
        starts(&actions).len(),
        1,
        "paired and started in the same tick"
    );
}

#[test]
fn a_restored_tournament_calls_the_round_s_unfinished_games_again() {
    let mut d = with_players(Format::RoundRobin { double: false }, &["a", "b", "c", "d"]);
    d.order(Some("org"), Order::Start(1), 0).unwrap();
    let started = starts(&d.tick(1, everyone));
    d.started(started[0].key, 1);
    d.started(started[1].key, 2);
    let actions = d.ended(1, Some(Outcome::Draw), Some("h-1".into()), 2);
    let Some(Action::Save(kept)) = actions.last().cloned() else {
        panic!("{actions:?}")
    };
    let mut again = Director::new(GRACE);
    again.restore(&kept, 100, &|_| false).unwrap();
    let games: Vec<u64> = again.games_of(1).iter().map(|g| g.game).collect();
    assert_eq!(games, [1, 2], "each board's game remembered");
    let restarted = starts(&again.tick(101, everyone));
    assert_eq!(restarted.len(), 1);
    assert_eq!(restarted[0].key, started[1].key);
    let (id, _) = again.create(settings(Format::Swiss { rounds: 1 }), None);
    assert_eq!(id, 2, "new tournaments number after the restored ones");
    assert!(again
        .restore(
            &Kept {
                snapshot: "{".into(),
                ..kept.clone()
            },
            0,
            &|_| false
        )
        .is_err());
    // After an upgrade in place the unfinished game still runs: it is waited for, not
    // called again, and its end counts.
    let mut upgraded = Director::new(GRACE);
    upgraded.restore(&kept, 100, &|game| game == 2).unwrap();
    assert!(starts(&upgraded.tick(101, everyone)).is_empty());
    let ended = upgraded.ended(2, Some(Outcome::Draw), Some("h-2".into()), 102);
    assert!(
        ended.iter().any(|a| matches!(a, Action::Save(_))),
        "{ended:?}"
    );
}

#[test]
fn a_replayed_game_numbered_as_an_ended_one_shows_only_its_own_board_running() {
    // A restarted server numbers its games from 1 again: the replay of board 2 may be game 1,
    // the id board 1's game had under the old server.
    let mut d = with_players(Format::RoundRobin { double: false }, &["a", "b", "c", "d"]);
    d.order(Some("org"), Order::Start(1), 0).unwrap();
    let started = starts(&d.tick(1, everyone));
    d.started(started[0].key, 1);
    d.started(started[1].key, 2);
    let actions = d.ended(1, Some(Outcome::Draw), Some("h-1".into()), 2);
    let Some(Action::Save(kept)) = actions.last().cloned() else {
        panic!("{actions:?}")
    };
    let mut again = Director::new(GRACE);
    again.restore(&kept, 100, &|_| false).unwrap();
    let replay = starts(&again.tick(101, everyone));
    again.started(replay[0].key, 1);
    let boards: Vec<(u32, u64, bool)> = again
        .games_of(1)
        .iter()
        .map(|g| (g.board, g.game, g.running))
        .collect();
    assert_eq!(boards, [(1, 1, false), (2, 1, true)]);
    let lines = again.standings_lines(1).unwrap();
    assert!(
        lines.contains(&"GAME BOARD 1 1 1 1 ended h-1".to_owned()),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"GAME BOARD 1 1 2 1 running".to_owned()),
        "{lines:?}"
    );
}
