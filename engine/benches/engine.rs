//! Criterion benchmarks: move generation, flips, perft and the solver.
//!
//! `cargo bench -p reversi-engine` (each group takes a few seconds).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use reversi_engine::{moves, perft, solve::solve, Board, Game};

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
    group.bench_function("dispatched x64", |b| {
        b.iter(|| {
            boards.iter().fold(0u64, |acc, bd| {
                acc ^ moves::moves(black_box(bd.player), bd.opponent)
            })
        })
    });
    group.bench_function("portable x64", |b| {
        b.iter(|| {
            boards.iter().fold(0u64, |acc, bd| {
                acc ^ moves::portable::moves(black_box(bd.player), bd.opponent)
            })
        })
    });
    group.finish();
}

fn bench_flips(c: &mut Criterion) {
    let boards = positions();
    let pairs: Vec<(Board, u32)> = boards
        .iter()
        .filter_map(|b| {
            let m = moves::moves(b.player, b.opponent);
            (m != 0).then(|| (*b, m.trailing_zeros()))
        })
        .collect();
    let mut group = c.benchmark_group("flips");
    group.bench_function("dispatched", |b| {
        b.iter(|| {
            pairs.iter().fold(0u64, |acc, (bd, sq)| {
                acc ^ moves::flips(black_box(bd.player), bd.opponent, *sq)
            })
        })
    });
    group.bench_function("portable", |b| {
        b.iter(|| {
            pairs.iter().fold(0u64, |acc, (bd, sq)| {
                acc ^ moves::portable::flips(black_box(bd.player), bd.opponent, *sq)
            })
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
    group.finish();
}

fn bench_solve(c: &mut Criterion) {
    // FFO #40 (20 empties, +38).
    let board =
        Game::from_position("O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X")
            .expect("valid position")
            .board();
    let mut group = c.benchmark_group("solve");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("ffo 40", |b| b.iter(|| solve(black_box(board)).score));
    group.finish();
}

criterion_group!(benches, bench_moves, bench_flips, bench_perft, bench_solve);
criterion_main!(benches);
