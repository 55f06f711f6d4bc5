//! Seats that can be taken back after a drop (TEXT-PROTOCOL.md §5.5, the play-together
//! design §5 and §7.2). A resumable seat is Present, Away (its connection dropped: the
//! seat is held for the grace, its clock runs on) or Held (the grace is over: a present
//! opponent may claim the game, or wait). Pure, as the rest of the referee: every call is
//! given the time.
//!
//! The session keeps a seat's connection; the referee keeps only whether it is there.

use std::time::{Duration, Instant, SystemTime};

use reversi_games::{Action, Millis, Outcome, Team, Update, Viewer};

use super::table::Who;
use super::{tell, timer_event, Delivery, End, Now, Referee};
use crate::protocols::{Claim, Event};
use crate::terms::ResumeToken;

/// A Held seat is released after this many graces without a claim: the server claims the
/// win for the present side.
pub const RELEASE_GRACES: u32 = 10;

/// What a seat brings for coming back.
#[derive(Clone, Copy, Debug)]
pub struct Return {
    /// The seat's token, which the seat is told (`None`: a drop loses at once, as before).
    pub token: Option<ResumeToken>,
    /// Its protocol can send `GAME CLAIM` (text, WebSocket); the server claims for one
    /// that cannot (binary, the seeds' protocols).
    pub can_claim: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Presence {
    Present,
    /// Dropped; held until `until`.
    Away {
        until: Instant,
    },
    /// Not back within its grace; released (the win claimed for the others) at `release`.
    Held {
        release: Instant,
    },
}

/// Every seat's presence, and what a returning seat is told.
pub(super) struct Holds {
    /// Zero: no seat is held.
    grace: Duration,
    seats: Vec<(Return, Presence)>,
    /// The team whose draw offer stands, and in which round.
    draw_offer: Option<(u32, Team)>,
    /// Per seat: how often and how long it was away, for the log.
    absences: Vec<Absence>,
}

/// A seat's drops, for the log's `away` word.
#[derive(Clone, Copy, Default)]
struct Absence {
    drops: u32,
    /// Away before its last return.
    away: Duration,
    /// Away since then, if away now (wall-clock time: what the log's summary is given).
    since: Option<SystemTime>,
}

impl Absence {
    fn left(&mut self, wall: SystemTime) {
        self.drops += 1;
        self.since = Some(wall);
    }

    fn back(&mut self, wall: SystemTime) {
        if let Some(since) = self.since.take() {
            self.away += wall.duration_since(since).unwrap_or_default();
        }
    }

    /// The whole time away until `wall`.
    fn total(&self, wall: SystemTime) -> Duration {
        let now = self
            .since
            .map(|since| wall.duration_since(since).unwrap_or_default());
        self.away + now.unwrap_or_default()
    }
}

impl Holds {
    /// No seat can be taken back.
    pub fn none(seats: usize) -> Holds {
        let nothing = Return {
            token: None,
            can_claim: false,
        };
        Holds {
            grace: Duration::ZERO,
            seats: vec![(nothing, Presence::Present); seats],
            draw_offer: None,
            absences: vec![Absence::default(); seats],
        }
    }

    pub fn has_tokens(&self) -> bool {
        self.seats.iter().any(|(r, _)| r.token.is_some())
    }

    /// No seat is Away or Held (a rematch may follow).
    pub fn all_present(&self) -> bool {
        self.seats.iter().all(|(_, p)| *p == Presence::Present)
    }

    fn grace_ms(&self) -> Millis {
        self.grace.as_millis() as Millis
    }
}

impl Referee {
    /// Makes the seats that have a token resumable for `grace` (`None` or zero: none is).
    /// Called before [`Referee::start`], which tells each its token.
    pub fn hold_seats(&mut self, grace: Option<Duration>, seats: Vec<Return>) {
        let Some(grace) = grace.filter(|g| !g.is_zero()) else {
            return;
        };
        if seats.len() != self.table.seats.len() {
            return;
        }
        let absences = vec![Absence::default(); seats.len()];
        self.hold = Holds {
            grace,
            seats: seats.into_iter().map(|r| (r, Presence::Present)).collect(),
            draw_offer: None,
            absences,
        };
    }

    /// The game is over but a seat that dropped may still come back to learn the result:
    /// the session waits for it (until its grace ends).
    pub fn keeps_session(&self) -> bool {
        (0..self.table.seats.len()).any(|s| {
            !self.table.seats[s].gone && matches!(self.hold.seats[s].1, Presence::Away { .. })
        })
    }

    /// Seat `seat` is back on a new connection (its token was checked by the supervisor):
    /// what it is told (the resume sequence) and what the others are. `None`: the seat
    /// cannot be taken back (it has no token, or it left).
    pub fn resume(&mut self, seat: usize, now: Now) -> Option<Vec<Delivery>> {
        let (ret, presence) = *self.hold.seats.get(seat)?;
        ret.token?;
        if self.table.seats[seat].gone {
            return None;
        }
        let mut out = Vec::new();
        for event in self.resume_sequence(seat, now.at) {
            tell(&mut out, seat, event);
        }
        self.ready_again(seat, now.at, &mut out);
        if presence != Presence::Present {
            self.hold.seats[seat].1 = Presence::Present;
            self.hold.absences[seat].back(now.wall);
            let team = self.team_of(seat);
            let name = self.info().team_name(team);
            self.journal.push(format!("back {name}"));
            let news = format!("{name} is back");
            self.tell_present(&mut out, Some(seat), Event::Back(team));
            self.tell_present(&mut out, Some(seat), Event::News(news));
        }
        Some(out)
    }

    /// Whether the seat's dropped connection holds it rather than losing the game.
    pub(super) fn may_hold(&self, seat: usize) -> bool {
        let (ret, presence) = self.hold.seats[seat];
        let team = self.team_of(seat);
        ret.token.is_some()
            && presence == Presence::Present
            && self.end.is_none()
            && !self.table.seats[seat].gone
            && self.table.members(team).count() == 1
    }

    /// For the log's `game over:` line: ` away O:1/12.3s` (drops, time away) for each team
    /// whose player dropped and was held, until `wall`; empty when none did.
    pub(super) fn away_summary(&self, wall: SystemTime) -> String {
        let teams: Vec<String> = (0..self.table.seats.len())
            .filter(|&s| self.hold.absences[s].drops > 0)
            .map(|s| {
                let absence = &self.hold.absences[s];
                let name = self.info().team_name(self.team_of(s));
                let secs = absence.total(wall).as_secs_f64();
                format!("{name}:{}/{secs:.1}s", absence.drops)
            })
            .collect();
        if teams.is_empty() {
            String::new()
        } else {
            format!(" away {}", teams.join(" "))
        }
    }

    /// The seat is Away or Held.
    pub(super) fn is_away(&self, seat: usize) -> bool {
        self.hold.seats[seat].1 != Presence::Present
    }

    /// The seat's connection dropped while its game runs: it is Away, everyone else is told.
    pub(super) fn hold_seat(&mut self, seat: usize, now: Now) -> Vec<Delivery> {
        let mut out = Vec::new();
        let grace = self.hold.grace;
        self.hold.seats[seat].1 = Presence::Away {
            until: now.at + grace,
        };
        self.hold.absences[seat].left(now.wall);
        let team = self.team_of(seat);
        let name = self.info().team_name(team);
        self.journal.push(format!("away {name}"));
        let ms = self.hold.grace_ms();
        let secs = ms.div_ceil(1000);
        let news = format!("{name}'s connection dropped; its seat is held for {secs} s");
        self.tell_present(&mut out, None, Event::Away { team, ms });
        self.tell_present(&mut out, None, Event::News(news));
        for clock in self.clock_events(now.at) {
            self.tell_present(&mut out, None, clock);
        }
        out
    }

    /// The next grace end or release, if one is to come.
    pub(super) fn hold_deadline(&self) -> Option<Instant> {
        let someone_here = self.present_seats().next().is_some();
        let held = |s: usize| match self.hold.seats[s].1 {
            Presence::Away { until } => Some(until),
            Presence::Held { release } if someone_here && self.end.is_none() => Some(release),
            _ => None,
        };
        (0..self.table.seats.len())
            .filter(|&s| !self.table.seats[s].gone)
            .filter_map(held)
            .min()
    }

    /// Time passed: graces end, Held seats are released.
    pub(super) fn tick_holds(&mut self, now: Now, out: &mut Vec<Delivery>) {
        for seat in 0..self.table.seats.len() {
            if self.table.seats[seat].gone {
                continue;
            }
            match self.hold.seats[seat].1 {
                Presence::Away { until } if until <= now.at => {
                    if self.end.is_some() {
                        // It did not come back to learn the result: nothing more is kept for it.
                        self.table.seats[seat].gone = true;
                    } else {
                        self.grace_over(seat, now, out);
                    }
                }
                // Released only for a side that is here (none: it waits to be deserted).
                Presence::Held { release }
                    if release <= now.at
                        && self.end.is_none()
                        && self.present_seats().next().is_some() =>
                {
                    self.claim_win_for_present(seat, now, out);
                }
                _ => {}
            }
        }
    }

    /// The seat's grace ended: Held, and a present opponent may claim; or the server claims
    /// for opponents that cannot; or, nobody being here, the game is deserted.
    fn grace_over(&mut self, seat: usize, now: Now, out: &mut Vec<Delivery>) {
        let grace = self.hold.grace;
        self.hold.seats[seat].1 = Presence::Held {
            release: now.at + grace * RELEASE_GRACES,
        };
        let team = self.team_of(seat);
        let present: Vec<usize> = self.present_seats().collect();
        if present.is_empty() {
            self.tell_present(out, None, Event::Away { team, ms: 0 });
            if self.nobody_coming() {
                self.desert(now, out);
            }
            return;
        }
        let claimers: Vec<String> = present
            .iter()
            .filter(|&&s| self.hold.seats[s].0.can_claim)
            .map(|&s| self.info().team_name(self.team_of(s)))
            .collect();
        if claimers.is_empty() {
            return self.claim_win_for_present(seat, now, out);
        }
        let name = self.info().team_name(team);
        let news = format!(
            "{name} has not come back: {} may claim the game (GAME CLAIM WIN or GAME CLAIM DRAW) or wait",
            claimers.join(" or ")
        );
        self.tell_present(out, None, Event::Away { team, ms: 0 });
        self.tell_present(out, None, Event::News(news));
    }

    /// The server claims the win from Held seat `seat` for the side still here.
    fn claim_win_for_present(&mut self, seat: usize, now: Now, out: &mut Vec<Delivery>) {
        self.table.seats[seat].gone = true;
        self.forfeit(End::Left(seat), now, out);
    }

    /// Every seat still in the game is Held: nobody is coming; the game is aborted.
    fn nobody_coming(&self) -> bool {
        (0..self.table.seats.len())
            .filter(|&s| !self.table.seats[s].gone)
            .all(|s| matches!(self.hold.seats[s].1, Presence::Held { .. }))
    }

    fn desert(&mut self, now: Now, out: &mut Vec<Delivery>) {
        let why = "every player left the game".to_owned();
        self.tell_present(out, None, Event::Aborted(why));
        self.rematch_at = None;
        self.stop(End::Deserted, None, now.wall);
    }

    /// `GAME CLAIM WIN` or `GAME CLAIM DRAW` from `seat`, while the game runs.
    pub(super) fn claim(&mut self, seat: usize, claim: Claim, now: Now, out: &mut Vec<Delivery>) {
        let others = |p: fn(&Presence) -> bool| {
            (0..self.table.seats.len())
                .find(|&s| s != seat && !self.table.seats[s].gone && p(&self.hold.seats[s].1))
        };
        let held = others(|p| matches!(p, Presence::Held { .. }));
        let away = others(|p| matches!(p, Presence::Away { .. }));
        let Some(held) = held else {
            let why = match away {
                None => "there is nothing to claim: no player is away".to_owned(),
                Some(away) => self.still_held(away, now.at),
            };
            return self.confused(seat, why, out);
        };
        match claim {
            Claim::Win => self.claim_win_for_present(held, now, out),
            Claim::Draw => {
                let info = self.info();
                let (gone, claimer) = (self.team_of(held), self.team_of(seat));
                let why = format!(
                    "{} left the game; {} took a draw",
                    info.team_name(gone),
                    info.team_name(claimer)
                );
                self.table.seats[held].gone = true;
                self.finish(End::LeftDraw(held), Outcome::Draw { why }, now, out);
            }
        }
    }

    /// Why an Away seat cannot be claimed from yet.
    fn still_held(&self, away: usize, now: Instant) -> String {
        let name = self.info().team_name(self.team_of(away));
        let left = match self.hold.seats[away].1 {
            Presence::Away { until } => until.saturating_duration_since(now).as_millis(),
            _ => 0,
        };
        let secs = (left as u64).div_ceil(1000);
        format!("there is nothing to claim yet: {name}'s seat is held for {secs} s more")
    }

    /// A legal action of `team` was played: whether a draw offer stands after it (an offer
    /// lapses when the opponent moves instead of answering, TEXT-PROTOCOL.md §5.4).
    pub(super) fn note_action(&mut self, team: Team, action: &Action) {
        let offer = &mut self.hold.draw_offer;
        match action {
            Action::OfferDraw => *offer = Some((self.round, team)),
            Action::AcceptDraw | Action::DeclineDraw => *offer = None,
            Action::Move(_) if offer.is_some_and(|(_, by)| by != team) => *offer = None,
            _ => {}
        }
    }

    /// The start of a game where some seats have tokens: each such seat is told its token
    /// after `GAME TEAM`, before the board (TEXT-PROTOCOL.md §5.1).
    pub(super) fn tell_start_with_tokens(&self, out: &mut Vec<Delivery>) {
        for (s, seat) in self.table.seats.iter().enumerate() {
            if seat.gone {
                continue;
            }
            let viewer = Viewer::Team(seat.team);
            match self.hold.seats[s].0.token {
                Some(token) => {
                    tell(out, s, self.bare_start(viewer));
                    let ms = self.hold.grace_ms();
                    tell(out, s, Event::Token { token, ms });
                    tell(out, s, self.board(viewer));
                }
                None => tell(out, s, self.start_event(viewer)),
            }
        }
        out.push(Delivery {
            to: Who::Viewer,
            event: self.start_event(Viewer::Spectator),
        });
    }

    /// `GAME AWAY` for every seat that is Away or Held but `except`, with its grace left.
    pub(super) fn away_events(&self, except: Option<usize>, now: Instant) -> Vec<Event> {
        let mut told = Vec::new();
        for s in 0..self.table.seats.len() {
            if Some(s) == except || self.table.seats[s].gone {
                continue;
            }
            let ms = match self.hold.seats[s].1 {
                Presence::Present => continue,
                Presence::Away { until } => until.saturating_duration_since(now).as_millis(),
                Presence::Held { .. } => 0,
            };
            let team = self.team_of(s);
            told.push(Event::Away {
                team,
                ms: ms as Millis,
            });
        }
        told
    }

    /// What a returning seat is told, in order (the play-together design §5.4): the start
    /// without the board, `GAME RESUMED`, its token, the moves so far, the board; then, while the game runs,
    /// whose turn, the clocks, the running timers, a standing draw offer, who else is away;
    /// or the end. (`GAME TIME` joins after the token once the game has time controls.)
    fn resume_sequence(&self, seat: usize, now: Instant) -> Vec<Event> {
        let viewer = Viewer::Team(self.team_of(seat));
        let mut told = vec![self.bare_start(viewer), Event::Resumed(self.id)];
        if let Some(token) = self.hold.seats[seat].0.token {
            let ms = self.hold.grace_ms();
            told.push(Event::Token { token, ms });
        }
        told.extend(self.replayed_moves());
        told.push(self.board(viewer));
        if self.end.is_some() {
            told.extend(self.over_event(viewer));
            return told;
        }
        told.extend(self.game.turn().map(Event::Turn));
        told.extend(self.clock_events(now));
        let t = self.game_time(now);
        let timers = self.game.timers();
        let running = timers.iter().filter(|timer| timer.due.is_some());
        told.extend(running.map(|timer| timer_event(timer, t)));
        let offer = self
            .hold
            .draw_offer
            .filter(|(round, _)| *round == self.round);
        told.extend(offer.map(|(_, team)| Event::OfferedDraw(team)));
        told.extend(self.away_events(Some(seat), now));
        told
    }

    /// READY again to a returning seat that may move: turn-based, if it is the mover (its
    /// move clock is not restarted); real time, if it may act now.
    fn ready_again(&mut self, seat: usize, now: Instant, out: &mut Vec<Delivery>) {
        if self.end.is_some() {
            return;
        }
        if self.info().realtime {
            // Its READY was told to the lost connection: owed again.
            self.pace.acting(seat);
            let t = self.game_time(now);
            (self.pace).recheck(&self.table, &*self.game, t, out);
        } else if self.pace.mover(&self.table, &*self.game) == Some(seat) {
            tell(out, seat, Event::Ready);
        }
    }

    /// The moves of the game so far, oldest first, as `GAME MOVED` lines without a board:
    /// what a returning client rebuilds its move list from (TEXT-PROTOCOL.md §5.5).
    fn replayed_moves(&self) -> impl Iterator<Item = Event> {
        self.game.history().into_iter().map(|moved| {
            Event::Update(Update {
                cells: Vec::new(),
                moved: Some(moved),
                news: None,
            })
        })
    }

    /// The game's start without its board.
    fn bare_start(&self, viewer: Viewer) -> Event {
        Event::Start {
            info: self.info(),
            viewer,
            cells: Vec::new(),
            id: self.id,
            time: self.pace.is_turn_based().then(|| self.told_control()),
            players: self.table.shown(),
        }
    }

    /// The whole board as `viewer` sees it, as a change of every square.
    fn board(&self, viewer: Viewer) -> Event {
        Event::Update(Update {
            cells: self.game.view(viewer),
            moved: None,
            news: None,
        })
    }

    /// The seats that are here: not gone, not Away or Held.
    fn present_seats(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.table.seats.len())
            .filter(|&s| !self.table.seats[s].gone && self.hold.seats[s].1 == Presence::Present)
    }

    /// Tells every present seat but `except`, and the viewers.
    fn tell_present(&self, out: &mut Vec<Delivery>, except: Option<usize>, event: Event) {
        for s in self.present_seats().filter(|&s| Some(s) != except) {
            tell(out, s, event.clone());
        }
        out.push(Delivery {
            to: Who::Viewer,
            event,
        });
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use reversi_games::{registry, Settings};

    use super::super::tests::{clocked, line, rules, Test};
    use super::super::Seating;
    use super::*;
    use crate::protocols::Input;
    use crate::session::ABANDONED;

    const GRACE: u64 = 1_000;

    /// Tic-tac-toe, seat 0 X and seat 1 O, both resumable (`claims`: whether each seat's
    /// protocol can claim), a 60 s move clock; X has played b2 at 100: O to move.
    fn game(claims: [bool; 2]) -> Test {
        game_graced(claims, GRACE)
    }

    fn game_graced(claims: [bool; 2], grace: u64) -> Test {
        let mut test = started("tictactoe", claims, grace);
        test.play(0, "b2", 100);
        test
    }

    /// A game of `name`, both seats resumable, started at 0.
    fn started(name: &str, claims: [bool; 2], grace: u64) -> Test {
        let module = registry::find(name).unwrap();
        let rules = clocked(60_000, None);
        let seating = Seating {
            id: 7,
            peers: vec!["p0".into(), "p1".into()],
            first_team_seat: 0,
        };
        let t0 = Instant::now();
        let mut referee = Referee::new(module, rules, Settings::default(), seating, t0);
        let returns = claims.map(|can_claim| Return {
            token: Some(ResumeToken::draw(b'0').unwrap()),
            can_claim,
        });
        referee.hold_seats(Some(Duration::from_millis(grace)), returns.to_vec());
        let mut test = Test { referee, t0 };
        let start = test.said(|r, now| r.start(now), 0);
        assert_eq!(
            start[..4],
            [
                format!("0 start as {}", module.info.teams[0]).as_str(),
                format!("0 token {grace}").as_str(),
                "0 update",
                format!("1 start as {}", module.info.teams[1]).as_str(),
            ],
            "the token after GAME TEAM, before the board"
        );
        test
    }

    fn resume(test: &mut Test, seat: usize, ms: u64) -> Option<Vec<String>> {
        let now = test.at(ms);
        let deliveries = test.referee.resume(seat, now)?;
        let info = test.referee.info();
        Some(deliveries.iter().map(|d| line(info, d)).collect())
    }

    /// O drops at 200 (its grace ends at 1200).
    fn o_away(claims: [bool; 2]) -> Test {
        let mut test = game(claims);
        assert_eq!(
            test.eof(1, 200),
            [
                "0 away O 1000",
                "v away O 1000",
                "0 news O's connection dropped; its seat is held for 1 s",
                "v news O's connection dropped; its seat is held for 1 s",
                "0 clock O 59900",
                "v clock O 59900",
            ]
        );
        assert_eq!(test.referee.take_journal(), ["X b2", "away O"]);
        assert_eq!(test.deadline(), Some(1_200), "the grace's end");
        test
    }

    /// O's grace ends at 1200: held; X may claim.
    fn o_held() -> Test {
        let mut test = o_away([true, true]);
        assert_eq!(
            test.tick(1_200),
            [
                "0 away O 0",
                "v away O 0",
                "0 news O has not come back: X may claim the game (GAME CLAIM WIN or GAME CLAIM DRAW) or wait",
                "v news O has not come back: X may claim the game (GAME CLAIM WIN or GAME CLAIM DRAW) or wait",
            ]
        );
        test
    }

    #[test]
    fn a_seat_without_a_token_loses_when_it_drops_as_before() {
        let rules = rules();
        let (mut test, _) = Test::new("tictactoe", rules, 2);
        let told = test.eof(1, 50);
        assert!(told.contains(&"0 over X wins: O was disconnected, you win".to_owned()));
    }

    #[test]
    fn a_websocket_goodbye_is_a_drop_for_a_resumable_seat_and_its_eof_no_more() {
        let mut test = game([true, true]);
        let told = test.send(1, Input::Hangup, 200);
        assert_eq!(told[0], "0 away O 1000");
        assert!(test.eof(1, 250).is_empty(), "held, not lost");
        assert!(!test.referee.is_over());
    }

    #[test]
    fn a_drop_is_away_and_the_clock_runs_on_to_the_flag() {
        let mut test = game_graced([true, true], 100_000);
        test.eof(1, 200);
        assert_eq!(test.deadline(), Some(60_100), "the move clock still runs");
        let told = test.tick(60_100);
        assert!(
            told.contains(&"0 over X wins: O ran out of time, you win".to_owned()),
            "{told:?}"
        );
    }

    #[test]
    fn a_seat_comes_back_from_away_and_is_told_the_game_as_it_stands() {
        let mut test = o_away([true, true]);
        assert_eq!(
            resume(&mut test, 1, 300).unwrap(),
            [
                "1 start as O",
                "1 resumed 7",
                "1 token 1000",
                "1 moved X b2",
                "1 update",
                "1 turn O",
                "1 clock O 59800",
                "1 ready",
                "0 back O",
                "v back O",
                "0 news O is back",
                "v news O is back",
            ]
        );
        assert_eq!(test.referee.take_journal(), ["back O"]);
        assert_eq!(
            test.deadline(),
            Some(60_100),
            "the move clock was not restarted"
        );
        let told = test.play(1, "a1", 400);
        assert!(told.contains(&"0 moved O a1".to_owned()), "{told:?}");
    }

    #[test]
    fn a_returning_seat_is_told_every_move_so_far_oldest_first_before_the_board() {
        let mut test = game([true, true]);
        test.play(1, "a1", 200);
        test.play(0, "c3", 300);
        test.eof(0, 400);
        let told = resume(&mut test, 0, 500).unwrap();
        assert_eq!(
            told[3..7],
            ["0 moved X b2", "0 moved O a1", "0 moved X c3", "0 update"],
            "{told:?}"
        );
        let mut fresh = started("tictactoe", [true, true], GRACE);
        fresh.eof(1, 50);
        let told = resume(&mut fresh, 1, 60).unwrap();
        assert_eq!(told[3], "1 update", "no moves yet: none told");
    }

    #[test]
    fn a_held_seat_comes_back_too_and_a_present_one_is_replaced_silently() {
        let mut test = o_held();
        let told = resume(&mut test, 1, 1_500).unwrap();
        assert!(told.contains(&"0 back O".to_owned()), "{told:?}");
        let again = resume(&mut test, 1, 1_600).unwrap();
        assert!(again.iter().all(|l| l.starts_with("1 ")), "{again:?}");
        assert_eq!(
            test.claim(0, Claim::Win, 1_700),
            ["0 confused there is nothing to claim: no player is away"]
        );
    }

    #[test]
    fn claims_wait_for_the_grace_then_win_or_draw() {
        let mut test = o_away([true, true]);
        assert_eq!(
            test.claim(0, Claim::Win, 600),
            ["0 confused there is nothing to claim yet: O's seat is held for 1 s more"]
        );
        let mut test = o_held();
        let told = test.claim(0, Claim::Win, 1_300);
        assert_eq!(
            told,
            [
                "0 over X wins: O left the game and did not come back, you win",
                "v over X wins: O left the game and did not come back",
            ]
        );
        assert!(test.referee.is_over() && !test.referee.keeps_session());
        assert_eq!(test.referee.exit_code(), ABANDONED + 1);
        let summary = &test.finished()[0];
        assert!(
            summary.contains("end left by O away O:1/1.1s result X"),
            "{summary}"
        );
        assert!(resume(&mut test, 1, 1_400).is_none(), "its seat is gone");

        let mut test = o_held();
        let told = test.claim(0, Claim::Draw, 1_300);
        assert_eq!(
            told[0],
            "0 over draw: O left the game; X took a draw, you draw"
        );
        assert!(test.finished()[0].contains("end left-draw by O"));
    }

    #[test]
    fn an_opponent_that_cannot_claim_gets_the_win_when_the_grace_ends() {
        let mut test = o_away([false, true]);
        let told = test.tick(1_200);
        assert_eq!(
            told[0],
            "0 over X wins: O left the game and did not come back, you win"
        );
    }

    #[test]
    fn a_held_seat_is_released_after_ten_graces() {
        let mut test = o_held();
        assert_eq!(test.deadline(), Some(1_200 + 10 * GRACE));
        assert!(test.tick(5_000).is_empty());
        let told = test.tick(1_200 + 10 * GRACE);
        assert_eq!(
            told[0],
            "0 over X wins: O left the game and did not come back, you win"
        );
    }

    #[test]
    fn when_both_are_gone_past_their_graces_the_game_is_aborted() {
        let mut test = o_away([true, true]);
        assert_eq!(
            test.eof(0, 500),
            [
                "v away X 1000",
                "v news X's connection dropped; its seat is held for 1 s",
                "v clock O 59600"
            ]
        );
        assert_eq!(test.tick(1_200), ["v away O 0"]);
        assert!(!test.referee.is_over());
        assert_eq!(
            test.tick(1_500),
            ["v away X 0", "v aborted every player left the game"]
        );
        assert!(test.referee.is_over());
        let summary = &test.finished()[0];
        assert!(
            summary.contains("end deserted away X:1/1.0s O:1/1.3s result"),
            "{summary}"
        );
    }

    #[test]
    fn a_game_that_ends_while_a_seat_is_away_waits_for_it_to_learn_the_result() {
        let mut test = o_away([true, true]);
        let told = test.send(0, Input::Quit, 300);
        assert!(
            told.contains(&"v over O wins: X left the game".to_owned()),
            "{told:?}"
        );
        assert!(test.referee.is_over() && test.referee.keeps_session());
        assert_eq!(test.deadline(), Some(1_200));
        let back = resume(&mut test, 1, 400).unwrap();
        assert_eq!(back[5], "1 over O wins: X left the game, you win");
        assert!(!test.referee.keeps_session());

        let mut test = o_away([true, true]);
        test.send(0, Input::Quit, 300);
        test.tick(1_200);
        assert!(!test.referee.keeps_session(), "its grace is over");
    }

    #[test]
    fn a_standing_draw_offer_and_other_away_seats_are_in_the_resume_sequence() {
        let mut test = o_away([true, true]);
        test.referee.hold.draw_offer = Some((1, Team(0)));
        let told = resume(&mut test, 1, 300).unwrap();
        assert!(told.contains(&"1 offered draw X".to_owned()), "{told:?}");
        test.eof(1, 400);
        test.eof(0, 450);
        let told = resume(&mut test, 0, 500).unwrap();
        assert!(told.contains(&"0 away O 900".to_owned()), "{told:?}");
    }

    #[test]
    fn a_draw_offer_stands_until_answered_or_the_opponent_moves() {
        let mut test = started("draughts", [true, true], GRACE);
        test.send(0, Input::Act(Action::OfferDraw), 100);
        let (action, _) = test.legal(Team(0), 200);
        test.send(0, Input::Act(action), 200);
        test.eof(1, 300);
        let told = resume(&mut test, 1, 400).unwrap();
        assert!(
            told.contains(&"1 offered draw black".to_owned()),
            "its own move does not end black's offer: {told:?}"
        );
        let (action, _) = test.legal(Team(1), 500);
        test.send(1, Input::Act(action), 500);
        test.eof(0, 600);
        let told = resume(&mut test, 0, 700).unwrap();
        assert!(
            !told.iter().any(|l| l.contains("offered")),
            "white moved instead of answering: {told:?}"
        );
    }

    #[test]
    fn in_real_time_a_returning_player_is_told_ready_again() {
        let mut test = started("foxes", [true, true], GRACE);
        test.eof(1, 100);
        let told = resume(&mut test, 1, 200).unwrap();
        assert!(told.contains(&"1 ready".to_owned()), "{told:?}");
        assert!(
            told.iter().any(|l| l.starts_with("1 timer ")),
            "the running timers: {told:?}"
        );
    }

    #[test]
    fn a_viewer_arriving_while_a_seat_is_away_is_told_so() {
        let test = o_away([true, true]);
        let welcome = test.referee.welcome(test.at(700).at);
        let info = test.referee.info();
        let lines: Vec<String> = welcome
            .iter()
            .map(|event| {
                let to = Who::Viewer;
                line(
                    info,
                    &Delivery {
                        to,
                        event: event.clone(),
                    },
                )
            })
            .collect();
        assert_eq!(lines.last().map(String::as_str), Some("v away O 500"));
    }

    impl Test {
        fn claim(&mut self, seat: usize, claim: Claim, ms: u64) -> Vec<String> {
            self.send(seat, Input::Claim(claim), ms)
        }
    }
}
