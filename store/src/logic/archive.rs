//! Finished games and the ratings they move; the pages' queries.

use super::rows::{self, count, int, text};
use super::Failure;
use crate::backend::{DbError, Row, Sql, Value};
use crate::glicko2::{Glicko2, Rating, Score};
use crate::store::StoreError;
use crate::types::*;

/// A rating period, for the deviation's growth while a player does not play.
pub const RATING_PERIOD_MS: i64 = 24 * 60 * 60 * 1000;
/// Moves inserted by one statement.
const MOVES_PER_INSERT: usize = 32;

/// The longest texts a game may carry, in bytes.
const LIMITS: [(&str, usize); 5] = [
    ("kind", 32),
    ("time control", 64),
    ("why", 1024),
    ("host", 255),
    ("notation", 256),
];

/// A text too long for its column, or holding a NUL (which PostgreSQL's text refuses).
fn check_text(what: &str, value: &str) -> Result<(), StoreError> {
    if value.contains('\0') {
        return Err(StoreError::Invalid(format!(
            "the {what} holds a NUL character"
        )));
    }
    let (_, max) = LIMITS
        .iter()
        .find(|(w, _)| *w == what)
        .copied()
        .unwrap_or((what, 0));
    if value.len() > max {
        return Err(StoreError::Invalid(format!(
            "the {what} is longer than {max} bytes"
        )));
    }
    Ok(())
}

/// Refuses a game that cannot be stored as it is, whatever the database holds.
pub fn check(game: &FinishedGame) -> Result<(), StoreError> {
    let invalid = |why: &str| Err(StoreError::Invalid(format!("game {}: {why}", game.id)));
    check_text("kind", &game.kind)?;
    check_text("time control", &game.time_control)?;
    check_text("why", &game.why)?;
    check_text("host", &game.host)?;
    for m in &game.moves {
        check_text("notation", &m.notation)?;
    }
    if game.seats.is_empty() {
        return invalid("no players");
    }
    let plays = |team: u8| game.seats.iter().any(|s| s.team == team);
    if let Outcome::Win { team, .. } = game.outcome {
        if !plays(team) {
            return invalid("the winning team has no player");
        }
    }
    if let Some(m) = game.moves.iter().find(|m| !plays(m.team)) {
        return invalid(&format!("a move by team {}, which has no player", m.team));
    }
    let guest = game
        .seats
        .iter()
        .any(|s| matches!(s.player, Player::Guest(_) | Player::Anonymous));
    if game.mode == Mode::Rated && guest {
        return invalid("a rated game has accounts only (games with guests are casual)");
    }
    let accounts: Vec<AccountId> = game
        .seats
        .iter()
        .filter_map(|s| match s.player {
            Player::Account(id) => Some(id),
            Player::Guest(_) | Player::Anonymous => None,
        })
        .collect();
    let twice = accounts
        .iter()
        .enumerate()
        .any(|(i, a)| accounts[..i].contains(a));
    if game.mode == Mode::Rated && twice {
        return invalid("an account holds two seats of a rated game");
    }
    if game.ended < game.started {
        return invalid("it ended before it started");
    }
    Ok(())
}

/// Stores `game` unless its id is stored already; moves ratings if it is rated.
pub fn record(
    conn: &mut impl Sql,
    glicko: &Glicko2,
    game: &FinishedGame,
) -> Result<Recorded, Failure> {
    let known = conn.query(
        "SELECT id FROM games WHERE id = $1",
        &[text(game.id.as_str())],
    )?;
    if !known.is_empty() {
        return Ok(Recorded::AlreadyStored);
    }
    let names = seat_names(conn, game)?;
    let (before, after) = new_ratings(conn, glicko, game)?;
    insert_game(conn, game)?;
    for (seat, (s, name)) in game.seats.iter().zip(&names).enumerate() {
        let account = match s.player {
            Player::Account(id) => Some(id.0),
            Player::Guest(_) | Player::Anonymous => None,
        };
        let mut values = vec![
            text(game.id.as_str()),
            count(seat),
            int(i64::from(s.team)),
            text(name),
            Value::Int(account),
            int(game.ended.0),
        ];
        values.extend(rows::rating_values(before[seat]));
        values.extend(rows::rating_values(after[seat]));
        conn.execute(
            "INSERT INTO game_seats (game_id, seat, team, name, account_id, ended_ms, \
             rating_before, deviation_before, volatility_before, rating_after, deviation_after, \
             volatility_after) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            &values,
        )?;
        if let (Some(account), Some(rating)) = (account, after[seat]) {
            save_rating(conn, AccountId(account), &game.kind, rating, game.ended)?;
        }
    }
    insert_moves(conn, game)?;
    Ok(Recorded::Stored)
}

/// [`record`] within a savepoint: a game the store refuses is undone alone,
/// and its refusal is its answer; a database error stops the whole transaction.
pub fn record_in_savepoint(
    conn: &mut impl Sql,
    glicko: &Glicko2,
    game: &FinishedGame,
) -> Result<Result<Recorded, StoreError>, DbError> {
    conn.batch("SAVEPOINT game")?;
    match record(conn, glicko, game) {
        Ok(recorded) => {
            conn.batch("RELEASE SAVEPOINT game")?;
            Ok(Ok(recorded))
        }
        Err(Failure::Store(refused)) => {
            conn.batch("ROLLBACK TO SAVEPOINT game; RELEASE SAVEPOINT game")?;
            Ok(Err(refused))
        }
        Err(Failure::Db(e)) => Err(e),
    }
}

/// Each seat's name: a guest's own, an account's as registered.
fn seat_names(conn: &mut impl Sql, game: &FinishedGame) -> Result<Vec<String>, Failure> {
    let mut names = Vec::with_capacity(game.seats.len());
    for seat in &game.seats {
        names.push(match &seat.player {
            Player::Guest(name) => name.as_str().to_owned(),
            Player::Anonymous => crate::types::ANONYMOUS.to_owned(),
            Player::Account(id) => {
                let rows = conn.query("SELECT name FROM accounts WHERE id = $1", &[int(id.0)])?;
                let Some(mut row) = rows.into_iter().next() else {
                    let why = format!("game {}: no account {}", game.id, id.0);
                    return Err(StoreError::Invalid(why).into());
                };
                row.text()?
            }
        });
    }
    Ok(names)
}

type SeatRatings = Vec<Option<Rating>>;

/// Every seat's rating before and after the game; `None` where it is not rated.
/// Each rated game is a rating period of its own; each player scores
/// against every player of the other teams.
fn new_ratings(
    conn: &mut impl Sql,
    glicko: &Glicko2,
    game: &FinishedGame,
) -> Result<(SeatRatings, SeatRatings), DbError> {
    let unrated = vec![None; game.seats.len()];
    if game.mode == Mode::Casual || game.outcome == Outcome::Aborted {
        return Ok((unrated.clone(), unrated));
    }
    let mut before = Vec::with_capacity(game.seats.len());
    for seat in &game.seats {
        let Player::Account(id) = seat.player else {
            return Ok((unrated.clone(), unrated));
        };
        before.push(current_rating(conn, glicko, id, &game.kind, game.ended)?);
    }
    let after = game
        .seats
        .iter()
        .zip(&before)
        .map(|(seat, rating)| {
            let games: Vec<(Rating, Score)> = game
                .seats
                .iter()
                .zip(&before)
                .filter(|(other, _)| other.team != seat.team)
                .map(|(_, theirs)| (*theirs, score(&game.outcome, seat.team)))
                .collect();
            Some(glicko.rate(*rating, &games))
        })
        .collect();
    Ok((before.into_iter().map(Some).collect(), after))
}

fn score(outcome: &Outcome, team: u8) -> Score {
    match outcome {
        Outcome::Win { team: winner, .. } if *winner == team => Score::Win,
        Outcome::Win { .. } => Score::Loss,
        Outcome::Draw { .. } | Outcome::Aborted => Score::Draw,
    }
}

fn insert_game(conn: &mut impl Sql, game: &FinishedGame) -> Result<(), DbError> {
    let [result, winner, ending] = rows::outcome_values(&game.outcome);
    conn.execute(
        "INSERT INTO games (id, kind, rated, time_control, seed, result, winner, ending, why, \
         started_ms, ended_ms, host) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        &[
            text(game.id.as_str()),
            text(&game.kind),
            int(i64::from(game.mode == Mode::Rated)),
            text(&game.time_control),
            rows::seed_value(game.seed),
            result,
            winner,
            ending,
            text(&game.why),
            int(game.started.0),
            int(game.ended.0),
            text(&game.host),
        ],
    )?;
    Ok(())
}

/// The moves, a few dozen a statement (one round trip each to PostgreSQL).
fn insert_moves(conn: &mut impl Sql, game: &FinishedGame) -> Result<(), DbError> {
    for (chunk_index, chunk) in game.moves.chunks(MOVES_PER_INSERT).enumerate() {
        let mut sql =
            String::from("INSERT INTO moves (game_id, ply, team, notation, took_ms) VALUES ");
        let mut values = Vec::with_capacity(chunk.len() * 5);
        for (i, m) in chunk.iter().enumerate() {
            let n = values.len();
            if i > 0 {
                sql.push_str(", ");
            }
            sql.push_str(&format!(
                "(${}, ${}, ${}, ${}, ${})",
                n + 1,
                n + 2,
                n + 3,
                n + 4,
                n + 5
            ));
            values.extend([
                text(game.id.as_str()),
                count(chunk_index * MOVES_PER_INSERT + i),
                int(i64::from(m.team)),
                text(&m.notation),
                int(i64::from(m.took_ms)),
            ]);
        }
        conn.execute(&sql, &values)?;
    }
    Ok(())
}

fn save_rating(
    conn: &mut impl Sql,
    account: AccountId,
    kind: &str,
    rating: Rating,
    at: UnixMillis,
) -> Result<(), DbError> {
    let [r, d, v] = rows::rating_values(Some(rating));
    conn.execute(
        "INSERT INTO ratings (account_id, kind, rating, deviation, volatility, games, updated_ms) \
         VALUES ($1, $2, $3, $4, $5, 1, $6) \
         ON CONFLICT (account_id, kind) DO UPDATE SET rating = excluded.rating, \
         deviation = excluded.deviation, volatility = excluded.volatility, \
         games = ratings.games + 1, updated_ms = excluded.updated_ms",
        &[int(account.0), text(kind), r, d, v, int(at.0)],
    )?;
    Ok(())
}

/// The stored rating with its deviation grown by the whole rating periods since it was set.
fn as_of(glicko: &Glicko2, stored: Rating, updated: i64, now: UnixMillis) -> Rating {
    let periods = (now.0 - updated).max(0) / RATING_PERIOD_MS;
    glicko.idle(stored, u32::try_from(periods).unwrap_or(u32::MAX))
}

pub fn current_rating(
    conn: &mut impl Sql,
    glicko: &Glicko2,
    account: AccountId,
    kind: &str,
    now: UnixMillis,
) -> Result<Rating, DbError> {
    let rows = conn.query(
        "SELECT rating, deviation, volatility, updated_ms FROM ratings \
         WHERE account_id = $1 AND kind = $2",
        &[int(account.0), text(kind)],
    )?;
    let Some(mut row) = rows.into_iter().next() else {
        return Ok(Rating::NEW);
    };
    let stored = rows::rating(&mut row)?;
    Ok(as_of(glicko, stored, row.int()?, now))
}

pub fn profile(
    conn: &mut impl Sql,
    glicko: &Glicko2,
    account: Account,
    recent: usize,
    now: UnixMillis,
) -> Result<Profile, DbError> {
    let rows = conn.query(
        "SELECT kind, rating, deviation, volatility, updated_ms, games FROM ratings \
         WHERE account_id = $1 ORDER BY kind",
        &[int(account.id.0)],
    )?;
    let mut ratings = Vec::new();
    for mut row in rows {
        let kind = row.text()?;
        let stored = rows::rating(&mut row)?;
        let rating = as_of(glicko, stored, row.int()?, now);
        let games = u32::try_from(row.int()?).unwrap_or(u32::MAX);
        let history = history(conn, account.id, &kind)?;
        ratings.push(KindRating {
            kind,
            rating,
            games,
            history,
        });
    }
    let recent = games_of(conn, account.id, None, recent)?;
    Ok(Profile {
        account,
        ratings,
        recent,
    })
}

/// The most rating points a profile reads per game kind: the latest ones. A player's page
/// must not cost more with every game played (spec/STORE.md §11).
pub const HISTORY_POINTS: usize = 100;

/// `account`'s last [`HISTORY_POINTS`] ratings in `kind`, oldest first: read newest first
/// along the index `game_seats_account_ended`, so it costs the same after 10 games or 10,000.
fn history(
    conn: &mut impl Sql,
    account: AccountId,
    kind: &str,
) -> Result<Vec<RatingPoint>, DbError> {
    let rows = conn.query(
        "SELECT s.game_id, s.ended_ms, s.rating_after, s.deviation_after, s.volatility_after \
         FROM game_seats s JOIN games g ON g.id = s.game_id \
         WHERE s.account_id = $1 AND g.kind = $2 AND s.rating_after IS NOT NULL \
         ORDER BY s.ended_ms DESC, s.game_id DESC LIMIT $3",
        &[int(account.0), text(kind), count(HISTORY_POINTS)],
    )?;
    let mut points = rows
        .into_iter()
        .map(|mut row| {
            Ok(RatingPoint {
                game: game_id(row.text()?)?,
                at: UnixMillis(row.int()?),
                rating: rows::rating(&mut row)?,
            })
        })
        .collect::<Result<Vec<_>, DbError>>()?;
    points.reverse();
    Ok(points)
}

fn game_id(text: String) -> Result<GameId, DbError> {
    GameId::new(&text).ok_or_else(|| DbError::fatal(format!("a stored game id {text:?}")))
}

pub fn leaderboard(
    conn: &mut impl Sql,
    glicko: &Glicko2,
    kind: &str,
    limit: usize,
    now: UnixMillis,
) -> Result<Vec<Standing>, DbError> {
    let rows = conn.query(
        "SELECT a.name, r.rating, r.deviation, r.volatility, r.updated_ms, r.games \
         FROM ratings r JOIN accounts a ON a.id = r.account_id \
         WHERE r.kind = $1 ORDER BY r.rating DESC, a.name_key LIMIT $2",
        &[text(kind), count(limit)],
    )?;
    rows.into_iter()
        .enumerate()
        .map(|(i, mut row)| {
            let name = row.text()?;
            let stored = rows::rating(&mut row)?;
            Ok(Standing {
                rank: u32::try_from(i + 1).unwrap_or(u32::MAX),
                name,
                rating: as_of(glicko, stored, row.int()?, now),
                games: u32::try_from(row.int()?).unwrap_or(u32::MAX),
            })
        })
        .collect()
}

/// The columns [`summaries`] reads, of `games` as `g`.
const SUMMARY: &str =
    "SELECT g.id, g.kind, g.rated, g.result, g.winner, g.ending, g.why, g.ended_ms";

pub fn recent_games(conn: &mut impl Sql, limit: usize) -> Result<Vec<GameSummary>, DbError> {
    let sql = format!("{SUMMARY} FROM games g ORDER BY g.ended_ms DESC, g.id DESC LIMIT $1");
    summaries(conn, &sql, &[count(limit)])
}

/// The `limit` last games `account` played, of `kind` only if given, newest first.
pub fn games_of(
    conn: &mut impl Sql,
    account: AccountId,
    kind: Option<&str>,
    limit: usize,
) -> Result<Vec<GameSummary>, DbError> {
    // Newest first along the index `game_seats_account_ended`; a casual game where the
    // account held two seats is listed once, at its first seat.
    let played = format!(
        "{SUMMARY} FROM game_seats s JOIN games g ON g.id = s.game_id WHERE s.account_id = $1 \
         AND NOT EXISTS (SELECT 1 FROM game_seats o WHERE o.game_id = s.game_id \
         AND o.account_id = s.account_id AND o.seat < s.seat)"
    );
    let newest = "ORDER BY s.ended_ms DESC, s.game_id DESC LIMIT";
    match kind {
        None => summaries(
            conn,
            &format!("{played} {newest} $2"),
            &[int(account.0), count(limit)],
        ),
        Some(kind) => summaries(
            conn,
            &format!("{played} AND g.kind = $2 {newest} $3"),
            &[int(account.0), text(kind), count(limit)],
        ),
    }
}

/// `account`'s rating in each kind it has one in, at `now`, by kind.
pub fn ratings(
    conn: &mut impl Sql,
    glicko: &Glicko2,
    account: AccountId,
    now: UnixMillis,
) -> Result<Vec<(String, Rating)>, DbError> {
    let rows = conn.query(
        "SELECT kind, rating, deviation, volatility, updated_ms FROM ratings \
         WHERE account_id = $1 ORDER BY kind",
        &[int(account.0)],
    )?;
    rows.into_iter()
        .map(|mut row| {
            let kind = row.text()?;
            let stored = rows::rating(&mut row)?;
            Ok((kind, as_of(glicko, stored, row.int()?, now)))
        })
        .collect()
}

/// The games `query` (reading the [`SUMMARY`] columns, with `params` as `$1`…) picks,
/// each with its players.
fn summaries(
    conn: &mut impl Sql,
    query: &str,
    params: &[Value],
) -> Result<Vec<GameSummary>, DbError> {
    let rows = conn.query(query, params)?;
    let mut games = Vec::with_capacity(rows.len());
    for mut row in rows {
        let id = game_id(row.text()?)?;
        let kind = row.text()?;
        let mode = rows::mode(row.int()?);
        let outcome = rows::outcome(&mut row)?;
        let (why, ended) = (row.text()?, UnixMillis(row.int()?));
        let players = seats(conn, &id)?
            .into_iter()
            .map(|s| (s.team, s.name))
            .collect();
        games.push(GameSummary {
            id,
            kind,
            mode,
            players,
            outcome,
            why,
            ended,
        });
    }
    Ok(games)
}

fn seats(conn: &mut impl Sql, id: &GameId) -> Result<Vec<StoredSeat>, DbError> {
    let rows = conn.query(
        "SELECT team, name, account_id, rating_before, deviation_before, volatility_before, \
         rating_after, deviation_after, volatility_after FROM game_seats \
         WHERE game_id = $1 ORDER BY seat",
        &[text(id.as_str())],
    )?;
    rows.into_iter().map(|mut row| seat(&mut row)).collect()
}

fn seat(row: &mut Row) -> Result<StoredSeat, DbError> {
    Ok(StoredSeat {
        team: rows::team_number(row.int()?)?,
        name: row.text()?,
        account: row.opt_int()?.map(AccountId),
        before: rows::opt_rating(row)?,
        after: rows::opt_rating(row)?,
    })
}

pub fn game(conn: &mut impl Sql, id: &GameId) -> Result<Option<StoredGame>, DbError> {
    let rows = conn.query(
        "SELECT kind, rated, time_control, seed, result, winner, ending, why, started_ms, \
         ended_ms, host FROM games WHERE id = $1",
        &[text(id.as_str())],
    )?;
    let Some(mut row) = rows.into_iter().next() else {
        return Ok(None);
    };
    let (kind, mode) = (row.text()?, rows::mode(row.int()?));
    let (time_control, seed) = (row.text()?, rows::seed(row.int()?));
    let outcome = rows::outcome(&mut row)?;
    Ok(Some(StoredGame {
        id: id.clone(),
        kind,
        mode,
        time_control,
        seed,
        seats: seats(conn, id)?,
        moves: moves(conn, id)?,
        outcome,
        why: row.text()?,
        started: UnixMillis(row.int()?),
        ended: UnixMillis(row.int()?),
        host: row.text()?,
    }))
}

fn moves(conn: &mut impl Sql, id: &GameId) -> Result<Vec<MoveRecord>, DbError> {
    let rows = conn.query(
        "SELECT team, notation, took_ms FROM moves WHERE game_id = $1 ORDER BY ply",
        &[text(id.as_str())],
    )?;
    rows.into_iter()
        .map(|mut row| {
            Ok(MoveRecord {
                team: rows::team_number(row.int()?)?,
                notation: row.text()?,
                took_ms: u32::try_from(row.int()?).unwrap_or(u32::MAX),
            })
        })
        .collect()
}
