//! The wire protocols, one folder each and each whole: how its first bytes are
//! recognised, what it answers before a game (join, list, watch), how it carries
//! a game (its [`Wire`] adapter: bytes into [`Input`]s, the session's [`Event`]s
//! into bytes), and how it says "no". [`WireKind`] is their registry: the only
//! place that lists them. The supervisor and the session runtime ask a
//! connection's protocol through it and never name one.

mod binary;
mod lines;
pub mod players;
mod seed_duell;
mod seed_foxes;
mod text;
pub mod tls;
mod web;

pub use web::Operator;
pub use web::{pages, request_frame, response as http_response};

use std::net::SocketAddr;

use reversi_games::registry::{self, Module};
use reversi_games::{Action, Cell, GameInfo, Millis, Outcome, Standing, Team, Update, Viewer};

use crate::outbox::Outbox;

/// A handshake that is still incomplete after this many bytes is refused.
pub const MAX_INPUT: usize = 4096;

/// The registry: which protocol a connection speaks. The session is handed it with
/// each connection (as a byte: [`WireKind::ALL`]'s order is part of the handoff).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum WireKind {
    /// The binary Reversi protocol of spec/PROTOCOL.md.
    Binary,
    /// The text protocol of spec/TEXT-PROTOCOL.md.
    #[default]
    Text,
    /// Seed 000's own protocol: the text protocol's seed messages only, none of its
    /// additions (spec/TEXT-PROTOCOL.md §14), for clients written from the seed alone.
    Seed000,
    /// Seed 002's own line protocol for Foxes & Dolphins (spec/games/foxes.md, "The
    /// seed's line protocol"), for clients written from the seed alone.
    Seed002,
    /// The text protocol in WebSocket messages, for the browser (spec/TEXT-PROTOCOL.md §15).
    WebSocket,
    /// TLS around any of the others (spec/TLS.md): handed to the TLS terminator, never to a session.
    Tls,
}

impl WireKind {
    /// Every protocol, in the order that numbers them between the supervisor and a
    /// session (a viewer's hand-off names its protocol by that number): add at the end.
    pub const ALL: [WireKind; 6] = [
        WireKind::Binary,
        WireKind::Text,
        WireKind::Seed000,
        WireKind::Seed002,
        WireKind::WebSocket,
        WireKind::Tls,
    ];

    /// What a connection is judged to speak when no protocol recognises its bytes: it
    /// gets this protocol's refusal (and so does one refused before its first byte).
    pub const FALLBACK: WireKind = WireKind::Binary;

    /// The protocol's number: its place in [`WireKind::ALL`].
    pub fn number(self) -> u8 {
        let place = WireKind::ALL.iter().position(|&wire| wire == self);
        place.map_or(u8::MAX, |n| n as u8)
    }

    /// The protocol numbered `number`, if any.
    pub fn of_number(number: u8) -> Option<WireKind> {
        WireKind::ALL.get(usize::from(number)).copied()
    }

    /// The protocol itself.
    pub fn protocol(self) -> &'static dyn Protocol {
        match self {
            WireKind::Binary => &binary::Binary,
            WireKind::Text => &text::Text,
            WireKind::Seed000 => &seed_duell::SeedDuell,
            WireKind::Seed002 => &seed_foxes::SeedFoxes,
            WireKind::WebSocket => &web::Web,
            WireKind::Tls => &tls::Tls,
        }
    }

    /// Its name, as the metrics label it.
    pub fn name(self) -> &'static str {
        match self {
            WireKind::Binary => "binary",
            WireKind::Text => "text",
            WireKind::Seed000 => "seed000",
            WireKind::Seed002 => "seed002",
            WireKind::WebSocket => "websocket",
            WireKind::Tls => "tls",
        }
    }

    /// A fresh adapter for a connection of this kind.
    pub fn adapter(self) -> Box<dyn Wire> {
        self.protocol().adapter()
    }

    /// Whether a client of this kind joins its listener's game on arrival.
    pub fn joins_on_arrival(self) -> bool {
        self.protocol().joins_on_arrival()
    }

    /// The protocol of a connection whose first byte is `first`.
    pub fn recognise(first: u8) -> WireKind {
        WireKind::ALL
            .into_iter()
            .find(|kind| kind.protocol().recognises(first))
            .unwrap_or(WireKind::FALLBACK)
    }

    /// What a connection of `kind` (`None`: not known yet) is sent when refused.
    pub fn refusal(kind: Option<WireKind>, why: &str) -> Vec<u8> {
        kind.unwrap_or(WireKind::FALLBACK).protocol().refusal(why)
    }
}

/// A protocol, as the supervisor sees it before a game and when it refuses.
pub trait Protocol: Sync {
    /// Whether a connection whose first byte is `first` speaks this protocol. A
    /// protocol that a connection reaches another way (a seed listener, an upgrade,
    /// the fallback) recognises nothing.
    fn recognises(&self, _first: u8) -> bool {
        false
    }

    /// Judges the bytes a waiting connection has sent so far.
    fn screen(&self, lobby: &Lobby<'_>, stage: Stage, input: &[u8]) -> Verdict;

    /// What a connection refused for `why` is sent before it is closed.
    fn refusal(&self, why: &str) -> Vec<u8>;

    /// What a client queued for a game that still needs `more` players is told.
    fn waiting(&self, _more: u32) -> Option<Vec<u8>> {
        None
    }

    /// What a queued client is told about its wait (why, and where it is in the queue),
    /// if this protocol has a way to say it (the text protocol's `GAME NEWS`).
    fn news(&self, _text: &str) -> Option<Vec<u8>> {
        None
    }

    /// What a client is told about challenges, if this protocol has a way to say it.
    fn tell(&self, _told: &Told) -> Option<Vec<u8>> {
        None
    }

    /// A fresh in-game adapter for a connection.
    fn adapter(&self) -> Box<dyn Wire>;

    /// The game whose `--listen-seed GAME=ADDR` listener speaks this protocol.
    fn seed_game(&self) -> Option<&'static str> {
        None
    }

    /// Whether a client on its seed listener joins the listener's game on arrival
    /// (it sends nothing before the server speaks).
    fn joins_on_arrival(&self) -> bool {
        false
    }
}

/// Where a waiting connection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Nothing accepted yet: looking for a request.
    Handshake,
    /// Waiting for a game: looking for a goodbye, or requests it may make meanwhile.
    Queued,
}

/// The verdict on the bytes a waiting connection has sent so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Incomplete: read more.
    Wait,
    /// Send `bytes` and carry on; `used` bytes were the request. `becomes`: from the
    /// next byte on, the connection speaks this protocol (an upgrade).
    Reply {
        bytes: Vec<u8>,
        used: usize,
        becomes: Option<WireKind>,
    },
    /// Join the queue of `game`; `used` bytes were the request.
    Join { game: &'static Module, used: usize },
    /// Watch running game `id`; `used` bytes were the request.
    Watch { id: u64, used: usize },
    /// Create a challenge (TEXT-PROTOCOL.md §4.1); `used` bytes were the request.
    Invite { invite: Invite, used: usize },
    /// Join the challenge of `code`, as the client wrote it; `used` bytes were the request.
    JoinCode { code: String, used: usize },
    /// List the public challenges; `used` bytes were the request.
    Challenges { used: usize },
    /// Take back a seat with `token`, as the client wrote it; `used` bytes were the request
    /// (what follows is the seat's input).
    Resume { token: String, used: usize },
    /// The client leaves: close it, send nothing.
    Leave,
    /// An HTTP request for a store's page: the connection goes to a store worker, which
    /// answers and closes it (spec/STORE.md §11).
    Page(pages::Page),
    /// Send `farewell` and close. `note`: what the log says of it (a refusal's reason).
    Close {
        farewell: Vec<u8>,
        note: Option<String>,
    },
    /// A player's request about its name, account or the archive (TEXT-PROTOCOL.md §4.4);
    /// `used` bytes were the request.
    Player {
        request: players::Request,
        used: usize,
    },
    /// A TLS ClientHello: hand the connection, with the bytes read so far, to the TLS
    /// terminator; its plaintext comes back on the same connection (spec/TLS.md).
    Tls,
    /// A request about tournaments (TOURNAMENTS.md §7); `used` bytes were the request.
    Tournament {
        request: crate::tournaments::orders::Request,
        used: usize,
    },
}

impl Verdict {
    /// An answer after which the connection carries on as it was.
    pub fn reply(bytes: Vec<u8>, used: usize) -> Verdict {
        Verdict::Reply {
            bytes,
            used,
            becomes: None,
        }
    }

    /// How many bytes of input the verdict consumed.
    pub fn used(&self) -> usize {
        match self {
            Verdict::Reply { used, .. }
            | Verdict::Join { used, .. }
            | Verdict::Watch { used, .. }
            | Verdict::Invite { used, .. }
            | Verdict::JoinCode { used, .. }
            | Verdict::Challenges { used }
            | Verdict::Resume { used, .. }
            | Verdict::Player { used, .. }
            | Verdict::Tournament { used, .. } => *used,
            Verdict::Wait
            | Verdict::Leave
            | Verdict::Close { .. }
            | Verdict::Page(_)
            | Verdict::Tls => 0,
        }
    }
}

/// A challenge as its creator asked for it; the supervisor checks `time` against its bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invite {
    pub game: &'static Module,
    /// `time=` as written; `None`: the game's default.
    pub time: Option<String>,
    /// `side=`: the creator's team; `None`: drawn.
    pub side: Option<u8>,
    pub public: bool,
    /// `rated`: the game moves both players' ratings (creator and joiner must be accounts).
    pub rated: bool,
}

/// A challenge's terms as lines show them (`GAME CODE`, `GAME CHALLENGE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offered {
    pub code: String,
    pub seconds: u64,
    pub game: &'static str,
    /// Every option written out: `time=5+3 side=random private`.
    pub options: String,
}

/// What the supervisor tells a waiting client about challenges (the text protocol's
/// lines; protocols that have none say nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Told {
    /// Your challenge exists, and the page's link that joins it.
    Created { offered: Offered, link: String },
    /// Your challenge expired; you are waiting again.
    Expired { code: String },
    /// The public challenges (the answer to a lobby request).
    Listing(Vec<Offered>),
    /// A request was refused; the connection stays as it was.
    Error(String),
    /// The answer to a player's request (TEXT-PROTOCOL.md §4.4).
    Player(players::Answer),
    /// Tournament lines (TOURNAMENTS.md §7), each as the text protocol writes it.
    Lines(Vec<String>),
}

/// A game being played, as a waiting client may see it.
#[derive(Debug, Clone)]
pub struct Running {
    pub id: u64,
    pub game: &'static Module,
    pub seconds: u64,
    pub players: Vec<SocketAddr>,
    /// Who plays in each seat, in the order of `players` (fewer: the rest are anonymous).
    pub names: Vec<crate::terms::SeatPlayer>,
}

/// What a waiting connection may ask about: the games served, and those running.
pub struct Lobby<'a> {
    pub games: &'a [&'static Module],
    /// The running games, oldest first (asked for only when a client wants them).
    pub running: &'a dyn Fn() -> Vec<Running>,
    /// What the operator's HTTP routes answer.
    pub operator: web::Operator<'a>,
}

impl Lobby<'_> {
    /// The game called `name` (its name or its wire type, in any case), if served.
    fn game(&self, name: &str) -> Option<&'static Module> {
        self.games.iter().copied().find(|m| {
            m.info.name.eq_ignore_ascii_case(name) || m.info.wire_type.eq_ignore_ascii_case(name)
        })
    }

    /// The games served, by name, space-separated.
    fn names(&self) -> String {
        let names: Vec<&str> = self.games.iter().map(|m| m.info.name).collect();
        names.join(" ")
    }
}

/// The protocols' command-line options.
#[derive(Debug, Clone, clap::Args)]
#[group(id = "protocol_options")]
pub struct Options {
    /// A listener for clients that speak a seed document's own protocol, as GAME=ADDR (duell:
    /// seed 000's Conquest clients, queued on arrival; foxes: seed 002's clients, which join with
    /// PBJ or watch with QBJ; ADDR as for --listen); may be given several times.
    #[arg(long = "listen-seed", value_name = "GAME=ADDR", action = clap::ArgAction::Append)]
    pub listen_seed: Vec<SeedListener>,
}

/// A `--listen-seed` listener: the game its clients play, in which protocol, and where.
#[derive(Debug, Clone)]
pub struct SeedListener {
    pub game: &'static Module,
    pub wire: WireKind,
    pub addr: SocketAddr,
}

impl std::str::FromStr for SeedListener {
    type Err = String;

    /// Reads `GAME=ADDR`, where GAME has a seed protocol of its own.
    fn from_str(arg: &str) -> Result<SeedListener, String> {
        let (game, addr) = arg
            .split_once('=')
            .ok_or_else(|| format!("{arg:?} is not GAME=ADDR"))?;
        let seed_game = |kind: &WireKind| kind.protocol().seed_game();
        let module = registry::find(game);
        let wire = WireKind::ALL
            .into_iter()
            .find(|kind| module.is_some_and(|m| seed_game(kind) == Some(m.info.name)));
        let (Some(game), Some(wire)) = (module, wire) else {
            let seeds: Vec<&str> = WireKind::ALL.iter().filter_map(seed_game).collect();
            return Err(format!(
                "{game:?} has no seed protocol of its own (try {})",
                seeds.join(" or ")
            ));
        };
        let addr = crate::address::parse_listen(addr)?;
        Ok(SeedListener { game, wire, addr })
    }
}

/// What a client asked for.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Input {
    /// A move or a draw offer, in protocol terms.
    Act(Action),
    /// A move in the game's own notation, for the game to read.
    Notation(String),
    /// The whole board again, as the game started (seed 002's refresh `DBR`); no move.
    Refresh,
    /// The client leaves.
    Quit,
    /// The client closed its side of the connection with a goodbye of its protocol (a
    /// WebSocket close frame, as a browser sends on a reload): a drop for a seat that can be
    /// taken back (TEXT-PROTOCOL.md §5.5), else leaving as [`Input::Quit`].
    Hangup,
    /// A message that was not understood or is not for now: the client is told, nothing else happens.
    Confused(String),
    /// The client broke the protocol: its last words are [`Event::Violation`], and it forfeits.
    Violation(String),
    /// The player claims the game from an opponent whose grace is over (TEXT-PROTOCOL.md §5.5).
    Claim(Claim),
    /// The answer to the server's ping `n` ([`Event::Ping`]): a sample of the round trip.
    Pong(u32),
    /// The kernel's round trip for a connection whose protocol has no pings, read by
    /// the session when that connection was owed a ping.
    Rtt(std::time::Duration),
    /// About a rematch, after a game (TEXT-PROTOCOL.md §6.4).
    Rematch(Rematch),
}

/// What a player says about a rematch.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rematch {
    Offer,
    Accept,
    Decline,
}

/// What a player may claim from an opponent who did not come back.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Claim {
    Win,
    Draw,
}

/// What the session tells a client: the one message type from the referee to the
/// wires, already made for its receiver (its view of the board, its standing).
#[derive(Clone, Debug)]
pub enum Event {
    /// A game starts (or a viewer arrives): what it is, who you are, the whole board.
    Start {
        info: &'static GameInfo,
        viewer: Viewer,
        cells: Vec<Cell>,
        id: u64,
        /// The time control of a turn-based game (`None`: a real-time game).
        time: Option<crate::terms::TimeControl>,
        /// Who plays: one per seat, in team order, team mates in seat order.
        players: Vec<TeamPlayer>,
    },
    /// The board changed.
    Update(Update),
    /// It is this team's turn (turn-based games).
    Turn(Team),
    /// The team's clock shows `ms` milliseconds now; it runs if the team is to move.
    Clock { team: Team, ms: Millis },
    /// One of the game's own countdowns ([`reversi_games::Timer`]): `ms` milliseconds
    /// from now (0: stopped), then `text` happens.
    Timer {
        name: &'static str,
        ms: Millis,
        text: std::borrow::Cow<'static, str>,
    },
    /// Answer `Input::Pong(n)` at once (the lag allowance's round trip).
    Ping(u32),
    /// `team` offers a rematch; `news` says so in words.
    OfferedRematch { team: Team, news: String },
    /// Something worth telling, in words.
    News(String),
    /// Your move.
    Ready,
    /// Your action was refused; the game goes on. `again`: it is still your move.
    Illegal { why: String, again: bool },
    /// Your message was not understood or is not for now. `again`: it is still your move.
    Confused { why: String, again: bool },
    /// You broke the protocol; nothing follows.
    Violation(String),
    /// The game is over. `standing` is yours (`None` for a viewer).
    Over {
        outcome: Outcome,
        standing: Option<Standing>,
    },
    /// The game was stopped with no result (fast shutdown).
    Aborted(String),
    /// Your seat's resume token, and the grace it is held for after a drop (ms).
    Token {
        token: crate::terms::ResumeToken,
        ms: Millis,
    },
    /// You are back in game `id` (the resume sequence, TEXT-PROTOCOL.md §5.5).
    Resumed(u64),
    /// The team's player dropped; its seat is held `ms` more (0: the grace is over).
    Away { team: Team, ms: Millis },
    /// The team's player is back.
    Back(Team),
    /// The team's draw offer stands.
    OfferedDraw(Team),
    /// A new connection took this seat over: this one is closed.
    Replaced,
}

/// A seat's player, with the team it plays for (`GAME PLAYER`, TEXT-PROTOCOL.md §5.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TeamPlayer {
    pub team: Team,
    pub player: crate::terms::SeatPlayer,
}

/// A connection's protocol.
pub trait Wire: Send {
    /// Takes bytes as they arrive and appends what they ask for to `inputs`. After a
    /// [`Input::Violation`] it produces nothing more.
    fn receive(&mut self, bytes: &[u8], inputs: &mut Vec<Input>);

    /// Writes `event` for the client, if this protocol has a way to say it.
    fn send(&mut self, event: &Event, out: &mut Outbox);

    /// Writes what the protocol itself owes the client after [`Wire::receive`] (a
    /// WebSocket pong, the echo of its close); most protocols owe nothing.
    fn owed(&mut self, _out: &mut Outbox) {}

    /// Whether its client answers [`Event::Ping`] (else the session asks the kernel).
    fn answers_pings(&self) -> bool {
        false
    }

    /// Writes the protocol's goodbye, once, before the server closes the connection
    /// (a WebSocket close frame); most protocols just close.
    fn farewell(&mut self, _out: &mut Outbox) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn running() -> Vec<Running> {
        let players = vec![
            "127.0.0.1:1".parse().unwrap(),
            "127.0.0.1:2".parse().unwrap(),
        ];
        let game = |name| registry::find(name).unwrap();
        vec![
            Running {
                id: 7,
                game: game("tictactoe"),
                seconds: 3,
                players: players.clone(),
                names: Vec::new(),
            },
            Running {
                id: 9,
                game: game("foxes"),
                seconds: 1,
                players,
                names: Vec::new(),
            },
        ]
    }

    /// Every game built in, with a tic-tac-toe game (7) and a foxes game (9) running.
    pub fn lobby() -> Lobby<'static> {
        let games: Vec<&'static Module> = registry::all().iter().collect();
        Lobby {
            games: Vec::leak(games),
            running: &running,
            operator: web::Operator {
                metrics: None,
                takes_games: true,
                cluster: None,
            },
        }
    }

    #[test]
    fn every_protocol_has_a_refusal_and_a_fresh_adapter() {
        for kind in WireKind::ALL {
            assert!(!kind.protocol().refusal("full").is_empty(), "{kind:?}");
            let _ = kind.adapter();
        }
        assert_eq!(WireKind::refusal(None, "x"), [0x00, 0x04, 0xff, 0xff]);
    }

    #[test]
    fn seed_listeners_name_a_game_with_a_seed_protocol() {
        let duell: SeedListener = "conquest=127.0.0.1:0".parse().unwrap();
        assert_eq!(
            (duell.game.info.name, duell.wire),
            ("duell", WireKind::Seed000)
        );
        let foxes: SeedListener = "foxes=127.0.0.1:0".parse().unwrap();
        assert_eq!(
            (foxes.game.info.name, foxes.wire),
            ("foxes", WireKind::Seed002)
        );
        assert!(WireKind::Seed000.joins_on_arrival() && !WireKind::Seed002.joins_on_arrival());
        for bad in ["reversi=127.0.0.1:0", "duell", "duell=nowhere"] {
            assert!(bad.parse::<SeedListener>().is_err(), "{bad}");
        }
        let err = "reversi=127.0.0.1:0".parse::<SeedListener>().unwrap_err();
        assert!(err.ends_with("(try duell or foxes)"), "{err}");
    }

    #[test]
    fn seed_listeners_repeat_on_the_command_line() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            options: Options,
        }
        let cli = Cli::parse_from([
            "reversid",
            "--listen-seed",
            "conquest=127.0.0.1:0",
            "--listen-seed",
            "foxes=127.0.0.1:0",
        ]);
        assert_eq!(cli.options.listen_seed.len(), 2);
        assert!(Cli::try_parse_from(["reversid", "--listen-seed", "reversi=127.0.0.1:0"]).is_err());
    }
}
