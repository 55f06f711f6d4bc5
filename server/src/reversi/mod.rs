//! Reversi on the supervisor: the handshake rules of spec §8.2/§9.1 and the
//! session of §8.3-§8.8/§9.2.

mod clock;
pub mod record;
mod session;
mod table;

use std::net::SocketAddr;

use log::debug;
use reversi_pdu::{decode, Direction, Pdu, Status};

use crate::config::SessionConfig;
use crate::signals::SelfPipe;
use crate::supervisor::{Pair, Protocol, Screen, Stage};

/// The `error` PDU, as sent to every connection turned away.
const ERROR: [u8; 4] = [0x00, 0x04, 0xff, 0xff];

pub struct Reversi {
    config: SessionConfig,
}

impl Reversi {
    pub fn new(config: SessionConfig) -> Reversi {
        Reversi { config }
    }
}

impl Protocol for Reversi {
    const SESSION_NAME: &'static str = "reversid-game";

    fn refusal(&self) -> &[u8] {
        &ERROR
    }

    const REFUSAL_NAME: &'static str = "error";

    fn screen(&self, peer: SocketAddr, stage: Stage, input: &[u8]) -> Screen {
        let (pdu, used) = match decode(input, Direction::ClientToServer) {
            Ok(Status::Partial) => return Screen::Wait,
            Ok(Status::Complete(found)) => found,
            Err(e) => return Screen::Refused(format!("malformed PDU: {e}")),
        };
        debug!("<- {peer} {pdu}");
        match (stage, pdu) {
            (Stage::Handshake, Pdu::Connect) => Screen::Joined { used },
            (Stage::Handshake, other) => Screen::Refused(format!("{other} instead of connect")),
            (Stage::Queued, Pdu::Quit | Pdu::Error) => Screen::Left,
            (Stage::Queued, other) => {
                Screen::Refused(format!("{other} while waiting for an opponent"))
            }
        }
    }

    fn run_session(&self, pair: Pair, abort: SelfPipe) -> i32 {
        match session::run(&self.config, pair, abort) {
            Ok(()) => 0,
            Err(e) => {
                log::error!("session failed: {e}");
                1
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn screen(stage: Stage, bytes: &[u8]) -> Screen {
        Reversi::new(SessionConfig {
            move_timeout: None,
            fixed_colours: true,
            record_dir: None,
        })
        .screen("127.0.0.1:1".parse().unwrap(), stage, bytes)
    }

    #[test]
    fn handshake_needs_a_whole_connect() {
        assert_eq!(screen(Stage::Handshake, &[]), Screen::Wait);
        assert_eq!(screen(Stage::Handshake, &[0, 4, 0]), Screen::Wait);
        assert_eq!(
            screen(Stage::Handshake, &[0, 4, 0, 0, 0, 4]),
            Screen::Joined { used: 4 }
        );
    }

    #[test]
    fn anything_else_first_is_refused() {
        for bytes in [
            &[0, 4, 0, 2][..],
            &[0, 4, 0xff, 0xff],
            &[0, 8, 0, 4, 0, 0, 0, 0],
            &[0, 4, 0, 3],
            &[1, 9, 0, 6],
        ] {
            assert!(
                matches!(screen(Stage::Handshake, bytes), Screen::Refused(_)),
                "{bytes:?}"
            );
        }
    }

    #[test]
    fn queued_clients_may_only_leave() {
        assert_eq!(screen(Stage::Queued, &[0, 4, 0, 2]), Screen::Left);
        assert_eq!(screen(Stage::Queued, &[0, 4, 0xff, 0xff]), Screen::Left);
        assert_eq!(screen(Stage::Queued, &[0, 8, 0, 4]), Screen::Wait);
        assert!(matches!(
            screen(Stage::Queued, &[0, 4, 0, 0]),
            Screen::Refused(_)
        ));
        assert!(matches!(
            screen(Stage::Queued, &[0, 8, 0, 4, 0, 1, 0, 1]),
            Screen::Refused(_)
        ));
    }
}
