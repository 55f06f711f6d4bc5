//! The client's part of playing together (`docs/design/play-together.md` §7.4):
//! challenges and the lobby, claims and rematches, and taking a seat back with its
//! token when the connection drops mid-game. Rows of the same state machine as
//! [`Client`]; kept here so that the game's own rows stay readable.

use std::time::Duration;

use reversi_text::{ClientMessage, ServerMessage, Terms};

use super::board::Board;
use super::client::{Action, Client, Game, Notice, Phase, Request};
use crate::exit;

/// The seat's resume token (`GAME TOKEN`) and how long the server holds the seat.
#[derive(Clone, PartialEq, Eq)]
pub struct Resume {
    pub token: String,
    pub grace: Duration,
}

impl std::fmt::Debug for Resume {
    /// Never the whole token: it is the seat's key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let head: String = self.token.chars().take(3).collect();
        write!(f, "Resume({head}…, {:?})", self.grace)
    }
}

/// One public challenge (`GAME CHALLENGE`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    pub code: String,
    /// Seconds its code lives.
    pub seconds: u64,
    pub game: String,
    /// Its options; `side=` is its creator's.
    pub terms: Terms,
}

/// What an opponent offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    Draw,
    Rematch,
}

/// A game whose connection was lost, being taken back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lost {
    pub game: Game,
    /// Reconnection attempts made.
    pub attempts: u32,
    /// Time waited between attempts so far.
    pub waited: Duration,
    /// A new connection is open and `GAME RESUME` was sent.
    pub resuming: bool,
}

/// The wait before reconnection attempt `attempts` (from 0): 0.5 s, 1 s, 2 s, then 4 s.
pub fn backoff(attempts: u32) -> Duration {
    Duration::from_millis(500 << attempts.min(3))
}

/// A request for after the game (a rematch), or refused while the game is on;
/// `None` for the requests of a game being played.
pub(super) fn after_game(game: &mut Game, request: &Request) -> Option<Vec<Action>> {
    let message = match request {
        // An offer that stands is accepted (an offer crossing it would be too).
        Request::OfferRematch if game.rematch_offer.is_some() => ClientMessage::AcceptRematch,
        Request::OfferRematch => ClientMessage::OfferRematch,
        Request::AcceptRematch => ClientMessage::AcceptRematch,
        Request::DeclineRematch => ClientMessage::DeclineRematch,
        _ => return None,
    };
    if game.over.is_none() {
        return Some(vec![Action::Show(Notice::Refused(
            super::client::Refusal::NotOver,
        ))]);
    }
    game.rematch_offer = None;
    Some(vec![Action::Send(message)])
}

impl Client {
    /// A message while inviting, listing the lobby or resuming; `Err` says how it
    /// breaks the protocol.
    pub(super) fn together_message(
        &mut self,
        message: ServerMessage,
    ) -> Result<Vec<Action>, String> {
        let show = |notice| Ok(vec![Action::Show(notice)]);
        match (&mut self.phase, message) {
            (
                Phase::Inviting,
                ServerMessage::Code {
                    code,
                    seconds,
                    game,
                    terms,
                },
            ) => show(Notice::Invited {
                code,
                seconds,
                game,
                terms,
            }),
            (Phase::Inviting, ServerMessage::Link { url }) => show(Notice::Link(url)),
            (Phase::Inviting, ServerMessage::Waiting { more }) => show(Notice::Waiting { more }),
            (Phase::Inviting, ServerMessage::Expired { code }) => {
                Ok(self.finish(Notice::Expired(code), exit::SERVER_GONE))
            }
            (
                Phase::Lobbying(list),
                ServerMessage::Challenge {
                    code,
                    seconds,
                    game,
                    terms,
                },
            ) => {
                list.push(Challenge {
                    code,
                    seconds,
                    game,
                    terms,
                });
                Ok(Vec::new())
            }
            (Phase::Lobbying(list), ServerMessage::Challenges { count }) => {
                if count != list.len() as u64 {
                    return Err(format!(
                        "GAME CHALLENGES {count} after {} GAME CHALLENGE lines",
                        list.len()
                    ));
                }
                let list = std::mem::take(list);
                self.phase = Phase::Idle;
                show(Notice::Lobby(list))
            }
            (Phase::Inviting | Phase::Lobbying(_), ServerMessage::Error { why }) => {
                Ok(self.finish(Notice::Denied(why), exit::SERVER_GONE))
            }
            (Phase::Lost(lost), ServerMessage::Error { why }) if lost.resuming => {
                // The token is no good any more (the game ended): nothing to take back.
                self.resume = None;
                Ok(self.finish(Notice::Denied(why), exit::SERVER_GONE))
            }
            (Phase::Inviting, ServerMessage::Type { game }) => {
                self.phase = starting(game, 1);
                Ok(Vec::new())
            }
            (Phase::Lost(lost), ServerMessage::Type { game }) if lost.resuming => {
                self.carried = std::mem::take(&mut lost.game.moves);
                self.phase = starting(game, lost.game.round);
                Ok(Vec::new())
            }
            (_, message) => Err(format!(
                "the server sent \"{message}\" while {}",
                self.doing()
            )),
        }
    }

    /// EOF: a game on with a token is taken back; `None` when it cannot be.
    pub(super) fn lose_connection(&mut self) -> Option<Vec<Action>> {
        let resume = self.resume.clone()?;
        let lost = match std::mem::replace(&mut self.phase, Phase::Disconnected) {
            Phase::Playing(game) if game.over.is_none() && game.team().is_some() => Lost {
                game,
                attempts: 0,
                waited: Duration::ZERO,
                resuming: false,
            },
            Phase::Lost(lost) => Lost {
                resuming: false,
                ..*lost
            },
            other => {
                self.phase = other;
                return None;
            }
        };
        let mut lost = lost;
        // The server's READY died with the connection: it says it again on the resume,
        // and until then the screen must not say "Your move."
        lost.game.ready = false;
        lost.game.legal = None;
        Some(self.wait_to_redial(lost, &resume))
    }

    /// Waits before the next attempt, or gives up once the grace is spent.
    fn wait_to_redial(&mut self, mut lost: Lost, resume: &Resume) -> Vec<Action> {
        let wait = backoff(lost.attempts);
        let left = resume.grace.saturating_sub(lost.waited);
        if wait > left {
            self.phase = Phase::Closed(Some(lost.game));
            return vec![
                Action::Show(Notice::Closed { finished: false }),
                Action::Exit(exit::SERVER_GONE),
            ];
        }
        lost.attempts += 1;
        lost.waited += wait;
        self.phase = Phase::Lost(Box::new(lost));
        vec![
            Action::Close,
            Action::Show(Notice::Reconnecting { left }),
            Action::Redial(wait),
        ]
    }

    /// The wait is over: open a new connection.
    pub(super) fn redial(&mut self) -> Vec<Action> {
        match &self.phase {
            Phase::Lost(lost) if !lost.resuming => vec![Action::Open],
            _ => Vec::new(),
        }
    }

    /// The new connection opened (or not): `GAME RESUME`, or wait again.
    pub(super) fn reopened(&mut self, result: Result<(), String>) -> Vec<Action> {
        let (Phase::Lost(lost), Some(resume)) = (&mut self.phase, self.resume.clone()) else {
            return Vec::new();
        };
        match result {
            Ok(()) => {
                lost.resuming = true;
                vec![Action::Send(ClientMessage::Resume {
                    token: resume.token,
                })]
            }
            Err(why) => {
                log::debug!("reconnecting failed: {why}");
                let Phase::Lost(lost) = std::mem::replace(&mut self.phase, Phase::Disconnected)
                else {
                    unreachable!("matched above");
                };
                self.wait_to_redial(*lost, &resume)
            }
        }
    }
}

/// A game starting: `GAME TYPE` came.
fn starting(game: String, round: u32) -> Phase {
    Phase::Starting {
        game,
        board: None::<Board>,
        teams: Vec::new(),
        round,
    }
}
