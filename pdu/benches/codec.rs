//! Decode and encode cost per PDU, and for the byte stream of a whole game.
//!
//! `cargo bench -p reversi-pdu`; the figures quoted in README.md come from here.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use reversi_pdu::{
    decode, Colour, Direction, FrameBuffer, Pdu, Place, Square, Squares, UpdateBoard, Winner,
    MAX_PDU_LEN,
};

fn squares(n: u8) -> Vec<Square> {
    (0..n).map(|i| Square::from_index(i).unwrap()).collect()
}

fn encoded(pdu: &Pdu<'_>) -> Vec<u8> {
    let mut buf = [0u8; MAX_PDU_LEN];
    let len = pdu.encode(&mut buf).unwrap();
    buf[..len].to_vec()
}

/// One move of `greedy_game.txt`: "black e6 e5" is black playing e6 and flipping e5.
fn parse_move(line: &str) -> (Colour, Vec<Square>) {
    let mut words = line.split_whitespace();
    let colour = match words.next() {
        Some("black") => Colour::Black,
        Some("white") => Colour::White,
        other => panic!("greedy_game.txt: {other:?} is not a colour"),
    };
    let squares = words.map(|name| name.parse().unwrap()).collect();
    (colour, squares)
}

/// Everything a client receives in one game: connect_ok, the initial
/// position, then every move's update_board and turn, then winner. The moves
/// are a recorded game (benches/greedy_game.txt), so update sizes are those
/// of real play.
fn game_stream() -> (Vec<u8>, usize) {
    let mut out = Vec::new();
    let mut pdus = 0;
    let mut push = |pdu: Pdu<'_>| {
        out.extend_from_slice(&encoded(&pdu));
        pdus += 1;
    };
    push(Pdu::ConnectOk {
        colour: Colour::Black,
    });
    let initial = ["white d4 e5", "black e4 d5"].map(parse_move);
    let moves = include_str!("greedy_game.txt")
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(parse_move);
    for (i, (colour, squares)) in initial.into_iter().chain(moves).enumerate() {
        let squares = Squares::new(&squares).unwrap();
        push(Pdu::UpdateBoard(UpdateBoard { colour, squares }));
        if i >= 2 {
            push(Pdu::Turn);
        }
    }
    push(Pdu::Winner(Winner::White));
    (out, pdus)
}

fn per_pdu(c: &mut Criterion) {
    let nineteen = squares(19);
    let all = squares(64);
    let cases = [
        ("error", Pdu::Error, Direction::ServerToClient),
        ("connect", Pdu::Connect, Direction::ClientToServer),
        (
            "connect_ok",
            Pdu::ConnectOk {
                colour: Colour::White,
            },
            Direction::ServerToClient,
        ),
        ("quit", Pdu::Quit, Direction::ClientToServer),
        ("turn", Pdu::Turn, Direction::ServerToClient),
        (
            "place",
            Pdu::Place(Place { x: 3, y: 2 }),
            Direction::ClientToServer,
        ),
        ("place_error", Pdu::PlaceError, Direction::ServerToClient),
        (
            "update_board_19",
            Pdu::UpdateBoard(UpdateBoard {
                colour: Colour::Black,
                squares: Squares::new(&nineteen).unwrap(),
            }),
            Direction::ServerToClient,
        ),
        (
            "update_board_64",
            Pdu::UpdateBoard(UpdateBoard {
                colour: Colour::Black,
                squares: Squares::new(&all).unwrap(),
            }),
            Direction::ServerToClient,
        ),
        (
            "winner",
            Pdu::Winner(Winner::White),
            Direction::ServerToClient,
        ),
    ];
    let mut group = c.benchmark_group("decode");
    for (name, pdu, direction) in &cases {
        let bytes = encoded(pdu);
        group.bench_function(*name, |b| {
            b.iter(|| {
                // Touch every square so the lazy view is paid for, as a client would.
                let status = decode(black_box(&bytes), *direction).unwrap();
                if let Some((Pdu::UpdateBoard(update), _)) = status.complete() {
                    black_box(update.squares.iter().map(|s| s.index()).sum::<u8>());
                }
                status
            })
        });
    }
    group.finish();
    let mut group = c.benchmark_group("encode");
    for (name, pdu, _) in &cases {
        let mut buf = [0u8; MAX_PDU_LEN];
        group.bench_function(*name, |b| {
            b.iter(|| black_box(pdu).encode(&mut buf).unwrap())
        });
    }
    group.finish();
}

fn whole_game(c: &mut Criterion) {
    let (stream, pdus) = game_stream();
    let mut group = c.benchmark_group("game_stream");
    group.throughput(Throughput::Elements(pdus as u64));
    group.bench_function("decode", |b| {
        b.iter(|| {
            let mut rest = black_box(&stream[..]);
            let mut n = 0;
            while let Some((_, used)) = decode(rest, Direction::ServerToClient).unwrap().complete()
            {
                rest = &rest[used..];
                n += 1;
            }
            assert_eq!(n, pdus);
        })
    });
    group.bench_function("frame_buffer_512b_reads", |b| {
        b.iter_batched_ref(
            FrameBuffer::new,
            |frames| {
                let mut n = 0;
                for chunk in stream.chunks(512) {
                    frames.spare_mut()[..chunk.len()].copy_from_slice(chunk);
                    frames.commit(chunk.len());
                    while frames.next(Direction::ServerToClient).unwrap().is_some() {
                        n += 1;
                    }
                }
                assert_eq!(n, pdus);
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, per_pdu, whole_game);
criterion_main!(benches);
