//! The binary Reversi protocol (spec/PROTOCOL.md) as a wire adapter: the
//! bytes on the wire are exactly those of §8.3-§8.10.

use log::debug;
use reversi_engine::Square as EngineSquare;
use reversi_games::{reversi, Action, Point, Team, Viewer};
use reversi_pdu::{
    Colour, Direction, FrameBuffer, Pdu, Square, Squares, UpdateBoard, Winner, MAX_PDU_LEN,
};

use crate::outbox::Outbox;
use crate::protocols::{Event, Input, Wire};

/// A point no board has: what an off-board `place` becomes, so the game refuses it
/// like any other illegal square (`place_error`, §8.4).
const OFF_BOARD: Point = Point::new(0, 0);

/// Filler for the squares array of an update_board.
const A1: Square = match Square::new(0, 0) {
    Some(sq) => sq,
    None => panic!("a1 is on the board"),
};

pub struct Binary {
    frames: FrameBuffer,
    /// Nothing more is written: the client left (§8.6) or broke the protocol (§8.7).
    done: bool,
    /// No more input is taken (after a violation).
    deaf: bool,
}

impl Binary {
    pub fn new() -> Binary {
        Binary {
            frames: FrameBuffer::new(),
            done: false,
            deaf: false,
        }
    }

    fn take_frames(&mut self, inputs: &mut Vec<Input>) {
        while !self.deaf {
            let input = match self.frames.next(Direction::ClientToServer) {
                Ok(None) => return,
                Ok(Some(pdu)) => {
                    debug!("<- {pdu}");
                    match pdu {
                        Pdu::Place(place) => {
                            let point = place
                                .square()
                                .map_or(OFF_BOARD, |sq| reversi::point(EngineSquare::from(sq)));
                            Input::Act(Action::Move(vec![point]))
                        }
                        Pdu::Quit | Pdu::Error => {
                            self.done = true;
                            Input::Quit
                        }
                        other => Input::Violation(format!("{other} during the game")),
                    }
                }
                Err(e) => Input::Violation(format!("malformed PDU: {e}")),
            };
            if matches!(input, Input::Violation(_) | Input::Quit) {
                self.deaf = true;
                self.frames.clear();
            }
            inputs.push(input);
        }
    }
}

fn colour(team: Team) -> Colour {
    Colour::from(reversi::side(team))
}

fn write(out: &mut Outbox, pdu: &Pdu<'_>) {
    let mut buf = [0u8; MAX_PDU_LEN];
    match pdu.encode(&mut buf) {
        Ok(len) => {
            debug!("-> {pdu}");
            out.push(&buf[..len]);
        }
        Err(e) => log::error!("cannot encode {pdu}: {e}"),
    }
}

impl Wire for Binary {
    fn receive(&mut self, mut bytes: &[u8], inputs: &mut Vec<Input>) {
        while !bytes.is_empty() && !self.deaf {
            let spare = self.frames.spare_mut();
            let n = bytes.len().min(spare.len());
            spare[..n].copy_from_slice(&bytes[..n]);
            self.frames.commit(n);
            bytes = &bytes[n..];
            self.take_frames(inputs);
        }
    }

    fn send(&mut self, event: &Event, out: &mut Outbox) {
        if self.done {
            return;
        }
        match event {
            Event::Start {
                viewer: Viewer::Team(team),
                ..
            } => {
                write(
                    out,
                    &Pdu::ConnectOk {
                        colour: colour(*team),
                    },
                );
                // §8.3's opening position, literally: white d4 e5, then black d5 e4.
                let white = [Square::new(3, 3), Square::new(4, 4)];
                let black = [Square::new(3, 4), Square::new(4, 3)];
                for (colour, squares) in [(Colour::White, white), (Colour::Black, black)] {
                    let squares = squares.map(|s| s.expect("on the board"));
                    let squares = Squares::new(&squares).expect("two squares");
                    write(out, &Pdu::UpdateBoard(UpdateBoard { colour, squares }));
                }
            }
            Event::Update(update) => {
                let Some(team) = update.moved.as_ref().map(|m| m.team) else {
                    return;
                };
                let mut squares = [A1; 64];
                let mut n = 0;
                for cell in &update.cells {
                    if let (Some(sq), Some(slot)) = (reversi::square(cell.at), squares.get_mut(n)) {
                        *slot = sq.into();
                        n += 1;
                    }
                }
                if let Ok(squares) = Squares::new(&squares[..n]) {
                    let colour = colour(team);
                    write(out, &Pdu::UpdateBoard(UpdateBoard { colour, squares }));
                }
            }
            Event::Ready => write(out, &Pdu::Turn),
            // §8.4: place_error, and no new turn: the mover's turn goes on.
            Event::Illegal { .. } | Event::Confused { .. } => write(out, &Pdu::PlaceError),
            Event::Violation(_) => {
                write(out, &Pdu::Error);
                self.done = true;
            }
            Event::Over { outcome, .. } => {
                let winner = outcome
                    .winner()
                    .map_or(Winner::Draw, |team| Winner::from(colour(team)));
                write(out, &Pdu::Winner(winner));
                self.done = true;
            }
            Event::Aborted(_) => {
                write(out, &Pdu::Error);
                self.done = true;
            }
            // The binary protocol has no viewers, no broadcast turn and no clocks.
            Event::Start {
                viewer: Viewer::Spectator,
                ..
            }
            | Event::Turn(_)
            | Event::Clock { .. }
            | Event::Timer { .. }
            | Event::Ping(_)
            | Event::OfferedRematch { .. } => {}
            // Nor seats that can be taken back (play-together design §8): none of their news.
            Event::Token { .. }
            | Event::Resumed(_)
            | Event::Away { .. }
            | Event::Back(_)
            | Event::OfferedDraw(_)
            | Event::News(_)
            | Event::Replaced => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_clocks_and_timers_are_not_in_the_binary_protocol() {
        let mut wire = Binary::new();
        let mut out = Outbox::new();
        for event in [
            Event::Turn(Team::FIRST),
            Event::Clock {
                team: Team::FIRST,
                ms: 600_000,
            },
            Event::Timer {
                name: "tide",
                ms: 10_000,
                text: "the tide turns".into(),
            },
        ] {
            wire.send(&event, &mut out);
        }
        assert_eq!(out.pending(), 0);
    }
}
