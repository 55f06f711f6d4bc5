//! A copy of a game kept by its rules (from the games crate this client
//! links), rebuilt by replaying each `GAME MOVED team notation` through the
//! game's `parse_action` and `play`. A person's client checks a move on it
//! before sending, so a misclick is refused here with the reason instead of
//! losing the game (the server's rule: an illegal move loses); a bot plays
//! on it. Where a game's state cannot be rebuilt from its moves (Foxes &
//! Dolphins' island comes from a seed the client never sees), the copy
//! differs from the board the server draws ([`Follower::differs_from`]) and
//! its owner drops it: moves are then sent unchecked, as the server rules.

use std::time::Instant;

use reversi_games::registry::{self, Module};
use reversi_games::{Action, Game, Point, Team, Viewer};

use crate::text::{self, Request};

/// The rules' copy of one game.
pub struct Follower {
    game: Box<dyn Game>,
    started: Instant,
}

impl Follower {
    /// A game of `module` at its start.
    pub fn new(module: &Module) -> Follower {
        Follower {
            game: (module.new_game)(&Default::default()),
            started: Instant::now(),
        }
    }

    /// A game whose `GAME TYPE` word is `game`, if this client has its rules.
    pub fn of(game: &str) -> Option<Follower> {
        registry::find(game).map(Follower::new)
    }

    /// The game as the rules have it.
    pub fn game(&self) -> &dyn Game {
        &*self.game
    }

    fn now(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// Replays a move the server announced.
    pub fn follow(&mut self, team: u8, notation: &str) -> Result<(), String> {
        let teams = self.game.info().team_count();
        let team = Team::from_number(u32::from(team), teams)
            .ok_or_else(|| format!("the server says team {team} moved; this game has {teams}"))?;
        let action = self
            .game
            .parse_action(notation)
            .map_err(|e| format!("cannot read the move {notation:?}: {e}"))?;
        let now = self.now();
        self.game
            .play(team, &action, now)
            .map(|_| ())
            .map_err(|e| format!("cannot replay {notation:?} by team {}: {e}", team.number()))
    }

    /// A draw offer or answer, which the server announces only as
    /// `GAME NEWS` (spec/TEXT-PROTOCOL.md §5.4: they are not moves): the
    /// action of the team whose news this is, found by trying each on a
    /// copy and comparing the news the game writes, is replayed. Says
    /// whether the news was one.
    pub fn follow_news(&mut self, text: &str) -> bool {
        let teams = self.game.info().team_count();
        let now = self.now();
        for team in (1..=teams as u32).filter_map(|k| Team::from_number(k, teams)) {
            for action in [Action::OfferDraw, Action::AcceptDraw, Action::DeclineDraw] {
                let mut trial = self.game.clone_box();
                let told = trial.play(team, &action, now);
                if told.is_ok_and(|update| update.news.as_deref() == Some(text)) {
                    self.game = trial;
                    return true;
                }
            }
        }
        false
    }

    /// Whether team `team` (from 1) may make the move `request` asks for:
    /// `Err` says why not. Requests that are not moves pass.
    pub fn check(&self, team: u8, request: &Request) -> Result<(), String> {
        let action = match request {
            Request::Move(squares) => {
                Action::Move(squares.iter().map(|&(x, y)| Point::new(x, y)).collect())
            }
            Request::Notation(text) => self
                .game
                .parse_action(text.trim())
                .map_err(|e| e.to_string())?,
            _ => return Ok(()),
        };
        let team = Team::from_number(u32::from(team), self.game.info().team_count())
            .ok_or_else(|| format!("this game has no team {team}"))?;
        let mut trial = self.game.clone_box();
        trial
            .play(team, &action, self.now())
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// The first square where the copy and the server's board differ, as
    /// the reason the copy cannot be trusted.
    pub fn differs_from(&self, drawn: &text::Game) -> Option<String> {
        let viewer = match drawn.team() {
            Some(k) => Viewer::Team(Team(k - 1)),
            None => Viewer::Spectator,
        };
        for cell in self.game.view(viewer) {
            let (x, y) = (cell.at.x, cell.at.y);
            let theirs = drawn.board.cell(x, y);
            let same = theirs.is_some_and(|c| {
                c.square == cell.square
                    && c.piece.as_ref().map(|p| (p.name.as_str(), p.team))
                        == cell
                            .piece
                            .as_ref()
                            .map(|p| (p.name.as_str(), p.team.number()))
            });
            if !same {
                return Some(format!(
                    "the client's copy of the game differs from the server's board at ({x}, {y}): \
                     this game's state cannot be rebuilt from its moves"
                ));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_square_and_a_square_off_the_board_are_refused_with_the_reason() {
        let mut ttt = Follower::of("TicTacToe").unwrap();
        ttt.follow(1, "b2").unwrap();
        let taken = ttt.check(2, &Request::Move(vec![(2, 2)])).unwrap_err();
        assert!(taken.contains("b2"), "{taken}");
        assert!(ttt.check(2, &Request::Move(vec![(4, 4)])).is_err());
        assert!(ttt.check(2, &Request::Notation("hello".into())).is_err());
        assert!(
            ttt.check(1, &Request::Move(vec![(1, 1)])).is_err(),
            "not X's turn"
        );
        assert_eq!(ttt.check(2, &Request::Move(vec![(1, 1)])), Ok(()));
        assert_eq!(ttt.check(2, &Request::Notation("a1".into())), Ok(()));
        assert_eq!(ttt.check(2, &Request::OfferDraw), Ok(()));
    }

    #[test]
    fn a_draw_offer_and_its_answer_are_followed_from_their_news() {
        let mut draughts = Follower::of("Draughts").unwrap();
        let answer = |f: &Follower| f.check(2, &Request::AcceptDraw);
        assert!(!draughts.follow_news("black jumps for joy"));
        assert!(draughts.follow_news("black offers a draw"));
        draughts.follow(1, "11-15").unwrap();
        let mut trial = draughts.game().clone_box();
        assert!(trial.play(Team::SECOND, &Action::AcceptDraw, 0).is_ok());
        assert!(draughts.follow_news("white declines the draw"));
        let mut trial = draughts.game().clone_box();
        assert!(trial.play(Team::SECOND, &Action::AcceptDraw, 0).is_err());
        assert_eq!(answer(&draughts), Ok(()), "not a move: not checked");
    }

    #[test]
    fn a_draughts_move_is_checked_by_draughts_rules() {
        let draughts = Follower::of("Draughts").unwrap();
        assert_eq!(
            draughts.check(1, &Request::Notation("11-15".into())),
            Ok(())
        );
        let why = draughts
            .check(1, &Request::Notation("11-18".into()))
            .unwrap_err();
        assert!(!why.is_empty());
    }
}
