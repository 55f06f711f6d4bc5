//! The binary Reversi protocol (spec/PROTOCOL.md). A client starts with
//! `connect` (`00 04 00 00`): every PDU starts with 0x00 or 0x01 (its msg_size
//! is 4..=264), never a text byte, so no binary client is ever taken for text.
//! It is also the fallback: whatever no protocol recognises gets its `error`.

mod adapter;

use log::debug;
use reversi_games::reversi;
use reversi_pdu::{decode, Direction, Pdu, Status};

use super::{Lobby, Protocol, Stage, Verdict, Wire};

/// The `error` PDU: the refusal (spec/PROTOCOL.md §8.2 promises it even before a
/// connection's first byte).
const REFUSAL: [u8; 4] = [0x00, 0x04, 0xff, 0xff];

pub struct Binary;

impl Protocol for Binary {
    fn recognises(&self, first: u8) -> bool {
        first <= 0x01
    }

    fn screen(&self, lobby: &Lobby<'_>, stage: Stage, input: &[u8]) -> Verdict {
        let (pdu, used) = match decode(input, Direction::ClientToServer) {
            Ok(Status::Partial) => return Verdict::Wait,
            Ok(Status::Complete(found)) => found,
            Err(e) => return self.refuse(format!("malformed PDU: {e}")),
        };
        debug!("<- {pdu}");
        match (stage, pdu) {
            (Stage::Handshake, Pdu::Connect) => match lobby.game(reversi::INFO.name) {
                Some(game) => Verdict::Join { game, used },
                None => self.refuse("this server does not play reversi".to_owned()),
            },
            (Stage::Handshake, other) => self.refuse(format!("{other} instead of connect")),
            (Stage::Queued, Pdu::Quit | Pdu::Error) => Verdict::Leave,
            (Stage::Queued, other) => self.refuse(format!("{other} while waiting for an opponent")),
        }
    }

    fn refusal(&self, _why: &str) -> Vec<u8> {
        REFUSAL.to_vec()
    }

    fn adapter(&self) -> Box<dyn Wire> {
        Box::new(adapter::Binary::new())
    }
}

impl Binary {
    fn refuse(&self, why: String) -> Verdict {
        Verdict::Close {
            farewell: self.refusal(&why),
            note: Some(format!("refused: {why}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::lobby;
    use super::*;

    fn binary(stage: Stage, bytes: &[u8]) -> Verdict {
        Binary.screen(&lobby(), stage, bytes)
    }

    fn is_join(v: &Verdict, name: &str, n: usize) -> bool {
        matches!(v, Verdict::Join { game, used } if game.info.name == name && *used == n)
    }

    fn is_refused(v: &Verdict) -> bool {
        matches!(v, Verdict::Close { farewell, note: Some(_) } if farewell == &REFUSAL)
    }

    #[test]
    fn binary_handshake_needs_a_whole_connect() {
        assert_eq!(binary(Stage::Handshake, &[]), Verdict::Wait);
        assert_eq!(binary(Stage::Handshake, &[0, 4, 0]), Verdict::Wait);
        assert!(is_join(
            &binary(Stage::Handshake, &[0, 4, 0, 0, 0, 4]),
            "reversi",
            4
        ));
        for bytes in [
            &[0, 4, 0, 2][..],
            &[0, 4, 0xff, 0xff],
            &[0, 8, 0, 4, 0, 0, 0, 0],
            &[0, 4, 0, 3],
        ] {
            assert!(is_refused(&binary(Stage::Handshake, bytes)), "{bytes:?}");
        }
    }

    #[test]
    fn queued_binary_clients_may_only_leave() {
        assert_eq!(binary(Stage::Queued, &[0, 4, 0, 2]), Verdict::Leave);
        assert_eq!(binary(Stage::Queued, &[0, 4, 0xff, 0xff]), Verdict::Leave);
        assert_eq!(binary(Stage::Queued, &[0, 8, 0, 4]), Verdict::Wait);
        assert!(is_refused(&binary(Stage::Queued, &[0, 4, 0, 0])));
    }

    #[test]
    fn the_refusal_is_the_error_pdu() {
        assert_eq!(Binary.refusal("x"), [0x00, 0x04, 0xff, 0xff]);
    }
}
