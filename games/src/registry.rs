//! Every built-in game, by name. Adding a game is one line here.

use crate::bot::Bot;
use crate::game::{Game, GameInfo, Settings};

/// A game module: its facts and how to start a game of it. Rules only: its
/// own computer player, if it has one, is in [`Module::own_bot`].
pub struct Module {
    pub info: &'static GameInfo,
    pub new_game: fn(&Settings) -> Box<dyn Game>,
}

/// Makes a game's own computer player from a seed.
pub type NewBot = fn(u64) -> Box<dyn Bot>;

impl Module {
    /// The game's own computer player, where its module brings one (the
    /// general player of `mcts` plays the others).
    pub fn own_bot(&self) -> Option<NewBot> {
        OWN_BOTS
            .iter()
            .find(|(info, _)| std::ptr::eq(*info, self.info))
            .map(|&(_, new_bot)| new_bot)
    }
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Module({})", self.info.name)
    }
}

/// Modules are the same when their names are: names are unique.
impl PartialEq for Module {
    fn eq(&self, other: &Module) -> bool {
        self.info.name == other.info.name
    }
}

impl Eq for Module {}

static MODULES: &[Module] = &[
    crate::reversi::MODULE,
    crate::tictactoe::MODULE,
    crate::draughts::MODULE,
    crate::duell::MODULE,
    crate::foxes::MODULE,
];

/// The games' own players, apart from `MODULES`: a program that only
/// referees (the server) then links none of them. That matters beyond size:
/// every session process maps the server's binary, and Reversi's player
/// brings 2 MB of evaluation weights with it.
static OWN_BOTS: &[(&GameInfo, NewBot)] = &[
    (&crate::reversi::INFO, |seed| {
        Box::new(crate::reversi::ReversiBot::new(seed))
    }),
    (&crate::draughts::INFO, |_| {
        Box::new(crate::draughts::DraughtsBot::new())
    }),
    (&crate::duell::INFO, |seed| {
        Box::new(crate::duell::DuellBot::new(seed))
    }),
    (&crate::foxes::INFO, |seed| {
        Box::new(crate::foxes::FoxesBot::new(seed))
    }),
];

/// Every built-in game, in the order `reversid --help` lists them.
pub fn all() -> &'static [Module] {
    MODULES
}

/// The module called `name` (its short name or its `GAME TYPE` word, any case).
pub fn find(name: &str) -> Option<&'static Module> {
    MODULES.iter().find(|m| {
        m.info.name.eq_ignore_ascii_case(name) || m.info.wire_type.eq_ignore_ascii_case(name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found_in_any_case() {
        for (i, m) in all().iter().enumerate() {
            assert_eq!(m.info.name, m.info.name.to_ascii_lowercase());
            assert!(!m.info.name.contains(char::is_whitespace));
            assert!(!m.info.wire_type.contains(char::is_whitespace));
            assert!(std::ptr::eq(find(&m.info.name.to_uppercase()).unwrap(), m));
            assert!(std::ptr::eq(find(m.info.wire_type).unwrap(), m));
            for other in &all()[i + 1..] {
                assert_ne!(m.info.name, other.info.name);
                assert_ne!(
                    m.info.wire_type.to_ascii_lowercase(),
                    other.info.wire_type.to_ascii_lowercase()
                );
            }
        }
        assert!(find("chess").is_none());
    }

    #[test]
    fn a_new_game_shows_its_whole_board_and_is_not_over() {
        for m in all() {
            let game = (m.new_game)(&Settings::default());
            let b = m.info.board;
            let view = game.view(crate::Viewer::Spectator);
            assert_eq!(
                view.len(),
                usize::from(b.width) * usize::from(b.height),
                "{}",
                m.info.name
            );
            for cell in &view {
                assert!((1..=b.width).contains(&cell.at.x) && (1..=b.height).contains(&cell.at.y));
                assert!(!cell.square.contains(char::is_whitespace));
            }
            assert!(game.outcome().is_none());
            assert!(game.history().is_empty());
        }
    }
}
