//! Several hosts (docs/design/play-together.md §11): what this host knows of the others,
//! learnt through PostgreSQL on one bus thread ([`bus`]), and where it stands
//! ([`standing`]): joined, or serving its own players alone while PostgreSQL is down.
//! The supervisor's loop owns a [`Cluster`]; nothing here blocks it.

mod bus;
pub mod meeting;
pub mod mirror;
pub mod outbox;
pub mod relay;
pub mod standing;

use std::io;
use std::net::SocketAddr;
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use log::{info, warn};

use crate::supervisor::challenges::{Code, Ended};
use meeting::{Alone, Meeting, Step};
use mirror::{Found, Listed, Mirror};
use outbox::{Outbox, Row};
use standing::{Note, Standing};

/// What the bus thread tells the loop: of the hosts, or of the challenges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    Standing(standing::Event),
    Mirror(mirror::Event),
    Meeting(meeting::Event),
}

/// How often, while joined, the loop looks at its queues for lone waiters.
const MEETING_TICK: Duration = Duration::from_millis(100);

/// `--cluster` and `--advertise`, as given.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Where PostgreSQL is (libpq's `key=value` form or a URL), checked when parsed.
    pub config: postgres::Config,
    /// The address other hosts relay to; `None`: the first listener's.
    pub advertise: Option<String>,
    /// `--max-relays`: most relayed connections at once.
    pub max_relays: usize,
    /// `--meet-after`: how long a queue stays alone before the other hosts are told.
    pub meet_after: Duration,
}

/// Reads `--cluster`: a PostgreSQL connection string.
pub fn parse_conninfo(text: &str) -> Result<postgres::Config, String> {
    text.parse::<postgres::Config>()
        .map_err(|e| format!("not a PostgreSQL connection string ({e})"))
}

/// The loop's side of the cluster: the bus's events, and this host's standing.
pub struct Cluster {
    events: Receiver<Heard>,
    standing: Standing,
    /// Other hosts' challenges (empty while alone).
    mirror: Mirror,
    /// Lone waiters, this host's and the others'.
    meeting: Meeting,
    next_tick: Instant,
    /// This host's challenges and lone waiters, for the bus to publish.
    outbox: Arc<Mutex<Outbox>>,
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
        let outbox = Arc::new(Mutex::new(Outbox::default()));
        let me = bus::Me {
            config: settings.config.clone(),
            id: host_id,
            outbox: outbox.clone(),
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
            standing: Standing::new(host_id, Instant::now(), SystemTime::now()),
            mirror: Mirror::new(host_id),
            meeting: Meeting::new(host_id, settings.meet_after),
            next_tick: Instant::now(),
            outbox,
            advertised,
            relays: relay::Relays::new(settings.max_relays),
        })
    }

    /// The bus woke the loop: takes what it said.
    pub fn on_wake(&mut self) {
        let (now, wall) = (Instant::now(), SystemTime::now());
        while let Ok(heard) = self.events.try_recv() {
            match heard {
                Heard::Mirror(event) => self.mirror.on_event(event, now),
                Heard::Meeting(event) => self.meeting.on_event(event),
                Heard::Standing(event) => {
                    match &event {
                        standing::Event::Lost(_) => {
                            self.mirror.clear();
                            self.meeting.clear();
                        }
                        standing::Event::Hosts(hosts) | standing::Event::Joined(hosts) => {
                            let ids: Vec<u8> = hosts.iter().map(|(id, _)| *id).collect();
                            self.mirror.keep_hosts(&ids);
                            self.meeting.keep_hosts(&ids);
                        }
                        standing::Event::Host(..) => {}
                    }
                    log_notes(self.standing.on_event(event, now, wall));
                }
            }
        }
    }

    /// A challenge made on this host, published for the others (when PostgreSQL is back,
    /// if it is down).
    pub fn publish(&self, code: Code, public: bool, game: &str, options: &str, life: Duration) {
        let row = Row {
            public,
            game: game.to_owned(),
            options: options.to_owned(),
            expires: SystemTime::now() + life,
        };
        if let Ok(mut outbox) = self.outbox.lock() {
            outbox.publish(code, row);
        }
    }

    /// One of this host's challenges ended: the others are told why.
    pub fn end(&self, code: Code, why: Ended) {
        if let Ok(mut outbox) = self.outbox.lock() {
            outbox.end(code, why);
        }
    }

    /// Where a code this host does not hold is.
    pub fn find(&self, code: Code) -> Option<Found> {
        self.mirror.find(code, Instant::now())
    }

    /// Whether another host has or had `code` (a new code is drawn again).
    pub fn knows(&self, code: Code) -> bool {
        self.mirror.knows(code)
    }

    /// The other hosts' public challenges.
    pub fn lobby(&self) -> Vec<Listed<'_>> {
        self.mirror.lobby(Instant::now())
    }

    /// When [`Cluster::on_timer`] is next due (while joined, at least every
    /// [`MEETING_TICK`]: the loop then looks at its queues, [`Cluster::meet`]).
    pub fn deadline(&self) -> Option<Instant> {
        let tick = self.standing.joined().then_some(self.next_tick);
        self.standing.deadline().into_iter().chain(tick).min()
    }

    /// Whether the loop's queues are due for [`Cluster::meet`] at `now` (the next tick
    /// is set).
    pub fn meeting_due(&mut self, now: Instant) -> bool {
        if !self.standing.joined() || now < self.next_tick {
            return false;
        }
        self.next_tick = now + MEETING_TICK;
        true
    }

    /// This host's queue of `game` now; whether to send its movable waiters to another
    /// host (`Some(host)`). Published for the others as the design's rule says.
    pub fn meet(&mut self, game: &str, alone: Option<Alone>, now: Instant) -> Option<u8> {
        let step = self.meeting.observe(game, alone, now);
        let published = match step {
            Step::Stay => return None,
            Step::Publish(alone) => Some(alone),
            Step::Withdraw | Step::MoveTo(_) => None,
        };
        if let Some(alone) = published {
            info!(
                "cluster: {} waiting alone for {game}; told the other hosts",
                alone.waiting
            );
        }
        if let Ok(mut outbox) = self.outbox.lock() {
            outbox.lone(game, published);
        }
        match step {
            Step::MoveTo(host) => Some(host),
            _ => None,
        }
    }

    /// Whether a connection relayed from `ip` came from a host of the cluster (it was
    /// moved here once: it is not moved again).
    pub fn is_host_ip(&self, ip: std::net::IpAddr) -> bool {
        self.standing.is_host_ip(ip)
    }

    pub fn on_timer(&mut self, now: Instant) {
        log_notes(self.standing.on_timer(now));
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

fn log_notes(notes: impl IntoIterator<Item = Note>) {
    for note in notes {
        match note {
            Note::Info(line) => info!("{line}"),
            Note::Warn(line) => warn!("{line}"),
        }
    }
}
