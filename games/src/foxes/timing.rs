//! The times the seed leaves open, and the module's parameters that set them
//! (`--game-option foxes.tide-ms=1000`).

use crate::game::Millis;
use crate::params::{Param, Params};

/// The times the seed leaves open.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Timing {
    /// How long a player waits after every move attempt, legal or not.
    pub cooldown: Millis,
    /// Time between tides; the first comes one period after the start.
    pub tide_period: Millis,
    /// Game time without anything eaten that ends the game (not in the seed:
    /// without it two careful players, foxes inland and dolphins offshore,
    /// could play forever).
    pub quiet_limit: Millis,
}

impl Timing {
    pub const STANDARD: Timing = Timing {
        cooldown: 500,
        tide_period: 10_000,
        quiet_limit: 120_000,
    };

    /// The times `params` gives, the standard ones where it gives none.
    pub fn from_params(params: &Params) -> Timing {
        Timing {
            cooldown: params.get(&COOLDOWN),
            tide_period: params.get(&TIDE),
            quiet_limit: params.get(&QUIET),
        }
    }
}

impl Default for Timing {
    fn default() -> Timing {
        Timing::STANDARD
    }
}

/// Each of [`Timing`]'s times, defaulting to [`Timing::STANDARD`]'s.
pub static PARAMS: [Param; 3] = [COOLDOWN, TIDE, QUIET];

const COOLDOWN: Param = milliseconds(
    "cooldown-ms",
    "milliseconds a player waits after every move attempt",
    Timing::STANDARD.cooldown,
);

const TIDE: Param = milliseconds(
    "tide-ms",
    "milliseconds between two tides (the first comes one period in)",
    Timing::STANDARD.tide_period,
);

const QUIET: Param = milliseconds(
    "quiet-ms",
    "milliseconds without anything eaten that end the game by numbers",
    Timing::STANDARD.quiet_limit,
);

/// A time of at least 1 ms: a time of 0 would let a player or the tide act
/// without end at one instant.
const fn milliseconds(key: &'static str, meaning: &'static str, default: Millis) -> Param {
    Param {
        key,
        meaning,
        default,
        min: 1,
        max: u64::MAX,
    }
}
