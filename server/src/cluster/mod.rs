//! Several hosts (docs/design/play-together.md §11): what this host knows of the others,
//! learnt through PostgreSQL on one bus thread ([`bus`]), and where it stands
//! ([`standing`]): joined, or serving its own players alone while PostgreSQL is down.
//! The supervisor's loop owns a [`Cluster`]; nothing here blocks it.

mod bus;
pub mod relay;
pub mod standing;

use std::io;
use std::net::SocketAddr;
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use log::{info, warn};

use standing::{Note, Standing};

/// `--cluster` and `--advertise`, as given.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Where PostgreSQL is (libpq's `key=value` form or a URL), checked when parsed.
    pub config: postgres::Config,
    /// The address other hosts relay to; `None`: the first listener's.
    pub advertise: Option<String>,
    /// `--max-relays`: most relayed connections at once.
    pub max_relays: usize,
}

/// Reads `--cluster`: a PostgreSQL connection string.
pub fn parse_conninfo(text: &str) -> Result<postgres::Config, String> {
    text.parse::<postgres::Config>()
        .map_err(|e| format!("not a PostgreSQL connection string ({e})"))
}

/// The loop's side of the cluster: the bus's events, and this host's standing.
pub struct Cluster {
    events: Receiver<standing::Event>,
    standing: Standing,
    /// This host's advertised address.
    advertised: String,
    relays: relay::Relays,
}

impl Cluster {
    /// Starts the bus thread, which wakes the loop through `waker` when it has news.
    /// `first_listener`: the address advertised when `--advertise` is not given.
    pub fn start(
        settings: &Settings,
        host_id: u8,
        first_listener: SocketAddr,
        waker: Arc<mio::Waker>,
    ) -> io::Result<Cluster> {
        let me = bus::Me {
            config: settings.config.clone(),
            id: host_id,
            addr: settings
                .advertise
                .clone()
                .unwrap_or_else(|| first_listener.to_string()),
        };
        info!(
            "cluster: host {} advertised at {}; joining through PostgreSQL",
            host_id as char, me.addr
        );
        let advertised = me.addr.clone();
        let (sender, events) = mpsc::channel();
        std::thread::Builder::new()
            .name("cluster-bus".into())
            .spawn(move || bus::run(me, sender, waker))?;
        Ok(Cluster {
            events,
            standing: Standing::new(Instant::now(), SystemTime::now()),
            advertised,
            relays: relay::Relays::new(settings.max_relays),
        })
    }

    /// The bus woke the loop: takes what it said.
    pub fn on_wake(&mut self) {
        let (now, wall) = (Instant::now(), SystemTime::now());
        while let Ok(event) = self.events.try_recv() {
            log_note(self.standing.on_event(event, now, wall));
        }
    }

    /// When [`Cluster::on_timer`] is next due.
    pub fn deadline(&self) -> Option<Instant> {
        self.standing.deadline()
    }

    pub fn on_timer(&mut self, now: Instant) {
        log_note(self.standing.on_timer(now));
    }

    /// The advertised address of host `id`, if known (kept while PostgreSQL is down).
    pub fn address_of(&self, id: u8) -> Option<&str> {
        self.standing.address_of(id)
    }

    /// This host's advertised address (relays connect from its IP).
    pub fn advertised(&self) -> &str {
        &self.advertised
    }

    /// Where relays are started.
    pub fn relays(&self) -> relay::Relays {
        self.relays.clone()
    }

    /// What `GET /health` adds about the cluster.
    pub fn health_line(&self) -> String {
        self.standing.health_line()
    }
}

fn log_note(note: Option<Note>) {
    match note {
        Some(Note::Info(line)) => info!("{line}"),
        Some(Note::Warn(line)) => warn!("{line}"),
        None => {}
    }
}
