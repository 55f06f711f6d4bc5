//! Tie-breaks on cases worked by hand, and the crosstable's three renderings.

use reversi_tournament::{
    standings, ByeRecord, Crosstable, GameRecord, History, Outcome, Points, TieBreak,
};

fn game(round: u32, first: usize, second: usize, outcome: Outcome) -> GameRecord {
    GameRecord {
        round,
        board: 1,
        first,
        second,
        outcome: Some(outcome),
    }
}

fn bye(round: u32, seat: usize) -> ByeRecord {
    ByeRecord {
        round,
        seat,
        points: Points::WIN,
    }
}

/// A four-player round-robin (seats 0..3 are A, B, C, D).
fn round_robin_case() -> History {
    use Outcome::*;
    History {
        games: vec![
            game(1, 0, 1, FirstWins), // A beats B
            game(1, 2, 3, Draw),      // C draws D
            game(2, 2, 0, FirstWins), // C beats A
            game(2, 1, 3, FirstWins), // B beats D
            game(3, 0, 3, FirstWins), // A beats D
            game(3, 1, 2, FirstWins), // B beats C
        ],
        byes: vec![],
    }
}

#[test]
fn sonneborn_berger_worked_by_hand() {
    // Scores: A 2 (beat B, D), B 2 (beat C, D), C 1.5 (beat A, drew D), D 0.5 (drew C).
    // SB (C.07 9.1: the scores of the opponents beaten, plus half those of the opponents drawn):
    //   A: B 2 + D 0.5             = 2.5
    //   B: C 1.5 + D 0.5           = 2
    //   C: A 2 + half of D's 0.5   = 2.25
    //   D: half of C's 1.5         = 0.75
    // A and B tie on points; SB puts A first.
    let history = round_robin_case();
    let lines = standings(4, &history, &[TieBreak::SonnebornBerger]);
    let got: Vec<(usize, usize, Points, f64)> = lines
        .iter()
        .map(|l| (l.rank, l.seat, l.points, l.tie_breaks[0]))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, 0, Points(4), 2.5),
            (2, 1, Points(4), 2.0),
            (3, 2, Points(3), 2.25),
            (4, 3, Points(1), 0.75)
        ]
    );
}

/// A five-player Swiss over three rounds with a bye (worth a win) each round; seats 0..4 are
/// P1..P5.
fn swiss_case() -> History {
    use Outcome::*;
    History {
        games: vec![
            game(1, 0, 3, FirstWins),  // P1 beats P4
            game(1, 1, 4, Draw),       // P2 draws P5; P3 has the bye
            game(2, 2, 0, FirstWins),  // P3 beats P1
            game(2, 4, 3, SecondWins), // P4 beats P5; P2 has the bye
            game(3, 0, 1, Draw),       // P1 draws P2
            game(3, 3, 2, Draw),       // P4 draws P3; P5 has the bye
        ],
        byes: vec![bye(1, 2), bye(2, 1), bye(3, 4)],
    }
}

#[test]
fn buchholz_worked_by_hand() {
    // Scores: P1 1+0+½ = 1.5; P2 ½+1(bye)+½ = 2; P3 1(bye)+1+½ = 2.5; P4 0+1+½ = 1.5;
    // P5 ½+0+1(bye) = 1.5. Total 9 = 3 rounds x (2 games + 1 bye).
    // Buchholz, FIDE Tie-Break Regulations (Handbook C.07, from 1 July 2023) art. 8.1: "the
    // sum of the scores of each of the opponents of a participant"; a bye counting the
    // player's own score (the dummy opponent of 16.4); Cut-1 and Median-1 as art. 14:
    //   P1: P4 1.5, P3 2.5, P2 2      = 6    cut-1 (drop 1.5) 4.5  median-1 (drop 1.5, 2.5) 2
    //   P2: P5 1.5, bye 2, P1 1.5     = 5    cut-1 3.5             median-1 1.5
    //   P3: bye 2.5, P1 1.5, P4 1.5   = 5.5  cut-1 4               median-1 1.5
    //   P4: P1 1.5, P5 1.5, P3 2.5    = 5.5  cut-1 4               median-1 1.5
    //   P5: P2 2, P4 1.5, bye 1.5     = 5    cut-1 3.5             median-1 1.5
    // Ranked by points, then BH-C1, then BH: P3, P2, P1 (4.5), P4 (4), P5 (3.5).
    let history = swiss_case();
    let order = [
        TieBreak::BuchholzCut1,
        TieBreak::Buchholz,
        TieBreak::BuchholzMedian1,
    ];
    let lines = standings(5, &history, &order);
    let got: Vec<(usize, usize, Points, Vec<f64>)> = lines
        .iter()
        .map(|l| (l.rank, l.seat, l.points, l.tie_breaks.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, 2, Points(5), vec![4.0, 5.5, 1.5]),
            (2, 1, Points(4), vec![3.5, 5.0, 1.5]),
            (3, 0, Points(3), vec![4.5, 6.0, 2.0]),
            (4, 3, Points(3), vec![4.0, 5.5, 1.5]),
            (5, 4, Points(3), vec![3.5, 5.0, 1.5]),
        ]
    );
}

#[test]
fn players_no_tie_break_separates_share_a_rank() {
    // Two players, one draw: equal on points and on Buchholz.
    let history = History {
        games: vec![game(1, 0, 1, Outcome::Draw)],
        byes: vec![],
    };
    let lines = standings(2, &history, &[TieBreak::Buchholz]);
    assert_eq!((lines[0].rank, lines[1].rank), (1, 1));
}

fn swiss_table() -> Crosstable {
    let accounts: Vec<String> = ["p1", "p2", "p3", "p4", "p5"].map(String::from).to_vec();
    Crosstable::new(
        &accounts,
        &swiss_case(),
        3,
        &[TieBreak::BuchholzCut1, TieBreak::Buchholz],
    )
}

#[test]
fn the_crosstable_as_text() {
    // Ranks: p3 1, p2 2, p1 3, p4 4, p5 5. p1's rounds: beat p4 (rank 4) moving first, lost to
    // p3 (rank 1) moving second, drew p2 (rank 2) moving first.
    let expected = [
        "  #  Name    Pts    R1    R2    R3  BH-C1     BH",
        "  1  p3      2.5   bye   3f1   4s=      4    5.5",
        "  2  p2        2   5f=   bye   3s=    3.5      5",
        "  3  p1      1.5   4f1   1s0   2f=    4.5      6",
        "  4  p4      1.5   3s0   5s1   1f=      4    5.5",
        "  5  p5      1.5   2s=   4f0   bye    3.5      5",
    ];
    let text = swiss_table().to_text();
    assert_eq!(text.lines().collect::<Vec<_>>(), expected);
}

#[test]
fn the_crosstable_as_csv_and_json() {
    let table = swiss_table();
    let csv = table.to_csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "rank,account,points,round1,round2,round3,BH-C1,BH"
    );
    assert_eq!(lines[3], "3,p1,1.5,4f1,1s0,2f=,4.5,6");
    assert_eq!(lines.len(), 6);
    let json: serde_json::Value = serde_json::from_str(&table.to_json()).unwrap();
    assert_eq!(json["rows"][2]["account"], "p1");
    assert_eq!(json["rows"][2]["rounds"][0]["kind"], "game");
    assert_eq!(json["rows"][2]["rounds"][0]["opponent_rank"], 4);
    assert_eq!(json["rows"][0]["rounds"][0]["kind"], "bye");
    let back: Crosstable = serde_json::from_str(&table.to_json()).unwrap();
    assert_eq!(back, table);
}

#[test]
fn a_name_with_a_comma_is_quoted_in_csv() {
    let accounts = vec!["a,b".to_string(), "c\"d".to_string()];
    let history = History {
        games: vec![game(1, 0, 1, Outcome::FirstWins)],
        byes: vec![],
    };
    let csv = Crosstable::new(&accounts, &history, 1, &[TieBreak::SonnebornBerger]).to_csv();
    assert!(csv.contains("1,\"a,b\",1,2f1,"), "{csv}");
    assert!(csv.contains("2,\"c\"\"d\",0,1s0,"), "{csv}");
}
