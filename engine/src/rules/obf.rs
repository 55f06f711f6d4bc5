//! OBF, the line format of endgame test sets such as the FFO positions: a
//! board string and the side to move, then `;` and, optionally, moves with
//! their exact scores (`A2:+38;`). Lines starting with `%` are comments.

use crate::rules::notation::ParseError;
use crate::{Game, Square};

/// One position of a test set.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ObfPosition {
    /// The position.
    pub game: Game,
    /// Moves annotated with their exact final disc difference for the side
    /// to move, in file order (often only the best ones).
    pub scored: Vec<(Square, i32)>,
}

impl ObfPosition {
    /// Parses one line: `BOARD SIDE`, then optionally `;` and
    /// `MOVE:SCORE;` annotations.
    pub fn parse(line: &str) -> Result<ObfPosition, ParseError> {
        let (position, annotations) = line.split_once(';').unwrap_or((line, ""));
        let game = Game::from_position(position)?;
        let scored = annotations
            .split(';')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(scored_move)
            .collect::<Result<_, _>>()?;
        Ok(ObfPosition { game, scored })
    }

    /// The highest annotated score, if any move is annotated.
    pub fn best_score(&self) -> Option<i32> {
        self.scored.iter().map(|&(_, score)| score).max()
    }

    /// The annotated moves reaching [`ObfPosition::best_score`].
    pub fn best_moves(&self) -> Vec<Square> {
        let best = self.best_score();
        self.scored
            .iter()
            .filter(|&&(_, score)| Some(score) == best)
            .map(|&(sq, _)| sq)
            .collect()
    }
}

/// `A2:+38` as a square and a score.
fn scored_move(text: &str) -> Result<(Square, i32), ParseError> {
    let bad = || ParseError::ScoredMove(text.to_owned());
    let (sq, score) = text.split_once(':').ok_or_else(bad)?;
    let sq: Square = sq.trim().parse().map_err(|_| bad())?;
    let score: i32 = score.trim().parse().map_err(|_| bad())?;
    if !(-64..=64).contains(&score) {
        return Err(bad());
    }
    Ok((sq, score))
}

/// The positions of an OBF file with their 1-based line numbers, skipping
/// blank lines and `%` comments.
pub fn parse_obf(text: &str) -> Vec<(usize, Result<ObfPosition, ParseError>)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let line = line.trim();
            !line.is_empty() && !line.starts_with('%')
        })
        .map(|(i, line)| (i + 1, ObfPosition::parse(line)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_with_and_without_scores() {
        let start = Game::new().position();
        let p = ObfPosition::parse(&format!("{start}; D3:+0; C4:-2 ;")).unwrap();
        assert_eq!(p.game, Game::new());
        assert_eq!(p.best_score(), Some(0));
        assert_eq!(p.best_moves(), ["d3".parse::<Square>().unwrap()]);
        let bare = ObfPosition::parse(&start).unwrap();
        assert_eq!((bare.best_score(), bare.scored.len()), (None, 0));
        let file = format!("% a comment\n\n{start};\n{start}; Z9:+1;\n");
        let parsed = parse_obf(&file);
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0].0, 3);
        assert!(parsed[0].1.is_ok());
        let err = parsed[1].1.as_ref().unwrap_err().to_string();
        assert!(err.contains("\"Z9:+1\""), "{err}");
        for bad in ["A2", "A2:x", "A2:+65", ":3"] {
            assert!(
                ObfPosition::parse(&format!("{start}; {bad};")).is_err(),
                "{bad}"
            );
        }
    }
}
