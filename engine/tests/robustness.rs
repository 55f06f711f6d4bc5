//! Public-API robustness: arbitrary input never panics.

use proptest::prelude::*;
use reversi_engine::player::{Player, PlayerConfig};
use reversi_engine::solve::solve;
use reversi_engine::{Board, Game, Square};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn parsers_never_panic(s in ".{0,80}") {
        let _ = Game::from_position(&s);
        let _ = Game::from_transcript(&s);
        let _ = s.parse::<Square>();
    }

    #[test]
    fn board_strings_never_panic(cells in proptest::collection::vec(prop::sample::select(vec!['X', 'O', '-', 'x', 'o', '.', '*', '?']), 60..68), side in "[XO ?]{0,3}") {
        let s: String = cells.into_iter().collect::<String>() + " " + &side;
        if let Ok(g) = Game::from_position(&s) {
            let mut bot = Player::new(PlayerConfig { level: 2, ..PlayerConfig::default() });
            let choice = bot.choose(&g);
            prop_assert_eq!(choice.is_some(), g.side_to_move().is_some());
            if let Some(sq) = choice {
                prop_assert!(g.is_legal(sq));
            }
        }
    }

    /// Any pair of bitboards, even unreachable or overlapping ones, with few
    /// empties: move generation, play and the solver stay panic-free.
    #[test]
    fn arbitrary_boards_never_panic(p in any::<u64>(), o in any::<u64>(), holes in any::<u64>()) {
        // Keep at most a handful of empties so the solve is quick.
        let keep = holes & holes.rotate_left(17) & holes.rotate_left(31) & holes.rotate_left(47);
        let b = Board::new(p | !keep, o & keep);
        let moves = b.moves();
        for sq in reversi_engine::Squares(moves) {
            let _ = b.play(sq);
        }
        if b.empty_count() <= 10 {
            let s = solve(b);
            prop_assert!((-64..=64).contains(&s.score));
        }
        let _ = reversi_engine::perft(b, 2);
    }
}

/// Tiny table sizes are accepted (clamped) and still solve correctly;
/// huge ones are clamped too (not exercised: 1.6 GB).
#[test]
fn solver_table_sizes_are_clamped() {
    let b = Game::from_transcript("f5d6c3d3c4f4f6f3e6e7")
        .expect("legal")
        .board();
    let small =
        reversi_engine::Board::new(b.player | 0x00ff_ffff_ffff_ffff & !b.opponent, b.opponent);
    for bits in [0, 1, 4, 12] {
        let mut s = reversi_engine::solve::Solver::new(bits);
        let r = s.solve(small, None).expect("no deadline");
        assert_eq!(r.score, solve(small).score);
        // Out-of-range windows are clamped, not trusted.
        let w = s
            .solve_window(small, i32::MIN, i32::MAX, None)
            .expect("no deadline");
        assert_eq!(w.score, r.score);
        let _ = s.solve_window(small, 10, -10, None);
    }
}

/// The server may move players and games between threads.
#[test]
fn public_types_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Player>();
    check::<Game>();
    check::<Board>();
    check::<reversi_engine::solve::Solver>();
}
