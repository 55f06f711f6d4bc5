//! The supervisor's resume tokens: token → (game id, seat) of its running sessions
//! (TEXT-PROTOCOL.md §5), forgotten when a session is reaped.

use std::collections::HashMap;

use crate::terms::ResumeToken;

#[derive(Default)]
pub struct Tokens {
    seats: HashMap<ResumeToken, (u64, u8)>,
}

impl Tokens {
    /// `token` takes back seat `seat` of game `id`.
    // Filled where sessions start and draw their seats' tokens (the reconnect work).
    #[allow(dead_code)]
    pub fn insert(&mut self, token: ResumeToken, id: u64, seat: u8) {
        self.seats.insert(token, (id, seat));
    }

    /// The game and seat `token` takes back, if a running session has it.
    pub fn lookup(&self, token: &ResumeToken) -> Option<(u64, u8)> {
        let (found, &seat) = self.seats.get_key_value(token)?;
        // The map found it by hash and equality; compared again in constant time, so that
        // how long a refusal takes says nothing of how near a guess came.
        found.same_as(token).then_some(seat)
    }

    /// Game `id` ended: its tokens are good for nothing now.
    pub fn forget_game(&mut self, id: u64) {
        self.seats.retain(|_, &mut (game, _)| game != id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_finds_its_seat_until_its_game_is_forgotten() {
        let mut tokens = Tokens::default();
        let (a, b) = (
            ResumeToken::draw(b'0').unwrap(),
            ResumeToken::draw(b'0').unwrap(),
        );
        tokens.insert(a, 7, 0);
        tokens.insert(b, 7, 1);
        assert_eq!(tokens.lookup(&a), Some((7, 0)));
        assert_eq!(tokens.lookup(&b), Some((7, 1)));
        assert_eq!(tokens.lookup(&ResumeToken::draw(b'0').unwrap()), None);
        tokens.forget_game(7);
        assert_eq!(tokens.lookup(&a), None);
    }
}
