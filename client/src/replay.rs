//! `reversi replay ID`: an archived game (its JSON export, `GAME EXPORT id json`)
//! stepped through on the board: the moves are played again by the game's rules
//! (the games crate this client links), each position drawn as the line mode draws
//! a board, with the time each side had spent and, on a Fischer clock, had left.
//! On a terminal one key a line steps: Enter or n the next move, p the previous,
//! a number that move, q leaves; otherwise every position is printed in turn.

use std::io::{self, BufRead, IsTerminal};

use reversi_client::text::{Board, Game as Shown, Moved, Seat};
use reversi_games::registry::{self, Module};
use reversi_games::{Game, Team, Viewer};
use serde_json::Value;

/// One archived game, as its export tells it.
pub struct Archived {
    module: &'static Module,
    /// `(team from 1, notation, ms the move took)`, in order.
    moves: Vec<(u8, String, u64)>,
    /// Each team's player, team 1 first (`Alice`, `bob~`).
    players: Vec<String>,
    /// `base+increment` in seconds, where the game had a Fischer clock.
    fischer: Option<(u64, u64)>,
    /// The result's words (`O wins (X left the game)`).
    why: String,
}

impl Archived {
    /// Reads the export; `Err` says what it lacks.
    pub fn from_json(text: &str) -> Result<Archived, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let kind = value["game"].as_str().ok_or("no \"game\"")?;
        let module = registry::find(kind).ok_or(format!("this client has no game {kind:?}"))?;
        let moves = (value["moves"].as_array().ok_or("no \"moves\"")?.iter())
            .map(|m| {
                let team = m["team"].as_u64().ok_or("a move without its team")?;
                let notation = m["move"].as_str().ok_or("a move without its notation")?;
                let team = u8::try_from(team + 1).map_err(|_| "a team out of range")?;
                Ok((team, notation.to_owned(), m["ms"].as_u64().unwrap_or(0)))
            })
            .collect::<Result<Vec<_>, &str>>()?;
        let players = (value["players"].as_array().into_iter().flatten())
            .map(|p| match (p["name"].as_str(), p["account"].is_null()) {
                (Some(name), false) => name.to_owned(),
                (Some(name), true) => format!("{name}~"),
                (None, _) => "anonymous".to_owned(),
            })
            .collect();
        Ok(Archived {
            module,
            moves,
            players,
            fischer: fischer(value["time_control"].as_str().unwrap_or("")),
            why: value["why"].as_str().unwrap_or("").to_owned(),
        })
    }

    /// The number of moves.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// The position after the first `k` moves, as the board screens draw it.
    pub fn position(&self, k: usize) -> Result<Shown, String> {
        let mut game = (self.module.new_game)(&Default::default());
        for (team, notation, _) in &self.moves[..k] {
            let action = game.parse_action(notation).map_err(|e| e.to_string())?;
            game.play(Team(team - 1), &action, 0)
                .map_err(|e| format!("{notation}: {e}"))?;
        }
        let info = self.module.info;
        let mut board = Board::new(info.board.name, info.board.width, info.board.height)?;
        if let Some(labels) = info.board.labels {
            let names = |n: &[&str]| n.iter().map(|s| (*s).to_owned()).collect();
            board.name_columns(names(labels.columns))?;
            board.name_rows(names(labels.rows))?;
        }
        draw(&mut board, &*game)?;
        Ok(Shown {
            game: info.wire_type.to_owned(),
            board,
            seat: Seat::Viewer { id: 0 },
            turn: game.turn().map(Team::number),
            ready: false,
            moves: (self.moves[..k].iter())
                .map(|(team, notation, _)| Moved {
                    team: *team,
                    notation: notation.clone(),
                })
                .collect(),
            changed: Vec::new(),
            over: None,
            round: 1,
            teams: info.teams.iter().map(|t| (*t).to_owned()).collect(),
            legal: None,
            clocks: Vec::new(),
            timers: Vec::new(),
            control: None,
            away: Vec::new(),
            rematch_offer: None,
            players: Vec::new(),
            replaying: false,
        })
    }

    /// The page of move `k`: who played what, the board, each side's time.
    pub fn page(&self, k: usize) -> Result<String, String> {
        let shown = self.position(k)?;
        let heading = match k.checked_sub(1).map(|i| &self.moves[i]) {
            None => format!("start of the game ({} moves)", self.len()),
            Some((team, notation, ms)) => format!(
                "move {k} of {}: {} played {notation} in {}",
                self.len(),
                self.team(*team),
                seconds(*ms)
            ),
        };
        let mut page = format!("{heading}\n{}\n", crate::text_ui::plain_board(&shown));
        for team in 1..=self.module.info.teams.len() as u8 {
            page.push_str(&format!("  {}\n", self.clock(team, k)));
        }
        if k == self.len() && !self.why.is_empty() {
            page.push_str(&format!("result: {}\n", self.why));
        }
        Ok(page)
    }

    fn team(&self, team: u8) -> String {
        let name = self.module.info.team_name(Team(team - 1));
        match self.players.get(usize::from(team - 1)) {
            Some(player) => format!("{name} ({player})"),
            None => name,
        }
    }

    /// Team `team`'s time after `k` moves: spent, and left on a Fischer clock.
    fn clock(&self, team: u8, k: usize) -> String {
        let mine = self.moves[..k].iter().filter(|m| m.0 == team);
        let (count, spent) = mine.fold((0, 0), |(n, ms), m| (n + 1, ms + m.2));
        let left = match self.fischer {
            Some((base, increment)) => {
                let left = (base + increment * count) * 1000;
                format!(", {} left", seconds(left.saturating_sub(spent)))
            }
            None => String::new(),
        };
        format!("{}: {} spent{left}", self.team(team), seconds(spent))
    }
}

/// Draws every cell of `game` as a viewer sees it.
fn draw(board: &mut Board, game: &dyn Game) -> Result<(), String> {
    for cell in game.view(Viewer::Spectator) {
        board.draw_square(cell.square, cell.at.x, cell.at.y)?;
        if let Some(piece) = cell.piece {
            board.draw_piece(&piece.name, piece.team.number())?;
        }
    }
    Ok(())
}

/// `300+3` (seconds) as a Fischer clock; anything else (a per-move limit, none) is not.
fn fischer(control: &str) -> Option<(u64, u64)> {
    let (base, increment) = control.split_once('+')?;
    Some((base.parse().ok()?, increment.parse().ok()?))
}

/// `m:ss.t`.
fn seconds(ms: u64) -> String {
    format!("{}:{:02}.{}", ms / 60_000, ms / 1000 % 60, ms / 100 % 10)
}

/// `reversi replay ID`.
pub fn run(addr: &str, id: &str) -> u8 {
    let archived = crate::account::fetch(addr, id, Some("json"))
        .and_then(|lines| Archived::from_json(&lines.join("\n")));
    let archived = match archived {
        Ok(archived) => archived,
        Err(why) => {
            eprintln!("reversi replay: {why}");
            return reversi_client::exit::SERVER_GONE;
        }
    };
    let stdin = io::stdin();
    let interactive = stdin.is_terminal() && io::stdout().is_terminal();
    let mut k = if interactive { 0 } else { archived.len() };
    if !interactive {
        // Every position in turn, for a file or a pipe.
        for step in 0..=archived.len() {
            match archived.page(step) {
                Ok(page) => println!("{page}"),
                Err(why) => return stopped(&why),
            }
        }
        return reversi_client::exit::OK;
    }
    let mut lines = stdin.lock().lines();
    loop {
        match archived.page(k) {
            Ok(page) => println!("{page}"),
            Err(why) => return stopped(&why),
        }
        println!("Enter/n next, p previous, a number goes to that move, q leaves");
        let Some(Ok(line)) = lines.next() else {
            return reversi_client::exit::OK;
        };
        k = match line.trim() {
            "q" => return reversi_client::exit::OK,
            "p" => k.saturating_sub(1),
            "" | "n" => (k + 1).min(archived.len()),
            n => n.parse().map_or(k, |n: usize| n.min(archived.len())),
        };
    }
}

fn stopped(why: &str) -> u8 {
    eprintln!("reversi replay: the moves cannot be played again here: {why}");
    reversi_client::exit::PROTOCOL
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: &str = r#"{"game":"tictactoe","time_control":"60+2","why":"X wins",
        "players":[{"name":"Alice","account":1},{"name":"bob","account":null}],
        "moves":[{"team":0,"move":"b2","ms":1500},{"team":1,"move":"a1","ms":700},
                 {"team":0,"move":"c3","ms":2500}]}"#;

    #[test]
    fn each_page_has_the_position_the_mover_and_both_clocks() {
        let archived = Archived::from_json(GAME).unwrap();
        assert_eq!(archived.len(), 3);
        let start = archived.page(0).unwrap();
        assert!(start.contains("start of the game (3 moves)"), "{start}");
        assert!(
            start.contains("X (Alice): 0:00.0 spent, 1:00.0 left"),
            "{start}"
        );
        let third = archived.page(3).unwrap();
        assert!(
            third.contains("move 3 of 3: X (Alice) played c3 in 0:02.5"),
            "{third}"
        );
        assert!(
            third.contains("X (Alice): 0:04.0 spent, 1:00.0 left"),
            "{third}"
        );
        assert!(
            third.contains("O (bob~): 0:00.7 spent, 1:01.3 left"),
            "{third}"
        );
        assert!(third.contains("result: X wins"), "{third}");
        let shown = archived.position(3).unwrap();
        assert_eq!(shown.moves.len(), 3);
        assert!(shown.board.cell(2, 2).unwrap().piece.is_some());
        assert!(shown.board.cell(3, 3).unwrap().piece.is_some());
        assert!(shown.board.cell(1, 2).unwrap().piece.is_none());
    }

    #[test]
    fn an_export_it_cannot_read_says_why() {
        assert!(Archived::from_json("{}").err().unwrap().contains("game"));
        let unknown = r#"{"game":"chess","moves":[]}"#;
        assert!(Archived::from_json(unknown)
            .err()
            .unwrap()
            .contains("chess"));
        let broken = GAME.replace("\"c3\"", "\"b2\"");
        assert!(Archived::from_json(&broken).unwrap().page(3).is_err());
    }
}
