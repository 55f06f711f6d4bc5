//! Solves FFO endgame test positions #40..#44 and prints time and nodes.
//!
//! `cargo run --release -p reversi-engine --example ffo [first [last]]`

use std::time::Instant;

use reversi_engine::{solve::solve, Game};

const FFO: [(&str, &str); 5] = [
    (
        "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X",
        "+38 a2",
    ),
    (
        "-OOOOO----OOOOX--OOOOOO-XXXXXOO--XXOOX--OOXOXX----OXXO---OOO--O- X",
        "+0 h4",
    ),
    (
        "--OOO-------XX-OOOOOOXOO-OOOOXOOX-OOOXXO---OOXOO---OOOXO--OOOO-- X",
        "+6 g2",
    ),
    (
        "--XXXXX---XXXX---OOOXX---OOXXXX--OOXXXO-OOOOXOO----XOX----XXXXX- O",
        "-12 g3/c7",
    ),
    (
        "--O-X-O---O-XO-O-OOXXXOOOOOOXXXOOOOOXX--XXOOXO----XXXX-----XXX-- O",
        "-14 d2/b8",
    ),
];

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse::<usize>().ok());
    let first = args.next().unwrap_or(40).clamp(40, 44);
    let last = args.next().unwrap_or(44).clamp(first, 44);
    let total = Instant::now();
    for (i, (pos, expect)) in FFO.iter().enumerate().take(last - 39).skip(first - 40) {
        let board = Game::from_position(pos)
            .expect("valid FFO position")
            .board();
        let t = Instant::now();
        let s = solve(board);
        let secs = t.elapsed().as_secs_f64();
        let best = s.best.map_or("pass".into(), |b| b.to_string());
        println!(
            "#{}: {:+} {best} (expected {expect})  {:.3} s  {} nodes  {:.1} Mn/s",
            40 + i,
            s.score,
            secs,
            s.nodes,
            s.nodes as f64 / secs / 1e6
        );
    }
    println!("total {:.3} s", total.elapsed().as_secs_f64());
}
