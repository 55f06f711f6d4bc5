//! Decoding and encoding every PDU allocates nothing: a counting global
//! allocator watches this thread while they run.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use reversi_pdu::{
    decode, Colour, Direction, FrameBuffer, Pdu, Place, Square, Squares, UpdateBoard, Winner,
    MAX_PDU_LEN,
};

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

struct Counting;

// SAFETY: every call is forwarded unchanged to the system allocator; the
// thread-local counter is const-initialised, so touching it never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(work: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    work();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn the_counter_sees_allocations() {
    assert!(allocations_during(|| drop(std::hint::black_box(vec![1u8; 16]))) > 0);
}

#[test]
fn decoding_and_encoding_every_pdu_allocates_nothing() {
    let squares: [Square; 64] = core::array::from_fn(|i| Square::from_index(i as u8).unwrap());
    let pdus = [
        (Pdu::Error, Direction::ClientToServer),
        (Pdu::Connect, Direction::ClientToServer),
        (
            Pdu::ConnectOk {
                colour: Colour::White,
            },
            Direction::ServerToClient,
        ),
        (Pdu::Quit, Direction::ClientToServer),
        (Pdu::Turn, Direction::ServerToClient),
        (Pdu::Place(Place { x: 3, y: 2 }), Direction::ClientToServer),
        (Pdu::PlaceError, Direction::ServerToClient),
        (
            Pdu::UpdateBoard(UpdateBoard {
                colour: Colour::Black,
                squares: Squares::new(&squares).unwrap(),
            }),
            Direction::ServerToClient,
        ),
        (Pdu::Winner(Winner::Draw), Direction::ServerToClient),
    ];
    let mut frames = FrameBuffer::new();
    let count = allocations_during(|| {
        for (pdu, direction) in pdus {
            let mut buf = [0u8; MAX_PDU_LEN];
            let len = pdu.encode(&mut buf).unwrap();
            let decoded = decode(&buf[..len], direction).unwrap().complete().unwrap();
            assert!(decoded.0 == pdu);
            if let Pdu::UpdateBoard(update) = decoded.0 {
                assert_eq!(update.squares.iter().count(), 64);
            }
            frames.spare_mut()[..len].copy_from_slice(&buf[..len]);
            frames.commit(len);
            assert!(frames.next(direction).unwrap() == Some(pdu));
        }
    });
    assert_eq!(count, 0, "the codec allocated {count} times");
}
