//! The resume tokens of the running sessions' seats (the play-together design §5.2): drawn
//! when a session starts, one per resumable seat, and forgotten when it is reaped. A
//! returning player's `GAME RESUME` is looked up here to find its game and seat.

use std::collections::HashMap;

use crate::terms::ResumeToken;

/// Token -> (game id, seat).
#[derive(Default)]
pub struct Tokens {
    seats: HashMap<ResumeToken, (u64, u8)>,
}

impl Tokens {
    pub fn insert(&mut self, token: ResumeToken, id: u64, seat: u8) {
        self.seats.insert(token, (id, seat));
    }

    /// The game and seat of `token`, if a running session holds it. A lookup by the whole
    /// token's hash, not a comparison a guesser could time symbol by symbol: a wrong token
    /// is refused as fast whatever it shares with a right one, so `same_as` is not needed.
    pub fn lookup(&self, token: &ResumeToken) -> Option<(u64, u8)> {
        self.seats.get(token).copied()
    }

    /// Game `id` ended: its tokens take no one back any more.
    pub fn forget_game(&mut self, id: u64) {
        self.seats.retain(|_, (game, _)| *game != id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_names_its_game_and_seat_until_the_game_is_forgotten() {
        let mut tokens = Tokens::default();
        let (a, b, c) = (
            ResumeToken::draw(b'0').unwrap(),
            ResumeToken::draw(b'0').unwrap(),
            ResumeToken::draw(b'0').unwrap(),
        );
        tokens.insert(a, 1, 0);
        tokens.insert(b, 1, 1);
        tokens.insert(c, 2, 0);
        assert_eq!(tokens.lookup(&b), Some((1, 1)));
        let typed = ResumeToken::parse(&a.to_string().to_lowercase()).unwrap();
        assert_eq!(tokens.lookup(&typed), Some((1, 0)), "read in any case");
        tokens.forget_game(1);
        assert_eq!(tokens.lookup(&a), None);
        assert_eq!(tokens.lookup(&b), None);
        assert_eq!(tokens.lookup(&c), Some((2, 0)));
    }
}
