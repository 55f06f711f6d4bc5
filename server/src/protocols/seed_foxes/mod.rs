//! Seed 002's own line protocol for Foxes & Dolphins (spec/games/foxes.md,
//! "The seed's line protocol"), on a `--listen-seed foxes=ADDR` listener, for
//! clients written from the seed alone. Its clients start with `PBJ` (a
//! player) or `QBJ` (a viewer); a refusal is the seed's only one, `R`.

mod adapter;
mod line;

use log::debug;
use reversi_games::foxes;
use reversi_text::{opening_line, Opening};

use super::{lines, Lobby, Protocol, Stage, Verdict, Wire};
use line::{Notice, Request};

pub struct SeedFoxes;

impl Protocol for SeedFoxes {
    /// A player's join queues it for foxes, a viewer's join watches the newest foxes
    /// game. While queued the seed's client has nothing to say (it waits for its team);
    /// whatever it sends is dropped.
    fn screen(&self, lobby: &Lobby<'_>, stage: Stage, input: &[u8]) -> Verdict {
        let (line, used) = match opening_line(input) {
            Opening::Incomplete => return Verdict::Wait,
            Opening::Line { text, used } => (text, used),
            Opening::NotText(byte) => return self.refuse(lines::not_text(byte)),
            Opening::TooLong => return self.refuse(lines::too_long()),
        };
        debug!("<- {line}");
        let nothing = Verdict::reply(Vec::new(), used);
        if line.is_empty() {
            return nothing;
        }
        let Some(game) = lobby.game(foxes::INFO.name) else {
            return self.refuse("this server does not play foxes".to_owned());
        };
        match (stage, Request::parse(&line)) {
            (Stage::Handshake, Ok(Request::JoinPlayer)) => Verdict::Join { game, used },
            (Stage::Handshake, Ok(Request::JoinViewer)) => {
                let newest = (lobby.running)()
                    .iter()
                    .filter(|r| r.game == game)
                    .map(|r| r.id)
                    .max();
                match newest {
                    Some(id) => Verdict::Watch { id, used },
                    None => Verdict::Close {
                        farewell: Notice::Rejected { viewer: true }.line(),
                        note: Some(format!("no {} game to watch", game.info.name)),
                    },
                }
            }
            (Stage::Handshake, Ok(_)) => {
                self.refuse(format!("{line} before joining (PBJ, or QBJ to watch)"))
            }
            (Stage::Handshake, Err(why)) => self.refuse(why),
            (Stage::Queued, _) => {
                debug!("dropped while waiting for a game: {line}");
                nothing
            }
        }
    }

    /// The seed's only refusal: "R for rejected if the player can not join the game".
    fn refusal(&self, _why: &str) -> Vec<u8> {
        Notice::Rejected { viewer: false }.line()
    }

    fn adapter(&self) -> Box<dyn Wire> {
        Box::new(adapter::Seed002::new())
    }

    fn seed_game(&self) -> Option<&'static str> {
        Some(foxes::INFO.name)
    }
}

impl SeedFoxes {
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
    use reversi_games::registry;
    use reversi_text::MAX_LINE;

    fn seed002(stage: Stage, line: &str) -> Verdict {
        SeedFoxes.screen(&lobby(), stage, line.as_bytes())
    }

    fn is_join(v: &Verdict, name: &str, n: usize) -> bool {
        matches!(v, Verdict::Join { game, used } if game.info.name == name && *used == n)
    }

    #[test]
    fn seed_002_players_join_foxes_and_viewers_watch_it() {
        assert_eq!(seed002(Stage::Handshake, "PBJ"), Verdict::Wait);
        assert!(is_join(&seed002(Stage::Handshake, "PBJ\n"), "foxes", 4));
        // The seed's own client chapter sends PCJ.
        assert!(is_join(
            &seed002(Stage::Handshake, "PCJ\r\nFBM 1 1 1 2\n"),
            "foxes",
            5
        ));
        assert_eq!(
            seed002(Stage::Handshake, "QBJ\n"),
            Verdict::Watch { id: 9, used: 4 }
        );
        let none = || Vec::new();
        let nothing_runs = Lobby {
            running: &none,
            ..lobby()
        };
        match SeedFoxes.screen(&nothing_runs, Stage::Handshake, b"QBJ\n") {
            Verdict::Close { farewell, .. } => assert_eq!(farewell, b"BQT R\n"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            seed002(Stage::Handshake, "\n"),
            Verdict::reply(Vec::new(), 1)
        );
    }

    #[test]
    fn seed_002_clients_that_do_not_join_are_rejected() {
        let refused = |line: &str| match seed002(Stage::Handshake, line) {
            Verdict::Close {
                farewell,
                note: Some(why),
            } if farewell == b"BPT R\n" => why,
            other => panic!("{line:?}: {other:?}"),
        };
        assert!(refused("FBM 1 1 1 2\n").contains("before joining"));
        assert!(refused("GAME TYPE foxes\n").contains("three letters"));
        assert!(refused("P\u{1}J\n").contains("byte 0x01"));
        assert!(refused(&"P".repeat(MAX_LINE)).contains("longer than"));
        let none = || Vec::new();
        let reversi_only = Lobby {
            games: &[registry::find("reversi").unwrap()],
            running: &none,
            ..lobby()
        };
        assert_eq!(
            SeedFoxes.screen(&reversi_only, Stage::Handshake, b"PBJ\n"),
            SeedFoxes.refuse("this server does not play foxes".to_owned())
        );
    }

    #[test]
    fn queued_seed_002_clients_are_not_listened_to() {
        for line in ["FBM 1 1 1 2\n", "PBJ\n", "junk\n"] {
            assert_eq!(
                seed002(Stage::Queued, line),
                Verdict::reply(Vec::new(), line.len())
            );
        }
    }
}
