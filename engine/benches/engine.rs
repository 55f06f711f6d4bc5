//! Criterion benchmarks: move generation, flips, perft and the solver.
//!
//! `cargo bench -p reversi-engine` (each group takes a few seconds).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use reversi_engine::{parse_obf, perft, perft_portable_only, solve::solve, Board, Game, Square};

/// Midgame positions reached by a fixed pseudo-random walk from the start.
fn positions() -> Vec<Board> {
    let mut out = Vec::new();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..64 {
        let mut g = Game::new();
        while g.empty_count() > 30 && g.side_to_move().is_some() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let legal: Vec<_> = g.legal_moves().collect();
            g.play(legal[(x % legal.len() as u64) as usize])
                .expect("legal");
        }
        out.push(g.board());
    }
    out
}

fn bench_moves(c: &mut Criterion) {
    let boards = positions();
    let mut group = c.benchmark_group("moves");
    group.bench_function("64 positions", |b| {
        b.iter(|| {
            boards
                .iter()
                .fold(0u64, |acc, bd| acc ^ black_box(bd).moves())
        })
    });
    group.finish();
}

fn bench_flips(c: &mut Criterion) {
    let pairs: Vec<(Board, Square)> = positions()
        .into_iter()
        .filter_map(|b| b.legal_squares().next().map(|sq| (b, sq)))
        .collect();
    let mut group = c.benchmark_group("flips");
    group.bench_function("one move in each of 64 positions", |b| {
        b.iter(|| {
            pairs
                .iter()
                .fold(0u64, |acc, (bd, sq)| acc ^ black_box(bd).flips(*sq))
        })
    });
    group.finish();
}

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.bench_function("depth 8 (390,216 leaves)", |b| {
        b.iter(|| perft(black_box(Board::start()), 8))
    });
    group.bench_function("depth 8, portable move generator", |b| {
        b.iter(|| perft_portable_only(black_box(Board::start()), 8))
    });
    group.finish();
}

fn bench_solve(c: &mut Criterion) {
    // FFO #40 (20 empties, +38), the first of the set.
    let board = match parse_obf(include_str!("../data/ffo-40-59.obf")).first() {
        Some((_, Ok(position))) => position.game.board(),
        _ => panic!("data/ffo-40-59.obf starts with FFO #40"),
    };
    let mut group = c.benchmark_group("solve");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("ffo 40", |b| b.iter(|| solve(black_box(board)).score));
    group.finish();
}

criterion_group!(benches, bench_moves, bench_flips, bench_perft, bench_solve);
criterion_main!(benches);
