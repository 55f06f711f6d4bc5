//! How squares and pieces look, for any game: the client knows only the
//! names the server's `DRAW` lines use. A piece shows a short label made
//! from its name (`x` → `X`, `die536` → `D5`, `king` → `K`); where two
//! teams' pieces would look the same without colour, the first team's
//! label is upper case and the others' lower case (as chess diagrams do),
//! with colour or without: colour is never the only difference, so a board
//! reads the same with `NO_COLOR`, on a monochrome terminal and to a
//! colour-blind person, and the screen and the line mode show one legend.
//! A square kind gets a fill character in the order the kinds first appear
//! on the whole board, from (1, 1) row by row (`.` for the first): the
//! views learn only a board whose drawing is over, so the full screen, the
//! line mode and `bot --show` give a kind the same fill (draughts' dark
//! squares are `.` in all three).

use std::collections::{BTreeMap, BTreeSet};

use reversi_client::text::{Board, Game, Piece};

/// Fill characters for square kinds, in order of first sight.
const FILLS: [char; 8] = ['.', ' ', ':', '~', '#', '+', '=', '\''];

/// What has been seen of a game's squares and pieces.
#[derive(Clone, Debug, Default)]
pub struct Legend {
    /// Square kinds in the order first seen.
    kinds: Vec<String>,
    /// Each label and the (piece name, team) pairs that use it.
    labels: BTreeMap<String, BTreeSet<(String, u8)>>,
}

/// The label of a piece name: its first letter in upper case, then the
/// first digit in it if any (a die's top face).
fn base_label(name: &str) -> String {
    let mut label: String = name
        .chars()
        .find(|c| c.is_alphanumeric())
        .map(|c| c.to_uppercase().collect())
        .unwrap_or_else(|| "?".to_owned());
    if let Some(digit) = name.chars().skip(1).find(char::is_ascii_digit) {
        label.push(digit);
    }
    label
}

impl Legend {
    /// Takes note of every square and piece on `board`.
    pub fn learn(&mut self, board: &Board) {
        for y in 1..=board.height() {
            for x in 1..=board.width() {
                let Some(cell) = board.cell(x, y) else {
                    continue;
                };
                if !self.kinds.contains(&cell.square) {
                    self.kinds.push(cell.square.clone());
                }
                if let Some(piece) = &cell.piece {
                    self.labels
                        .entry(base_label(&piece.name))
                        .or_default()
                        .insert((piece.name.clone(), piece.team));
                }
            }
        }
    }

    /// The fill character of a square kind.
    pub fn fill(&self, kind: &str) -> char {
        let i = self.kind_index(kind);
        FILLS[i.min(FILLS.len() - 1)]
    }

    /// The square kinds in the order seen.
    pub fn kinds(&self) -> &[String] {
        &self.kinds
    }

    pub fn kind_index(&self, kind: &str) -> usize {
        self.kinds.iter().position(|k| k == kind).unwrap_or(0)
    }

    /// A piece's label; where two teams' pieces share a base label, the
    /// case (and past two teams a number) tells them apart.
    pub fn label(&self, piece: &Piece) -> String {
        let label = base_label(&piece.name);
        let shared = self.labels.get(&label).is_some_and(|users| {
            let teams: BTreeSet<u8> = users.iter().map(|(_, t)| *t).collect();
            teams.len() > 1
        });
        if !shared {
            return label;
        }
        match piece.team {
            1 => label,
            2 => label.to_lowercase(),
            team => format!("{}{team}", label.to_lowercase()),
        }
    }

    /// Each label in use with the piece names and teams it stands for:
    /// `("X", "x", 1)`.
    pub fn pieces(&self) -> Vec<(String, String, u8)> {
        let mut out = Vec::new();
        for users in self.labels.values() {
            for (name, team) in users {
                let piece = Piece {
                    name: name.clone(),
                    team: *team,
                };
                out.push((self.label(&piece), name.clone(), *team));
            }
        }
        out
    }
}

/// What one piece label stands for, in the words both views use:
/// `man: black (team 1, you)`.
pub fn piece_words(name: &str, team: u8, game: &Game) -> String {
    format!("{name}: {}", super::words::team(Some(game), team))
}

/// What one fill stands for: `light square`.
pub fn kind_words(kind: &str) -> String {
    format!("{kind} square")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(name: &str, team: u8) -> Piece {
        Piece {
            name: name.into(),
            team,
        }
    }

    fn board(pieces: &[(u8, &str, &str, u8)]) -> Board {
        let mut b = Board::new("B", 4, 1).unwrap();
        for &(x, kind, name, team) in pieces {
            b.draw_square(kind, x, 1).unwrap();
            if !name.is_empty() {
                b.draw_piece(name, team).unwrap();
            }
        }
        b
    }

    #[test]
    fn labels_from_names() {
        assert_eq!(base_label("x"), "X");
        assert_eq!(base_label("black"), "B");
        assert_eq!(base_label("die536"), "D5");
        assert_eq!(base_label("key111"), "K1");
        assert_eq!(base_label("-"), "?");
    }

    #[test]
    fn case_tells_teams_apart_where_names_do_not_with_colour_or_without() {
        let mut legend = Legend::default();
        legend.learn(&board(&[
            (1, "dark", "man", 1),
            (2, "dark", "man", 2),
            (3, "light", "x", 1),
            (4, "light", "o", 2),
        ]));
        assert_eq!(legend.label(&piece("man", 1)), "M");
        assert_eq!(legend.label(&piece("man", 2)), "m");
        assert_eq!(legend.label(&piece("man", 3)), "m3");
        assert_eq!(legend.label(&piece("o", 2)), "O");
        assert_eq!(legend.fill("dark"), '.');
        assert_eq!(legend.fill("light"), ' ');
        assert_eq!(legend.kinds(), ["dark", "light"]);
        assert_eq!(legend.pieces().len(), 4);
    }
}
