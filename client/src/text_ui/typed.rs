//! What a person types for a text-protocol game (a line of the line mode,
//! or the full-screen view's `:` line): a move in the game's own notation
//! (`d3`, `11-15`), the squares of a move as numbers (`4 6`, `1 1 1 6`), a
//! protocol line as is (`MOVE 2 1 1 1 6`, `GAME OFFER DRAW`), or a command.

use reversi_client::text::{ClientMessage, Request};

/// One typed line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Typed {
    /// Something for the server.
    Send(Request),
    /// Show the board again.
    Board,
    /// Show the moves this player may make, where the client knows them.
    Moves,
    /// Suggest a move.
    Hint,
    Help,
}

/// The text `help` prints.
pub const HELP: &str = "\
commands (one a line):
  d3, 11-15, ...     a move in the game's own notation
  4 6, 1 1 1 6       a move as the x y numbers of its squares, in order
  MOVE 2 1 1 1 6     a protocol line, sent as it is
  offer draw, accept draw, decline draw
  claim win, claim draw   when an opponent's connection dropped and did not come back
  rematch, no             after a game: offer (or accept) a rematch, or decline it
  board              show the board again
  moves              the legal moves, where this client knows the rules (Reversi)
  hint               a move the game's own computer player suggests
  quit               leave (your team resigns if the game is on)
  help               this list";

/// Reads one line; `Ok(None)` for a blank one, or one that held only keys
/// the terminal passed in as escape sequences (a function key).
pub fn parse(line: &str) -> Result<Option<Typed>, String> {
    let line = crate::escapes::strip(line);
    let text = line.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let lower = text.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let typed = match words.as_slice() {
        ["quit" | "q" | "exit"] => Typed::Send(Request::Quit),
        ["help" | "?"] => Typed::Help,
        ["board"] => Typed::Board,
        ["moves"] => Typed::Moves,
        ["hint"] => Typed::Hint,
        ["offer", "draw"] | ["draw"] => Typed::Send(Request::OfferDraw),
        ["accept", "draw"] | ["accept"] => Typed::Send(Request::AcceptDraw),
        ["decline", "draw"] | ["decline"] => Typed::Send(Request::DeclineDraw),
        ["rematch"] | ["offer" | "accept", "rematch"] => Typed::Send(Request::OfferRematch),
        ["decline", "rematch"] | ["no"] => Typed::Send(Request::DeclineRematch),
        ["claim", "win"] => Typed::Send(Request::ClaimWin),
        ["claim", "draw"] => Typed::Send(Request::ClaimDraw),
        ["move" | "game", ..] => return protocol_line(text).map(Some),
        _ if words.iter().all(|w| w.parse::<u8>().is_ok()) => return squares(&words).map(Some),
        _ => Typed::Send(Request::Notation(text.to_owned())),
    };
    Ok(Some(typed))
}

/// `MOVE ...` or `GAME ...`, as the protocol writes it.
fn protocol_line(text: &str) -> Result<Typed, String> {
    let message = ClientMessage::parse(text).map_err(|e| e.to_string())?;
    let request = match message {
        ClientMessage::Move(squares) => Request::Move(squares),
        ClientMessage::MoveText(notation) => Request::Notation(notation),
        ClientMessage::OfferDraw => Request::OfferDraw,
        ClientMessage::AcceptDraw => Request::AcceptDraw,
        ClientMessage::DeclineDraw => Request::DeclineDraw,
        ClientMessage::Quit => Request::Quit,
        ClientMessage::ClaimWin => Request::ClaimWin,
        ClientMessage::ClaimDraw => Request::ClaimDraw,
        ClientMessage::OfferRematch => Request::OfferRematch,
        ClientMessage::AcceptRematch => Request::AcceptRematch,
        ClientMessage::DeclineRematch => Request::DeclineRematch,
        other => return Err(format!("\"{other}\" is not for the middle of a game")),
    };
    Ok(Typed::Send(request))
}

/// `x1 y1 x2 y2 ...`: a move by the numbers of its squares.
fn squares(words: &[&str]) -> Result<Typed, String> {
    if !words.len().is_multiple_of(2) {
        return Err(format!(
            "{} numbers: a move's squares take two each (x y), as in 4 6",
            words.len()
        ));
    }
    let numbers: Vec<u8> = words.iter().filter_map(|w| w.parse().ok()).collect();
    let squares = numbers.chunks(2).map(|p| (p[0], p[1])).collect();
    Ok(Typed::Send(Request::Move(squares)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send(request: Request) -> Result<Option<Typed>, String> {
        Ok(Some(Typed::Send(request)))
    }

    #[test]
    fn every_way_to_write_a_move() {
        assert_eq!(parse("d3"), send(Request::Notation("d3".into())));
        assert_eq!(parse(" 11-15 "), send(Request::Notation("11-15".into())));
        assert_eq!(parse("4 6"), send(Request::Move(vec![(4, 6)])));
        assert_eq!(parse("1 1 1 6"), send(Request::Move(vec![(1, 1), (1, 6)])));
        assert_eq!(
            parse("MOVE 2 1 1 1 6"),
            send(Request::Move(vec![(1, 1), (1, 6)]))
        );
        assert_eq!(parse("move b2"), send(Request::Notation("b2".into())));
    }

    #[test]
    fn stray_function_keys_are_ignored() {
        assert_eq!(parse("\u{1b}OR"), Ok(None));
        assert_eq!(parse("\u{1b}[A"), Ok(None));
        assert_eq!(
            parse("\u{1b}OR11-15"),
            send(Request::Notation("11-15".into()))
        );
        assert_eq!(parse("4 6\u{1b}[D"), send(Request::Move(vec![(4, 6)])));
    }

    #[test]
    fn commands_and_mistakes() {
        assert_eq!(parse("  "), Ok(None));
        assert_eq!(parse("QUIT"), send(Request::Quit));
        assert_eq!(parse("GAME QUIT"), send(Request::Quit));
        assert_eq!(parse("offer draw"), send(Request::OfferDraw));
        assert_eq!(parse("GAME ACCEPT DRAW"), send(Request::AcceptDraw));
        assert_eq!(parse("help"), Ok(Some(Typed::Help)));
        assert_eq!(parse("board"), Ok(Some(Typed::Board)));
        assert_eq!(parse("moves"), Ok(Some(Typed::Moves)));
        assert_eq!(parse("hint"), Ok(Some(Typed::Hint)));
        assert!(parse("4 6 1").unwrap_err().contains("two each"));
        assert!(parse("MOVE 2 1 1").unwrap_err().contains("MOVE"));
        assert!(parse("GAME LIST")
            .unwrap_err()
            .contains("not for the middle"));
    }
}
