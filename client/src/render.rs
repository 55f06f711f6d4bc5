//! Text for the user: the board with coordinates, and one message per
//! [`Notice`]. Colours (ANSI) only when asked for: see [`Style::detect`].

use std::io::IsTerminal;

use reversi_engine::{Game, Side, Square};
use reversi_pdu::Colour;

use crate::state::{GameResult, Notice, Session};

/// How to draw: ANSI colours or plain letters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// Use ANSI colour sequences.
    pub colour: bool,
}

impl Style {
    /// Plain letters: `B` black, `W` white, `.` empty.
    pub const PLAIN: Style = Style { colour: false };

    /// Colours when stdout is a terminal, `NO_COLOR` is unset or empty, and
    /// `TERM` is not `dumb`.
    pub fn detect() -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        Style {
            colour: std::io::stdout().is_terminal() && !no_color && !dumb,
        }
    }

    fn disc(self, side: Option<Side>) -> &'static str {
        match (self.colour, side) {
            (false, Some(Side::Black)) => "B",
            (false, Some(Side::White)) => "W",
            (false, None) => ".",
            // On the row's green cloth: black, bright white, grey dots.
            (true, Some(Side::Black)) => "\x1b[30m●",
            (true, Some(Side::White)) => "\x1b[97m●",
            (true, None) => "\x1b[90m·",
        }
    }

    /// The brackets around the last move: bright yellow on the cloth.
    fn marker(self, text: &'static str) -> String {
        if self.colour {
            format!("\x1b[93m{text}")
        } else {
            text.to_string()
        }
    }

    /// Starts the green cloth of a row.
    fn cloth(self) -> &'static str {
        if self.colour {
            "\x1b[42m"
        } else {
            ""
        }
    }

    /// Ends the cloth (and every other attribute).
    fn plain(self) -> &'static str {
        if self.colour {
            "\x1b[0m"
        } else {
            ""
        }
    }
}

/// The letter plain boards use for a colour.
pub fn letter(colour: Colour) -> char {
    match colour {
        Colour::Black => 'B',
        Colour::White => 'W',
    }
}

/// The board with columns a..h and rows 1..8; the last move is bracketed.
pub fn board(game: &Game, last_move: Option<Square>, style: Style) -> String {
    let columns = "    a b c d e f g h\n";
    let mut out = String::from(columns);
    for y in 0..8u8 {
        out.push_str(&format!("  {}{}", y + 1, style.cloth()));
        let marked = last_move.filter(|sq| sq.y() == y).map(|sq| sq.x());
        for x in 0..8u8 {
            let sep = if marked == Some(x) {
                style.marker("[")
            } else if x > 0 && marked == Some(x - 1) {
                style.marker("]")
            } else {
                " ".to_string()
            };
            out.push_str(&sep);
            out.push_str(style.disc(Square::new(x, y).and_then(|sq| game.disc(sq))));
        }
        let end = if marked == Some(7) {
            style.marker("]")
        } else {
            " ".to_string()
        };
        out.push_str(&format!("{end}{}{}\n", style.plain(), y + 1));
    }
    out.push_str(columns);
    out
}

/// The board followed by the disc count and whose turn it is.
pub fn session_board(session: &Session, style: Style) -> String {
    let game = &session.game;
    let mut out = board(game, session.last_move, style);
    let (black, white) = (game.count(Side::Black), game.count(Side::White));
    let (b, w) = if style.colour {
        ("", "")
    } else {
        (" (B)", " (W)")
    };
    out.push_str(&format!(
        "  black{b} {black}, white{w} {white}; you play {}",
        session.me
    ));
    if let Some(sq) = session.last_move {
        out.push_str(&format!("; last move {sq}"));
    }
    out.push('\n');
    let to_move = match game.side_to_move() {
        Some(side) if side == Side::from(session.me) => "  your turn".to_string(),
        Some(side) => format!("  {side} to move"),
        None => "  no moves left: game over".to_string(),
    };
    out.push_str(&to_move);
    out
}

/// The result in words, from this client's side: "You win 40-24". A game
/// that did not end on the board has no score worth saying: "You win: the
/// opponent left or ran out of time (the board stood at 1-4)"; the winner's
/// discs come first, as in every score.
pub fn result_words(result: &GameResult) -> String {
    let score = result.score();
    if result.finished {
        return if result.drawn() {
            format!("Draw {score}")
        } else if result.won() {
            format!("You win {score}")
        } else {
            format!("You lose {score}")
        };
    }
    let (verdict, who) = match (result.drawn(), result.won()) {
        (true, _) => ("Draw", "the server ended the game early"),
        (false, true) => ("You win", "the opponent left or ran out of time"),
        (false, false) => ("You lose", "the server ended the game early"),
    };
    format!("{verdict}: {who} (the board stood at {score})")
}

/// Whether a notice reports a failure (printed to stderr).
pub fn is_failure(notice: &Notice) -> bool {
    matches!(
        notice,
        Notice::ServerError { .. }
            | Notice::ConnectionClosed { .. }
            | Notice::ProtocolViolation(_)
            | Notice::ConnectFailed(_)
    )
}

/// The text for a notice.
pub fn notice(notice: &Notice, style: Style) -> String {
    match notice {
        Notice::Queued => "connected: waiting for an opponent...".to_string(),
        Notice::Paired(colour) => format!(
            "opponent found: you play {colour} ({}); black moves first",
            letter(*colour)
        ),
        Notice::Board(session) => session_board(session, style),
        Notice::Passed(colour) => {
            format!("{colour} has no move: {} plays again", colour.opponent())
        }
        Notice::YourTurn(session) => {
            let moves: Vec<String> = session.game.legal_moves().map(|s| s.to_string()).collect();
            format!(
                "your move ({}): one of {} (or hint, moves, quit, help)",
                session.me,
                moves.join(" ")
            )
        }
        Notice::MoveRejected(square) => {
            format!("the server refused {square} (place_error): try another move")
        }
        Notice::Refused(why) => format!("refused: {why}"),
        Notice::GameOver(result) => format!("game over: {}", result_words(result)),
        Notice::ServerError { paired: false } => {
            "the server sent error: it refused the game (full, shutting down, or it rejected us)"
                .to_string()
        }
        Notice::ServerError { paired: true } => {
            "the server sent error and ended the game".to_string()
        }
        Notice::ConnectionClosed { paired: false } => {
            "the server closed the connection while we waited for an opponent".to_string()
        }
        Notice::ConnectionClosed { paired: true } => {
            "the server closed the connection in the middle of the game".to_string()
        }
        Notice::ProtocolViolation(what) => {
            format!("protocol error from the server: {what} (sent error and closed)")
        }
        Notice::ConnectFailed(why) => why.clone(),
        Notice::Quit { paired: true } => "you left the game".to_string(),
        Notice::Quit { paired: false } => "you left the queue".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    #[test]
    fn initial_board_in_plain_letters() {
        let text = board(&Game::new(), None, Style::PLAIN);
        let want = "    a b c d e f g h
  1 . . . . . . . . 1
  2 . . . . . . . . 2
  3 . . . . . . . . 3
  4 . . . W B . . . 4
  5 . . . B W . . . 5
  6 . . . . . . . . 6
  7 . . . . . . . . 7
  8 . . . . . . . . 8
    a b c d e f g h
";
        assert_eq!(text, want);
    }

    #[test]
    fn last_move_is_bracketed_even_on_the_edge() {
        let mut game = Game::new();
        game.play(sq("f5")).unwrap();
        let text = board(&game, Some(sq("f5")), Style::PLAIN);
        assert!(text.contains("  5 . . . B B[B]. . 5"), "{text}");
        let text = board(&Game::new(), Some(sq("h1")), Style::PLAIN);
        assert!(text.contains("  1 . . . . . . .[.]1"), "{text}");
        let text = board(&Game::new(), Some(sq("a2")), Style::PLAIN);
        assert!(text.contains("  2[.]. . . . . . . 2"), "{text}");
    }

    #[test]
    fn colour_style_uses_ansi_and_plain_does_not() {
        assert!(board(&Game::new(), None, Style { colour: true }).contains("\x1b["));
        assert!(!board(&Game::new(), None, Style::PLAIN).contains('\x1b'));
    }

    #[test]
    fn results_in_words() {
        let mut result = GameResult {
            me: Colour::Black,
            winner: reversi_pdu::Winner::Black,
            mine: 40,
            theirs: 24,
            moves: 60,
            finished: true,
            transcript: String::new(),
        };
        assert_eq!(result_words(&result), "You win 40-24");
        result.winner = reversi_pdu::Winner::White;
        (result.mine, result.theirs) = (24, 40);
        assert_eq!(
            result_words(&result),
            "You lose 40-24",
            "the winner's discs first"
        );
        result.winner = reversi_pdu::Winner::Draw;
        (result.mine, result.theirs) = (32, 32);
        assert_eq!(result_words(&result), "Draw 32-32");
        result.winner = reversi_pdu::Winner::Black;
        result.finished = false;
        (result.mine, result.theirs) = (1, 4);
        assert_eq!(
            result_words(&result),
            "You win: the opponent left or ran out of time (the board stood at 1-4)"
        );
        assert_eq!(
            notice(&Notice::Passed(Colour::White), Style::PLAIN),
            "white has no move: black plays again"
        );
    }
}
