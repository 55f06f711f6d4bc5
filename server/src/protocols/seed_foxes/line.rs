//! Seed 002's messages, one a line: `<sender><addressee><type>[ <data>]`
//! (spec/games/foxes.md, "The seed's line protocol"). The letters: `B` the
//! board (the server), `D` the dolphin player, `E` the dolphin viewer, `F`
//! the fox player, `G` the fox viewer, `P` a new player, `Q` a new viewer.

use std::fmt;

use reversi_games::foxes::Species;
use reversi_games::Point;

/// What a client may send.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Request {
    /// `PBJ` (the seed's own client sends `PCJ`): a new player asks to play.
    JoinPlayer,
    /// `QBJ`: a new viewer asks to watch.
    JoinViewer,
    /// `FBM x1 y1 x2 y2` / `DBM …`: the sender's animal on `from` steps to `to`.
    Move {
        sender: Species,
        from: Point,
        to: Point,
    },
    /// `FBR` / `DBR`: the sender's viewer wants the board again.
    Refresh { sender: Species },
}

impl Request {
    /// Reads one line (without its end). The addressee may be `B` (the board) or
    /// `C` (the controller: the seed's client chapter sends `PCJ`).
    pub fn parse(line: &str) -> Result<Request, String> {
        let (header, data) = match line.split_once(' ') {
            Some((header, data)) => (header, data.split_whitespace().collect()),
            None => (line, Vec::new()),
        };
        let &[sender, addressee, kind] = header.as_bytes() else {
            return Err(format!(
                "{header:?} is not a header of three letters (sender, addressee, type)"
            ));
        };
        if !matches!(addressee, b'B' | b'C') {
            return Err(format!("{header} is not addressed to the board (B)"));
        }
        let none = |request: Request| {
            if data.is_empty() {
                Ok(request)
            } else {
                Err(format!("{header} takes no data"))
            }
        };
        match (kind, sender) {
            (b'J', b'P') => none(Request::JoinPlayer),
            (b'J', b'Q') => none(Request::JoinViewer),
            (b'J', _) => Err(format!(
                "{header}: only a new player (P) or a new viewer (Q) joins"
            )),
            (b'M', _) => {
                let sender = player(sender, header)?;
                let [from, to] = tiles(&data, header)?;
                Ok(Request::Move { sender, from, to })
            }
            (b'R', _) => none(Request::Refresh {
                sender: player(sender, header)?,
            }),
            (b'B' | b'F' | b'N' | b'S' | b'T', _) => Err(format!(
                "{header}: the board sends {} messages, it does not take them",
                char::from(kind)
            )),
            _ => Err(format!(
                "{header}: no message type {:?} (J join, M move, R refresh)",
                char::from(kind)
            )),
        }
    }
}

/// The species whose player letter `letter` is.
fn player(letter: u8, header: &str) -> Result<Species, String> {
    Species::BOTH
        .into_iter()
        .find(|&s| Party::Player(s).letter() == char::from(letter))
        .ok_or_else(|| format!("{header}: only the fox (F) or the dolphin (D) player moves"))
}

/// The two tiles of a move: four numbers, x first.
fn tiles(data: &[&str], header: &str) -> Result<[Point; 2], String> {
    let numbers = data
        .iter()
        .map(|word| {
            word.parse::<u8>()
                .map_err(|_| format!("{word:?} is not a tile number"))
        })
        .collect::<Result<Vec<u8>, String>>()?;
    match numbers.as_slice() {
        &[x1, y1, x2, y2] => Ok([Point::new(x1, y1), Point::new(x2, y2)]),
        _ => Err(format!(
            "a move is {header} x1 y1 x2 y2 (four numbers, not {})",
            numbers.len()
        )),
    }
}

/// Who a message is for, once the game has started.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Party {
    /// `F` or `D`.
    Player(Species),
    /// `G` or `E`.
    Viewer(Species),
}

impl Party {
    pub fn letter(self) -> char {
        match self {
            Party::Player(species) => team_letter(species),
            Party::Viewer(Species::Fox) => 'G',
            Party::Viewer(Species::Dolphin) => 'E',
        }
    }

    /// The viewer of the same team: where boards and fail messages go.
    pub fn viewer(self) -> Party {
        match self {
            Party::Player(species) | Party::Viewer(species) => Party::Viewer(species),
        }
    }

    /// The letter it had before it was given a team: `P` a new player, `Q` a new viewer.
    fn newcomer(self) -> char {
        match self {
            Party::Player(_) => 'P',
            Party::Viewer(_) => 'Q',
        }
    }
}

/// A team as the data of `T` and `S`: `F` the foxes, `D` the dolphins.
fn team_letter(species: Species) -> char {
    match species {
        Species::Fox => 'F',
        Species::Dolphin => 'D',
    }
}

/// What the server sends.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Notice<'a> {
    /// `BPT F` / `BQT D`: the newcomer's team.
    Team(Party),
    /// `BPT R`, `BQT R`: a new player (`viewer` false) or viewer turned away.
    Rejected { viewer: bool },
    /// `BGB <board>`: the whole board, one letter a tile.
    Board { to: Party, letters: &'a str },
    /// `BGF`: the viewer shows "fail!".
    Fail(Party),
    /// `BFN`: the player may move again.
    Next(Party),
    /// `BFS F`: the game is over; the winner's letter, `N` for none (a draw, an abort).
    End { to: Party, winner: Option<Species> },
}

impl fmt::Display for Notice<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Notice::Team(party) => {
                let team = match party {
                    Party::Player(s) | Party::Viewer(s) => s,
                };
                write!(f, "B{}T {}", party.newcomer(), team_letter(team))
            }
            Notice::Rejected { viewer } => write!(f, "B{}T R", if viewer { 'Q' } else { 'P' }),
            Notice::Board { to, letters } => write!(f, "B{}B {letters}", to.letter()),
            Notice::Fail(to) => write!(f, "B{}F", to.letter()),
            Notice::Next(to) => write!(f, "B{}N", to.letter()),
            Notice::End { to, winner } => {
                let winner = winner.map_or('N', team_letter);
                write!(f, "B{}S {winner}", to.letter())
            }
        }
    }
}

impl Notice<'_> {
    /// The message as the bytes of one line.
    pub fn line(&self) -> Vec<u8> {
        format!("{self}\n").into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FOX: Party = Party::Player(Species::Fox);
    const DOLPHIN: Party = Party::Player(Species::Dolphin);

    #[test]
    fn the_seeds_own_requests_read() {
        assert_eq!(Request::parse("PBJ"), Ok(Request::JoinPlayer));
        assert_eq!(Request::parse("PCJ"), Ok(Request::JoinPlayer));
        assert_eq!(Request::parse("QBJ"), Ok(Request::JoinViewer));
        assert_eq!(
            Request::parse("DBM 4 1 4 2"),
            Ok(Request::Move {
                sender: Species::Dolphin,
                from: Point::new(4, 1),
                to: Point::new(4, 2)
            })
        );
        assert_eq!(
            Request::parse("FBR"),
            Ok(Request::Refresh {
                sender: Species::Fox
            })
        );
    }

    #[test]
    fn bad_requests_say_what_is_wrong() {
        let why = |line: &str| Request::parse(line).unwrap_err();
        assert!(why("PB").contains("three letters"));
        assert!(why("PBJX").contains("three letters"));
        assert!(why("PGJ").contains("not addressed to the board"));
        assert!(why("PBJ F").contains("takes no data"));
        assert!(why("FBJ").contains("only a new player"));
        assert!(why("EBM 1 1 1 2").contains("only the fox (F) or the dolphin (D)"));
        assert!(why("FBM 1 1 1").contains("four numbers, not 3"));
        assert!(why("FBM 1 1 1 x").contains("\"x\" is not a tile number"));
        assert!(why("FBM 1 1 1 256").contains("not a tile number"));
        assert!(why("FBN").contains("the board sends N messages"));
        assert!(why("FBX").contains("no message type 'X'"));
        assert!(why("").contains("three letters"));
    }

    #[test]
    fn notices_follow_the_seeds_examples() {
        let text = |n: Notice<'_>| n.to_string();
        assert_eq!(text(Notice::Team(DOLPHIN)), "BPT D");
        assert_eq!(text(Notice::Team(Party::Viewer(Species::Fox))), "BQT F");
        assert_eq!(text(Notice::Rejected { viewer: false }), "BPT R");
        assert_eq!(text(Notice::Rejected { viewer: true }), "BQT R");
        assert_eq!(
            text(Notice::Board {
                to: DOLPHIN.viewer(),
                letters: "WWL"
            }),
            "BEB WWL"
        );
        assert_eq!(text(Notice::Fail(DOLPHIN.viewer())), "BEF");
        assert_eq!(text(Notice::Next(DOLPHIN)), "BDN");
        assert_eq!(text(Notice::Next(FOX)), "BFN");
        // The seed's "FBS F" comes from the board: BFS F.
        assert_eq!(
            text(Notice::End {
                to: FOX,
                winner: Some(Species::Fox)
            }),
            "BFS F"
        );
        assert_eq!(
            text(Notice::End {
                to: FOX.viewer(),
                winner: None
            }),
            "BGS N"
        );
        assert_eq!(Notice::Next(FOX).line(), b"BFN\n");
    }
}
