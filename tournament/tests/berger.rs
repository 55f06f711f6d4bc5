//! The round-robin schedule against FIDE's published Berger tables (Handbook C.05 Annex 1).

use std::collections::HashMap;

use reversi_tournament::round_robin::{berger_table, rounds, schedule};

/// Parses "1-8 2-7 …" rows: first-named moves first.
fn table(rows: &[&str]) -> Vec<Vec<(usize, usize)>> {
    rows.iter()
        .map(|row| {
            row.split_whitespace()
                .map(|pair| {
                    let (a, b) = pair.split_once('-').expect("a-b");
                    (a.parse().expect("number"), b.parse().expect("number"))
                })
                .collect()
        })
        .collect()
}

#[test]
fn eight_players_match_the_published_berger_table() {
    let published = table(&[
        "1-8 2-7 3-6 4-5",
        "8-5 6-4 7-3 1-2",
        "2-8 3-1 4-7 5-6",
        "8-6 7-5 1-4 2-3",
        "3-8 4-2 5-1 6-7",
        "8-7 1-6 2-5 3-4",
        "4-8 5-3 6-2 7-1",
    ]);
    assert_eq!(berger_table(8), published);
    assert_eq!(
        berger_table(7),
        published,
        "7 players use the 8-player table, 8 being the rest"
    );
}

#[test]
fn nine_players_match_the_published_berger_table() {
    let published = table(&[
        "1-10 2-9 3-8 4-7 5-6",
        "10-6 7-5 8-4 9-3 1-2",
        "2-10 3-1 4-9 5-8 6-7",
        "10-7 8-6 9-5 1-4 2-3",
        "3-10 4-2 5-1 6-9 7-8",
        "10-8 9-7 1-6 2-5 3-4",
        "4-10 5-3 6-2 7-1 8-9",
        "10-9 1-8 2-7 3-6 4-5",
        "5-10 6-4 7-3 8-2 9-1",
    ]);
    assert_eq!(berger_table(9), published);
}

#[test]
fn nine_players_rest_once_each_and_meet_everyone_once() {
    let rounds = schedule(9, 1);
    assert_eq!(rounds.len(), 9);
    let mut rested: Vec<usize> = rounds
        .iter()
        .map(|r| r.rests.expect("odd: someone rests"))
        .collect();
    rested.sort();
    assert_eq!(rested, (0..9).collect::<Vec<_>>());
    let mut met = HashMap::new();
    for round in &rounds {
        assert_eq!(round.games.len(), 4);
        for &(a, b) in &round.games {
            *met.entry((a.min(b), a.max(b))).or_insert(0) += 1;
        }
    }
    assert_eq!(met.len(), 36);
    assert!(met.values().all(|&n| n == 1));
}

#[test]
fn a_double_round_robin_meets_each_pair_once_on_each_side() {
    for players in 2..=12 {
        let rounds = schedule(players, 2);
        assert_eq!(rounds.len() as u32, self::rounds(players, 2));
        let mut sides = HashMap::new();
        for round in &rounds {
            for &(first, second) in &round.games {
                assert!(
                    sides.insert((first, second), ()).is_none(),
                    "{players}: {first}-{second} twice"
                );
            }
        }
        assert_eq!(sides.len(), players * (players - 1), "{players} players");
    }
}

#[test]
fn a_double_round_robin_never_gives_the_same_side_three_times_running() {
    for players in [4, 6, 8, 10] {
        let rounds = schedule(players, 2);
        for seat in 0..players {
            let sides: Vec<bool> = rounds
                .iter()
                .filter_map(|r| {
                    r.games
                        .iter()
                        .find_map(|&(f, s)| (f == seat || s == seat).then_some(f == seat))
                })
                .collect();
            assert!(
                sides.windows(3).all(|w| !(w[0] == w[1] && w[1] == w[2])),
                "{players} players, seat {seat}: {sides:?}"
            );
        }
    }
}
