//! The schema, as numbered migrations applied in order at start, each once,
//! each in its own transaction. A migration is written once for both
//! dialects; the words in braces are the types that differ:
//! `{id}` an account's generated key, `{bytes}` a byte string, `{real}` a double.
//! A released migration is never edited: a change is a new one at the end.

use crate::backend::{DbError, Dialect, Sql, Value};
use crate::store::StoreError;
use crate::types::UnixMillis;

const MIGRATIONS: &[&str] = &[
    // 1: players, tokens, ratings, the archive.
    r#"
    CREATE TABLE accounts (
        id {id},
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        password_hash TEXT NOT NULL,
        created_ms BIGINT NOT NULL
    );
    CREATE TABLE api_tokens (
        id TEXT PRIMARY KEY,
        account_id BIGINT NOT NULL REFERENCES accounts (id),
        label TEXT NOT NULL,
        secret_sha256 {bytes} NOT NULL,
        created_ms BIGINT NOT NULL
    );
    CREATE INDEX api_tokens_account ON api_tokens (account_id);
    CREATE TABLE ratings (
        account_id BIGINT NOT NULL REFERENCES accounts (id),
        kind TEXT NOT NULL,
        rating {real} NOT NULL,
        deviation {real} NOT NULL,
        volatility {real} NOT NULL,
        games BIGINT NOT NULL,
        updated_ms BIGINT NOT NULL,
        PRIMARY KEY (account_id, kind)
    );
    CREATE INDEX ratings_board ON ratings (kind, rating DESC);
    CREATE TABLE games (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        rated BIGINT NOT NULL,
        time_control TEXT NOT NULL,
        seed BIGINT NOT NULL,
        result TEXT NOT NULL,
        winner BIGINT,
        ending TEXT NOT NULL,
        why TEXT NOT NULL,
        started_ms BIGINT NOT NULL,
        ended_ms BIGINT NOT NULL,
        host TEXT NOT NULL
    );
    CREATE INDEX games_ended ON games (ended_ms DESC);
    CREATE TABLE game_seats (
        game_id TEXT NOT NULL REFERENCES games (id),
        seat BIGINT NOT NULL,
        team BIGINT NOT NULL,
        name TEXT NOT NULL,
        account_id BIGINT REFERENCES accounts (id),
        rating_before {real},
        deviation_before {real},
        volatility_before {real},
        rating_after {real},
        deviation_after {real},
        volatility_after {real},
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX game_seats_account ON game_seats (account_id);
    CREATE TABLE moves (
        game_id TEXT NOT NULL REFERENCES games (id),
        ply BIGINT NOT NULL,
        team BIGINT NOT NULL,
        notation TEXT NOT NULL,
        took_ms BIGINT NOT NULL,
        PRIMARY KEY (game_id, ply)
    );
    "#,
    // 2: tournaments, each its server's JSON document (spec/TOURNAMENTS.md §6).
    r#"
    CREATE TABLE tournaments (
        id BIGINT PRIMARY KEY,
        state TEXT NOT NULL,
        updated_ms BIGINT NOT NULL
    );
    "#,
    // 3: a player's games in time order. The profile's history and recent games walk one
    // player's seats newest first; without this they sorted all of the player's seats by
    // `games.ended_ms` (spec/STORE.md §3). The new index begins with `account_id`, so it
    // replaces the old one.
    r#"
    ALTER TABLE game_seats ADD COLUMN ended_ms BIGINT NOT NULL DEFAULT 0;
    UPDATE game_seats SET ended_ms = (SELECT g.ended_ms FROM games g WHERE g.id = game_seats.game_id);
    CREATE INDEX game_seats_account_ended ON game_seats (account_id, ended_ms DESC, game_id DESC);
    DROP INDEX game_seats_account;
    "#,
    // 4: an API token's last use (spec/STORE.md §4), written at a sign-in with it, at most
    // once a minute a token; NULL until then.
    r#"
    ALTER TABLE api_tokens ADD COLUMN last_used_ms BIGINT;
    "#,
];

fn in_dialect(sql: &str, dialect: Dialect) -> String {
    let (id, bytes, real) = match dialect {
        Dialect::Sqlite => ("INTEGER PRIMARY KEY", "BLOB", "REAL"),
        Dialect::Postgres => (
            "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
            "BYTEA",
            "DOUBLE PRECISION",
        ),
    };
    sql.replace("{id}", id)
        .replace("{bytes}", bytes)
        .replace("{real}", real)
}

/// Brings the schema up to date, in one transaction. Hosts starting at once
/// against one PostgreSQL database take turns (an advisory lock held to the
/// transaction's end); SQLite's write lock does the same.
pub fn apply(conn: &mut impl Sql) -> Result<(), StoreError> {
    apply_these(conn, MIGRATIONS)
}

/// [`apply`] with the first `migrations.len()` migrations only (tests start from an older schema).
fn apply_these(conn: &mut impl Sql, migrations: &[&str]) -> Result<(), StoreError> {
    let failed = |e: DbError| StoreError::Database(format!("migrating the schema: {}", e.message));
    conn.batch(conn.dialect().begin()).map_err(failed)?;
    match apply_missing(conn, migrations) {
        Ok(()) => conn.batch("COMMIT").map_err(failed),
        Err(e) => {
            let _ = conn.batch("ROLLBACK");
            Err(failed(e))
        }
    }
}

fn apply_missing(conn: &mut impl Sql, migrations: &[&str]) -> Result<(), DbError> {
    lock(conn)?;
    conn.batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations \
         (version BIGINT PRIMARY KEY, applied_ms BIGINT NOT NULL)",
    )?;
    for (number, sql) in migrations.iter().enumerate() {
        let version = number as i64 + 1;
        if applied(conn, version)? {
            continue;
        }
        conn.batch(&in_dialect(sql, conn.dialect()))
            .map_err(|e| DbError::fatal(format!("migration {version}: {}", e.message)))?;
        conn.execute(
            "INSERT INTO schema_migrations (version, applied_ms) VALUES ($1, $2)",
            &[
                Value::Int(Some(version)),
                Value::Int(Some(UnixMillis::now().0)),
            ],
        )?;
    }
    Ok(())
}

fn lock(conn: &mut impl Sql) -> Result<(), DbError> {
    if conn.dialect() == Dialect::Postgres {
        // Any fixed number: it names the lock of the store's migrations.
        conn.query("SELECT pg_advisory_xact_lock(7274061)::TEXT", &[])?;
    }
    Ok(())
}

fn applied(conn: &mut impl Sql, version: i64) -> Result<bool, DbError> {
    let rows = conn.query(
        "SELECT version FROM schema_migrations WHERE version = $1",
        &[Value::Int(Some(version))],
    )?;
    Ok(!rows.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database made before seats had `ended_ms` gets it from each seat's game.
    #[test]
    fn seats_stored_before_migration_3_get_their_games_end() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        apply_these(&mut conn, &MIGRATIONS[..1]).unwrap();
        conn.batch(
            "INSERT INTO games VALUES ('g1', 'reversi', 0, '5m', 0, 'draw', NULL, 'rules', \
             '32-32', 1000, 5000, 'h'); \
             INSERT INTO game_seats (game_id, seat, team, name) VALUES ('g1', 0, 0, 'ann'), \
             ('g1', 1, 1, 'bob')",
        )
        .unwrap();
        apply(&mut conn).unwrap();
        let rows = conn
            .query("SELECT ended_ms FROM game_seats ORDER BY seat", &[])
            .unwrap();
        let ends: Vec<i64> = rows.into_iter().map(|mut r| r.int().unwrap()).collect();
        assert_eq!(ends, [5000, 5000]);
        apply(&mut conn).unwrap();
    }
}
