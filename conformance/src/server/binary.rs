//! PROTOCOL.md: the binary Reversi protocol. The kit opens both binary
//! clients itself and pairs them with each other (§8.2), then checks the
//! start (§8.3), moves and passes (§8.4, against its own copy of the rules),
//! the end (§8.5), leaving (§8.6) and violations (§8.7).

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use reversi_games::{Action, Point, Team};
use reversi_pdu::{decode, Colour, Direction, Pdu, Place, Square, Status, Winner};

use crate::conn::{Conn, PATIENCE};
use crate::report::{Finding, Judged};
use crate::rng::Rng;
use crate::server::table::{module, read_header};
use crate::server::{served, Check, Target};

pub const CHECKS: &[Check] = &[
    Check {
        section: "binary §8.2",
        what: "a first PDU other than connect gets error and the close",
        run: first_pdu_not_connect,
    },
    Check {
        section: "binary §8.3",
        what: "two clients are paired: connect_ok, the opening position, turn to black only",
        run: paired,
    },
    Check {
        section: "binary §8.4",
        what: "an illegal, off-board or out-of-turn place gets place_error and changes nothing",
        run: rejected_places,
    },
    Check {
        section: "binary §8.4",
        what: "random games: every update_board, turn, pass and winner agrees with the rules",
        run: random_games,
    },
    Check {
        section: "binary §8.6",
        what: "quit: the quitter is closed, the opponent wins by forfeit",
        run: quit,
    },
    Check {
        section: "binary §8.7",
        what: "a second connect is a violation: error, and the opponent wins",
        run: second_connect,
    },
    Check {
        section: "binary §8.8",
        what: "the first-move clock: error to both, no winner",
        run: first_move_clock,
    },
    Check {
        section: "binary §8.8",
        what: "the move clock: winner(opponent) to both",
        run: move_clock,
    },
    Check {
        section: "text §4",
        what: "a binary client and a text client asking for reversi play each other",
        run: binary_meets_text,
    },
];

/// A server-to-client PDU, owned, or what came instead.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Got {
    Error,
    ConnectOk(Colour),
    Turn,
    PlaceError,
    Update(Colour, Vec<Square>),
    Winner(Winner),
    Closed,
    Silent,
    Malformed(String),
}

impl Got {
    fn of(pdu: &Pdu<'_>) -> Got {
        match pdu {
            Pdu::Error => Got::Error,
            Pdu::ConnectOk { colour } => Got::ConnectOk(*colour),
            Pdu::Turn => Got::Turn,
            Pdu::PlaceError => Got::PlaceError,
            Pdu::UpdateBoard(u) => Got::Update(u.colour, u.squares.iter().collect()),
            Pdu::Winner(w) => Got::Winner(*w),
            other => Got::Malformed(format!("{other} (a client's PDU)")),
        }
    }

    fn show(&self) -> String {
        match self {
            Got::Error => "error".into(),
            Got::ConnectOk(c) => format!("connect_ok {c}"),
            Got::Turn => "turn".into(),
            Got::PlaceError => "place_error".into(),
            Got::Update(c, squares) => {
                let squares: Vec<String> = squares.iter().map(|s| s.to_string()).collect();
                format!("update_board {c} {}", squares.join(" "))
            }
            Got::Winner(w) => match w {
                Winner::Draw => "winner draw".into(),
                Winner::Black => "winner black".into(),
                Winner::White => "winner white".into(),
            },
            Got::Closed => "the connection closed".into(),
            Got::Silent => "no PDU in time".into(),
            Got::Malformed(why) => format!("a malformed PDU: {why}"),
        }
    }
}

/// A binary client.
struct Binary {
    who: String,
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Binary {
    fn open(target: &Target, who: &str) -> Result<Binary, Finding> {
        let stream = TcpStream::connect_timeout(&target.addr, PATIENCE)
            .map_err(|e| Finding::differ(who, "a connection", e.to_string()))?;
        let _ = stream.set_nodelay(true);
        Ok(Binary {
            who: who.to_owned(),
            stream,
            buf: Vec::new(),
        })
    }

    fn send(&mut self, pdu: Pdu<'_>) -> Judged {
        let mut bytes = [0u8; reversi_pdu::MAX_PDU_LEN];
        let n = pdu.encode(&mut bytes).expect("the kit encodes valid PDUs");
        self.stream
            .write_all(&bytes[..n])
            .map_err(|e| Finding::differ(&self.who, "the connection open", e.to_string()))
    }

    fn recv(&mut self) -> Got {
        let deadline = Instant::now() + PATIENCE;
        loop {
            match decode(&self.buf, Direction::ServerToClient) {
                Ok(Status::Complete((pdu, used))) => {
                    let got = Got::of(&pdu);
                    self.buf.drain(..used);
                    return got;
                }
                Ok(Status::Partial) => {}
                Err(e) => return Got::Malformed(e.to_string()),
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Got::Silent;
            }
            let _ = self.stream.set_read_timeout(Some(left));
            let mut chunk = [0u8; 512];
            match self.stream.read(&mut chunk) {
                Ok(0) => return Got::Closed,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) => {}
                Err(_) => return Got::Closed,
            }
        }
    }

    fn expect(&mut self, expected: &Got) -> Judged {
        let got = self.recv();
        if &got == expected {
            Ok(())
        } else {
            Err(Finding::differ(&self.who, expected.show(), got.show()))
        }
    }
}

/// The binary square of a text-protocol Reversi point (`d3` is (4, 6) there, (3, 2) here).
fn square(p: Point) -> Square {
    Square::new(p.x - 1, 8 - p.y).expect("a Reversi point is on the board")
}

fn colour(team: Team) -> Colour {
    if team == Team::FIRST {
        Colour::Black
    } else {
        Colour::White
    }
}

fn opening() -> [Got; 2] {
    let sq = |x, y| Square::new(x, y).expect("on the board");
    [
        Got::Update(Colour::White, vec![sq(3, 3), sq(4, 4)]),
        Got::Update(Colour::Black, vec![sq(3, 4), sq(4, 3)]),
    ]
}

/// Two binary clients paired, as [black, white], their starts judged (§8.3).
fn pair(target: &Target) -> Result<[Binary; 2], Finding> {
    served(target, "reversi")?;
    let mut a = Binary::open(target, "first binary client")?;
    a.send(Pdu::Connect)?;
    std::thread::sleep(Duration::from_millis(100));
    let mut b = Binary::open(target, "second binary client")?;
    b.send(Pdu::Connect)?;
    let mut colours = [Colour::Black; 2];
    for (client, c) in [&mut a, &mut b].into_iter().zip(&mut colours) {
        match client.recv() {
            Got::ConnectOk(colour) => *c = colour,
            got => return Err(Finding::differ(&client.who, "connect_ok", got.show())),
        }
        client.who = format!("binary {}", c);
        for update in opening() {
            client.expect(&update)?;
        }
    }
    if colours[0] == colours[1] {
        return Err(Finding::differ(
            &b.who,
            "the other colour",
            "the same colour as the first",
        ));
    }
    let [mut black, white] = if colours[0] == Colour::Black {
        [a, b]
    } else {
        [b, a]
    };
    black.expect(&Got::Turn)?;
    Ok([black, white])
}

fn first_pdu_not_connect(target: &Target) -> Judged {
    let mut client = Binary::open(target, "binary client")?;
    client.send(Pdu::Quit)?;
    client.expect(&Got::Error)?;
    client.expect(&Got::Closed)
}

fn paired(target: &Target) -> Judged {
    let [_black, mut white] = pair(target)?;
    let got = {
        let _ = white
            .stream
            .set_read_timeout(Some(Duration::from_millis(300)));
        let mut byte = [0u8; 1];
        white.stream.read(&mut byte)
    };
    match got {
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => Ok(()),
        _ => Err(Finding::differ(
            &white.who,
            "nothing (turn goes to black only)",
            "a PDU or the close",
        )),
    }
}

fn place(x: i16, y: i16) -> Pdu<'static> {
    Pdu::Place(Place { x, y })
}

fn rejected_places(target: &Target) -> Judged {
    let [mut black, mut white] = pair(target)?;
    black.send(place(0, 0))?;
    black.expect(&Got::PlaceError)?;
    black.send(place(8, 3))?;
    black.expect(&Got::PlaceError)?;
    white.send(place(2, 4))?;
    white.expect(&Got::PlaceError)?;
    // d3 = (3, 2) is legal for black and flips d4 = (3, 3).
    black.send(place(3, 2))?;
    let sq = |x, y| Square::new(x, y).expect("on the board");
    let update = Got::Update(Colour::Black, vec![sq(3, 2), sq(3, 3)]);
    black.expect(&update)?;
    white.expect(&update)?;
    white.expect(&Got::Turn)
}

fn random_games(target: &Target) -> Judged {
    let mut rng = Rng::new(target.seed);
    for _ in 0..target.random_games {
        random_game(target, &mut rng)?;
    }
    Ok(())
}

fn random_game(target: &Target, rng: &mut Rng) -> Judged {
    let mut clients = pair(target)?;
    let mut game = crate::rules::opening("reversi");
    while let Some(team) = game.turn() {
        let moves = game.legal_actions(team);
        let action = moves[rng.below(moves.len())].clone();
        let update = game
            .play(team, &action, 0)
            .map_err(|why| Finding::differ("the kit", "a legal move", why.0))?;
        let Action::Move(points) = &action else {
            unreachable!("Reversi's legal actions are moves")
        };
        let to = square(points[0]);
        clients[usize::from(team.0)].send(place(to.x() as i16, to.y() as i16))?;
        let squares = update.cells.iter().map(|c| square(c.at)).collect();
        let expected = Got::Update(colour(team), squares);
        for client in &mut clients {
            client.expect(&expected)?;
        }
        if let Some(next) = game.turn() {
            clients[usize::from(next.0)].expect(&Got::Turn)?;
        }
    }
    let winner = match game.outcome().and_then(|o| o.winner()) {
        None => Winner::Draw,
        Some(Team::FIRST) => Winner::Black,
        Some(_) => Winner::White,
    };
    for client in &mut clients {
        client.expect(&Got::Winner(winner))?;
        client.expect(&Got::Closed)?;
    }
    Ok(())
}

fn quit(target: &Target) -> Judged {
    let [mut black, mut white] = pair(target)?;
    black.send(Pdu::Quit)?;
    black.expect(&Got::Closed)?;
    white.expect(&Got::Winner(Winner::White))?;
    white.expect(&Got::Closed)
}

fn second_connect(target: &Target) -> Judged {
    let [mut black, mut white] = pair(target)?;
    black.send(Pdu::Connect)?;
    black.expect(&Got::Error)?;
    black.expect(&Got::Closed)?;
    white.expect(&Got::Winner(Winner::White))?;
    white.expect(&Got::Closed)
}

fn binary_meets_text(target: &Target) -> Judged {
    served(target, "reversi")?;
    let mut binary = Binary::open(target, "binary client")?;
    binary.send(Pdu::Connect)?;
    std::thread::sleep(Duration::from_millis(100));
    let mut text = Conn::join(target.addr, "text client", "reversi")?;
    let colour = match binary.recv() {
        Got::ConnectOk(colour) => colour,
        got => return Err(Finding::differ(&binary.who, "connect_ok", got.show())),
    };
    let team = read_header(&mut text, module("reversi").info)?;
    let expected = if colour == Colour::Black {
        Team::SECOND
    } else {
        Team::FIRST
    };
    if team != expected {
        return Err(text.differ(
            format!(
                "GAME TEAM {} (the binary client plays {colour})",
                expected.number()
            ),
            format!("GAME TEAM {}", team.number()),
        ));
    }
    Ok(())
}

fn first_move_clock(target: &Target) -> Judged {
    let clock = target.first_move_clock()?;
    let mut clients = pair(target)?;
    std::thread::sleep(clock.saturating_sub(Duration::from_millis(500)));
    for client in &mut clients {
        client.expect(&Got::Error)?;
        client.expect(&Got::Closed)?;
    }
    Ok(())
}

fn move_clock(target: &Target) -> Judged {
    let clock = target.move_clock()?;
    let [mut black, mut white] = pair(target)?;
    // Both make their first move (d3, then c3), so only the move clock is left for black's second.
    let sq = |x, y| Square::new(x, y).expect("on the board");
    black.send(place(3, 2))?;
    let d3 = Got::Update(Colour::Black, vec![sq(3, 2), sq(3, 3)]);
    black.expect(&d3)?;
    white.expect(&d3)?;
    white.expect(&Got::Turn)?;
    white.send(place(2, 2))?;
    let c3 = Got::Update(Colour::White, vec![sq(2, 2), sq(3, 3)]);
    white.expect(&c3)?;
    black.expect(&c3)?;
    black.expect(&Got::Turn)?;
    std::thread::sleep(clock.saturating_sub(Duration::from_millis(500)));
    for client in [&mut black, &mut white] {
        client.expect(&Got::Winner(Winner::White))?;
        client.expect(&Got::Closed)?;
    }
    Ok(())
}
