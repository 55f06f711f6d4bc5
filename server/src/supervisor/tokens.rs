//! The resume tokens of the running sessions' seats (the play-together design §5.2): drawn
//! when a session starts, one per resumable seat, and forgotten when it is reaped. A
//! returning player's `GAME RESUME` is looked up here to find its game and seat.

use std::collections::HashMap;

use crate::terms::ResumeToken;

/// Token -> (game id, seat), and each game's tokens, so that a game's end forgets its
/// own without a walk of every running game's (thousands of games may end together).
#[derive(Default)]
pub struct Tokens {
    seats: HashMap<ResumeToken, (u64, u8)>,
    games: HashMap<u64, Vec<ResumeToken>>,
}

impl Tokens {
    /// `token` takes back seat `seat` of game `id`.
    pub fn insert(&mut self, token: ResumeToken, id: u64, seat: u8) {
        if let Some((old, _)) = self.seats.insert(token, (id, seat)) {
            // A token drawn twice (130 random bits: never in practice) names the newer seat.
            self.unlist(old, &token);
        }
        self.games.entry(id).or_default().push(token);
    }

    /// The game and seat `token` takes back, if a running session has it.
    pub fn lookup(&self, token: &ResumeToken) -> Option<(u64, u8)> {
        let (found, &seat) = self.seats.get_key_value(token)?;
        // The map found it by hash and equality; compared again in constant time, so that
        // how long a refusal takes says nothing of how near a guess came.
        found.same_as(token).then_some(seat)
    }

    /// Every token, with its game and seat (an upgrade hands them over).
    pub fn iter(&self) -> impl Iterator<Item = (&ResumeToken, u64, u8)> {
        self.seats
            .iter()
            .map(|(token, &(id, seat))| (token, id, seat))
    }

    /// Game `id` ended: its tokens are good for nothing now.
    pub fn forget_game(&mut self, id: u64) {
        for token in self.games.remove(&id).unwrap_or_default() {
            self.seats.remove(&token);
        }
    }

    /// Takes `token` off game `id`'s list.
    fn unlist(&mut self, id: u64, token: &ResumeToken) {
        if let Some(list) = self.games.get_mut(&id) {
            list.retain(|t| t != token);
            if list.is_empty() {
                self.games.remove(&id);
            }
        }
    }
}

/// The host whose session holds `token`'s seat: its first symbol.
pub fn host_of(token: &ResumeToken) -> u8 {
    token.as_bytes()[0]
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
        assert_eq!(host_of(&a), b'0');
        assert_eq!(host_of(&ResumeToken::draw(b'Z').unwrap()), b'Z');
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
        tokens.forget_game(2);
        assert_eq!(tokens.iter().count(), 0);
        assert!(tokens.games.is_empty(), "a forgotten game's list is left");
    }

    #[test]
    fn a_token_given_again_names_only_its_newer_seat() {
        let mut tokens = Tokens::default();
        let a = ResumeToken::draw(b'0').unwrap();
        tokens.insert(a, 1, 0);
        tokens.insert(a, 2, 1);
        assert_eq!(tokens.lookup(&a), Some((2, 1)));
        tokens.forget_game(1);
        assert_eq!(
            tokens.lookup(&a),
            Some((2, 1)),
            "game 1's end took game 2's seat"
        );
        tokens.forget_game(2);
        assert_eq!(tokens.lookup(&a), None);
    }
}
