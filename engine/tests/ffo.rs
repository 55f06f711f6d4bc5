//! The FFO endgame test set #40-#59 (`data/ffo-40-59.obf`): every position
//! solved exactly, its score and best move checked against the published
//! solutions. #40 also runs in the unit tests; the rest take seconds to
//! tens of seconds each in a release build, so they are ignored here:
//!
//! ```text
//! cargo test --release -p reversi-engine --test ffo -- --ignored
//! ```

use reversi_engine::{parse_obf, solve::solve, ObfPosition};

fn ffo(number: usize) -> ObfPosition {
    let set = parse_obf(include_str!("../data/ffo-40-59.obf"));
    assert_eq!(set.len(), 20, "the file holds #40 to #59");
    match set.into_iter().nth(number - 40) {
        Some((_, Ok(position))) => position,
        other => panic!("FFO #{number}: {other:?}"),
    }
}

fn check(number: usize) {
    let position = ffo(number);
    let solution = solve(position.game.board());
    assert_eq!(Some(solution.score), position.best_score(), "FFO #{number}");
    let best = solution.best.expect("a move");
    assert!(
        position.best_moves().contains(&best),
        "FFO #{number}: {best} is not among {:?}",
        position.best_moves()
    );
}

#[test]
fn every_position_parses_with_its_solution() {
    for number in 40..=59 {
        let position = ffo(number);
        assert!(position.game.side_to_move().is_some(), "#{number}");
        assert!(!position.best_moves().is_empty(), "#{number}");
        for sq in position.best_moves() {
            assert!(position.game.is_legal(sq), "#{number}: {sq}");
        }
    }
}

macro_rules! ffo_tests {
    ($($name:ident = $number:literal),* $(,)?) => {
        $(
            #[test]
            #[ignore = "slow: run with --release -- --ignored"]
            fn $name() {
                check($number);
            }
        )*
    };
}

ffo_tests!(
    ffo_41 = 41,
    ffo_42 = 42,
    ffo_43 = 43,
    ffo_44 = 44,
    ffo_45 = 45,
    ffo_46 = 46,
    ffo_47 = 47,
    ffo_48 = 48,
    ffo_49 = 49,
    ffo_50 = 50,
    ffo_51 = 51,
    ffo_52 = 52,
    ffo_53 = 53,
    ffo_54 = 54,
    ffo_55 = 55,
    ffo_56 = 56,
    ffo_57 = 57,
    ffo_58 = 58,
    ffo_59 = 59,
);
