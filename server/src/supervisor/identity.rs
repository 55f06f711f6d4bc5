//! Who a waiting connection is (TEXT-PROTOCOL.md §4.4): anonymous, a guest by a name
//! of its own, or a signed-in account with its ratings as read at sign-in. A pure state
//! machine: [`Identity::admits`] says whether a request may go from where the connection
//! stands, [`Identity::after`] where an answer leaves it. The supervisor's
//! `accounts.rs` feeds it; `sessions.rs::seat` makes the seat's player of it.

use reversi_store::{AccountId, Name, TokenId};

use crate::protocols::players::{Answer, Request};
use crate::terms::{SeatPlayer, ShownRating};

/// What a rated challenge's creator and joiner are told when they are no account.
pub const RATED_NEEDS_ACCOUNT: &str = "a rated game needs an account; sign in first (GAME SIGNIN)";

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Identity {
    #[default]
    Anonymous,
    Guest(Name),
    Account(Signed),
}

/// A signed-in account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signed {
    pub id: AccountId,
    pub name: Name,
    /// Its rating per game kind it has one in, as read at sign-in (and again after its
    /// games, `ratings.rs`).
    pub ratings: Vec<(String, ShownRating)>,
    /// The API token it signed in with, if it did: revoking it closes the connection.
    /// (Not carried across an upgrade in place.)
    pub token: Option<TokenId>,
}

impl Identity {
    /// Whether `request` may be made now; the error line's text if not.
    pub fn admits(&self, request: &Request) -> Result<(), String> {
        let signed_in = |as_what: &str| match self {
            Identity::Account(signed) => Err(format!(
                "signed in as {} already; GAME SIGNOUT first{as_what}",
                signed.name
            )),
            _ => Ok(()),
        };
        match request {
            Request::Name(_) => signed_in(" to play as a guest"),
            Request::Register { .. } | Request::SignIn(_) => signed_in(""),
            Request::SignOut if *self == Identity::Anonymous => {
                Err("not signed in, and no name to drop".to_owned())
            }
            Request::NewToken { .. } | Request::Tokens | Request::Revoke(_)
                if self.account().is_none() =>
            {
                Err("API tokens are an account's: sign in first (GAME SIGNIN)".to_owned())
            }
            Request::History { name: None, .. } if self.account().is_none() => {
                Err("whose history? GAME HISTORY name, or sign in for your own".to_owned())
            }
            _ => Ok(()),
        }
    }

    /// Where an answer to one of its requests leaves the connection.
    pub fn after(self, answer: &Answer, signed: Option<Signed>) -> Identity {
        match (answer, signed) {
            (Answer::Guest(name), _) => match Name::new(name) {
                Ok(name) => Identity::Guest(name),
                Err(_) => self,
            },
            (Answer::SignedIn { .. }, Some(signed)) => Identity::Account(signed),
            (Answer::SignedOut, _) => Identity::Anonymous,
            _ => self,
        }
    }

    pub fn account(&self) -> Option<&Signed> {
        match self {
            Identity::Account(signed) => Some(signed),
            _ => None,
        }
    }

    /// The seat's player in a game of `game`, with the account's rating in it.
    pub fn seat_player(&self, game: &str) -> SeatPlayer {
        match self {
            Identity::Anonymous => SeatPlayer::Anonymous,
            Identity::Guest(name) => SeatPlayer::Guest(name.clone()),
            Identity::Account(signed) => SeatPlayer::Account {
                id: signed.id,
                name: signed.name.clone(),
                rating: signed
                    .ratings
                    .iter()
                    .find(|(kind, _)| kind == game)
                    .map(|&(_, rating)| rating),
            },
        }
    }
}

/// An identity in words, as an upgrade in place carries it to the new image:
/// `guest NAME` or `account ID NAME [GAME=RATING…]`; none for an anonymous connection.
pub fn to_words(identity: &Identity) -> Option<String> {
    match identity {
        Identity::Anonymous => None,
        Identity::Guest(name) => Some(format!("guest {}", name.as_str())),
        Identity::Account(signed) => {
            let mut words = format!("account {} {}", signed.id.0, signed.name.as_str());
            for (game, rating) in &signed.ratings {
                words.push_str(&format!(" {game}={rating}"));
            }
            Some(words)
        }
    }
}

/// Reads what [`to_words`] wrote; `None` for anything else.
pub fn from_words(text: &str) -> Option<Identity> {
    let mut words = text.split(' ');
    match (words.next()?, words.next()?) {
        ("guest", name) if words.next().is_none() => Some(Identity::Guest(Name::new(name).ok()?)),
        ("account", id) => {
            let id = AccountId(id.parse().ok()?);
            let name = Name::new(words.next()?).ok()?;
            let ratings = words
                .map(|word| {
                    let (game, rating) = word.split_once('=')?;
                    Some((game.to_owned(), rating.parse().ok()?))
                })
                .collect::<Option<Vec<_>>>()?;
            Some(Identity::Account(Signed {
                id,
                name,
                ratings,
                token: None,
            }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::players::{Credentials, HISTORY_DEFAULT};
    use reversi_store::{Password, TokenId};

    fn name(text: &str) -> Name {
        Name::new(text).unwrap()
    }

    fn alice() -> Signed {
        let rating = ShownRating {
            points: 1532,
            provisional: false,
        };
        Signed {
            id: AccountId(7),
            name: name("Alice"),
            ratings: vec![("reversi".to_owned(), rating)],
            token: None,
        }
    }

    /// Every request of each kind, by a short label.
    fn requests() -> Vec<(&'static str, Request)> {
        let password = Password::new("correct horse").unwrap();
        vec![
            ("name", Request::Name(name("bob"))),
            (
                "register",
                Request::Register {
                    name: name("bob"),
                    password: password.clone(),
                },
            ),
            (
                "signin",
                Request::SignIn(Credentials::Password {
                    name: name("bob"),
                    password,
                }),
            ),
            ("signout", Request::SignOut),
            ("newtoken", Request::NewToken { label: "x".into() }),
            ("tokens", Request::Tokens),
            (
                "revoke",
                Request::Revoke(TokenId::parse("0123456789abcdef").unwrap()),
            ),
            (
                "history-own",
                Request::History {
                    name: None,
                    game: None,
                    count: HISTORY_DEFAULT,
                },
            ),
            (
                "history-of",
                Request::History {
                    name: Some(name("bob")),
                    game: None,
                    count: HISTORY_DEFAULT,
                },
            ),
        ]
    }

    /// The state x request table: which requests each identity admits.
    #[test]
    fn each_identity_admits_its_own_requests() {
        let admitted = |identity: &Identity| -> Vec<&'static str> {
            requests()
                .into_iter()
                .filter(|(_, r)| identity.admits(r).is_ok())
                .map(|(label, _)| label)
                .collect()
        };
        assert_eq!(
            admitted(&Identity::Anonymous),
            ["name", "register", "signin", "history-of"]
        );
        assert_eq!(
            admitted(&Identity::Guest(name("bob"))),
            ["name", "register", "signin", "signout", "history-of"]
        );
        assert_eq!(
            admitted(&Identity::Account(alice())),
            [
                "signout",
                "newtoken",
                "tokens",
                "revoke",
                "history-own",
                "history-of"
            ]
        );
        let refused = Identity::Account(alice())
            .admits(&Request::Name(name("bob")))
            .unwrap_err();
        assert_eq!(
            refused,
            "signed in as Alice already; GAME SIGNOUT first to play as a guest"
        );
    }

    /// The state x answer table: where each answer leaves each identity.
    #[test]
    fn answers_move_the_identity() {
        let signed_in = Answer::SignedIn {
            name: "Alice".into(),
            ratings: vec![],
        };
        for start in [
            Identity::Anonymous,
            Identity::Guest(name("bob")),
            Identity::Account(alice()),
        ] {
            assert_eq!(
                start.clone().after(&Answer::Guest("carol".into()), None),
                Identity::Guest(name("carol"))
            );
            assert_eq!(
                start.clone().after(&signed_in, Some(alice())),
                Identity::Account(alice())
            );
            assert_eq!(
                start.clone().after(&Answer::SignedOut, None),
                Identity::Anonymous
            );
            assert_eq!(start.clone().after(&Answer::History(vec![]), None), start);
        }
    }

    #[test]
    fn a_seat_shows_the_rating_of_its_game_only() {
        let account = Identity::Account(alice());
        let SeatPlayer::Account {
            rating,
            name: shown,
            ..
        } = account.seat_player("reversi")
        else {
            panic!()
        };
        assert_eq!(
            (shown.as_str(), rating.map(|r| r.to_string())),
            ("Alice", Some("1532".into()))
        );
        assert!(matches!(
            account.seat_player("tictactoe"),
            SeatPlayer::Account { rating: None, .. }
        ));
        assert_eq!(
            Identity::Guest(name("bob")).seat_player("reversi"),
            SeatPlayer::Guest(name("bob"))
        );
        assert_eq!(
            Identity::Anonymous.seat_player("reversi"),
            SeatPlayer::Anonymous
        );
    }

    #[test]
    fn identities_cross_an_upgrade_in_words() {
        let name = |n: &str| Name::new(n).unwrap();
        let account = Identity::Account(Signed {
            id: AccountId(7),
            name: name("Zoë"),
            ratings: vec![
                (
                    "reversi".into(),
                    ShownRating {
                        points: 1532,
                        provisional: false,
                    },
                ),
                (
                    "tictactoe".into(),
                    ShownRating {
                        points: 1500,
                        provisional: true,
                    },
                ),
            ],
            token: None,
        });
        for identity in [Identity::Guest(name("bob")), account] {
            let words = to_words(&identity).unwrap();
            assert_eq!(from_words(&words), Some(identity), "{words}");
        }
        assert_eq!(to_words(&Identity::Anonymous), None);
        for bad in [
            "",
            "guest",
            "guest a b",
            "account x Bob",
            "account 1 Bob reversi=high",
            "root 1",
        ] {
            assert_eq!(from_words(bad), None, "{bad:?}");
        }
    }
}
