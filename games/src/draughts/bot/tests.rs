use std::time::Duration;

use super::*;
use crate::bot::RandomBot;
use crate::draughts::game::Draughts;
use crate::game::Outcome;

const BLACK: Team = Team::FIRST;
const WHITE: Team = Team::SECOND;

/// Plays `game` to its end (the draw rules end every game); `players[0]`
/// is Black. The number of plies played.
fn play_out(game: &mut Draughts, players: &mut [&mut dyn Bot; 2], budget: Duration) -> usize {
    let mut plies = 0;
    while let Some(team) = game.turn() {
        let bot = &mut players[usize::from(team.0)];
        let action = bot.choose(game, team, budget).expect("a move");
        game.play(team, &action, 0).expect("a legal move");
        plies += 1;
    }
    plies
}

fn search(fen: &str, depth: u32) -> Report {
    let position: Position = fen.parse().unwrap();
    let moves = position.legal_moves();
    let mut bot = DraughtsBot::with_table_bits(16).max_depth(depth);
    bot.think(&position, &[], &moves, Duration::from_secs(60))
        .unwrap()
}

#[test]
fn a_won_position_is_proven_and_a_lost_one_too() {
    // Black's last man steps to 18 or 19, and White's king takes it either way.
    let lost = search("B:WK23:B15", 6);
    assert_eq!(lost.score, Score::Loss(2), "{lost:?}");
    let won = search("W:WK23:B18", 6);
    assert_eq!(won.score, Score::Win(1), "{won:?}");
}

#[test]
fn two_kings_beat_one_king_even_in_the_double_corner() {
    // The lone king sits in White's double corner, its best defence.
    let mut game = Draughts::from_position("B:WK28:BK1,K3".parse().unwrap());
    let mut black = DraughtsBot::with_table_bits(16).max_depth(40);
    let mut white = DraughtsBot::with_table_bits(16).max_depth(8);
    let long = Duration::from_secs(600);
    let first = black.choose(&game, BLACK, long).unwrap();
    let report = black.last_report().unwrap().clone();
    let Score::Win(plies) = report.score else {
        panic!("not proven: {report:?}");
    };
    assert!(plies <= 2 * 40, "{plies} plies");
    // Played out against a defender searching 8 plies (fixed depths: the
    // same game on any machine), Black wins on the board within the proof.
    game.play(BLACK, &first, 0).unwrap();
    let played = 1 + play_out(&mut game, &mut [&mut black, &mut white], long);
    assert_eq!(game.outcome().unwrap().winner(), Some(BLACK), "{played}");
    assert!(played <= plies as usize, "{played} plies, proof {plies}");
}

#[test]
fn without_time_the_first_iteration_still_completes() {
    let p = Position::start();
    let mut bot = DraughtsBot::with_table_bits(12);
    let report = bot
        .think(&p, &[], &p.legal_moves(), Duration::ZERO)
        .unwrap();
    assert_eq!(report.depth, 1);
    assert!(matches!(report.score, Score::Value(_)));
}

#[test]
fn one_king_each_is_no_proven_win() {
    let report = search("B:WK28:BK1", 12);
    assert!(matches!(report.score, Score::Value(_)), "{report:?}");
}

#[test]
fn the_bot_beats_a_random_mover() {
    for seed in 1..=3 {
        let mut game = Draughts::new();
        let mut bot = DraughtsBot::with_table_bits(16);
        let mut random = RandomBot::new(seed);
        let bot_team = if seed % 2 == 0 { BLACK } else { WHITE };
        let mut players: [&mut dyn Bot; 2] = if bot_team == BLACK {
            [&mut bot, &mut random]
        } else {
            [&mut random, &mut bot]
        };
        play_out(&mut game, &mut players, Duration::from_millis(5));
        assert!(
            matches!(game.outcome(), Some(Outcome::Win { team, .. }) if *team == bot_team),
            "seed {seed}: {:?}",
            game.outcome()
        );
    }
}

#[test]
fn the_bot_continues_a_capture_under_way() {
    let mut game = Draughts::from_position("B:W10,18,19,31:B6".parse().unwrap());
    let first = game.parse_action("6x15").unwrap();
    game.play(BLACK, &first, 0).unwrap();
    let mut bot = DraughtsBot::with_table_bits(12);
    let action = bot.choose(&game, BLACK, Duration::from_millis(5)).unwrap();
    assert!(game.legal_actions(BLACK).contains(&action));
    game.play(BLACK, &action, 0).unwrap();
    assert_eq!(game.history().len(), 1);
}

#[test]
fn the_bot_reads_the_past_the_draw_rules_see() {
    let mut game = Draughts::new();
    for text in ["11-15", "23-19", "8-11", "22-17"] {
        let team = game.turn().unwrap();
        let action = game.parse_action(text).unwrap();
        game.play(team, &action, 0).unwrap();
    }
    let seen = read(&game, BLACK).unwrap();
    assert_eq!(seen.position, *game.position());
    assert!(
        seen.past.is_empty(),
        "men moved: no earlier position can recur"
    );
    let mut kings = Draughts::from_position("B:WK32:BK1".parse().unwrap());
    for text in ["1-5", "32-28"] {
        let team = kings.turn().unwrap();
        let action = kings.parse_action(text).unwrap();
        kings.play(team, &action, 0).unwrap();
    }
    // Set up from a position: the record's FEN tag gives the first position.
    let seen = read(&kings, BLACK).unwrap();
    assert_eq!(seen.position, *kings.position());
    assert_eq!(seen.past.len(), 2);
}

/// `cargo test --release -p reversi-games -- --ignored bot_wins_every_game --nocapture`
#[test]
#[ignore = "100 games: about a minute in release"]
fn bot_wins_every_game_of_100_against_a_random_mover() {
    let budget = Duration::from_millis(20);
    let mut wins = 0;
    let mut nodes = 0;
    let mut secs = 0.0;
    for seed in 1..=100 {
        let mut game = Draughts::new();
        let mut bot = DraughtsBot::new();
        let mut random = RandomBot::new(seed);
        let bot_team = Team((seed % 2) as u8);
        while let Some(team) = game.turn() {
            let action = if team == bot_team {
                let a = bot.choose(&game, team, budget);
                if let Some(r) = bot.last_report() {
                    nodes += r.nodes;
                    secs += r.elapsed.as_secs_f64();
                }
                a
            } else {
                random.choose(&game, team, budget)
            };
            game.play(team, &action.unwrap(), 0).unwrap();
        }
        let won = game.outcome().unwrap().winner() == Some(bot_team);
        wins += usize::from(won);
        if !won {
            eprintln!("seed {seed}: {:?}", game.outcome());
        }
    }
    eprintln!(
        "{wins}/100 wins at {} ms a move, {:.0} nodes/s",
        budget.as_millis(),
        nodes as f64 / secs
    );
    assert_eq!(wins, 100);
}
