//! The bus thread (docs/design/play-together.md §11.2): the one place that talks with
//! PostgreSQL. It joins (LISTEN, this host's row written anew, every live host read),
//! beats every [`BEAT`], turns the channel's notifications into [`Event`]s for the loop,
//! and after a failure reconnects with back-off. The loop never waits on it: events go
//! through a channel and a `mio::Waker`.

use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use fallible_iterator::FallibleIterator;
use log::{error, warn};
use postgres::{Client, NoTls, Transaction};

use super::meeting::{self, Alone, Lone};
use super::mirror::{self, Remote};
use super::outbox::{Change, Outbox, Row};
use super::standing::Event;
use super::Heard;
use crate::supervisor::challenges::{Code, Ended, REMEMBERED_AT_MOST, REMEMBERED_FOR};

/// How often a host says it is alive.
pub const BEAT: Duration = Duration::from_secs(5);
/// A host whose last beat is older is dead: ignored, and its row deleted.
pub const DEAD_AFTER_SECS: u32 = 15;
/// The first wait before connecting again; it doubles up to [`LAST_RETRY`].
const FIRST_RETRY: Duration = Duration::from_secs(2);
const LAST_RETRY: Duration = Duration::from_secs(30);
/// How long connecting may take before it counts as a failure.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The channel every host listens on.
const CHANNEL: &str = "reversid";
/// How often the bus looks for this host's challenges to publish, between notifications.
const TICK: Duration = Duration::from_millis(20);

/// (The notice that a table exists already is not worth a log line.) Made under an advisory
/// lock (the store's migrations take 7274061): `CREATE TABLE IF NOT EXISTS` is not safe against
/// itself, and two hosts starting together against a new database made one of them fail with
/// "duplicate key value violates unique constraint pg_type_typname_nsp_index".
const SCHEMA: &str = "SET client_min_messages = warning; BEGIN; \
    SELECT pg_advisory_xact_lock(7274062); CREATE TABLE IF NOT EXISTS reversid_host \
    (id text PRIMARY KEY, addr text NOT NULL, beat timestamptz NOT NULL); \
    CREATE TABLE IF NOT EXISTS reversid_challenge (code text PRIMARY KEY, host text NOT NULL, \
    public boolean NOT NULL, game text NOT NULL, options text NOT NULL, \
    expires timestamptz NOT NULL, ended text, ended_at timestamptz); \
    CREATE TABLE IF NOT EXISTS reversid_lone (id bigserial PRIMARY KEY, host text NOT NULL, \
    game text NOT NULL, waiting int NOT NULL, fixed boolean NOT NULL, UNIQUE (host, game)); \
    COMMIT; LISTEN reversid";

/// Who this host is on the bus.
#[derive(Debug, Clone)]
pub struct Me {
    pub config: postgres::Config,
    pub id: u8,
    pub addr: String,
    /// This host's challenges, written by the loop.
    pub outbox: Arc<Mutex<Outbox>>,
}

impl Me {
    fn id(&self) -> String {
        (self.id as char).to_string()
    }
}

/// Runs the bus until the loop is gone: connect, serve, on failure say so and retry.
pub fn run(mut me: Me, events: Sender<Heard>, waker: Arc<mio::Waker>) {
    me.config.connect_timeout(CONNECT_TIMEOUT);
    let send = |event: Heard| {
        let sent = events.send(event).is_ok();
        let _ = waker.wake();
        sent
    };
    let mut retry = FIRST_RETRY;
    loop {
        let mut joined = false;
        let reason = match serve(&me, &send, &mut joined) {
            Ok(()) => return,
            Err(reason) => reason,
        };
        if !send(Heard::Standing(Event::Lost(reason))) {
            return;
        }
        retry = match joined {
            true => FIRST_RETRY,
            false => (retry * 2).min(LAST_RETRY),
        };
        std::thread::sleep(retry);
    }
}

/// Why the connection failed, as the log and `/health` say it.
type Failure = String;

fn failure(e: postgres::Error) -> Failure {
    // "error connecting to server" says what failed; its source says why.
    match std::error::Error::source(&e) {
        Some(source) => format!("{e}: {source}"),
        None => e.to_string(),
    }
}

/// One connection's life: joins, then listens and beats until it fails (`Err`) or the loop
/// is gone (`Ok`).
fn serve(me: &Me, send: &dyn Fn(Heard) -> bool, joined: &mut bool) -> Result<(), Failure> {
    let mut client = me.config.connect(NoTls).map_err(failure)?;
    client.batch_execute(SCHEMA).map_err(failure)?;
    check_id(&mut client, me)?;
    announce(&mut client, me).map_err(failure)?;
    let hosts = live_hosts(&mut client).map_err(failure)?;
    if !send(Heard::Standing(Event::Joined(hosts))) {
        return Ok(());
    }
    publish_all(&mut client, me).map_err(failure)?;
    if !send(Heard::Mirror(
        read_challenges(&mut client).map_err(failure)?,
    )) {
        return Ok(());
    }
    if !send(Heard::Meeting(read_lone(&mut client).map_err(failure)?)) {
        return Ok(());
    }
    *joined = true;
    let mut next_beat = Instant::now() + BEAT;
    loop {
        let wait = next_beat
            .saturating_duration_since(Instant::now())
            .min(TICK);
        for payload in notifications(&mut client, wait)? {
            if let Some(event) = event_of(&payload) {
                if !send(event) {
                    return Ok(());
                }
            }
        }
        publish_changes(&mut client, me).map_err(failure)?;
        if Instant::now() >= next_beat {
            next_beat = Instant::now() + BEAT;
            let hosts = beat(&mut client, me).map_err(failure)?;
            if !send(Heard::Standing(Event::Hosts(hosts))) {
                return Ok(());
            }
        }
    }
}

/// The changes to this host's challenges since the bus last looked, each a transaction
/// (the row and its notification). Taken from the outbox before they are written: a
/// failure here ends the connection, and the rejoin writes every live one anew.
fn publish_changes(client: &mut Client, me: &Me) -> Result<(), postgres::Error> {
    let changes = match me.outbox.lock() {
        Ok(mut outbox) => outbox.take(),
        Err(_) => return Ok(()),
    };
    for change in changes {
        let mut tx = client.transaction()?;
        match change {
            Change::Live(code, row) => publish(&mut tx, me, code, &row)?,
            Change::Gone(code, why) => withdraw(&mut tx, me, code, why)?,
            Change::Lone(game, alone) => publish_lone(&mut tx, me, &game, alone)?,
        }
        tx.commit()?;
    }
    Ok(())
}

/// At a (re)join: what ended while away said, this host's rows of an earlier life (or of
/// before the outage) that are no longer live withdrawn, and every live one written anew.
fn publish_all(client: &mut Client, me: &Me) -> Result<(), postgres::Error> {
    let (gone, live, lone) = match me.outbox.lock() {
        Ok(mut outbox) => (outbox.take(), outbox.live(), outbox.lone_now()),
        Err(_) => return Ok(()),
    };
    let mut tx = client.transaction()?;
    tx.execute("DELETE FROM reversid_lone WHERE host = $1", &[&me.id()])?;
    for (game, alone) in lone {
        publish_lone(&mut tx, me, &game, Some(alone))?;
    }
    for change in gone {
        if let Change::Gone(code, why) = change {
            withdraw(&mut tx, me, code, why)?;
        }
    }
    let keep: Vec<String> = live.iter().map(|(code, _)| code.to_string()).collect();
    let stale = tx.query(
        "UPDATE reversid_challenge SET ended = 'withdrawn', ended_at = now() \
         WHERE host = $1 AND ended IS NULL AND NOT (code = ANY($2)) RETURNING code",
        &[&me.id(), &keep],
    )?;
    for row in stale {
        let code: String = row.get(0);
        notify(&mut tx, &format!("challenge-gone {code} withdrawn"))?;
    }
    for (code, row) in &live {
        publish(&mut tx, me, *code, row)?;
    }
    tx.commit()
}

/// One live challenge of this host written (or its life renewed) and told to all. A code
/// another host holds, or held (a tombstone), is not taken over: that challenge stays
/// joinable on this host only (p ≈ 10⁻⁸ a code; logged).
fn publish(tx: &mut Transaction, me: &Me, code: Code, row: &Row) -> Result<(), postgres::Error> {
    let seconds = row
        .expires
        .duration_since(SystemTime::now())
        .map_or(0, |d| d.as_secs());
    let written = tx.execute(
        "INSERT INTO reversid_challenge (code, host, public, game, options, expires) \
         VALUES ($1, $2, $3, $4, $5, now() + $6::float8 * interval '1 second') \
         ON CONFLICT (code) DO UPDATE SET expires = EXCLUDED.expires \
         WHERE reversid_challenge.host = EXCLUDED.host AND reversid_challenge.ended IS NULL",
        &[
            &code.to_string(),
            &me.id(),
            &row.public,
            &row.game,
            &row.options,
            &(seconds as f64),
        ],
    )?;
    if written == 0 {
        warn!("cluster: challenge {code} is another host's code too; joinable here only");
        return Ok(());
    }
    let listed = if row.public { "public" } else { "private" };
    let payload = format!(
        "challenge {code} {} {listed} {seconds} {} {}",
        me.id as char, row.game, row.options
    );
    notify(tx, &payload)
}

/// One of this host's challenges ended: its row becomes the tombstone, told to all.
fn withdraw(tx: &mut Transaction, me: &Me, code: Code, why: Ended) -> Result<(), postgres::Error> {
    let word = ended_word(why);
    let updated = tx.execute(
        "UPDATE reversid_challenge SET ended = $3, ended_at = now() \
         WHERE code = $1 AND host = $2 AND ended IS NULL",
        &[&code.to_string(), &me.id(), &word],
    )?;
    match updated {
        0 => Ok(()),
        _ => notify(tx, &format!("challenge-gone {code} {word}")),
    }
}

/// This host's lone waiters of `game` written (a row keeps its id, so its age, while it
/// lives) or deleted, and told to all.
fn publish_lone(
    tx: &mut Transaction,
    me: &Me,
    game: &str,
    alone: Option<Alone>,
) -> Result<(), postgres::Error> {
    let Some(alone) = alone else {
        let deleted = tx.execute(
            "DELETE FROM reversid_lone WHERE host = $1 AND game = $2",
            &[&me.id(), &game],
        )?;
        return match deleted {
            0 => Ok(()),
            _ => notify(tx, &format!("lone-gone {} {game}", me.id as char)),
        };
    };
    let row = tx.query_one(
        "INSERT INTO reversid_lone (host, game, waiting, fixed) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (host, game) DO UPDATE SET waiting = EXCLUDED.waiting, fixed = EXCLUDED.fixed \
         RETURNING id",
        &[&me.id(), &game, &(alone.waiting as i32), &alone.fixed],
    )?;
    let id: i64 = row.get(0);
    let fixed = if alone.fixed { "fixed" } else { "movable" };
    let payload = format!(
        "lone {id} {} {game} {} {fixed}",
        me.id as char, alone.waiting
    );
    notify(tx, &payload)
}

/// Every live host's lone waiters.
fn read_lone(client: &mut Client) -> Result<meeting::Event, postgres::Error> {
    let query = format!(
        "SELECT id, host, game, waiting, fixed FROM reversid_lone WHERE host IN \
         (SELECT id FROM reversid_host WHERE beat > now() - interval '{DEAD_AFTER_SECS} seconds')"
    );
    let rows = client.query(&query, &[])?;
    Ok(meeting::Event::Read(
        rows.iter()
            .filter_map(|row| {
                let waiting: i32 = row.get(3);
                Some(Lone {
                    id: row.get(0),
                    host: crate::terms::host_symbol(row.get(1))?,
                    game: row.get(2),
                    waiting: u32::try_from(waiting).ok()?,
                    fixed: row.get(4),
                })
            })
            .collect(),
    ))
}

fn notify(tx: &mut Transaction, payload: &str) -> Result<(), postgres::Error> {
    tx.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &payload])
        .map(drop)
}

/// Every live challenge of a live host, and the remembered ended codes (newest first).
fn read_challenges(client: &mut Client) -> Result<mirror::Event, postgres::Error> {
    let query = format!(
        "SELECT code, host, public, game, options, \
         GREATEST(0, EXTRACT(EPOCH FROM expires - now()))::float8 \
         FROM reversid_challenge WHERE ended IS NULL AND expires > now() AND host IN \
         (SELECT id FROM reversid_host WHERE beat > now() - interval '{DEAD_AFTER_SECS} seconds')"
    );
    let live = client
        .query(&query, &[])?
        .iter()
        .filter_map(|row| {
            let seconds: f64 = row.get(5);
            Some(Remote {
                code: Code::parse(row.get(0)).ok()?,
                host: crate::terms::host_symbol(row.get(1))?,
                public: row.get(2),
                seconds: seconds as u64,
                game: row.get(3),
                options: row.get(4),
            })
        })
        .collect();
    let query = format!(
        "SELECT code, ended FROM reversid_challenge WHERE ended IS NOT NULL \
         ORDER BY ended_at LIMIT {REMEMBERED_AT_MOST}"
    );
    let ended = client
        .query(&query, &[])?
        .iter()
        .filter_map(|row| Some((Code::parse(row.get(0)).ok()?, ended_of(row.get(1))?)))
        .collect();
    Ok(mirror::Event::Read { live, ended })
}

fn ended_word(why: Ended) -> &'static str {
    match why {
        Ended::Accepted => "accepted",
        Ended::Withdrawn => "withdrawn",
        Ended::Expired => "expired",
    }
}

fn ended_of(word: &str) -> Option<Ended> {
    match word {
        "accepted" => Some(Ended::Accepted),
        "withdrawn" => Some(Ended::Withdrawn),
        "expired" => Some(Ended::Expired),
        _ => None,
    }
}

/// A host whose symbol a live host at another address holds stays alone: two hosts
/// drawing tokens with one symbol would send players to the wrong games.
fn check_id(client: &mut Client, me: &Me) -> Result<(), Failure> {
    let query = format!(
        "SELECT addr FROM reversid_host WHERE id = $1 AND addr <> $2 \
         AND beat > now() - interval '{DEAD_AFTER_SECS} seconds'"
    );
    let rows = client
        .query(&query, &[&me.id(), &me.addr])
        .map_err(failure)?;
    match rows.first() {
        None => Ok(()),
        Some(row) => {
            let other: String = row.get(0);
            let reason = format!(
                "host id {} is held by a live host at {other}: give each host its own --host-id",
                me.id as char
            );
            error!("cluster: {reason}");
            Err(reason)
        }
    }
}

/// This host's row written anew (a restart lost what the old one said), and told to all.
fn announce(client: &mut Client, me: &Me) -> Result<(), postgres::Error> {
    let mut tx = client.transaction()?;
    tx.execute("DELETE FROM reversid_host WHERE id = $1", &[&me.id()])?;
    tx.execute(
        "INSERT INTO reversid_host (id, addr, beat) VALUES ($1, $2, now())",
        &[&me.id(), &me.addr],
    )?;
    let payload = format!("host {} {}", me.id as char, me.addr);
    tx.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &payload])?;
    tx.commit()
}

/// The hosts whose beat is recent, this one included.
fn live_hosts(client: &mut Client) -> Result<Vec<(u8, String)>, postgres::Error> {
    let query = format!(
        "SELECT id, addr FROM reversid_host \
         WHERE beat > now() - interval '{DEAD_AFTER_SECS} seconds' ORDER BY id"
    );
    let rows = client.query(&query, &[])?;
    Ok(rows
        .iter()
        .filter_map(|row| {
            let id: String = row.get(0);
            let symbol = crate::terms::host_symbol(&id)?;
            Some((symbol, row.get(1)))
        })
        .collect())
}

/// The heartbeat: this host's beat renewed (its row written again if another host took it
/// for dead and deleted it), the dead hosts' rows deleted, the live ones read.
fn beat(client: &mut Client, me: &Me) -> Result<Vec<(u8, String)>, postgres::Error> {
    let updated = client.execute(
        "UPDATE reversid_host SET beat = now() WHERE id = $1 AND addr = $2",
        &[&me.id(), &me.addr],
    )?;
    if updated == 0 {
        announce(client, me)?;
    }
    let dead = format!(
        "DELETE FROM reversid_host WHERE beat < now() - interval '{DEAD_AFTER_SECS} seconds'"
    );
    client.execute(&dead, &[])?;
    // A dead host's live challenges are withdrawn (their creators are gone with it), and
    // tombstones are forgotten after a day.
    let orphans = client.query(
        "UPDATE reversid_challenge SET ended = 'withdrawn', ended_at = now() \
         WHERE ended IS NULL AND host NOT IN (SELECT id FROM reversid_host) RETURNING code",
        &[],
    )?;
    for row in orphans {
        let code: String = row.get(0);
        let payload = format!("challenge-gone {code} withdrawn");
        client.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &payload])?;
    }
    client.execute(
        "DELETE FROM reversid_lone WHERE host NOT IN (SELECT id FROM reversid_host)",
        &[],
    )?;
    let forget = format!(
        "DELETE FROM reversid_challenge WHERE ended_at < now() - interval '{} seconds'",
        REMEMBERED_FOR.as_secs()
    );
    client.execute(&forget, &[])?;
    live_hosts(client)
}

/// The channel's payloads that arrive within `wait` (those already there at once).
fn notifications(client: &mut Client, wait: Duration) -> Result<Vec<String>, Failure> {
    let mut notes = client.notifications();
    let mut payloads = Vec::new();
    if let Some(first) = notes.timeout_iter(wait).next().map_err(failure)? {
        payloads.push(first.payload().to_owned());
    }
    let mut rest = notes.iter();
    while let Some(note) = rest.next().map_err(failure)? {
        payloads.push(note.payload().to_owned());
    }
    drop(rest);
    drop(notes);
    // A closed connection is found by the next statement, not by waiting: ask it now.
    if client.is_closed() {
        return Err("the connection to PostgreSQL was closed".into());
    }
    Ok(payloads)
}

/// What a payload on the channel means (§11.2's table); others are for later parts.
pub fn event_of(payload: &str) -> Option<Heard> {
    let mut words = payload.splitn(7, ' ');
    match (words.next()?, words.next(), words.next(), words.next()) {
        ("host", Some(id), Some(addr), None) => Some(Heard::Standing(Event::Host(
            crate::terms::host_symbol(id)?,
            addr.to_owned(),
        ))),
        ("challenge", Some(code), Some(host), Some(listed)) => {
            let (seconds, game, options) = (words.next()?, words.next()?, words.next()?);
            Some(Heard::Mirror(mirror::Event::Live(Remote {
                code: Code::parse(code).ok()?,
                host: crate::terms::host_symbol(host)?,
                public: match listed {
                    "public" => true,
                    "private" => false,
                    _ => return None,
                },
                seconds: seconds.parse().ok()?,
                game: game.to_owned(),
                options: options.to_owned(),
            })))
        }
        ("challenge-gone", Some(code), Some(why), None) => Some(Heard::Mirror(
            mirror::Event::Gone(Code::parse(code).ok()?, ended_of(why)?),
        )),
        ("lone", Some(id), Some(host), Some(game)) => {
            let (waiting, fixed) = (words.next()?, words.next()?);
            Some(Heard::Meeting(meeting::Event::Lone(Lone {
                id: id.parse().ok()?,
                host: crate::terms::host_symbol(host)?,
                game: game.to_owned(),
                waiting: waiting.parse().ok()?,
                fixed: match fixed {
                    "fixed" => true,
                    "movable" => false,
                    _ => return None,
                },
            })))
        }
        ("lone-gone", Some(host), Some(game), None) => Some(Heard::Meeting(meeting::Event::Gone(
            crate::terms::host_symbol(host)?,
            game.to_owned(),
        ))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_are_read_as_the_design_writes_them() {
        assert_eq!(
            event_of("host B 10.0.0.2:8765"),
            Some(Heard::Standing(Event::Host(b'B', "10.0.0.2:8765".into())))
        );
        assert_eq!(event_of("host I 10.0.0.2:8765"), None, "not a host symbol");
        assert_eq!(event_of("host B"), None);
        assert_eq!(event_of("host B 10.0.0.2:8765 extra"), None);
    }

    #[test]
    fn lone_payloads_are_read_as_the_design_writes_them() {
        assert_eq!(
            event_of("lone 42 B reversi 1 movable"),
            Some(Heard::Meeting(meeting::Event::Lone(Lone {
                id: 42,
                host: b'B',
                game: "reversi".into(),
                waiting: 1,
                fixed: false,
            })))
        );
        assert_eq!(event_of("lone 42 B reversi 1 stuck"), None);
        assert_eq!(event_of("lone x B reversi 1 fixed"), None);
        assert_eq!(
            event_of("lone-gone B reversi"),
            Some(Heard::Meeting(meeting::Event::Gone(b'B', "reversi".into())))
        );
    }

    #[test]
    fn challenge_payloads_are_read_as_the_design_writes_them() {
        let code = Code::parse("4821-0937-5562").unwrap();
        assert_eq!(
            event_of("challenge 4821-0937-5562 A public 899 draughts time=5+3 side=random public"),
            Some(Heard::Mirror(mirror::Event::Live(Remote {
                code,
                host: b'A',
                public: true,
                seconds: 899,
                game: "draughts".into(),
                options: "time=5+3 side=random public".into(),
            })))
        );
        assert_eq!(
            event_of("challenge 4821-0937-5562 A secret 899 draughts time=5+3"),
            None
        );
        assert_eq!(
            event_of("challenge 4821-0937-5562 A public 899 draughts"),
            None
        );
        assert_eq!(
            event_of("challenge-gone 4821-0937-5562 accepted"),
            Some(Heard::Mirror(mirror::Event::Gone(code, Ended::Accepted)))
        );
        assert_eq!(event_of("challenge-gone 4821-0937-5562 lost"), None);
        for why in [Ended::Accepted, Ended::Withdrawn, Ended::Expired] {
            assert_eq!(ended_of(ended_word(why)), Some(why));
        }
    }
}
