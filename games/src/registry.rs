//! Every built-in game, by name. Adding a game is one line in `MODULES`, and
//! one in `OWN_BOTS` if it brings its own computer player.

use crate::bot::Bot;
use crate::game::GameInfo;
pub use crate::module::{GameOption, Module};

/// Makes a game's own computer player from a seed.
pub type NewBot = fn(u64) -> Box<dyn Bot>;

/// Kept here, not in [`Module`], with `OWN_BOTS`: the modules know nothing
/// of the registry that lists them.
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

/// Reads `GAME.KEY=VALUE` (`foxes.tide-ms=1000`): a value for a game's
/// parameter. The error names what was wrong and lists what is allowed.
pub fn game_option(text: &str) -> Result<GameOption, String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?} is not GAME.KEY=VALUE"))?;
    let (game, key) = name
        .split_once('.')
        .ok_or_else(|| format!("{name:?} is not GAME.KEY"))?;
    let module = find(game).ok_or_else(|| {
        let with_options: Vec<String> = MODULES
            .iter()
            .filter(|m| !m.params.is_empty())
            .map(|m| {
                let keys: Vec<&str> = m.params.iter().map(|p| p.key).collect();
                format!("{} ({})", m.info.name, keys.join(", "))
            })
            .collect();
        format!(
            "no game {game:?}; games with options: {}",
            with_options.join(", ")
        )
    })?;
    GameOption::new(module, key, value)
}

/// Every game's parameters, one a line (`foxes.tide-ms (default 10000, at
/// least 1): ...`), for `--help`.
pub fn game_options_help() -> String {
    MODULES
        .iter()
        .flat_map(|m| m.params.iter().map(move |p| format!("{}.{p}", m.info.name)))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::RandomBot;
    use crate::game::Settings;
    use std::time::Duration;

    #[test]
    fn names_are_unique_and_found_in_any_case() {
        for (i, m) in all().iter().enumerate() {
            assert_eq!(m.info.name, m.info.name.to_ascii_lowercase());
            assert!(!m.info.name.contains(char::is_whitespace));
            assert!(!m.info.wire_type.contains(char::is_whitespace));
            // Sent as lists of words (GAME TEAMS, GAME COLUMNS, GAME ROWS).
            let labels = m.info.board.labels;
            let words = m.info.teams.iter().chain(
                labels
                    .iter()
                    .flat_map(|l| l.columns.iter().chain(l.rows.iter())),
            );
            for word in words {
                assert!(!word.is_empty() && !word.contains(char::is_whitespace));
            }
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
    fn labels_name_squares_as_each_game_writes_them() {
        for m in all() {
            let Some(labels) = m.info.board.labels else {
                continue;
            };
            let b = m.info.board;
            assert_eq!(
                labels.columns.len(),
                usize::from(b.width),
                "{}",
                m.info.name
            );
            assert_eq!(labels.rows.len(), usize::from(b.height), "{}", m.info.name);
            // Every square's name reads back as that square and no other.
            for x in 1..=b.width {
                for y in 1..=b.height {
                    let p = crate::Point::new(x, y);
                    assert_eq!(labels.read(&labels.name(p).unwrap()), Some(p));
                }
            }
            // Every first move, played and announced: its notation names its
            // first and last squares by the labels, and reads back.
            let start = (m.new_game)(&Settings::default());
            let team = start.turn().expect("a game with labels has turns");
            let actions = start.legal_actions(team);
            assert!(!actions.is_empty(), "{}", m.info.name);
            for action in actions {
                let crate::Action::Move(squares) = &action else {
                    continue;
                };
                let mut game = start.clone_box();
                game.play(team, &action, 0).unwrap();
                let notation = &game.history()[0].notation;
                for p in [squares[0], squares[squares.len() - 1]] {
                    let name = labels.name(p).unwrap();
                    assert!(
                        notation.contains(&name),
                        "{}: {name} in {notation}",
                        m.info.name
                    );
                    assert_eq!(labels.read(&name.to_uppercase()), Some(p));
                }
                assert_eq!(start.parse_action(notation).unwrap(), action, "{notation}");
            }
        }
    }

    #[test]
    fn every_own_player_belongs_to_one_game() {
        for (info, _) in OWN_BOTS {
            let games = all().iter().filter(|m| std::ptr::eq(m.info, *info));
            assert_eq!(games.count(), 1, "{}", info.name);
        }
        let with_own: Vec<&str> = all()
            .iter()
            .filter(|m| m.own_bot().is_some())
            .map(|m| m.info.name)
            .collect();
        assert_eq!(with_own, ["reversi", "draughts", "duell", "foxes"]);
    }

    #[test]
    fn game_options_name_a_game_a_key_and_a_value_it_accepts() {
        let option = game_option("FoxesDolphins.Tide-MS=1000").unwrap();
        assert_eq!(option.module().info.name, "foxes");
        assert_eq!((option.param().key, option.value()), ("tide-ms", 1000));
        let refused = |text: &str| game_option(text).unwrap_err();
        assert_eq!(refused("foxes"), r#""foxes" is not GAME.KEY=VALUE"#);
        assert_eq!(refused("foxes=1"), r#""foxes" is not GAME.KEY"#);
        assert_eq!(
            refused("chess.tide-ms=1"),
            r#"no game "chess"; games with options: foxes (cooldown-ms, tide-ms, quiet-ms)"#
        );
        assert_eq!(refused("reversi.tide-ms=1"), "reversi has no options");
        let unknown = refused("foxes.tide=1");
        assert!(
            unknown.starts_with("foxes has no option \"tide\"; its options:\n  cooldown-ms (default 500, at least 1): "),
            "{unknown}"
        );
        assert_eq!(unknown.lines().count(), 4, "{unknown}");
        assert_eq!(
            refused("foxes.tide-ms=0"),
            "foxes.tide-ms: 0 is not at least 1"
        );
        assert_eq!(
            refused("foxes.tide-ms=soon"),
            r#"foxes.tide-ms: "soon" is not a whole number"#
        );
    }

    #[test]
    fn a_modules_settings_take_only_its_own_options() {
        let foxes = find("foxes").unwrap();
        let options = [
            game_option("foxes.tide-ms=1000").unwrap(),
            game_option("foxes.tide-ms=2000").unwrap(),
        ];
        let tide = foxes.param("tide-ms").unwrap();
        assert_eq!(foxes.settings(&options).params.get(tide), 2000);
        assert_eq!(foxes.settings(&[]).params.get(tide), tide.default);
        let reversi = find("reversi").unwrap();
        assert_eq!(reversi.settings(&options), Settings::default());
    }

    #[test]
    fn every_parameter_is_listed_for_help_with_its_default() {
        let help = game_options_help();
        let count: usize = all().iter().map(|m| m.params.len()).sum();
        assert_eq!(help.lines().count(), count);
        assert!(
            help.contains("foxes.tide-ms (default 10000, at least 1): "),
            "{help}"
        );
        for m in all() {
            for p in m.params {
                assert_eq!(p.key, p.key.to_ascii_lowercase());
                assert!(!p.key.contains(['.', '=', ' ']), "{}", p.key);
                assert!((p.min..=p.max).contains(&p.default), "{}", p.key);
            }
        }
    }

    /// Random games to the end: every module's legal actions are accepted,
    /// and every game ends.
    #[test]
    fn random_games_of_every_turn_based_module_end() {
        for module in all().iter().filter(|m| !m.info.realtime) {
            for seed in 1..=20 {
                let mut game = (module.new_game)(&Default::default());
                let mut bot = RandomBot::new(seed);
                let mut plies = 0;
                while let Some(team) = game.turn() {
                    let action = bot.choose(&*game, team, Duration::ZERO).unwrap();
                    game.play(team, &action, 0).unwrap();
                    plies += 1;
                    assert!(plies < 10_000, "{} does not end", module.info.name);
                }
                assert!(game.outcome().is_some());
                assert_eq!(game.history().len(), plies);
            }
        }
    }

    #[test]
    fn labels_read_only_names_they_have() {
        let labels = crate::game::Labels {
            columns: &["a", "b"],
            rows: &["1", "10"],
        };
        assert_eq!(labels.read("b10"), Some(crate::Point::new(2, 2)));
        assert_eq!(labels.name(crate::Point::new(1, 2)).as_deref(), Some("a10"));
        for bad in ["", "a", "c1", "a2", "a1 ", "é1", "b100"] {
            assert_eq!(labels.read(bad), None, "{bad}");
        }
        // A column name that starts another's.
        let labels = crate::game::Labels {
            columns: &["a", "aa"],
            rows: &["1", "2"],
        };
        assert_eq!(labels.read("aa1"), Some(crate::Point::new(2, 1)));
        assert_eq!(labels.read("aa11"), None);
        assert_eq!(labels.name(crate::Point::new(3, 1)), None);
        assert_eq!(labels.name(crate::Point::new(0, 1)), None);
    }

    #[test]
    fn every_game_has_its_rules_for_people() {
        for m in all() {
            assert!(
                m.info.rules.len() > 40,
                "{}: {:?}",
                m.info.name,
                m.info.rules
            );
        }
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
