//! The fork server: a small process that starts every session, so that the
//! supervisor itself never forks.
//!
//! Why: a forked child shares its parent's memory, and the kernel links every
//! child into the reverse map of the parent's anonymous pages. Whatever walks
//! that map (page reclaim, or DAMON's access sampling on a VM host) then
//! visits every session for each page of the busy supervisor it looks at, and
//! each fork write-protects the supervisor's pages again. With thousands of
//! sessions that tax grows with their number. The fork server is the reversid
//! binary executed afresh at start-up: it holds the configuration and nothing
//! else, so what its children share with it is small and rarely touched.
//!
//! The supervisor sends it one message per session over a Unix seqpacket
//! socket ([`handle`]); the fork server ([`serve`]) clones the session with
//! `CLONE_PARENT`, so the session is still the supervisor's child (the same
//! exit signal, reaping and hand-off checks as a directly forked one), and
//! answers with the pid.
//!
//! Messages (integers little-endian):
//!
//! | message | bytes | descriptors (SCM_RIGHTS) |
//! |---|---|---|
//! | start a session | `1`, game id `u64`, name length `u8`, name, the time control (kind `u8`: `0xFF` the game's default, 0 none, 1 per move, 2 Fischer; then two `u32` ms: limit and first move, or base and increment), flags `u8` (bit 0: the seats are in team order, a challenge's, and no teams are drawn; bit 1: hurry, the server is nearly full and first moves have the handshake timeout; bit 2: rated; bit 3: single, one game without an automatic rematch, a tournament's), seat count `u8`, then per seat: wire kind `u8` (as in [`crate::session::handoff`]), address length `u8`, address in text, early-bytes length `u32`, early bytes, token length `u8` (0: the seat cannot be resumed, or 27) and the token, the player (`u8` 0 anonymous; 1 guest, then name length `u8` and name; 2 account, then its id `i64`, name length `u8`, name, rating points `u16` with 0 for none, provisional `u8`); last, the spare journal the session takes (`crate::session::journal`): its file name's length `u8` (0: none) and name, `.spare-<pid>-<id>` | one socket per seat in order (the fork server makes the session's viewers' listener, [`crate::session::handoff`], named after its parent, the supervisor) |
//! | reopen the log | `2` | the new stderr |
//! | the fork server is ready (its first message) | `3` | none |
//! | answer to a start | the session's pid as `i32`, or minus an errno | none |

pub mod handle;
pub mod serve;

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use crate::protocols::WireKind;
use crate::session::{handoff, journal};
use crate::terms::{ResumeToken, SeatPlayer, ShownRating, Terms, TimeControl, TOKEN_LEN};
use reversi_store::{AccountId, Name};

/// The environment variable that makes reversid a fork server: the descriptor number of
/// its socket to the supervisor.
const SOCKET_VAR: &str = "REVERSID_FORK_SERVER_FD";
/// The directory the fork server reads the command line in (see `Cli::start_dir`).
const DIR_VAR: &str = "REVERSID_FORK_SERVER_DIR";

const START: u8 = 1;
const REOPEN_LOG: u8 = 2;
/// The fork server's first message: it read its configuration and takes requests.
const READY: u8 = 3;

/// The largest message. Seats bring at most the supervisor's input cap each; the cap
/// here leaves room for many seats and refuses nothing a supervisor sends.
pub const MAX_MESSAGE: usize = 256 * 1024;
/// Seats in one session, at most (8 teams of 8 would already be a strange game).
pub const MAX_SEATS: usize = 64;

/// One seat of a session to start; its socket travels beside the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatHeader {
    pub wire: WireKind,
    pub peer: SocketAddr,
    pub early: Vec<u8>,
    /// The seat's resume token, when it can be resumed.
    pub token: Option<ResumeToken>,
    pub player: SeatPlayer,
}

/// What the supervisor asks of the fork server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Start the session of game `id` of `game` for these seats.
    Start {
        id: u64,
        game: String,
        terms: Terms,
        seats: Vec<SeatHeader>,
        /// The file name of a spare in the journal directory, for the session's journal.
        spare: Option<String>,
    },
    /// Take the descriptor that comes with this message as stderr (log rotation).
    ReopenLog,
}

/// Why a message could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadRequest {
    Empty,
    UnknownTag(u8),
    Truncated,
    TooManySeats(usize),
    UnknownWire(u8),
    BadAddress,
    UnknownControl(u8),
    BadToken,
    UnknownPlayer(u8),
    BadName,
    BadSpare,
    TrailingBytes(usize),
}

impl fmt::Display for BadRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadRequest::Empty => write!(f, "empty message"),
            BadRequest::UnknownTag(tag) => write!(f, "unknown message type {tag}"),
            BadRequest::Truncated => write!(f, "message ends inside a field"),
            BadRequest::TooManySeats(n) => write!(f, "{n} seats (at most {MAX_SEATS})"),
            BadRequest::UnknownWire(kind) => write!(f, "unknown wire kind {kind}"),
            BadRequest::BadAddress => write!(f, "a seat's address is not an address"),
            BadRequest::UnknownControl(kind) => write!(f, "unknown time control kind {kind}"),
            BadRequest::BadToken => write!(f, "a seat's token is not a token"),
            BadRequest::UnknownPlayer(kind) => write!(f, "unknown player kind {kind}"),
            BadRequest::BadName => write!(f, "a seat's player name is not a valid name"),
            BadRequest::BadSpare => write!(f, "the spare journal's name is not a spare's"),
            BadRequest::TrailingBytes(n) => write!(f, "{n} bytes after the last field"),
        }
    }
}

impl Request {
    /// The message's bytes (its descriptors go beside them).
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Request::ReopenLog => vec![REOPEN_LOG],
            Request::Start {
                id,
                game,
                terms,
                seats,
                spare,
            } => {
                let mut out = vec![START];
                out.extend_from_slice(&id.to_le_bytes());
                put_short(&mut out, game.as_bytes());
                put_control(&mut out, terms.control);
                out.push(
                    u8::from(terms.teams_by_seat)
                        | u8::from(terms.hurry) << 1
                        | u8::from(terms.rated) << 2
                        | u8::from(terms.single) << 3,
                );
                out.push(seats.len() as u8);
                for seat in seats {
                    out.push(handoff::kind_byte(seat.wire));
                    put_short(&mut out, seat.peer.to_string().as_bytes());
                    out.extend_from_slice(&(seat.early.len() as u32).to_le_bytes());
                    out.extend_from_slice(&seat.early);
                    put_short(
                        &mut out,
                        seat.token.as_ref().map_or(&[][..], |t| t.as_bytes()),
                    );
                    put_player(&mut out, &seat.player);
                }
                put_short(&mut out, spare.as_deref().unwrap_or_default().as_bytes());
                out
            }
        }
    }

    /// Reads a message written by [`Request::encode`].
    pub fn decode(bytes: &[u8]) -> Result<Request, BadRequest> {
        let mut r = Reader(bytes);
        let request = match r.byte()? {
            REOPEN_LOG => Request::ReopenLog,
            START => {
                let id = u64::from_le_bytes(r.array()?);
                let game = String::from_utf8_lossy(r.short()?).into_owned();
                let control = r.control()?;
                let flags = r.byte()?;
                let terms = Terms {
                    control,
                    teams_by_seat: flags & 1 != 0,
                    hurry: flags & 2 != 0,
                    rated: flags & 4 != 0,
                    single: flags & 8 != 0,
                };
                let count = usize::from(r.byte()?);
                if count > MAX_SEATS {
                    return Err(BadRequest::TooManySeats(count));
                }
                let seats = (0..count)
                    .map(|_| r.seat())
                    .collect::<Result<Vec<_>, _>>()?;
                let spare = r.spare()?;
                Request::Start {
                    id,
                    game,
                    terms,
                    seats,
                    spare,
                }
            }
            tag => return Err(BadRequest::UnknownTag(tag)),
        };
        match r.0.len() {
            0 => Ok(request),
            n => Err(BadRequest::TrailingBytes(n)),
        }
    }

    /// Descriptors that must come with this message.
    pub fn descriptors(&self) -> usize {
        match self {
            Request::ReopenLog => 1,
            Request::Start { seats, .. } => seats.len(),
        }
    }
}

/// A field of at most 255 bytes, after its length (addresses and game names are shorter).
fn put_short(out: &mut Vec<u8>, field: &[u8]) {
    let field = &field[..field.len().min(255)];
    out.push(field.len() as u8);
    out.extend_from_slice(field);
}

/// Kinds of seat player in a start message.
const ANONYMOUS: u8 = 0;
const GUEST: u8 = 1;
const ACCOUNT: u8 = 2;

fn put_player(out: &mut Vec<u8>, player: &SeatPlayer) {
    match player {
        SeatPlayer::Anonymous => out.push(ANONYMOUS),
        SeatPlayer::Guest(name) => {
            out.push(GUEST);
            put_short(out, name.as_str().as_bytes());
        }
        SeatPlayer::Account { id, name, rating } => {
            out.push(ACCOUNT);
            out.extend_from_slice(&id.0.to_le_bytes());
            put_short(out, name.as_str().as_bytes());
            let (points, provisional) = rating.map_or((0, false), |r| (r.points, r.provisional));
            out.extend_from_slice(&points.to_le_bytes());
            out.push(u8::from(provisional));
        }
    }
}

/// Kinds of time control in a start message.
const DEFAULT_CONTROL: u8 = 0xFF;
const NO_CLOCK: u8 = 0;
const PER_MOVE: u8 = 1;
const FISCHER: u8 = 2;

fn put_control(out: &mut Vec<u8>, control: Option<TimeControl>) {
    let ms = |d: Duration| u32::try_from(d.as_millis()).unwrap_or(u32::MAX);
    let (kind, a, b) = match control {
        None => (DEFAULT_CONTROL, 0, 0),
        Some(TimeControl::None) => (NO_CLOCK, 0, 0),
        Some(TimeControl::PerMove { limit, first }) => (PER_MOVE, ms(limit), ms(first)),
        Some(TimeControl::Fischer { base, increment }) => (FISCHER, ms(base), ms(increment)),
    };
    out.push(kind);
    out.extend_from_slice(&a.to_le_bytes());
    out.extend_from_slice(&b.to_le_bytes());
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], BadRequest> {
        if self.0.len() < n {
            return Err(if self.0.is_empty() && n == 1 {
                BadRequest::Empty
            } else {
                BadRequest::Truncated
            });
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn byte(&mut self) -> Result<u8, BadRequest> {
        Ok(self.take(1)?[0])
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], BadRequest> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn short(&mut self) -> Result<&'a [u8], BadRequest> {
        let n = usize::from(self.byte()?);
        self.take(n)
    }

    fn seat(&mut self) -> Result<SeatHeader, BadRequest> {
        let kind = self.byte()?;
        let wire = handoff::wire_of(kind).ok_or(BadRequest::UnknownWire(kind))?;
        let peer = std::str::from_utf8(self.short()?)
            .ok()
            .and_then(|text| text.parse().ok())
            .ok_or(BadRequest::BadAddress)?;
        let n = u32::from_le_bytes(self.array()?) as usize;
        let early = self.take(n)?.to_vec();
        let token = match self.short()? {
            [] => None,
            bytes => {
                let bytes: [u8; TOKEN_LEN] = bytes.try_into().map_err(|_| BadRequest::BadToken)?;
                Some(ResumeToken::from_bytes(bytes).ok_or(BadRequest::BadToken)?)
            }
        };
        let player = self.player()?;
        Ok(SeatHeader {
            wire,
            peer,
            early,
            token,
            player,
        })
    }

    fn player(&mut self) -> Result<SeatPlayer, BadRequest> {
        Ok(match self.byte()? {
            ANONYMOUS => SeatPlayer::Anonymous,
            GUEST => SeatPlayer::Guest(self.name()?),
            ACCOUNT => {
                let id = AccountId(i64::from_le_bytes(self.array()?));
                let name = self.name()?;
                let points = u16::from_le_bytes(self.array()?);
                let provisional = self.byte()? != 0;
                let rating = (points != 0).then_some(ShownRating {
                    points,
                    provisional,
                });
                SeatPlayer::Account { id, name, rating }
            }
            kind => return Err(BadRequest::UnknownPlayer(kind)),
        })
    }

    fn spare(&mut self) -> Result<Option<String>, BadRequest> {
        match self.short()? {
            [] => Ok(None),
            bytes => std::str::from_utf8(bytes)
                .ok()
                .filter(|name| journal::is_spare_name(name))
                .map(|name| Some(name.to_owned()))
                .ok_or(BadRequest::BadSpare),
        }
    }

    fn name(&mut self) -> Result<Name, BadRequest> {
        let text = std::str::from_utf8(self.short()?).map_err(|_| BadRequest::BadName)?;
        Name::new(text).map_err(|_| BadRequest::BadName)
    }

    fn control(&mut self) -> Result<Option<TimeControl>, BadRequest> {
        let kind = self.byte()?;
        let a = Duration::from_millis(u32::from_le_bytes(self.array()?).into());
        let b = Duration::from_millis(u32::from_le_bytes(self.array()?).into());
        Ok(Some(match kind {
            DEFAULT_CONTROL => return Ok(None),
            NO_CLOCK => TimeControl::None,
            PER_MOVE => TimeControl::PerMove { limit: a, first: b },
            FISCHER => TimeControl::Fischer {
                base: a,
                increment: b,
            },
            kind => return Err(BadRequest::UnknownControl(kind)),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> Request {
        Request::Start {
            id: 7,
            game: "ttt".into(),
            terms: Terms {
                control: None,
                teams_by_seat: true,
                hurry: true,
                rated: false,
                single: true,
            },
            seats: vec![
                SeatHeader {
                    wire: WireKind::default(),
                    peer: "10.0.0.1:5".parse().unwrap(),
                    early: b"MOVE".to_vec(),
                    token: None,
                    player: SeatPlayer::Anonymous,
                },
                SeatHeader {
                    wire: WireKind::FALLBACK,
                    peer: "[::1]:9".parse().unwrap(),
                    early: vec![],
                    token: None,
                    player: SeatPlayer::Anonymous,
                },
            ],
            spare: None,
        }
    }

    #[test]
    fn a_start_message_in_bytes() {
        let mut expected = vec![1, 7, 0, 0, 0, 0, 0, 0, 0, 3, b't', b't', b't'];
        // The default control, seats in team order, in a hurry and single, two seats.
        expected.extend_from_slice(&[0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0b1011, 2]);
        expected.extend_from_slice(b"\x01\x0a10.0.0.1:5\x04\0\0\0MOVE\0\0");
        expected.extend_from_slice(b"\x00\x07[::1]:9\0\0\0\0\0\0");
        expected.push(0); // no spare journal
        assert_eq!(start().encode(), expected);
        assert_eq!(Request::decode(&expected), Ok(start()));
        assert_eq!(start().descriptors(), 2);
    }

    #[test]
    fn controls_and_tokens_cross_whole() {
        let token = ResumeToken::draw(b'0').unwrap();
        for control in [
            TimeControl::None,
            TimeControl::PerMove {
                limit: Duration::from_secs(600),
                first: Duration::from_secs(30),
            },
            TimeControl::Fischer {
                base: Duration::from_secs(300),
                increment: Duration::from_secs(3),
            },
        ] {
            let mut request = start();
            if let Request::Start { terms, seats, .. } = &mut request {
                terms.control = Some(control);
                terms.rated = true;
                seats[1].token = Some(token);
            }
            assert_eq!(Request::decode(&request.encode()), Ok(request));
        }
    }

    #[test]
    fn players_cross_whole() {
        let name = |n: &str| Name::new(n).unwrap();
        let mut request = start();
        if let Request::Start { seats, .. } = &mut request {
            seats[0].player = SeatPlayer::Guest(name("Zoë"));
            seats[1].player = SeatPlayer::Account {
                id: AccountId(42),
                name: name("Alice"),
                rating: Some(ShownRating {
                    points: 1532,
                    provisional: true,
                }),
            };
        }
        assert_eq!(Request::decode(&request.encode()), Ok(request.clone()));
        let bytes = request.encode();
        for cut in 0..bytes.len() {
            assert!(Request::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn a_spare_crosses_whole_and_only_a_spares_name_is_taken() {
        let mut request = start();
        if let Request::Start { spare, .. } = &mut request {
            *spare = Some(".spare-77-12".into());
        }
        let bytes = request.encode();
        assert!(bytes.ends_with(b"\x0c.spare-77-12"));
        assert_eq!(Request::decode(&bytes), Ok(request));
        for name in ["../etc/passwd", ".journal-77-12", ".spare-7/../x"] {
            let mut bytes = start().encode();
            bytes.pop();
            put_short(&mut bytes, name.as_bytes());
            assert_eq!(Request::decode(&bytes), Err(BadRequest::BadSpare), "{name}");
        }
    }

    #[test]
    fn reopen_is_one_byte() {
        assert_eq!(Request::ReopenLog.encode(), [2]);
        assert_eq!(Request::decode(&[2]), Ok(Request::ReopenLog));
    }

    #[test]
    fn every_cut_of_a_message_is_an_error_not_a_panic() {
        let bytes = start().encode();
        for cut in 0..bytes.len() {
            assert!(Request::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        assert_eq!(Request::decode(&[]), Err(BadRequest::Empty));
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(Request::decode(&long), Err(BadRequest::TrailingBytes(1)));
    }

    #[test]
    fn bad_fields_are_named() {
        assert_eq!(Request::decode(&[9]), Err(BadRequest::UnknownTag(9)));
        let mut bytes = start().encode();
        bytes[24] = 200; // the first seat's wire kind
        assert_eq!(Request::decode(&bytes), Err(BadRequest::UnknownWire(200)));
        let mut bytes = start().encode();
        bytes[26] = b'x'; // inside the first seat's address
        assert_eq!(Request::decode(&bytes), Err(BadRequest::BadAddress));
        let mut bytes = start().encode();
        bytes[23] = 65; // seat count
        assert_eq!(Request::decode(&bytes), Err(BadRequest::TooManySeats(65)));
        let mut bytes = start().encode();
        bytes[13] = 7; // the control's kind
        assert_eq!(Request::decode(&bytes), Err(BadRequest::UnknownControl(7)));
    }
}
