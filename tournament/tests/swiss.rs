//! Swiss pairings: the Dutch system's first rounds worked by hand from C.04.3, its absolute
//! criteria, and properties over random tournaments.

use std::collections::HashSet;

use proptest::prelude::*;
use reversi_tournament::swiss::{pair, Pairing, PairingError};
use reversi_tournament::{ByeRecord, GameRecord, History, Outcome, Points, Side};

/// Records `pairing` as round `round` with `outcomes` (one per game, in board order).
fn play(history: &mut History, round: u32, pairing: &Pairing, outcomes: &[Outcome]) {
    for (board, (&(first, second), &outcome)) in pairing.games.iter().zip(outcomes).enumerate() {
        history.games.push(GameRecord {
            round,
            board: board as u32 + 1,
            first,
            second,
            outcome: Some(outcome),
        });
    }
    if let Some(seat) = pairing.bye {
        history.byes.push(ByeRecord {
            round,
            seat,
            points: Points::WIN,
        });
    }
}

/// 1-based pairing numbers, as the rules are written.
fn numbers(pairing: &Pairing) -> Vec<(usize, usize)> {
    pairing.games.iter().map(|&(a, b)| (a + 1, b + 1)).collect()
}

#[test]
fn round_one_pairs_the_top_half_with_the_bottom_half_alternating_sides() {
    // C.04.3: S1 = {1..4} against S2 = {5..8}; with the lot giving pairing number 1 the first
    // move, odd-numbered S1 players move first and even-numbered ones second (E.5).
    let seats: Vec<usize> = (0..8).collect();
    let round1 = pair(&seats, &History::default(), Side::First).unwrap();
    assert_eq!(numbers(&round1), vec![(1, 5), (6, 2), (3, 7), (8, 4)]);
    assert_eq!(round1.bye, None);
    let drawn_second = pair(&seats, &History::default(), Side::Second).unwrap();
    assert_eq!(numbers(&drawn_second), vec![(5, 1), (2, 6), (7, 3), (4, 8)]);
}

#[test]
fn round_one_with_nine_players_gives_the_bye_to_the_last() {
    let seats: Vec<usize> = (0..9).collect();
    let round1 = pair(&seats, &History::default(), Side::First).unwrap();
    assert_eq!(round1.bye, Some(8));
    assert_eq!(numbers(&round1), vec![(1, 5), (6, 2), (3, 7), (8, 4)]);
}

#[test]
fn rounds_one_and_two_match_a_published_worked_example() {
    // The worked example of the Chess Stack Exchange answer to "How to organize a chess
    // tournament" (chess.stackexchange.com/questions/468): 8 players, "Round 1: 1 vs 5, 6 vs 2,
    // 3 vs 7, 8 vs 4"; the top four win; "Round 2: 4 vs 1, 2 vs 3, 5 vs 8, 7 vs 6". Why, by C.04.3:
    // Round 1: 1-5, 6-2, 3-7, 8-4, and the higher seed wins every game: 1, 2, 3, 4 have a point.
    // Colour preferences (A.6), all mild: 1 and 3 moved first and want second; 2 and 4 moved second
    // and want first. Score bracket {1,2,3,4}: S1 = {1,2}, S2 = {3,4}. 1-3 and 2-4 would leave
    // two players without their preferred side each, the transposition 1-4, 2-3 leaves none, and
    // the colour criterion (C.12, fewest players not getting their preference) outranks the order
    // of transpositions: 1-4 and 2-3. Sides by E.1: 4-1, 2-3.
    // Bracket {5,6,7,8}: 5 and 7 want first, 6 and 8 second: not 5-7/6-8 but 5-8, 6-7; sides by
    // E.1: 5-8, 7-6. Boards: the 1-point pairs first, each bracket by its higher ranked player.
    let seats: Vec<usize> = (0..8).collect();
    let mut history = History::default();
    let round1 = pair(&seats, &history, Side::First).unwrap();
    use Outcome::{FirstWins, SecondWins};
    play(
        &mut history,
        1,
        &round1,
        &[FirstWins, SecondWins, FirstWins, SecondWins],
    );
    assert_eq!(numbers(&round1), vec![(1, 5), (6, 2), (3, 7), (8, 4)]);
    let round2 = pair(&seats, &history, Side::First).unwrap();
    assert_eq!(numbers(&round2), vec![(4, 1), (2, 3), (5, 8), (7, 6)]);
}

#[test]
fn a_score_bracket_is_paired_s1_against_s2_when_colours_allow() {
    // Round 1 as above but the first-named player wins every game: 1, 6, 3, 8 lead, all having
    // moved first (all want second: colours cannot separate them). Bracket {1,3,6,8}:
    // S1 = {1,3}, S2 = {6,8}: 1-6 and 3-8. Between two mild preferences for the same side, E.3
    // finds no earlier difference, so E.4 gives the higher ranked player its preference (second):
    // 6-1, 8-3. The losers {2,4,5,7} all moved second: S1 {2,4}, S2 {5,7}: 2-5, 4-7, and E.4
    // gives 2 and 4 the first move.
    let seats: Vec<usize> = (0..8).collect();
    let mut history = History::default();
    let round1 = pair(&seats, &history, Side::First).unwrap();
    play(&mut history, 1, &round1, &[Outcome::FirstWins; 4]);
    let round2 = pair(&seats, &history, Side::First).unwrap();
    assert_eq!(numbers(&round2), vec![(6, 1), (8, 3), (2, 5), (4, 7)]);
}

#[test]
fn players_who_met_are_not_paired_again() {
    let mut history = History::default();
    history.games.push(GameRecord {
        round: 1,
        board: 1,
        first: 0,
        second: 1,
        outcome: Some(Outcome::Draw),
    });
    assert_eq!(
        pair(&[0, 1], &history, Side::First),
        Err(PairingError::NoLegalPairing { players: 2 })
    );
    let four = pair(&[0, 1, 2, 3], &history, Side::First).unwrap();
    for &(a, b) in &four.games {
        assert!(
            !(a.min(b) == 0 && a.max(b) == 1),
            "0 and 1 met again: {four:?}"
        );
    }
}

#[test]
fn two_players_who_must_both_move_second_do_not_meet() {
    // 0 and 1 have both moved first twice running (absolute preference for second): C.3 forbids
    // pairing them, whatever the scores.
    let mut history = History::default();
    for (round, (a, b)) in [(1, (0, 2)), (1, (1, 3)), (2, (0, 3)), (2, (1, 2))] {
        history.games.push(GameRecord {
            round,
            board: 1,
            first: a,
            second: b,
            outcome: Some(Outcome::Draw),
        });
    }
    assert_eq!(
        pair(&[0, 1], &history, Side::First),
        Err(PairingError::NoLegalPairing { players: 2 })
    );
}

#[test]
fn the_bye_goes_to_the_lowest_ranked_player_without_one() {
    // Seat 2 is last on points but has had the bye: it passes to seat 1, the lowest ranked of
    // the others.
    let mut history = History::default();
    history.games.push(GameRecord {
        round: 1,
        board: 1,
        first: 0,
        second: 1,
        outcome: Some(Outcome::Draw),
    });
    history.byes.push(ByeRecord {
        round: 1,
        seat: 2,
        points: Points::LOSS,
    });
    let round2 = pair(&[0, 1, 2], &history, Side::First).unwrap();
    assert_eq!(round2.bye, Some(1));
    assert_eq!(round2.games.len(), 1);
}

/// Checks one round's pairing against the absolute criteria, then records it.
fn check_and_play(
    history: &mut History,
    round: u32,
    seats: usize,
    pairing: &Pairing,
    outcomes: &[Outcome],
) {
    let mut seen = HashSet::new();
    for &(a, b) in &pairing.games {
        assert!(
            seen.insert(a) && seen.insert(b),
            "round {round}: a player paired twice"
        );
        assert!(
            !history.have_met(a, b),
            "round {round}: {a} and {b} meet again"
        );
    }
    let bye = pairing.bye.expect("an odd field has one bye a round");
    assert!(seen.insert(bye), "round {round}: the bye is also paired");
    assert_eq!(seen.len(), seats, "round {round}: someone is left out");
    assert!(
        !history.byes.iter().any(|b| b.seat == bye),
        "round {round}: {bye} has a second bye"
    );
    play(history, round, pairing, outcomes);
    for seat in 0..seats {
        let sides = history.sides_played(seat);
        let difference: i32 = sides
            .iter()
            .map(|s| if *s == Side::First { 1 } else { -1 })
            .sum();
        assert!(
            difference.abs() <= 2,
            "round {round}: seat {seat} sides {sides:?}"
        );
        assert!(
            sides.windows(3).all(|w| !(w[0] == w[1] && w[1] == w[2])),
            "round {round}: seat {seat} sides {sides:?}"
        );
    }
}

fn outcome(code: u8) -> Outcome {
    match code % 3 {
        0 => Outcome::FirstWins,
        1 => Outcome::SecondWins,
        _ => Outcome::Draw,
    }
}

proptest! {
    #[test]
    fn nine_players_five_rounds_keep_the_absolute_criteria(codes in proptest::collection::vec(0u8..3, 20)) {
        let seats: Vec<usize> = (0..9).collect();
        let mut history = History::default();
        for round in 1..=5u32 {
            let pairing = pair(&seats, &history, Side::First).expect("9 players can always be paired for 5 rounds");
            let start = (round as usize - 1) * 4;
            let outcomes: Vec<Outcome> = codes[start..start + 4].iter().map(|&c| outcome(c)).collect();
            check_and_play(&mut history, round, 9, &pairing, &outcomes);
        }
        prop_assert_eq!(history.byes.len(), 5);
    }
}
