//! Values to and from the database's columns.

use crate::backend::{DbError, Row, Value};
use crate::glicko2::Rating;
use crate::types::*;

pub fn int(v: i64) -> Value {
    Value::Int(Some(v))
}

pub fn text(v: &str) -> Value {
    Value::Text(Some(v.to_owned()))
}

pub fn real(v: Option<f64>) -> Value {
    Value::Real(v)
}

/// A count or limit as a parameter.
pub fn count(v: usize) -> Value {
    int(i64::try_from(v).unwrap_or(i64::MAX))
}

/// `id, name, created_ms`.
pub fn account(row: &mut Row) -> Result<Account, DbError> {
    Ok(Account {
        id: AccountId(row.int()?),
        name: row.text()?,
        created: UnixMillis(row.int()?),
    })
}

/// Three nullable reals: rating, deviation, volatility.
pub fn opt_rating(row: &mut Row) -> Result<Option<Rating>, DbError> {
    let (rating, deviation, volatility) = (row.opt_real()?, row.opt_real()?, row.opt_real()?);
    Ok(match (rating, deviation, volatility) {
        (Some(rating), Some(deviation), Some(volatility)) => Some(Rating {
            rating,
            deviation,
            volatility,
        }),
        _ => None,
    })
}

pub fn rating(row: &mut Row) -> Result<Rating, DbError> {
    opt_rating(row)?.ok_or_else(|| DbError::fatal("a rating with NULLs"))
}

pub fn rating_values(rating: Option<Rating>) -> [Value; 3] {
    [
        real(rating.map(|r| r.rating)),
        real(rating.map(|r| r.deviation)),
        real(rating.map(|r| r.volatility)),
    ]
}

/// The `result`, `winner` and `ending` columns.
pub fn outcome_values(outcome: &Outcome) -> [Value; 3] {
    let (result, winner) = match outcome {
        Outcome::Win { team, .. } => ("win", Some(i64::from(*team))),
        Outcome::Draw { .. } => ("draw", None),
        Outcome::Aborted => ("none", None),
    };
    [
        text(result),
        Value::Int(winner),
        text(outcome.ending().word()),
    ]
}

pub fn outcome(row: &mut Row) -> Result<Outcome, DbError> {
    let (result, winner, ending) = (row.text()?, row.opt_int()?, row.text()?);
    let ending = Ending::from_word(&ending)
        .ok_or_else(|| DbError::fatal(format!("no ending {ending:?}")))?;
    match (result.as_str(), winner) {
        ("win", Some(team)) => Ok(Outcome::Win {
            team: team_number(team)?,
            ending,
        }),
        ("draw", None) => Ok(Outcome::Draw { ending }),
        ("none", None) => Ok(Outcome::Aborted),
        _ => Err(DbError::fatal(format!("no result {result:?} {winner:?}"))),
    }
}

pub fn team_number(team: i64) -> Result<u8, DbError> {
    u8::try_from(team).map_err(|_| DbError::fatal(format!("no team {team}")))
}

pub fn mode(rated: i64) -> Mode {
    if rated != 0 {
        Mode::Rated
    } else {
        Mode::Casual
    }
}

/// The seed's 64 bits as BIGINT's, and back (a seed above 2^63 reads negative in SQL).
pub fn seed_value(seed: u64) -> Value {
    int(seed as i64)
}

pub fn seed(v: i64) -> u64 {
    v as u64
}
