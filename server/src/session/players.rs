//! Who plays, as the session writes it outside the game's own lines: in records
//! (the name where there is one), and in the log and `GAME LIST` (the name with the
//! address). `GAME PLAYER` lines are the text protocol's (`protocols::text`).

use crate::terms::SeatPlayer;

/// A player as records name it: an account's name, a guest's name with `~` (no
/// record says a player's kind otherwise), else the address it played from.
pub fn recorded(player: &SeatPlayer, peer: &str) -> String {
    match player {
        SeatPlayer::Anonymous => peer.to_owned(),
        SeatPlayer::Guest(name) => format!("{name}~"),
        SeatPlayer::Account { name, .. } => name.to_string(),
    }
}

/// A player as the log and `GAME LIST` name it: `Alice@address`, `bob~@address`, or the
/// address alone for an anonymous player (TEXT-PROTOCOL.md §4).
pub fn listed(player: &SeatPlayer, peer: &str) -> String {
    match player {
        SeatPlayer::Anonymous => peer.to_owned(),
        named => format!("{}@{peer}", recorded(named, peer)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_store::{AccountId, Name};

    #[test]
    fn names_stand_for_addresses_where_players_have_them() {
        let peer = "192.0.2.1:5000";
        let alice = SeatPlayer::Account {
            id: AccountId(1),
            name: Name::new("Alice").unwrap(),
            rating: None,
        };
        let bob = SeatPlayer::Guest(Name::new("bob").unwrap());
        let anonymous = SeatPlayer::Anonymous;
        assert_eq!(recorded(&alice, peer), "Alice");
        assert_eq!(recorded(&bob, peer), "bob~");
        assert_eq!(recorded(&anonymous, peer), peer);
        assert_eq!(listed(&alice, peer), "Alice@192.0.2.1:5000");
        assert_eq!(listed(&bob, peer), "bob~@192.0.2.1:5000");
        assert_eq!(listed(&anonymous, peer), peer);
        assert_eq!(listed(&alice, "[::1]:7"), "Alice@[::1]:7");
    }
}
