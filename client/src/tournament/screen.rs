//! The tournament screens of the terminal, as text: the list, and the standings (the
//! crosstable as the server aligned it, a key to its cells, the games being played with
//! the command that watches each).

use reversi_client::text::tournament::Listed;

use super::Standings;

/// `rr2` as people say it.
fn format_words(format: &str) -> String {
    match format {
        "rr" => "round-robin".to_owned(),
        "rr2" => "double round-robin".to_owned(),
        other => match other.strip_prefix("swiss:") {
            Some(rounds) => format!("Swiss of {rounds} rounds"),
            None => other.to_owned(),
        },
    }
}

/// Where a tournament is: "running, round 3 of 14", "open for registration".
fn progress(t: &Listed) -> String {
    match t.state.as_str() {
        "running" | "paused" => format!("{}, round {} of {}", t.state, t.round, t.rounds),
        "open" => "open for registration".to_owned(),
        "closed" => "registration closed".to_owned(),
        other => other.to_owned(),
    }
}

/// One line of a tournament: "3  Evening  tictactoe, double round-robin, move:30; 4
/// players; running, round 2 of 6".
fn line(t: &Listed) -> String {
    let players = match t.players {
        1 => "1 player".to_owned(),
        n => format!("{n} players"),
    };
    format!(
        "{:>3}  {}  {}, {}, {}; {players}; {}",
        t.id,
        t.name,
        t.game,
        format_words(&t.format),
        t.time,
        progress(t)
    )
}

/// `reversi tournament list`.
pub fn list(all: &[Listed]) -> String {
    if all.is_empty() {
        return "no tournaments".to_owned();
    }
    all.iter().map(line).collect::<Vec<_>>().join("\n")
}

/// The key to a crosstable's cells (spec/TOURNAMENTS.md §4).
const KEY: &str = "a cell: the opponent's place, f moved first or s second, then the result:\n\
                   1 won, = drew, 0 lost, + or - by forfeit, * playing; bye: sat out";

/// The crosstable's lines no wider than `width`: when its rounds do not all fit, the
/// earliest rounds' columns are left out (the latest tell where the tournament is) and a
/// line says so. The server's text is kept as is when it fits, or cannot be read as a
/// table of `#`, `Name`, `Pts`, rounds `R1`… and tie-breaks.
pub fn fit(crosstable: &[String], width: usize) -> Vec<String> {
    let widest = crosstable
        .iter()
        .map(|l| l.trim_end().len())
        .max()
        .unwrap_or(0);
    let table: Vec<Vec<&str>> = crosstable
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let Some(header) = table.first() else {
        return Vec::new();
    };
    let rounds = header.iter().filter(|w| is_round(w)).count();
    let readable = header.len() >= 3 + rounds && table.iter().all(|r| r.len() == header.len());
    if widest <= width || !readable || rounds == 0 {
        return crosstable.to_vec();
    }
    // Columns as (words, right-aligned width); then rounds dropped from the left to fit.
    let column = |i: usize| table.iter().map(|r| r[i]).collect::<Vec<_>>();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| column(i).iter().map(|w| w.len()).max().unwrap_or(0))
        .collect();
    let line_width = |cols: &[usize]| cols.iter().map(|&i| widths[i] + 2).sum::<usize>();
    let mut shown: Vec<usize> = (0..header.len()).collect();
    let mut dropped = 0;
    while dropped < rounds - 1 && line_width(&shown) > width {
        shown.remove(3);
        dropped += 1;
    }
    let mut lines: Vec<String> = table
        .iter()
        .map(|row| {
            let mut line = String::new();
            for &i in &shown {
                match i {
                    1 => line.push_str(&format!("  {:<w$}", row[i], w = widths[i])),
                    _ => line.push_str(&format!("  {:>w$}", row[i], w = widths[i])),
                }
            }
            line.trim_end().to_owned()
        })
        .collect();
    let rounds = match dropped {
        0 => return lines,
        1 => "round 1".to_owned(),
        n => format!("rounds 1-{n}"),
    };
    lines.push(format!("({rounds} left out: a wider terminal shows them)"));
    lines
}

/// `R12`: a round's column.
fn is_round(word: &str) -> bool {
    word.strip_prefix('R')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// `reversi tournament standings`: the heading, the crosstable (fitted to `width`), its
/// key, and the games being played with the command that watches each on the server at
/// `addr`.
pub fn standings(s: &Standings, addr: &str, width: usize) -> String {
    let t = &s.tournament;
    let mut text = format!(
        "{}: {}, {}, {} ({})\n\n",
        t.name,
        t.game,
        format_words(&t.format),
        t.time,
        progress(t)
    );
    for row in &fit(&s.crosstable, width) {
        text.push_str(row.trim_end());
        text.push('\n');
    }
    text.push('\n');
    text.push_str(KEY);
    let running: Vec<_> = s.games.iter().filter(|g| g.running).collect();
    if !running.is_empty() {
        text.push_str("\n\nplaying now:");
        for g in running {
            text.push_str(&format!(
                "\n  round {} board {}: game {:<5} reversi watch {addr} {}",
                g.round, g.board, g.game, g.game
            ));
        }
    }
    if t.is_finished() {
        text.push_str("\n\nfinished: these are the final standings");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_client::text::tournament::{self, BoardGame, TournamentLine};

    fn listed(line: &str) -> Listed {
        match tournament::parse(line) {
            Some(TournamentLine::Listed(t)) => t,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_standings_screen_of_a_fixed_crosstable() {
        let s = Standings {
            tournament: listed("GAME TOURNAMENT 2 running 3 6 4 reversi rr2 1+1 Club evening"),
            crosstable: vec![
                "  #  Name   Pts    R1    R2    R3    R4    R5    R6   SB".into(),
                "  1  Ann      2   4f1   2s1   3f*     .     .     .    1".into(),
                "  2  Bob      1   3s1   1f0   4s*     .     .     .    0".into(),
                "  3  Cat      0   2f0   4s=   1s*     .     .     .    0".into(),
                "  4  Dan      1   1s0   3f=   2f*     .     .     .  0.5".into(),
            ],
            games: vec![
                BoardGame {
                    round: 2,
                    board: 1,
                    game: 7,
                    running: false,
                    record: Some("h:7".into()),
                },
                BoardGame {
                    round: 3,
                    board: 1,
                    game: 12,
                    running: true,
                    record: None,
                },
                BoardGame {
                    round: 3,
                    board: 2,
                    game: 13,
                    running: true,
                    record: None,
                },
            ],
        };
        let want = "\
Club evening: reversi, double round-robin, 1+1 (running, round 3 of 6)

  #  Name   Pts    R1    R2    R3    R4    R5    R6   SB
  1  Ann      2   4f1   2s1   3f*     .     .     .    1
  2  Bob      1   3s1   1f0   4s*     .     .     .    0
  3  Cat      0   2f0   4s=   1s*     .     .     .    0
  4  Dan      1   1s0   3f=   2f*     .     .     .  0.5

a cell: the opponent's place, f moved first or s second, then the result:
1 won, = drew, 0 lost, + or - by forfeit, * playing; bye: sat out

playing now:
  round 3 board 1: game 12    reversi watch 10.0.0.1:8765 12
  round 3 board 2: game 13    reversi watch 10.0.0.1:8765 13";
        assert_eq!(standings(&s, "10.0.0.1:8765", 80), want);
        let finished = Standings {
            tournament: listed("GAME TOURNAMENT 2 finished 6 6 4 reversi rr2 1+1 Club evening"),
            games: Vec::new(),
            ..s
        };
        let text = standings(&finished, "x", 80);
        assert!(text.starts_with("Club evening: reversi, double round-robin, 1+1 (finished)"));
        assert!(
            text.ends_with("finished: these are the final standings"),
            "{text}"
        );
        assert!(!text.contains("playing now"));
    }

    #[test]
    fn a_table_wider_than_the_terminal_leaves_out_its_earliest_rounds() {
        let table: Vec<String> = [
            "  #  Name       Pts    R1    R2    R3    R4     SB",
            "  1  Search100  3.5   4f1   2f1   3s=   2s1   5.25",
            "  2  Mcts5        1   3s0   1s0   4f1   1f0      1",
        ]
        .map(String::from)
        .into();
        assert_eq!(fit(&table, 60), table, "it fits: as the server wrote it");
        // Narrower columns than the server's are enough: nothing is left out.
        let wide: Vec<String> = table.iter().map(|l| l.replace("  R", "   R")).collect();
        let compact = fit(&wide, 46);
        assert_eq!(compact.len(), 3, "{compact:?}");
        assert_eq!(compact[0], "  #  Name       Pts   R1   R2   R3   R4    SB");
        assert_eq!(
            fit(&table, 39),
            [
                "  #  Name       Pts   R3   R4    SB",
                "  1  Search100  3.5  3s=  2s1  5.25",
                "  2  Mcts5        1  4f1  1f0     1",
                "(rounds 1-2 left out: a wider terminal shows them)",
            ]
        );
        assert_eq!(
            fit(&table, 40)[3],
            "(round 1 left out: a wider terminal shows them)"
        );
        // Never less than the latest round.
        assert_eq!(fit(&table, 10)[0], "  #  Name       Pts   R4    SB");
        assert_eq!(
            fit(&table, 10)[3],
            "(rounds 1-3 left out: a wider terminal shows them)"
        );
    }

    #[test]
    fn the_list_says_each_tournament_in_words() {
        let all = [
            listed("GAME TOURNAMENT 1 open 0 0 3 draughts swiss:5 5+3 Spring cup"),
            listed("GAME TOURNAMENT 12 running 2 7 8 reversi rr 30s+1 League"),
        ];
        assert_eq!(
            list(&all),
            "  1  Spring cup  draughts, Swiss of 5 rounds, 5+3; 3 players; open for registration\n \
             12  League  reversi, round-robin, 30s+1; 8 players; running, round 2 of 7"
        );
        assert_eq!(list(&[]), "no tournaments");
    }
}
