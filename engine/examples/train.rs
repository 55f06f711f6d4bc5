//! Fits the learned evaluation's weights to self-play positions and writes
//! `data/eval.bin`.
//!
//! ```text
//! cargo run --release -p reversi-engine --example train -- \
//!     [--epochs 12] [--lr 0.004] [--decay 0.75] [--scalar-rate 0.02] \
//!     [--out engine/data/eval.bin] [--init engine/data/eval.bin] \
//!     [--empties 11-20] /tmp/games.bin...
//! ```
//!
//! `--init` starts from existing weights instead of zeros, and `--empties`
//! loads only the positions with that many empty squares: together they
//! refit the stages those positions fall in (each stage has weights of its
//! own) and keep the others as they were.
//!
//! Input files hold the 17-byte records of `examples/selfplay.rs`. The
//! model is linear: per game stage, the sum of one weight per pattern
//! instance plus the scalar terms, predicting the final disc difference.
//! It is fitted by stochastic gradient descent on squared error (shuffled,
//! decaying step), holding out every 20th position to report the error.

use std::time::Instant;

use std::ops::RangeInclusive;

use reversi_engine::training::{
    for_each_feature, scalars, stage, weights_from_bytes, weights_per_stage, weights_to_bytes,
    SCALARS, STAGES,
};

/// One position's features, ready for training.
struct Sample {
    /// Weight indices (already offset to the position's stage).
    idx: Vec<u32>,
    /// Index of the stage's first scalar weight.
    scalar_base: u32,
    scalars: [f32; SCALARS],
    label: f32,
}

fn load(paths: &[String], empties: &RangeInclusive<u32>) -> Vec<Sample> {
    let per_stage = weights_per_stage();
    let mut out = Vec::new();
    for path in paths {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
        for r in bytes.chunks_exact(17) {
            let p = u64::from_le_bytes(r[0..8].try_into().unwrap());
            let o = u64::from_le_bytes(r[8..16].try_into().unwrap());
            let label = r[16] as i8 as f32;
            let n = (!(p | o)).count_ones();
            if !empties.contains(&n) {
                continue;
            }
            let base = stage(n) * per_stage;
            let mut idx = Vec::with_capacity(64);
            for_each_feature(p, o, |i| idx.push((base + i) as u32));
            out.push(Sample {
                idx,
                scalar_base: (base + per_stage - SCALARS) as u32,
                scalars: scalars(p, o),
                label,
            });
        }
    }
    out
}

fn predict(w: &[f32], s: &Sample) -> f32 {
    let mut sum: f32 = s.idx.iter().map(|&i| w[i as usize]).sum();
    for (j, x) in s.scalars.iter().enumerate() {
        sum += w[s.scalar_base as usize + j] * x;
    }
    sum
}

fn mse(w: &[f32], samples: &[&Sample]) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|s| {
            let e = (predict(w, s) - s.label) as f64;
            e * e
        })
        .sum();
    total / samples.len().max(1) as f64
}

fn main() {
    let mut epochs = 12;
    let mut lr0 = 0.004f32;
    let mut decay = 0.75f32;
    let mut scalar_rate = 0.02f32;
    let mut out = "engine/data/eval.bin".to_string();
    let mut inputs = Vec::new();
    let mut init = None;
    let mut empties = 0..=60;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--epochs" => epochs = it.next().and_then(|v| v.parse().ok()).expect("--epochs N"),
            "--out" => out = it.next().expect("--out PATH"),
            "--init" => init = Some(it.next().expect("--init PATH")),
            "--empties" => {
                let range = it.next().expect("--empties MIN-MAX");
                let (min, max) = range
                    .split_once('-')
                    .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                    .expect("--empties MIN-MAX");
                empties = min..=max;
            }
            "--lr" => lr0 = it.next().and_then(|v| v.parse().ok()).expect("--lr X"),
            "--decay" => decay = it.next().and_then(|v| v.parse().ok()).expect("--decay X"),
            "--scalar-rate" => {
                scalar_rate = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--scalar-rate X")
            }
            _ => inputs.push(arg),
        }
    }
    let t = Instant::now();
    let samples = load(&inputs, &empties);
    let (mut train, mut valid): (Vec<&Sample>, Vec<&Sample>) = (Vec::new(), Vec::new());
    for (i, s) in samples.iter().enumerate() {
        if i % 20 == 19 {
            valid.push(s)
        } else {
            train.push(s)
        }
    }
    eprintln!(
        "{} training / {} validation positions loaded in {:.1} s",
        train.len(),
        valid.len(),
        t.elapsed().as_secs_f64()
    );
    let mut w = match &init {
        None => vec![0f32; weights_per_stage() * STAGES],
        Some(path) => {
            let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
            weights_from_bytes(&bytes)
                .unwrap_or_else(|| panic!("{path} does not fit the pattern layout"))
                .iter()
                .map(|&x| x as f32 / 100.0)
                .collect()
        }
    };
    eprintln!("epoch 0: validation mse {:.2}", mse(&w, &valid));
    let mut rng = 0x1234_5678_9abc_def1u64;
    for epoch in 0..epochs {
        // Fisher-Yates shuffle with xorshift.
        for i in (1..train.len()).rev() {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            train.swap(i, (rng % (i as u64 + 1)) as usize);
        }
        let lr = lr0 * decay.powi(epoch);
        for s in &train {
            let err = predict(&w, s) - s.label;
            let g = lr * err;
            for &i in &s.idx {
                w[i as usize] -= g;
            }
            for (j, x) in s.scalars.iter().enumerate() {
                // Scalars are large and shared by every position: small steps.
                w[s.scalar_base as usize + j] -= g * scalar_rate * x;
            }
        }
        eprintln!(
            "epoch {}: lr {lr:.5} train mse {:.2} validation mse {:.2}",
            epoch + 1,
            mse(&w, &train[..train.len().min(200_000)]),
            mse(&w, &valid)
        );
    }
    let quantised: Vec<i16> = w
        .iter()
        .map(|x| (x * 100.0).round().clamp(i16::MIN as f32, i16::MAX as f32) as i16)
        .collect();
    std::fs::write(&out, weights_to_bytes(&quantised))
        .unwrap_or_else(|e| panic!("cannot write {out}: {e}"));
    eprintln!("wrote {out}");
}
