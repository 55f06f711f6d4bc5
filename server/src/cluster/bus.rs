//! The bus thread (docs/design/play-together.md §11.2): the one place that talks with
//! PostgreSQL. It joins (LISTEN, this host's row written anew, every live host read),
//! beats every [`BEAT`], turns the channel's notifications into [`Event`]s for the loop,
//! and after a failure reconnects with back-off. The loop never waits on it: events go
//! through a channel and a `mio::Waker`.

use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fallible_iterator::FallibleIterator;
use log::error;
use postgres::{Client, NoTls};

use super::standing::Event;

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

/// (The notice that a table exists already is not worth a log line.)
const SCHEMA: &str = "SET client_min_messages = warning; CREATE TABLE IF NOT EXISTS reversid_host \
    (id text PRIMARY KEY, addr text NOT NULL, beat timestamptz NOT NULL); \
    LISTEN reversid";

/// Who this host is on the bus.
#[derive(Debug, Clone)]
pub struct Me {
    pub config: postgres::Config,
    pub id: u8,
    pub addr: String,
}

impl Me {
    fn id(&self) -> String {
        (self.id as char).to_string()
    }
}

/// Runs the bus until the loop is gone: connect, serve, on failure say so and retry.
pub fn run(mut me: Me, events: Sender<Event>, waker: Arc<mio::Waker>) {
    me.config.connect_timeout(CONNECT_TIMEOUT);
    let send = |event: Event| {
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
        if !send(Event::Lost(reason)) {
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
fn serve(me: &Me, send: &dyn Fn(Event) -> bool, joined: &mut bool) -> Result<(), Failure> {
    let mut client = me.config.connect(NoTls).map_err(failure)?;
    client.batch_execute(SCHEMA).map_err(failure)?;
    check_id(&mut client, me)?;
    announce(&mut client, me).map_err(failure)?;
    let hosts = live_hosts(&mut client).map_err(failure)?;
    if !send(Event::Joined(hosts)) {
        return Ok(());
    }
    *joined = true;
    let mut next_beat = Instant::now() + BEAT;
    loop {
        let wait = next_beat.saturating_duration_since(Instant::now());
        for payload in notifications(&mut client, wait)? {
            if let Some(event) = event_of(&payload) {
                if !send(event) {
                    return Ok(());
                }
            }
        }
        if Instant::now() >= next_beat {
            next_beat = Instant::now() + BEAT;
            let hosts = beat(&mut client, me).map_err(failure)?;
            if !send(Event::Hosts(hosts)) {
                return Ok(());
            }
        }
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
pub fn event_of(payload: &str) -> Option<Event> {
    let mut words = payload.split(' ');
    match (words.next()?, words.next(), words.next(), words.next()) {
        ("host", Some(id), Some(addr), None) => {
            Some(Event::Host(crate::terms::host_symbol(id)?, addr.to_owned()))
        }
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
            Some(Event::Host(b'B', "10.0.0.2:8765".into()))
        );
        assert_eq!(event_of("host I 10.0.0.2:8765"), None, "not a host symbol");
        assert_eq!(event_of("host B"), None);
        assert_eq!(event_of("host B 10.0.0.2:8765 extra"), None);
        assert_eq!(event_of("lone-gone B reversi"), None, "not read yet");
    }
}
