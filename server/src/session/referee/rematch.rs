//! Rematch offers after a game (TEXT-PROTOCOL.md §6.4, §9): a window in which one
//! player offers and every other accepts (a crossing offer accepts), or one declines.

use std::borrow::Cow;
use std::time::Instant;

use reversi_games::Millis;

use super::table::Who;
use super::{tell, Delivery, Now, Referee};
use crate::protocols::{Event, Rematch};

/// The window after a game, while it is open.
pub(super) struct Window {
    pub until: Instant,
    /// Per seat: it offered or accepted.
    agreed: Vec<bool>,
    offered: bool,
}

/// What an answer does.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// The seat's offer stands: the others are told.
    Offered,
    /// The seat accepted; others still must.
    Accepted,
    /// Everyone agreed: the next game starts.
    Agreed,
    /// The seat declined: the window closes.
    Declined,
    /// Refused, with the words after `ERROR`.
    Refused(&'static str),
}

impl Window {
    pub fn new(until: Instant, seats: usize) -> Window {
        Window {
            until,
            agreed: vec![false; seats],
            offered: false,
        }
    }

    /// Seat `seat` says `answer`; `present`: the seats still at the table.
    pub fn answer(&mut self, seat: usize, answer: Rematch, present: &[bool]) -> Step {
        if self.agreed[seat] && answer != Rematch::Decline {
            return Step::Refused("you offered already; wait for the answer");
        }
        match (answer, self.offered) {
            (Rematch::Decline, true) => Step::Declined,
            (Rematch::Accept | Rematch::Decline, false) => Step::Refused("no rematch was offered"),
            (Rematch::Offer, false) => {
                self.offered = true;
                self.agreed[seat] = true;
                Step::Offered
            }
            // An offer that crosses another is an acceptance.
            (Rematch::Offer | Rematch::Accept, true) => {
                self.agreed[seat] = true;
                let all = (0..self.agreed.len()).all(|s| self.agreed[s] || !present[s]);
                if all {
                    Step::Agreed
                } else {
                    Step::Accepted
                }
            }
        }
    }
}

impl Referee {
    /// After a game that ended with everyone here: the window opens, if the rules give one.
    pub(super) fn open_window(&mut self, now: Instant, out: &mut Vec<Delivery>) {
        let Some(length) = self.rules.rematch_window else {
            return;
        };
        self.window = Some(Window::new(now + length, self.table.seats.len()));
        let ms = length.as_millis() as Millis;
        let timer = rematch_timer(ms, "a rematch may be offered until then");
        self.table.tell_everyone(out, |_| Some(timer.clone()));
    }

    /// The window closes (over, declined, or a player left): everyone is told.
    pub(super) fn close_window(&mut self, out: &mut Vec<Delivery>) {
        if self.window.take().is_some() {
            let timer = rematch_timer(0, "no rematch");
            self.table.tell_everyone(out, |_| Some(timer.clone()));
        }
    }

    /// Seat `seat` offers, accepts or declines a rematch.
    pub(super) fn rematch(
        &mut self,
        seat: usize,
        answer: Rematch,
        now: Now,
        out: &mut Vec<Delivery>,
    ) {
        let refuse = |out: &mut Vec<Delivery>, why: &str| {
            let event = Event::Confused {
                why: why.to_owned(),
                again: false,
            };
            tell(out, seat, event);
        };
        if self.end.is_none() {
            let again = self.pace.mover(&self.table, &*self.game) == Some(seat);
            let why = "the game is not over".to_owned();
            return tell(out, seat, Event::Confused { why, again });
        }
        let present: Vec<bool> = self.table.seats.iter().map(|s| !s.gone).collect();
        let name = self.info().team_name(self.team_of(seat));
        let Some(window) = &mut self.window else {
            if self.rules.rematch {
                let why = format!("{} has automatic rematches", self.info().name);
                return refuse(out, &why);
            }
            return refuse(out, "there is no rematch now");
        };
        match window.answer(seat, answer, &present) {
            Step::Offered => {
                let team = self.team_of(seat);
                let news = format!("{name} offers a rematch");
                self.tell_others(seat, out, Event::OfferedRematch { team, news });
            }
            Step::Accepted => {
                let news = format!("{name} accepts the rematch");
                self.tell_others(seat, out, Event::News(news));
            }
            Step::Agreed => self.next_round(now, out),
            Step::Declined => {
                let news = format!("{name} declines the rematch");
                self.table
                    .tell_everyone(out, |_| Some(Event::News(news.clone())));
                self.close_window(out);
            }
            Step::Refused(why) => refuse(out, why),
        }
    }

    /// The window's countdown as it stands at `now`, while it is open (for a viewer arriving).
    pub(super) fn window_timer(&self, now: Instant) -> Option<Event> {
        let window = self.window.as_ref()?;
        let ms = window.until.saturating_duration_since(now).as_millis() as Millis;
        Some(rematch_timer(ms, "a rematch may be offered until then"))
    }

    /// Tells every seat but `seat`, and the viewers.
    fn tell_others(&self, seat: usize, out: &mut Vec<Delivery>, event: Event) {
        for other in (0..self.table.seats.len()).filter(|&s| s != seat && !self.table.seats[s].gone)
        {
            tell(out, other, event.clone());
        }
        out.push(Delivery {
            to: Who::Viewer,
            event,
        });
    }
}

fn rematch_timer(ms: Millis, text: &'static str) -> Event {
    Event::Timer {
        name: "rematch",
        ms,
        text: Cow::Borrowed(text),
    }
}
