//! The session's rules without any I/O (spec §8.3-§8.8, §9.2): PDUs in,
//! PDUs queued for each seat out, and how the game ended.

use std::fmt;
use std::net::SocketAddr;
use std::time::Instant;

use log::debug;
use reversi_engine::{Game, Outcome, Side};
use reversi_pdu::{Colour, Pdu, Square, Squares, UpdateBoard, Winner, MAX_PDU_LEN};

use super::clock::MoveClock;
use crate::outbox::Outbox;

/// Why a session ended. Seats are 0 (queued first) and 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// Neither side can move.
    Normal,
    /// The seat sent quit or error.
    Quit(usize),
    /// The seat's connection reached EOF (or a write to it failed).
    Drop(usize),
    /// The seat, being the mover, ran out of time.
    Timeout(usize),
    /// The seat sent a malformed or out-of-place PDU.
    Malformed(usize, String),
    /// Fast shutdown.
    Aborted,
}

impl End {
    /// The seat whose action ended the game, if any.
    pub fn culprit(&self) -> Option<usize> {
        match *self {
            End::Quit(s) | End::Drop(s) | End::Timeout(s) | End::Malformed(s, _) => Some(s),
            End::Normal | End::Aborted => None,
        }
    }

    /// One word for the log and the record.
    pub fn kind(&self) -> &'static str {
        match self {
            End::Normal => "normal",
            End::Quit(_) => "quit",
            End::Drop(_) => "drop",
            End::Timeout(_) => "timeout",
            End::Malformed(..) => "malformed",
            End::Aborted => "aborted",
        }
    }
}

/// One game between two seats.
pub struct Table {
    game: Game,
    colours: [Colour; 2],
    peers: [SocketAddr; 2],
    pub outs: [Outbox; 2],
    /// After the end: this seat is closed at once, sent nothing more.
    pub silent: [bool; 2],
    clock: MoveClock,
    /// Bit i set: move i was played by white (passes are implicit in the engine's list).
    white_moves: u64,
    end: Option<End>,
    result: Option<Winner>,
}

impl Table {
    pub fn new(colours: [Colour; 2], peers: [SocketAddr; 2], clock: MoveClock) -> Table {
        Table {
            game: Game::new(),
            colours,
            peers,
            outs: [Outbox::new(), Outbox::new()],
            silent: [false; 2],
            clock,
            white_moves: 0,
            end: None,
            result: None,
        }
    }

    pub fn end(&self) -> Option<&End> {
        self.end.as_ref()
    }

    pub fn result(&self) -> Option<Winner> {
        self.result
    }

    pub fn colours(&self) -> [Colour; 2] {
        self.colours
    }

    pub fn peers(&self) -> [SocketAddr; 2] {
        self.peers
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The side that played each move, in order.
    pub fn movers(&self) -> impl Iterator<Item = Side> + '_ {
        (0..self.game.moves().len()).map(|i| {
            if self.white_moves >> i & 1 == 1 {
                Side::White
            } else {
                Side::Black
            }
        })
    }

    pub fn deadline(&self) -> Option<Instant> {
        self.clock.deadline()
    }

    fn seat_of(&self, side: Side) -> usize {
        usize::from(self.colours[0] != Colour::from(side))
    }

    fn send(&mut self, seat: usize, pdu: &Pdu<'_>) {
        let mut buf = [0u8; MAX_PDU_LEN];
        let len = pdu.encode(&mut buf).expect("a PDU fits in MAX_PDU_LEN");
        debug!("-> {} {pdu}", self.peers[seat]);
        self.outs[seat].push(&buf[..len]);
    }

    fn send_both(&mut self, pdu: &Pdu<'_>) {
        self.send(0, pdu);
        self.send(1, pdu);
    }

    fn turn(&mut self, side: Side, now: Instant) {
        self.send(self.seat_of(side), &Pdu::Turn);
        self.clock.start(now);
    }

    /// §8.3: connect_ok, the initial position, then turn to black.
    pub fn start(&mut self, now: Instant) {
        let white = [Square::new(3, 3), Square::new(4, 4)].map(|s| s.expect("on the board"));
        let black = [Square::new(3, 4), Square::new(4, 3)].map(|s| s.expect("on the board"));
        for seat in 0..2 {
            self.send(
                seat,
                &Pdu::ConnectOk {
                    colour: self.colours[seat],
                },
            );
            for (colour, squares) in [(Colour::White, &white), (Colour::Black, &black)] {
                let squares = Squares::new(squares).expect("two squares");
                self.send(seat, &Pdu::UpdateBoard(UpdateBoard { colour, squares }));
            }
        }
        self.turn(Side::Black, now);
    }

    /// A complete, well-formed PDU from `seat`.
    pub fn on_pdu(&mut self, seat: usize, pdu: Pdu<'_>, now: Instant) {
        if self.end.is_some() {
            return;
        }
        debug!("<- {} {pdu}", self.peers[seat]);
        match pdu {
            Pdu::Place(place) => self.on_place(seat, place.square(), now),
            Pdu::Quit | Pdu::Error => self.forfeit(seat, End::Quit(seat)),
            other => self.violation(seat, format!("{other} during the game")),
        }
    }

    fn on_place(&mut self, seat: usize, square: Option<Square>, now: Instant) {
        let mover = self.game.side_to_move();
        let target = square.map(reversi_engine::Square::from).filter(|&sq| {
            mover.is_some_and(|side| self.seat_of(side) == seat) && self.game.is_legal(sq)
        });
        let Some(target) = target else {
            self.send(seat, &Pdu::PlaceError);
            return;
        };
        let Ok(played) = self.game.play(target) else {
            self.send(seat, &Pdu::PlaceError);
            return;
        };
        if played.side == Side::White {
            self.white_moves |= 1 << (self.game.moves().len() - 1);
        }
        let mut changed = [Square::from(played.square); 64];
        let mut n = 0;
        for (slot, sq) in changed.iter_mut().zip(played.changed()) {
            *slot = sq.into();
            n += 1;
        }
        let squares = Squares::new(&changed[..n]).expect("a move changes 2 to 64 squares");
        let update = Pdu::UpdateBoard(UpdateBoard {
            colour: Colour::from(played.side),
            squares,
        });
        self.send_both(&update);
        match played.next {
            Some(side) => self.turn(side, now),
            None => {
                self.clock.stop();
                let winner = match self.game.outcome() {
                    Some(Outcome::Win(side)) => Winner::from(Colour::from(side)),
                    _ => Winner::Draw,
                };
                self.send_both(&Pdu::Winner(winner));
                self.finish(End::Normal, Some(winner));
            }
        }
    }

    fn finish(&mut self, end: End, result: Option<Winner>) {
        self.clock.stop();
        self.end = Some(end);
        self.result = result;
    }

    /// The seat leaves (quit, error, EOF): it is closed silently, the other wins.
    fn forfeit(&mut self, seat: usize, end: End) {
        let other = 1 - seat;
        self.silent[seat] = true;
        self.outs[seat] = Outbox::new();
        let winner = Winner::from(self.colours[other]);
        self.send(other, &Pdu::Winner(winner));
        self.finish(end, Some(winner));
    }

    /// A malformed or out-of-place PDU from `seat`: error to it, the other wins.
    pub fn violation(&mut self, seat: usize, why: String) {
        if self.end.is_some() {
            return;
        }
        debug!("<- {} protocol violation: {why}", self.peers[seat]);
        self.send(seat, &Pdu::Error);
        let winner = Winner::from(self.colours[1 - seat]);
        self.send(1 - seat, &Pdu::Winner(winner));
        self.finish(End::Malformed(seat, why), Some(winner));
    }

    /// EOF on `seat` (read returned 0, a reset, or a failed write).
    pub fn on_eof(&mut self, seat: usize) {
        if self.end.is_none() {
            self.forfeit(seat, End::Drop(seat));
        } else {
            self.silent[seat] = true;
            self.outs[seat] = Outbox::new();
        }
    }

    /// Checks the move clock.
    pub fn on_clock(&mut self, now: Instant) {
        if self.end.is_some() || !self.clock.expired(now) {
            return;
        }
        let Some(mover) = self.game.side_to_move() else {
            return;
        };
        let seat = self.seat_of(mover);
        let winner = Winner::from(Colour::from(mover.opponent()));
        self.send_both(&Pdu::Winner(winner));
        self.finish(End::Timeout(seat), Some(winner));
    }

    /// Fast shutdown: error to both.
    pub fn abort(&mut self) {
        if self.end.is_none() {
            self.send_both(&Pdu::Error);
            self.finish(End::Aborted, None);
        }
    }
}

impl fmt::Display for Table {
    /// The one-line summary logged when a session ends.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seat = |c: Colour| usize::from(self.colours[0] != c);
        write!(
            f,
            "black {} white {} end {}",
            self.peers[seat(Colour::Black)],
            self.peers[seat(Colour::White)],
            self.end.as_ref().map_or("running", End::kind),
        )?;
        if let Some(s) = self.end.as_ref().and_then(End::culprit) {
            write!(f, " by {}", self.colours[s])?;
        }
        if let Some(End::Malformed(_, why)) = &self.end {
            write!(f, " ({why})")?;
        }
        match self.result {
            Some(w) => write!(f, " result {w}")?,
            None => write!(f, " result none")?,
        }
        write!(
            f,
            " discs {}-{} moves {} transcript {}",
            self.game.count(Side::Black),
            self.game.count(Side::White),
            self.game.moves().len(),
            if self.game.moves().is_empty() {
                "-".to_owned()
            } else {
                self.game.transcript()
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_pdu::{decode, Direction, Place, Status};

    fn table() -> Table {
        let peers = [
            "127.0.0.1:1".parse().unwrap(),
            "127.0.0.1:2".parse().unwrap(),
        ];
        Table::new([Colour::Black, Colour::White], peers, MoveClock::new(None))
    }

    /// Every PDU queued for `seat`, rendered, and the outbox emptied.
    fn sent(t: &mut Table, seat: usize) -> Vec<String> {
        let mut bytes = Vec::new();
        t.outs[seat].flush(&mut bytes).unwrap();
        let mut out = Vec::new();
        let mut rest = &bytes[..];
        while let Ok(Status::Complete((pdu, used))) = decode(rest, Direction::ServerToClient) {
            out.push(pdu.to_string());
            rest = &rest[used..];
        }
        assert!(rest.is_empty());
        out
    }

    fn place(x: i16, y: i16) -> Pdu<'static> {
        Pdu::Place(Place { x, y })
    }

    #[test]
    fn start_sends_the_initial_position_and_turn_to_black_only() {
        let mut t = table();
        t.start(Instant::now());
        let black = sent(&mut t, 0);
        assert_eq!(
            black,
            [
                "connect_ok black",
                "update_board white d4 e5",
                "update_board black d5 e4",
                "turn"
            ]
        );
        assert_eq!(sent(&mut t, 1).len(), 3);
    }

    #[test]
    fn moves_errors_and_out_of_turn() {
        let mut t = table();
        let now = Instant::now();
        t.start(now);
        sent(&mut t, 0);
        sent(&mut t, 1);
        t.on_pdu(1, place(5, 4), now);
        assert_eq!(sent(&mut t, 1), ["place_error"]);
        t.on_pdu(0, place(0, 0), now);
        t.on_pdu(0, place(-1, 300), now);
        assert_eq!(sent(&mut t, 0), ["place_error", "place_error"]);
        t.on_pdu(0, place(5, 4), now);
        assert_eq!(sent(&mut t, 0), ["update_board black f5 e5"]);
        assert_eq!(sent(&mut t, 1), ["update_board black f5 e5", "turn"]);
        assert!(t.end().is_none());
    }

    #[test]
    fn leaving_and_violations_end_the_game() {
        let mut t = table();
        t.start(Instant::now());
        sent(&mut t, 0);
        sent(&mut t, 1);
        t.on_pdu(1, Pdu::Quit, Instant::now());
        assert_eq!(t.end(), Some(&End::Quit(1)));
        assert!(t.silent[1]);
        assert_eq!(sent(&mut t, 0), ["winner black"]);

        let mut t = table();
        t.start(Instant::now());
        sent(&mut t, 0);
        sent(&mut t, 1);
        t.on_pdu(0, Pdu::Connect, Instant::now());
        assert_eq!(sent(&mut t, 0), ["error"]);
        assert_eq!(sent(&mut t, 1), ["winner white"]);
        assert!(matches!(t.end(), Some(End::Malformed(0, _))));
    }

    #[test]
    fn the_clock_makes_the_mover_lose() {
        let t0 = Instant::now();
        let peers = [
            "127.0.0.1:1".parse().unwrap(),
            "127.0.0.1:2".parse().unwrap(),
        ];
        let clock = MoveClock::new(Some(std::time::Duration::from_secs(1)));
        let mut t = Table::new([Colour::White, Colour::Black], peers, clock);
        t.start(t0);
        sent(&mut t, 0);
        sent(&mut t, 1);
        t.on_clock(t0 + std::time::Duration::from_secs(2));
        assert_eq!(t.end(), Some(&End::Timeout(1)));
        assert_eq!(sent(&mut t, 0), ["winner white"]);
        assert_eq!(sent(&mut t, 1), ["winner white"]);
    }
}
