//! `reversi match`: the engine against a GTP engine (gtp-rhino, say), from
//! varied balanced openings, each played twice with colours swapped.

use reversi_engine::player::{Player, PlayerConfig};
use reversi_engine::{Game, Outcome, Side, Square};
use reversi_pdu::{Colour, Winner};

use crate::bot::{game_line, summary, BotOptions, Tally};
use crate::gtp::Gtp;
use crate::state::{exit, GameResult};

/// Plies every opening has.
const OPENING_PLIES: usize = 4;

/// The `count` most balanced openings of [`OPENING_PLIES`] plies starting
/// with f5 (the other first moves are its mirror images), judged by a
/// shallow search; most balanced first, ties in transcript order.
pub fn openings(count: usize) -> Vec<Vec<Square>> {
    let mut lines = Vec::new();
    extend(&Game::new(), &mut Vec::new(), &mut lines);
    let mut judge = Player::new(PlayerConfig {
        level: 4,
        ..PlayerConfig::default()
    });
    let mut scored: Vec<(i32, String, Vec<Square>)> = lines
        .into_iter()
        .filter(|line| line.first().map(Square::to_string).as_deref() == Some("f5"))
        .map(|line| {
            let mut game = Game::new();
            for &square in &line {
                let _ = game.play(square);
            }
            let score = judge.choose_with_info(&game).score.abs();
            (score, game.transcript(), line)
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .map(|(_, _, line)| line)
        .cycle()
        .take(count)
        .collect()
}

fn extend(game: &Game, line: &mut Vec<Square>, out: &mut Vec<Vec<Square>>) {
    if line.len() == OPENING_PLIES {
        out.push(line.clone());
        return;
    }
    for square in game.legal_moves() {
        let mut next = game.clone();
        if next.play(square).is_ok() {
            line.push(square);
            extend(&next, line, out);
            line.pop();
        }
    }
}

/// Plays `games` games against the GTP engine started by `gtp_command`.
pub fn run(gtp_command: &str, games: u32, options: &BotOptions) -> u8 {
    let mut gtp = match Gtp::start(gtp_command) {
        Ok(gtp) => gtp,
        Err(err) => {
            eprintln!("reversi match: {err}");
            return exit::CONNECT_FAILED;
        }
    };
    let pairs = (games as usize).div_ceil(2);
    let lines = openings(pairs);
    let mut tally = Tally::default();
    for number in 1..=games {
        let index = (number as usize - 1) / 2;
        let ours = if number % 2 == 1 {
            Side::Black
        } else {
            Side::White
        };
        let mut player = Player::new(PlayerConfig {
            level: options.level,
            move_time: options.move_time,
            seed: options.seed.wrapping_add(u64::from(number)),
            opening_variety: false,
        });
        let Some(opening) = lines.get(index) else {
            eprintln!("reversi match: no opening for game {number}");
            return exit::SERVER_GONE;
        };
        match play_game(&mut gtp, &mut player, opening, ours) {
            Ok(result) => {
                let opening: String = opening.iter().map(Square::to_string).collect();
                println!("{} (opening {opening})", game_line(number, &result));
                tally.add(&result);
            }
            Err(err) => {
                eprintln!("reversi match: game {number}: {err}");
                if tally.games() > 0 {
                    println!("{}", summary(&tally));
                }
                return exit::SERVER_GONE;
            }
        }
    }
    println!("against {gtp_command}: {}", summary(&tally));
    exit::OK
}

/// One game from `opening`, the engine playing `ours`.
fn play_game(
    gtp: &mut Gtp,
    player: &mut Player,
    opening: &[Square],
    ours: Side,
) -> Result<GameResult, String> {
    gtp.clear_board()?;
    let mut game = Game::new();
    for &square in opening {
        let side = game.side_to_move().ok_or("the opening ends the game")?;
        game.play(square).map_err(|e| e.to_string())?;
        gtp.play(side, square)?;
    }
    while let Some(side) = game.side_to_move() {
        if side == ours {
            let square = player.choose(&game).ok_or("our engine found no move")?;
            game.play(square).map_err(|e| format!("our engine: {e}"))?;
            gtp.play(side, square)?;
        } else {
            let square = gtp
                .genmove(side)?
                .ok_or_else(|| format!("the GTP engine passed with legal moves as {side}"))?;
            game.play(square)
                .map_err(|e| format!("the GTP engine played {square} as {side}: {e}"))?;
        }
    }
    let winner = match game.outcome() {
        Some(Outcome::Win(side)) => Winner::from(Colour::from(side)),
        _ => Winner::Draw,
    };
    Ok(GameResult {
        me: Colour::from(ours),
        winner,
        mine: game.count(ours),
        theirs: game.count(ours.opponent()),
        moves: game.moves().len(),
        finished: true,
        transcript: game.transcript(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_are_legal_distinct_and_start_with_f5() {
        let lines = openings(10);
        assert_eq!(lines.len(), 10);
        for line in &lines {
            assert_eq!(line.len(), OPENING_PLIES);
            assert_eq!(line[0].to_string(), "f5");
            let mut game = Game::new();
            for &square in line {
                game.play(square).unwrap();
            }
        }
        let mut unique = lines.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), lines.len());
    }
}
