//! Tournaments (migration 2): each kept whole as the server's JSON document of it, replaced
//! after every change; read back at start (spec/TOURNAMENTS.md §6).

use super::rows::{int, text};
use crate::backend::{DbError, Sql};
use crate::types::UnixMillis;

/// Keeps tournament `id` as `state` (its JSON), replacing what was kept.
pub fn save(conn: &mut impl Sql, id: u64, state: &str, now: UnixMillis) -> Result<(), DbError> {
    let id =
        i64::try_from(id).map_err(|_| DbError::fatal(format!("tournament id {id} too big")))?;
    conn.execute(
        "INSERT INTO tournaments (id, state, updated_ms) VALUES ($1, $2, $3) \
         ON CONFLICT (id) DO UPDATE SET state = excluded.state, updated_ms = excluded.updated_ms",
        &[int(id), text(state), int(now.0)],
    )?;
    Ok(())
}

/// Every tournament kept, by id.
pub fn all(conn: &mut impl Sql) -> Result<Vec<(u64, String)>, DbError> {
    let rows = conn.query("SELECT id, state FROM tournaments ORDER BY id", &[])?;
    rows.into_iter()
        .map(|mut row| Ok((row.int()? as u64, row.text()?)))
        .collect()
}
