//! Seed 002's own line protocol (Foxes & Dolphins) as a wire adapter, for
//! clients written from the seed alone (spec/games/foxes.md, "The seed's line
//! protocol"). A player's connection carries its team's player and viewer
//! both, as the seed's client program does: it gets `N` as its player, boards
//! and `F` as its viewer. The seed's viewers get the whole board after every
//! change, so the adapter keeps the board it has been drawn.

use log::{debug, warn};
use reversi_games::foxes::{Board, Species};
use reversi_games::{Action, Cell, Viewer};

use super::line::{Notice, Party, Request};
use crate::outbox::Outbox;
use crate::protocols::lines::LineReader;
use crate::protocols::{Event, Input, Wire};

/// The viewer a spectator is: the seed gives every viewer a team, and ours
/// all see the same board, so every spectator is the foxes' viewer `G`.
pub const SPECTATOR: Party = Party::Viewer(Species::Fox);

pub struct Seed002 {
    lines: LineReader,
    /// Who this connection is, from the game's start on.
    me: Option<Party>,
    /// Every tile as last drawn, in the board string's order.
    tiles: Vec<Cell>,
    /// Told `N`, and no move asked for since: a refused line gets `N` again,
    /// because the seed's client waits for it before it moves.
    may_move: bool,
}

impl Default for Seed002 {
    fn default() -> Self {
        Seed002::new()
    }
}

impl Seed002 {
    pub fn new() -> Seed002 {
        Seed002 {
            lines: LineReader::new(),
            me: None,
            tiles: Vec::new(),
            may_move: false,
        }
    }

    /// The board string of the tiles drawn so far.
    fn letters(&self) -> Option<String> {
        match Board::from_cells(&self.tiles) {
            Ok(board) => Some(board.letters()),
            Err(e) => {
                warn!("seed 002: the drawn board has no board string: {e}");
                None
            }
        }
    }

    /// Draws `cells` over the tiles (an update draws only the tiles it changed).
    fn draw(&mut self, cells: &[Cell]) {
        for cell in cells {
            match self.tiles.iter_mut().find(|t| t.at == cell.at) {
                Some(tile) => *tile = cell.clone(),
                None => self.tiles.push(cell.clone()),
            }
        }
    }

    /// The whole board to this connection's viewer.
    fn send_board(&self, me: Party, out: &mut Outbox) {
        if let Some(letters) = self.letters() {
            write(
                out,
                Notice::Board {
                    to: me.viewer(),
                    letters: &letters,
                },
            );
        }
    }
}

/// What a line from `me` asks of the session; a move clears `may_move` (the seed's
/// client waits for `N` after it).
fn input(line: &str, me: Option<Party>, may_move: &mut bool) -> Input {
    let refused = |why: &str| Input::Confused(why.to_owned());
    let request = match Request::parse(line) {
        Ok(request) => request,
        Err(why) => return Input::Confused(why),
    };
    match (request, me) {
        (_, None) => refused("the game has not started"),
        (Request::JoinPlayer | Request::JoinViewer, _) => refused("already in a game"),
        (_, Some(Party::Viewer(_))) => refused("viewers cannot move"),
        (Request::Move { sender, from, to }, Some(Party::Player(me))) if sender == me => {
            *may_move = false;
            Input::Act(Action::Move(vec![from, to]))
        }
        (Request::Refresh { sender }, Some(Party::Player(me))) if sender == me => Input::Refresh,
        (Request::Move { sender, .. } | Request::Refresh { sender }, Some(me)) => {
            Input::Confused(format!(
                "you are {}, not {}",
                me.letter(),
                Party::Player(sender).letter()
            ))
        }
    }
}

fn write(out: &mut Outbox, notice: Notice<'_>) {
    debug!("-> {notice}");
    out.push(&notice.line());
}

/// Who a connection that sees the board as `viewer` is, in the seed's letters.
fn party(viewer: Viewer) -> Option<Party> {
    match viewer {
        Viewer::Team(team) => Species::of(team).map(Party::Player),
        Viewer::Spectator => Some(SPECTATOR),
    }
}

impl Wire for Seed002 {
    fn receive(&mut self, bytes: &[u8], inputs: &mut Vec<Input>) {
        let me = self.me;
        let may_move = &mut self.may_move;
        self.lines.receive(bytes, inputs, |line| {
            (!line.is_empty()).then(|| input(line, me, may_move))
        });
    }

    fn send(&mut self, event: &Event, out: &mut Outbox) {
        if let Event::Start { viewer, cells, .. } = event {
            let Some(me) = party(*viewer) else {
                warn!("seed 002: {viewer:?} is neither the foxes nor the dolphins");
                return;
            };
            // The team is announced once; a later start (a refresh) only draws.
            if self.me != Some(me) {
                write(out, Notice::Team(me));
                self.me = Some(me);
            }
            self.tiles.clear();
            self.draw(cells);
            return self.send_board(me, out);
        }
        let Some(me) = self.me else {
            debug!("seed 002: nothing to say before the game starts");
            return;
        };
        match event {
            // The seed's protocol has no turns and no timers.
            Event::Start { .. } | Event::Turn(_) | Event::Clock { .. } | Event::Timer { .. } => {}
            // Nor the lag allowance's pings, nor rematch offers.
            Event::Ping(_) | Event::OfferedRematch { .. } => {}
            Event::Update(update) => {
                self.draw(&update.cells);
                self.send_board(me, out);
            }
            Event::Ready => {
                if let Party::Player(_) = me {
                    self.may_move = true;
                    write(out, Notice::Next(me));
                }
            }
            // A refused move costs the cooldown: `N` follows when it has passed.
            Event::Illegal { .. } | Event::Violation(_) => write(out, Notice::Fail(me.viewer())),
            // A line the game never saw costs nothing: `N` again if the player may move.
            Event::Confused { .. } => {
                write(out, Notice::Fail(me.viewer()));
                if self.may_move {
                    write(out, Notice::Next(me));
                }
            }
            Event::Over { outcome, .. } => write(
                out,
                Notice::End {
                    to: me,
                    winner: outcome.winner().and_then(Species::of),
                },
            ),
            Event::Aborted(_) => write(
                out,
                Notice::End {
                    to: me,
                    winner: None,
                },
            ),
            // Nor seats that can be taken back (play-together design §8): none of their news.
            Event::Token { .. }
            | Event::Resumed(_)
            | Event::Away { .. }
            | Event::Back(_)
            | Event::OfferedDraw(_)
            | Event::News(_)
            | Event::Replaced => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_games::foxes::{Foxes, Size, Timing};
    use reversi_games::{Game, Outcome, Point, Team, Viewer};

    fn game() -> Foxes {
        Foxes::new(Size::new(10).unwrap(), 3, Timing::STANDARD)
    }

    fn text(out: &mut Outbox) -> String {
        let mut bytes = Vec::new();
        out.flush(&mut bytes).unwrap();
        String::from_utf8(bytes).unwrap()
    }

    /// An adapter for `viewer`, started on `game`; returns what it wrote.
    fn started(game: &Foxes, viewer: Viewer) -> (Seed002, String) {
        let mut wire = Seed002::new();
        let mut out = Outbox::new();
        let cells = game.view(Viewer::Spectator);
        wire.send(
            &Event::Start {
                info: game.info(),
                viewer,
                cells,
                id: 1,
                time: None,
                players: Vec::new(),
            },
            &mut out,
        );
        (wire, text(&mut out))
    }

    fn inputs(wire: &mut Seed002, bytes: &[u8]) -> Vec<Input> {
        let mut inputs = Vec::new();
        wire.receive(bytes, &mut inputs);
        inputs
    }

    fn confused() -> Event {
        Event::Confused {
            why: "x".to_owned(),
            again: false,
        }
    }

    fn over(outcome: &Outcome) -> Event {
        Event::Over {
            outcome: outcome.clone(),
            standing: None,
        }
    }

    fn said(wire: &mut Seed002, event: Event) -> String {
        let mut out = Outbox::new();
        wire.send(&event, &mut out);
        text(&mut out)
    }

    #[test]
    fn a_player_is_told_its_team_and_its_viewer_the_board() {
        let game = game();
        let letters = game.board().letters();
        let (_, fox) = started(&game, Viewer::Team(Team::FIRST));
        assert_eq!(fox, format!("BPT F\nBGB {letters}\n"));
        let (_, dolphin) = started(&game, Viewer::Team(Team::SECOND));
        assert_eq!(dolphin, format!("BPT D\nBEB {letters}\n"));
        let (_, viewer) = started(&game, Viewer::Spectator);
        assert_eq!(viewer, format!("BQT F\nBGB {letters}\n"));
    }

    #[test]
    fn every_update_sends_the_whole_board_again() {
        let mut game = game();
        let (mut wire, _) = started(&game, Viewer::Team(Team::SECOND));
        let step = game.legal_actions(Team::SECOND).into_iter().next().unwrap();
        let update = game.play(Team::SECOND, &step, 0).unwrap();
        let letters = game.board().letters();
        assert_eq!(
            said(&mut wire, Event::Update(update.clone())),
            format!("BEB {letters}\n")
        );
        let tide = game.wake(10_000);
        assert_eq!(tide.len(), 1);
        let letters = game.board().letters();
        assert_eq!(
            said(&mut wire, Event::Update(tide[0].clone())),
            format!("BEB {letters}\n")
        );
        // A refresh is a start the team already knows: the board only.
        let cells = game.view(Viewer::Spectator);
        let refresh = Event::Start {
            info: game.info(),
            viewer: Viewer::Team(Team::SECOND),
            cells,
            id: 1,
            time: None,
            players: Vec::new(),
        };
        assert_eq!(said(&mut wire, refresh), format!("BEB {letters}\n"));
    }

    #[test]
    fn moves_and_refreshes_are_the_senders_own() {
        let game = game();
        let (mut wire, _) = started(&game, Viewer::Team(Team::SECOND));
        assert_eq!(
            inputs(&mut wire, b"DBM 4 1 4 2\r\nDBR\n\n"),
            [
                Input::Act(Action::Move(vec![Point::new(4, 1), Point::new(4, 2)])),
                Input::Refresh
            ]
        );
        assert_eq!(
            inputs(&mut wire, b"FBM 4 1 4 2\nPBJ\nhello\n"),
            [
                Input::Confused("you are D, not F".to_owned()),
                Input::Confused("already in a game".to_owned()),
                Input::Confused(
                    "\"hello\" is not a header of three letters (sender, addressee, type)"
                        .to_owned()
                ),
            ]
        );
        let (mut viewer, _) = started(&game, Viewer::Spectator);
        assert_eq!(
            inputs(&mut viewer, b"FBM 4 1 4 2\n"),
            [Input::Confused("viewers cannot move".to_owned())]
        );
        let mut early = Seed002::new();
        assert_eq!(
            inputs(&mut early, b"FBM 4 1 4 2\n"),
            [Input::Confused("the game has not started".to_owned())]
        );
        let long = vec![b'F'; 2000];
        assert!(matches!(
            inputs(&mut wire, &long)[..],
            [Input::Violation(_)]
        ));
        assert!(
            inputs(&mut wire, b"DBR\n").is_empty(),
            "deaf after a violation"
        );
    }

    #[test]
    fn may_move_fail_and_the_end_in_the_seeds_letters() {
        let game = game();
        let (mut fox, _) = started(&game, Viewer::Team(Team::FIRST));
        assert_eq!(said(&mut fox, Event::Ready), "BFN\n");
        // A line the game never saw: fail, and N again, for the seed's client waits for it.
        assert_eq!(said(&mut fox, confused()), "BGF\nBFN\n");
        // After a move the player waits for N: a refused move gets fail only.
        let _ = inputs(&mut fox, b"FBM 1 1 1 2\n");
        assert_eq!(
            said(
                &mut fox,
                Event::Illegal {
                    why: "x".to_owned(),
                    again: false
                }
            ),
            "BGF\n"
        );
        assert_eq!(said(&mut fox, confused()), "BGF\n");
        assert_eq!(said(&mut fox, Event::Turn(Team::FIRST)), "");
        let tide = Event::Timer {
            name: "tide",
            ms: 10_000,
            text: "the tide turns".into(),
        };
        assert_eq!(said(&mut fox, tide), "", "the seed has no timers");
        let won = Outcome::Win {
            team: Team::SECOND,
            why: "the last fox was eaten on 3 3".to_owned(),
        };
        assert_eq!(said(&mut fox, over(&won)), "BFS D\n");
        let (mut viewer, _) = started(&game, Viewer::Spectator);
        assert_eq!(said(&mut viewer, Event::Ready), "");
        let drawn = Outcome::Draw {
            why: "nothing eaten".to_owned(),
        };
        assert_eq!(said(&mut viewer, over(&drawn)), "BGS N\n");
        assert_eq!(
            said(&mut viewer, Event::Aborted("shutdown".to_owned())),
            "BGS N\n"
        );
        let mut early = Seed002::new();
        assert_eq!(said(&mut early, Event::Ready), "");
    }
}
