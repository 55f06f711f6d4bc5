//! Accounts and tokens.

use super::rows::{self, int, text};
use super::Failure;
use crate::backend::{DbError, Sql, Value};
use crate::names::Name;
use crate::secret::{self, ApiToken, Password, TokenId};
use crate::store::StoreError;
use crate::types::*;

/// The most characters a token's label may have.
const LABEL_CHARS: usize = 64;

pub fn register(
    conn: &mut impl Sql,
    name: &Name,
    hash: &str,
    now: UnixMillis,
) -> Result<Account, Failure> {
    if account(conn, name)?.is_some() {
        return Err(StoreError::NameTaken.into());
    }
    let rows = conn.query(
        "INSERT INTO accounts (name, name_key, password_hash, created_ms) \
         VALUES ($1, $2, $3, $4) RETURNING id",
        &[
            text(name.as_str()),
            text(name.key()),
            text(hash),
            int(now.0),
        ],
    )?;
    let id = rows
        .into_iter()
        .next()
        .ok_or_else(|| DbError::fatal("INSERT returned no id"))?
        .int()?;
    Ok(Account {
        id: AccountId(id),
        name: name.as_str().to_owned(),
        created: now,
    })
}

pub fn account(conn: &mut impl Sql, name: &Name) -> Result<Option<Account>, DbError> {
    let rows = conn.query(
        "SELECT id, name, created_ms FROM accounts WHERE name_key = $1",
        &[text(name.key())],
    )?;
    rows.into_iter()
        .next()
        .map(|mut r| rows::account(&mut r))
        .transpose()
}

pub fn sign_in(
    conn: &mut impl Sql,
    name: &Name,
    password: &Password,
) -> Result<Option<Account>, DbError> {
    let rows = conn.query(
        "SELECT id, name, created_ms, password_hash FROM accounts WHERE name_key = $1",
        &[text(name.key())],
    )?;
    let Some(mut row) = rows.into_iter().next() else {
        secret::verify_against_nothing(password);
        return Ok(None);
    };
    let account = rows::account(&mut row)?;
    let hash = row.text()?;
    Ok(secret::verify_password(password, &hash).then_some(account))
}

pub fn set_password(conn: &mut impl Sql, account: AccountId, hash: &str) -> Result<(), Failure> {
    let changed = conn.execute(
        "UPDATE accounts SET password_hash = $1 WHERE id = $2",
        &[text(hash), int(account.0)],
    )?;
    if changed == 0 {
        return Err(StoreError::NoSuchAccount.into());
    }
    Ok(())
}

fn exists(conn: &mut impl Sql, account: AccountId) -> Result<bool, DbError> {
    let rows = conn.query("SELECT id FROM accounts WHERE id = $1", &[int(account.0)])?;
    Ok(!rows.is_empty())
}

pub fn check_label(label: &str) -> Result<(), StoreError> {
    let chars = label.chars().count();
    if chars > LABEL_CHARS || label.chars().any(|c| c.is_control() || is_layout(c)) {
        return Err(StoreError::Invalid(format!(
            "a token's label has at most {LABEL_CHARS} characters, and no control characters, line separators or bidirectional marks"
        )));
    }
    Ok(())
}

/// Characters that are no control characters to Rust but end a line for some readers
/// (U+2028, U+2029) or turn the text after them round (bidirectional overrides and
/// isolates): a label with one could pass for another line or another token's.
fn is_layout(c: char) -> bool {
    matches!(c, '\u{2028}' | '\u{2029}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

pub fn create_token(
    conn: &mut impl Sql,
    account: AccountId,
    label: &str,
    token: &ApiToken,
    now: UnixMillis,
) -> Result<NewToken, Failure> {
    if !exists(conn, account)? {
        return Err(StoreError::NoSuchAccount.into());
    }
    // Counted in the transaction that adds one (serialisable on PostgreSQL, under
    // SQLite's write lock): two at once cannot both take the last place.
    let live = conn.query(
        "SELECT COUNT(*) FROM api_tokens WHERE account_id = $1",
        &[int(account.0)],
    )?;
    let live = live.into_iter().next().map_or(Ok(0), |mut r| r.int())?;
    if live >= TOKENS_PER_ACCOUNT as i64 {
        return Err(StoreError::TooManyTokens.into());
    }
    conn.execute(
        "INSERT INTO api_tokens (id, account_id, label, secret_sha256, created_ms) \
         VALUES ($1, $2, $3, $4, $5)",
        &[
            text(token.id().as_str()),
            int(account.0),
            text(label),
            Value::Blob(Some(token.secret_hash())),
            int(now.0),
        ],
    )?;
    Ok(NewToken {
        info: TokenInfo {
            id: token.id().clone(),
            label: label.to_owned(),
            created: now,
            last_used: None,
        },
        token: token.clone(),
    })
}

pub fn tokens(conn: &mut impl Sql, account: AccountId) -> Result<Vec<TokenInfo>, DbError> {
    let rows = conn.query(
        "SELECT id, label, created_ms, last_used_ms FROM api_tokens WHERE account_id = $1 \
         ORDER BY created_ms, id",
        &[int(account.0)],
    )?;
    rows.into_iter()
        .map(|mut row| {
            let id = row.text()?;
            Ok(TokenInfo {
                id: TokenId::parse(&id)
                    .ok_or_else(|| DbError::fatal(format!("token id {id:?}")))?,
                label: row.text()?,
                created: UnixMillis(row.int()?),
                last_used: row.opt_int()?.map(UnixMillis),
            })
        })
        .collect()
}

pub fn revoke_token(
    conn: &mut impl Sql,
    account: AccountId,
    token: &TokenId,
) -> Result<bool, DbError> {
    let changed = conn.execute(
        "DELETE FROM api_tokens WHERE id = $1 AND account_id = $2",
        &[text(token.as_str()), int(account.0)],
    )?;
    Ok(changed > 0)
}

pub fn token_account(
    conn: &mut impl Sql,
    token: &ApiToken,
) -> Result<Option<TokenSignIn>, DbError> {
    let rows = conn.query(
        "SELECT a.id, a.name, a.created_ms, t.secret_sha256, t.last_used_ms FROM api_tokens t \
         JOIN accounts a ON a.id = t.account_id WHERE t.id = $1",
        &[text(token.id().as_str())],
    )?;
    let Some(mut row) = rows.into_iter().next() else {
        return Ok(None);
    };
    let account = rows::account(&mut row)?;
    if !token.matches(&row.blob()?) {
        return Ok(None);
    }
    Ok(Some(TokenSignIn {
        account,
        token: token.id().clone(),
        last_used: row.opt_int()?.map(UnixMillis),
    }))
}

/// Writes `now` as the token's last use unless one as recent is kept (the condition is
/// the statement's, so that hosts signing the same token in at once write it once).
pub fn record_token_use(
    conn: &mut impl Sql,
    token: &TokenId,
    now: UnixMillis,
) -> Result<(), DbError> {
    conn.execute(
        "UPDATE api_tokens SET last_used_ms = $1 WHERE id = $2 \
         AND (last_used_ms IS NULL OR last_used_ms <= $3)",
        &[
            int(now.0),
            text(token.as_str()),
            int(now.0 - TOKEN_USE_RECORDED_EVERY_MS),
        ],
    )?;
    Ok(())
}
