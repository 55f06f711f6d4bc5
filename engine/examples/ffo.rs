//! Solves the FFO endgame positions of `data/ffo-40-59.obf` (#40 to #59)
//! and prints score, time and nodes of each.
//!
//! `cargo run --release -p reversi-engine --example ffo [first [last]]`

use std::time::Instant;

use reversi_engine::{parse_obf, solve::solve};

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse::<usize>().ok());
    let first = args.next().unwrap_or(40).clamp(40, 59);
    let last = args.next().unwrap_or(44).clamp(first, 59);
    let set = parse_obf(include_str!("../data/ffo-40-59.obf"));
    let total = Instant::now();
    for (i, (_, position)) in set.into_iter().enumerate().take(last - 39).skip(first - 40) {
        let position = position.expect("the FFO file parses");
        let t = Instant::now();
        let s = solve(position.game.board());
        let secs = t.elapsed().as_secs_f64();
        let best = s.best.map_or("pass".into(), |b| b.to_string());
        println!(
            "#{}: {:+} {best} (expected {})  {:.3} s  {} nodes  {:.1} Mn/s",
            40 + i,
            s.score,
            position
                .best_score()
                .map_or("?".into(), |e| format!("{e:+}")),
            secs,
            s.nodes,
            s.nodes as f64 / secs / 1e6
        );
    }
    println!("total {:.3} s", total.elapsed().as_secs_f64());
}
