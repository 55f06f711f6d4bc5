//! Whole tournaments run through the state machine with players of hidden strengths, results
//! drawn from a seeded generator.

use std::collections::{HashMap, HashSet};

use reversi_tournament::{
    Command, Event, Format, Outcome, Phase, Settings, Side, Start, Tournament,
};

/// SplitMix64: a small seeded generator, so that every run draws the same results.
struct Rng(u64);

impl Rng {
    fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A result between players of these strengths (Elo-like points): the expected score by the
/// logistic curve, a draw a fifth of the time when the players are close.
fn result(rng: &mut Rng, first: f64, second: f64) -> Outcome {
    let expected = 1.0 / (1.0 + 10f64.powf((second - first) / 400.0));
    let draw = 0.2 * (1.0 - (2.0 * expected - 1.0).abs());
    let roll = rng.next_f64();
    if roll < draw {
        Outcome::Draw
    } else if roll < draw + (1.0 - draw) * expected {
        Outcome::FirstWins
    } else {
        Outcome::SecondWins
    }
}

/// Registers `strengths.len()` players (named by index), starts, and plays every game to the end.
fn play(format: Format, strengths: &[f64], seed: u64) -> Tournament {
    let mut t = Tournament::new(Settings::new(
        "sim",
        "reversi",
        format,
        "1+1",
        Start::ByHand,
        false,
    ));
    t.handle(Event::OpenRegistration).unwrap();
    for i in 0..strengths.len() {
        t.handle(Event::Register {
            account: format!("bot{i}"),
        })
        .unwrap();
    }
    let mut rng = Rng(seed);
    let mut pending = t.handle(Event::Start).unwrap();
    while !pending.is_empty() {
        let command = pending.remove(0);
        if let Command::StartGame {
            round,
            board,
            first,
            second,
        } = command
        {
            let strength = |name: &str| strengths[name[3..].parse::<usize>().unwrap()];
            let outcome = result(&mut rng, strength(&first), strength(&second));
            pending.extend(
                t.handle(Event::GameEnded {
                    round,
                    board,
                    outcome,
                })
                .unwrap(),
            );
        }
    }
    assert_eq!(t.phase(), &Phase::Finished { early: None });
    t
}

#[test]
fn a_double_round_robin_of_eight_meets_every_pair_on_both_sides_and_ranks_the_strong_first() {
    // Strengths in seat order, shuffled so that seeding does not give the answer away.
    let strengths = [
        1200.0, 2400.0, 1600.0, 2000.0, 1400.0, 2200.0, 1000.0, 1800.0,
    ];
    for seed in [1, 2, 3] {
        let t = play(Format::RoundRobin { double: true }, &strengths, seed);
        let history = t.history();
        assert_eq!(t.rounds(), 14);
        assert_eq!(history.games.len(), 56);
        let mut sides = HashSet::new();
        for game in &history.games {
            assert!(
                sides.insert((game.first, game.second)),
                "{}-{} twice on the same sides",
                game.first,
                game.second
            );
        }
        assert_eq!(sides.len(), 8 * 7, "every ordered pair once");
        let total: u32 = (0..8).map(|s| history.points_of(s).0).sum();
        assert_eq!(
            total,
            2 * history.games.len() as u32,
            "half points add up to a point a game"
        );
        let standings = t.standings();
        let by_strength = |seat: usize| strengths[seat];
        assert_eq!(
            by_strength(standings[0].seat),
            2400.0,
            "seed {seed}: the strongest wins\n{}",
            t.crosstable().to_text()
        );
        // Spearman's rank correlation between strength and final place: 1 would be the order
        // of strengths exactly; luck may swap neighbours, not more.
        let mut by_force: Vec<usize> = (0..8).collect();
        by_force.sort_by(|&a, &b| strengths[b].total_cmp(&strengths[a]));
        let squares: usize = standings
            .iter()
            .enumerate()
            .map(|(place, line)| {
                place
                    .abs_diff(by_force.iter().position(|&s| s == line.seat).unwrap())
                    .pow(2)
            })
            .sum();
        let rho = 1.0 - 6.0 * squares as f64 / (8.0 * 63.0);
        assert!(
            rho >= 0.9,
            "seed {seed}: rank correlation {rho}\n{}",
            t.crosstable().to_text()
        );
    }
}

#[test]
fn a_swiss_of_nine_over_five_rounds_keeps_its_rules() {
    let strengths = [
        1500.0, 1900.0, 1300.0, 2100.0, 1700.0, 1600.0, 1800.0, 1400.0, 2000.0,
    ];
    for seed in 0..20 {
        let t = play(Format::Swiss { rounds: 5 }, &strengths, seed);
        let history = t.history();
        assert_eq!(history.games.len(), 20, "seed {seed}: four games a round");
        let mut met = HashSet::new();
        for game in &history.games {
            assert!(
                met.insert((game.first.min(game.second), game.first.max(game.second))),
                "seed {seed}: a rematch"
            );
        }
        let byes: Vec<usize> = (1..=5)
            .map(|r| {
                let of_round: Vec<_> = history.byes.iter().filter(|b| b.round == r).collect();
                assert_eq!(of_round.len(), 1, "seed {seed}: one bye in round {r}");
                of_round[0].seat
            })
            .collect();
        assert_eq!(
            byes.iter().collect::<HashSet<_>>().len(),
            5,
            "seed {seed}: no one byes twice"
        );
        let mut per_round: HashMap<u32, usize> = HashMap::new();
        for game in &history.games {
            *per_round.entry(game.round).or_default() += 2;
        }
        assert!(
            per_round.values().all(|&n| n == 8),
            "seed {seed}: everyone but the bye plays"
        );
        for seat in 0..9 {
            let sides = history.sides_played(seat);
            let difference: i32 = sides
                .iter()
                .map(|s| if *s == Side::First { 1 } else { -1 })
                .sum();
            assert!(difference.abs() <= 2, "seed {seed}: seat {seat} {sides:?}");
            assert!(
                sides.windows(3).all(|w| !(w[0] == w[1] && w[1] == w[2])),
                "seed {seed}: seat {seat} {sides:?}"
            );
        }
        let total: u32 = (0..9).map(|s| history.points_of(s).0).sum();
        assert_eq!(total, 2 * 20 + 2 * 5, "seed {seed}: games and byes add up");
    }
}

#[test]
fn a_swiss_of_sixty_four_over_nine_rounds_is_paired_to_the_end() {
    // Large enough that a pairing search gone exponential would show.
    let strengths: Vec<f64> = (0..64)
        .map(|i| 1000.0 + f64::from((i * 37) % 64) * 20.0)
        .collect();
    let t = play(Format::Swiss { rounds: 9 }, &strengths, 7);
    assert_eq!(t.history().games.len(), 9 * 32);
    let met: HashSet<(usize, usize)> = t
        .history()
        .games
        .iter()
        .map(|g| (g.first.min(g.second), g.first.max(g.second)))
        .collect();
    assert_eq!(met.len(), 9 * 32, "no rematch");
}
