//! The tournament lines of the text protocol (spec/TOURNAMENTS.md §7), read from the
//! line itself: the codec of `reversi-text` does not hold them (older clients ignore
//! them), and `GAME BOARD id round board game state` would read as a game's board there.

/// `GAME TOURNAMENT id state round rounds players game format time name…`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    pub id: u64,
    /// `created`, `open`, `closed`, `running`, `paused` or `finished`.
    pub state: String,
    pub round: u32,
    pub rounds: u32,
    pub players: u32,
    pub game: String,
    /// `rr`, `rr2` or `swiss:R`.
    pub format: String,
    pub time: String,
    pub name: String,
}

impl Listed {
    pub fn is_finished(&self) -> bool {
        self.state == "finished"
    }
}

/// `GAME BOARD id round board game running|ended [record]`: a game of a tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardGame {
    pub round: u32,
    pub board: u32,
    /// The running game's id (`GAME WATCH game`).
    pub game: u64,
    pub running: bool,
    /// The archive's record of an ended game (`reversi replay record`).
    pub record: Option<String>,
}

/// One tournament line from the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TournamentLine {
    Listed(Listed),
    /// `GAME TOURNAMENTS n`: the end of a listing.
    Listing(u32),
    /// `GAME PAIRED id round board first second`: this player's game is called.
    Paired {
        id: u64,
        round: u32,
        board: u32,
        first: String,
        second: String,
    },
    /// `GAME BYE id round points`: this player sits the round out.
    Bye {
        id: u64,
        round: u32,
        points: String,
    },
    /// `GAME CROSSTABLE id line`: a line of the crosstable's text (§4), as the server aligned it.
    Crosstable {
        id: u64,
        line: String,
    },
    Board {
        id: u64,
        game: BoardGame,
    },
    /// `GAME STANDINGS id n`: the end of a standings answer of `n` lines.
    Standings {
        id: u64,
        lines: u32,
    },
    /// `GAME RELEASED id finished|withdrawn`: the wait for this tournament's games ended
    /// without a game (the tournament is over, or the player was withdrawn).
    Released {
        id: u64,
        withdrawn: bool,
    },
}

/// The tournament line `line` is, if it is one. `GAME BOARD` is read as a tournament's
/// only with its six words (a game's board has three).
pub fn parse(line: &str) -> Option<TournamentLine> {
    let rest = line.strip_prefix("GAME ")?;
    let (command, args) = rest.split_once(' ').unwrap_or((rest, ""));
    let words: Vec<&str> = args.split_whitespace().collect();
    let n = |i: usize| words.get(i)?.parse::<u64>().ok();
    let small = |i: usize| words.get(i)?.parse::<u32>().ok();
    Some(match (command, words.len()) {
        ("TOURNAMENT", 9..) => TournamentLine::Listed(Listed {
            id: n(0)?,
            state: words[1].to_owned(),
            round: small(2)?,
            rounds: small(3)?,
            players: small(4)?,
            game: words[5].to_owned(),
            format: words[6].to_owned(),
            time: words[7].to_owned(),
            name: words[8..].join(" "),
        }),
        ("TOURNAMENTS", 1) => TournamentLine::Listing(small(0)?),
        ("PAIRED", 5) => TournamentLine::Paired {
            id: n(0)?,
            round: small(1)?,
            board: small(2)?,
            first: words[3].to_owned(),
            second: words[4].to_owned(),
        },
        ("BYE", 3) => TournamentLine::Bye {
            id: n(0)?,
            round: small(1)?,
            points: words[2].to_owned(),
        },
        ("CROSSTABLE", _) => {
            let (id, text) = args.split_once(' ').unwrap_or((args, ""));
            TournamentLine::Crosstable {
                id: id.parse().ok()?,
                line: text.to_owned(),
            }
        }
        ("BOARD", 5 | 6) => TournamentLine::Board {
            id: n(0)?,
            game: BoardGame {
                round: small(1)?,
                board: small(2)?,
                game: n(3)?,
                running: match words[4] {
                    "running" => true,
                    "ended" => false,
                    _ => return None,
                },
                record: words.get(5).map(|r| (*r).to_owned()),
            },
        },
        ("STANDINGS", 2) => TournamentLine::Standings {
            id: n(0)?,
            lines: small(1)?,
        },
        ("RELEASED", 2) => TournamentLine::Released {
            id: n(0)?,
            withdrawn: match words[1] {
                "withdrawn" => true,
                "finished" => false,
                _ => return None,
            },
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_released_wait_says_why_and_nothing_else_is_read_as_one() {
        assert_eq!(
            parse("GAME RELEASED 4 withdrawn"),
            Some(TournamentLine::Released {
                id: 4,
                withdrawn: true
            })
        );
        assert_eq!(
            parse("GAME RELEASED 4 finished"),
            Some(TournamentLine::Released {
                id: 4,
                withdrawn: false
            })
        );
        assert_eq!(parse("GAME RELEASED 4 bored"), None);
        assert_eq!(parse("GAME RELEASED x finished"), None);
    }

    #[test]
    fn every_tournament_line_is_read_and_others_are_not() {
        let Some(TournamentLine::Listed(t)) =
            parse("GAME TOURNAMENT 1 running 2 6 4 tictactoe rr2 move:30 Club evening")
        else {
            panic!()
        };
        assert_eq!((t.id, t.round, t.rounds, t.players), (1, 2, 6, 4));
        assert_eq!(t.name, "Club evening");
        assert!(!t.is_finished());
        assert_eq!(
            parse("GAME TOURNAMENTS 3"),
            Some(TournamentLine::Listing(3))
        );
        assert_eq!(
            parse("GAME PAIRED 1 2 3 Ann Bob"),
            Some(TournamentLine::Paired {
                id: 1,
                round: 2,
                board: 3,
                first: "Ann".into(),
                second: "Bob".into()
            })
        );
        assert_eq!(
            parse("GAME BYE 4 5 1"),
            Some(TournamentLine::Bye {
                id: 4,
                round: 5,
                points: "1".into()
            })
        );
        assert_eq!(
            parse("GAME CROSSTABLE 1   #  Name  Pts"),
            Some(TournamentLine::Crosstable {
                id: 1,
                line: "  #  Name  Pts".into()
            })
        );
        let Some(TournamentLine::Board { game, .. }) = parse("GAME BOARD 1 3 2 17 ended h:9")
        else {
            panic!()
        };
        assert_eq!((game.game, game.running), (17, false));
        assert_eq!(game.record.as_deref(), Some("h:9"));
        assert_eq!(
            parse("GAME STANDINGS 1 17"),
            Some(TournamentLine::Standings { id: 1, lines: 17 })
        );
        // A game's own board, news, and broken lines are not tournament lines.
        assert_eq!(parse("GAME BOARD ReversiBoard 8 8"), None);
        assert_eq!(parse("GAME BOARD 1 3 2 17 lost"), None);
        assert_eq!(parse("GAME NEWS waiting"), None);
        assert_eq!(parse("GAME PAIRED 1 2"), None);
    }
}
