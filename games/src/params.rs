//! The parameters a game module declares (Foxes & Dolphins' times), and the
//! values a game is given for them. A value is checked against its
//! declaration when it is set, so a game reads only values it accepts.

use std::fmt;

/// One parameter of a game module: a whole number within bounds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Param {
    /// Its name after the game's (`tide-ms` in `foxes.tide-ms`): lower case, no spaces.
    pub key: &'static str,
    /// What it changes, for people.
    pub meaning: &'static str,
    pub default: u64,
    pub min: u64,
    pub max: u64,
}

impl Param {
    /// Reads `text` as a value of this parameter.
    pub fn read(&self, text: &str) -> Result<u64, String> {
        let value: u64 = text
            .parse()
            .map_err(|_| format!("{text:?} is not a whole number"))?;
        if (self.min..=self.max).contains(&value) {
            Ok(value)
        } else {
            Err(format!("{value} is not {}", self.bounds()))
        }
    }

    /// `at least 1`, `0 to 8`.
    fn bounds(&self) -> String {
        match (self.min, self.max) {
            (min, u64::MAX) => format!("at least {min}"),
            (min, max) => format!("{min} to {max}"),
        }
    }
}

/// `tide-ms (default 10000, at least 1): what it means`.
impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (default {}, {}): {}",
            self.key,
            self.default,
            self.bounds(),
            self.meaning
        )
    }
}

/// The values a game was given; a parameter not given has its default.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Params {
    given: Vec<(&'static str, u64)>,
}

impl Params {
    /// Gives `param` the value `text`, if `param` accepts it (a later value
    /// replaces an earlier one, as on a command line).
    pub fn set(&mut self, param: &'static Param, text: &str) -> Result<(), String> {
        let value = param.read(text)?;
        self.put(param, value);
        Ok(())
    }

    /// Gives `param` a value already [read](Param::read).
    pub(crate) fn put(&mut self, param: &'static Param, value: u64) {
        self.given.retain(|&(key, _)| key != param.key);
        self.given.push((param.key, value));
    }

    /// The value of `param`: the one given, else its default.
    pub fn get(&self, param: &Param) -> u64 {
        self.given
            .iter()
            .find(|&&(key, _)| key == param.key)
            .map_or(param.default, |&(_, value)| value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static LIMIT: Param = Param {
        key: "limit-ms",
        meaning: "a limit",
        default: 500,
        min: 1,
        max: u64::MAX,
    };

    static SMALL: Param = Param {
        key: "small",
        meaning: "a small number",
        default: 2,
        min: 0,
        max: 8,
    };

    #[test]
    fn values_are_read_within_their_bounds() {
        assert_eq!(LIMIT.read("1"), Ok(1));
        assert_eq!(LIMIT.read("0"), Err("0 is not at least 1".to_owned()));
        assert_eq!(SMALL.read("9"), Err("9 is not 0 to 8".to_owned()));
        for bad in ["", "-1", "1.5", "ten", " 1"] {
            let why = LIMIT.read(bad).unwrap_err();
            assert!(why.contains("not a whole number"), "{bad}: {why}");
        }
    }

    #[test]
    fn a_value_not_given_is_the_default_and_the_last_given_counts() {
        let mut params = Params::default();
        assert_eq!((params.get(&LIMIT), params.get(&SMALL)), (500, 2));
        params.set(&LIMIT, "20").unwrap();
        params.set(&LIMIT, "30").unwrap();
        assert_eq!((params.get(&LIMIT), params.get(&SMALL)), (30, 2));
        assert!(params.set(&SMALL, "9").is_err());
        assert_eq!(params.get(&SMALL), 2);
    }

    #[test]
    fn a_parameter_shows_its_default_bounds_and_meaning() {
        assert_eq!(
            LIMIT.to_string(),
            "limit-ms (default 500, at least 1): a limit"
        );
        assert_eq!(
            SMALL.to_string(),
            "small (default 2, 0 to 8): a small number"
        );
    }
}
