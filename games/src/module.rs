//! What a game module hands the registry: its facts, its parameters, and how
//! to start a game of it.

use crate::game::{Game, GameInfo, Settings};
use crate::params::{Param, Params};

/// A game module. Rules only: its own computer player, if it has one, is
/// the registry's business (it keeps them apart).
pub struct Module {
    pub info: &'static GameInfo,
    /// What a server may change in its games (`--game-option GAME.KEY=VALUE`).
    pub params: &'static [Param],
    pub new_game: fn(&Settings) -> Box<dyn Game>,
}

impl Module {
    /// Its parameter called `key` (any case); the error lists the ones it has.
    pub fn param(&self, key: &str) -> Result<&'static Param, String> {
        self.params
            .iter()
            .find(|p| p.key.eq_ignore_ascii_case(key))
            .ok_or_else(|| match self.params {
                [] => format!("{} has no options", self.info.name),
                params => {
                    let listed: Vec<String> = params.iter().map(|p| format!("  {p}")).collect();
                    format!(
                        "{} has no option {key:?}; its options:\n{}",
                        self.info.name,
                        listed.join("\n")
                    )
                }
            })
    }

    /// What each game of this module is given: `options` for it applied,
    /// the others' ignored; the seed is 0 (the runtime draws one per game).
    pub fn settings(&self, options: &[GameOption]) -> Settings {
        let mut params = Params::default();
        for option in options.iter().filter(|o| o.module == self) {
            params.put(option.param, option.value);
        }
        Settings { seed: 0, params }
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

/// A value for one module's parameter, checked against its declaration
/// (`foxes.tide-ms=1000`, as the registry's `game_option` reads it).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GameOption {
    module: &'static Module,
    param: &'static Param,
    value: u64,
}

impl GameOption {
    /// `module`'s parameter `key` set to `text`, if it has one that reads
    /// `text` as a value; the error says which was wrong.
    pub fn new(module: &'static Module, key: &str, text: &str) -> Result<Self, String> {
        let param = module.param(key)?;
        let value = param
            .read(text)
            .map_err(|why| format!("{}.{}: {why}", module.info.name, param.key))?;
        Ok(GameOption {
            module,
            param,
            value,
        })
    }

    pub fn module(&self) -> &'static Module {
        self.module
    }

    pub fn param(&self) -> &'static Param {
        self.param
    }

    pub fn value(&self) -> u64 {
        self.value
    }
}
