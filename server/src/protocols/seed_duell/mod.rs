//! Seed 000's own protocol, on a `--listen-seed duell=ADDR` listener, for the
//! seed's Conquest clients written from the seed alone: the text protocol's
//! seed messages only, none of its additions (spec/TEXT-PROTOCOL.md §14). Its
//! clients send nothing before the server speaks: they join on arrival, and
//! while they wait they are text clients.

use reversi_games::duell;

use super::{text, Lobby, Protocol, Stage, Verdict, Wire};

pub struct SeedDuell;

impl Protocol for SeedDuell {
    fn screen(&self, lobby: &Lobby<'_>, stage: Stage, input: &[u8]) -> Verdict {
        text::screen_lines(lobby, stage, input)
    }

    fn refusal(&self, why: &str) -> Vec<u8> {
        text::error_line(why)
    }

    fn adapter(&self) -> Box<dyn Wire> {
        Box::new(text::Adapter::seed_only())
    }

    fn seed_game(&self) -> Option<&'static str> {
        Some(duell::INFO.name)
    }

    fn joins_on_arrival(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_000_clients_join_on_arrival_and_are_refused_in_lines() {
        assert!(SeedDuell.joins_on_arrival());
        assert_eq!(SeedDuell.refusal("full"), b"ERROR full\n");
        assert!(SeedDuell.waiting(1).is_none());
        assert!(SeedDuell.news("full").is_none(), "no additions");
    }
}
