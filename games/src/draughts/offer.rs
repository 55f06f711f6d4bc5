//! Draws by agreement, as seed 001 has them: a player offers during their
//! turn; the opponent accepts or declines on their next turn; an offer the
//! opponent answers by moving lapses.

use crate::game::Illegal;

use super::board::Color;

/// The offer standing, if any, and who made it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Offer {
    by: Option<Color>,
}

impl Offer {
    /// Who made the standing offer.
    pub fn standing(self) -> Option<Color> {
        self.by
    }

    /// `by`, whose turn it is, offers a draw.
    pub fn make(&mut self, by: Color) -> Result<(), Illegal> {
        match self.by {
            Some(c) if c == by => Err(Illegal::new("you have already offered a draw")),
            Some(_) => Err(Illegal::new(
                "your opponent has offered a draw: accept or decline it",
            )),
            None => {
                self.by = Some(by);
                Ok(())
            }
        }
    }

    /// `by`, whose turn it is, answers the opponent's offer (accepting or
    /// declining: either way it is gone).
    pub fn answer(&mut self, by: Color) -> Result<(), Illegal> {
        match self.by {
            Some(c) if c == by.opponent() => {
                self.by = None;
                Ok(())
            }
            Some(_) => Err(Illegal::new(
                "the offer is yours: your opponent answers it on their turn",
            )),
            None => Err(Illegal::new("no draw has been offered")),
        }
    }

    /// `by` moved: an offer of their opponent's lapses. Says whether one did.
    pub fn moved(&mut self, by: Color) -> bool {
        let lapsed = self.by == Some(by.opponent());
        if lapsed {
            self.by = None;
        }
        lapsed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offer_is_answered_once_by_the_opponent_or_lapses() {
        let (b, w) = (Color::Black, Color::White);
        let mut offer = Offer::default();
        assert!(offer.answer(w).is_err());
        offer.make(b).unwrap();
        assert!(offer.make(b).is_err());
        assert!(offer.make(w).is_err());
        assert!(offer.answer(b).is_err());
        assert!(!offer.moved(b), "the offerer's own move keeps it");
        assert_eq!(offer.standing(), Some(b));
        offer.answer(w).unwrap();
        assert_eq!(offer.standing(), None);
        offer.make(w).unwrap();
        assert!(offer.moved(b), "moving instead of answering lets it lapse");
        assert_eq!(offer.standing(), None);
    }
}
