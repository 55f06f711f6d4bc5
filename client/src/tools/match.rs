//! `reversi match`: the engine against a GTP engine (gtp-rhino, say). Each
//! opening is played twice, colours swapped; the openings are the most
//! balanced short lines, or random ones (`--random-opening`).

use std::time::{Duration, Instant};

use reversi_engine::{Game, Player, PlayerConfig, Side, Square};

use super::exit;
use super::gtp::{Gtp, GtpError};
use crate::cli::EngineArgs;

/// `reversi match` arguments.
#[derive(Debug, clap::Args)]
pub struct MatchArgs {
    /// The GTP engine's command line (split on spaces).
    #[arg(long, value_name = "CMD")]
    pub gtp: String,
    /// Games to play: each opening twice, colours swapped.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub games: u32,
    /// Open each pair of games with this many random moves (chosen by
    /// --seed) instead of the most balanced four-move lines.
    #[arg(long, value_name = "PLIES", value_parser = clap::value_parser!(u32).range(0..=30))]
    pub random_opening: Option<u32>,
    /// Give up when the GTP engine takes longer than this to answer one
    /// command, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 600.0)]
    pub gtp_timeout: f64,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Plies of the balanced openings.
const OPENING_PLIES: usize = 4;

/// What the match needs of the other side (a [`Gtp`] engine; a fake one
/// in tests).
pub trait Opponent {
    /// Starts a new game from the initial position.
    fn new_game(&mut self) -> Result<(), GtpError>;
    /// `side` played `square`, or passed (`None`).
    fn play(&mut self, side: Side, square: Option<Square>) -> Result<(), GtpError>;
    /// The opponent's move for `side`; `None` for a pass.
    fn genmove(&mut self, side: Side) -> Result<Option<Square>, GtpError>;
}

impl Opponent for Gtp {
    fn new_game(&mut self) -> Result<(), GtpError> {
        self.clear_board()
    }
    fn play(&mut self, side: Side, square: Option<Square>) -> Result<(), GtpError> {
        Gtp::play(self, side, square)
    }
    fn genmove(&mut self, side: Side) -> Result<Option<Square>, GtpError> {
        Gtp::genmove(self, side)
    }
}

/// The `count` most balanced openings of [`OPENING_PLIES`] plies starting
/// with f5 (the other first moves are its mirror images), judged by a
/// shallow search; most balanced first, ties in transcript order.
pub fn balanced_openings(count: usize) -> Vec<Vec<Square>> {
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
            let game = replay(&line);
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

/// Every line of [`OPENING_PLIES`] legal moves from `game`.
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

/// The game after `line` (legal moves, by construction).
fn replay(line: &[Square]) -> Game {
    let mut game = Game::new();
    for &square in line {
        let _ = game.play(square);
    }
    game
}

/// `plies` random legal moves from the start (fewer if the game ends),
/// the same for the same `seed`.
pub fn random_opening(plies: u32, seed: u64) -> Vec<Square> {
    let mut game = Game::new();
    let mut state = seed;
    for _ in 0..plies {
        let moves: Vec<Square> = game.legal_moves().collect();
        if moves.is_empty() {
            break;
        }
        state = splitmix(state);
        let _ = game.play(moves[(state % moves.len() as u64) as usize]);
    }
    game.moves().to_vec()
}

/// SplitMix64: the next value of a well-spread sequence.
fn splitmix(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One finished game, from our engine's side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// Our colour.
    pub ours: Side,
    /// Our discs and theirs at the end.
    pub discs: (u32, u32),
    /// The whole game.
    pub transcript: String,
    /// Moves (passes not counted).
    pub moves: usize,
    /// Our thinking time: total, longest, and our number of moves.
    pub thinking: Thinking,
}

/// Our engine's time per move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Thinking {
    /// All our moves together.
    pub total: Duration,
    /// The longest move.
    pub max: Duration,
    /// Moves we made.
    pub moves: u32,
}

impl Thinking {
    fn add(&mut self, spent: Duration) {
        self.total += spent;
        self.max = self.max.max(spent);
        self.moves += 1;
    }

    fn merge(&mut self, other: Thinking) {
        self.total += other.total;
        self.max = self.max.max(other.max);
        self.moves += other.moves;
    }

    /// "our moves avg 120 ms, max 390 ms".
    fn describe(&self) -> String {
        let avg = self.total.as_millis() / u128::from(self.moves.max(1));
        format!("our moves avg {avg} ms, max {} ms", self.max.as_millis())
    }
}

/// Totals over the games played so far.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    won: u32,
    drawn: u32,
    lost: u32,
    discs: (u32, u32),
    thinking: Thinking,
}

impl Tally {
    fn add(&mut self, game: &Played) {
        match game.discs.0.cmp(&game.discs.1) {
            std::cmp::Ordering::Greater => self.won += 1,
            std::cmp::Ordering::Equal => self.drawn += 1,
            std::cmp::Ordering::Less => self.lost += 1,
        }
        self.discs.0 += game.discs.0;
        self.discs.1 += game.discs.1;
        self.thinking.merge(game.thinking);
    }

    fn games(&self) -> u32 {
        self.won + self.drawn + self.lost
    }

    /// "2 games: 1 won, 0 drawn, 1 lost; 50.0% of the points; discs 64-64; ...".
    fn summary(&self) -> String {
        let points = f64::from(self.won) + f64::from(self.drawn) / 2.0;
        format!(
            "{} game{}: {} won, {} drawn, {} lost; {:.1}% of the points; discs {}-{}; {}",
            self.games(),
            if self.games() == 1 { "" } else { "s" },
            self.won,
            self.drawn,
            self.lost,
            points * 100.0 / f64::from(self.games().max(1)),
            self.discs.0,
            self.discs.1,
            self.thinking.describe()
        )
    }
}

/// "game 3: white, won 40-24 in 58 moves (opening f5d6c3d3; our moves ...)".
fn game_line(number: u32, game: &Played, opening: &[Square]) -> String {
    let verdict = match game.discs.0.cmp(&game.discs.1) {
        std::cmp::Ordering::Greater => "won",
        std::cmp::Ordering::Equal => "drew",
        std::cmp::Ordering::Less => "lost",
    };
    let opening: String = opening.iter().map(Square::to_string).collect();
    // The winner's discs first, as in every score.
    let (high, low) = (
        game.discs.0.max(game.discs.1),
        game.discs.0.min(game.discs.1),
    );
    format!(
        "game {number}: {}, {verdict} {high}-{low} in {} moves (opening {opening}; {}): {}",
        game.ours,
        game.moves,
        game.thinking.describe(),
        game.transcript
    )
}

/// Plays the match the arguments describe.
pub fn run(args: &MatchArgs) -> u8 {
    let timeout = Duration::try_from_secs_f64(args.gtp_timeout).unwrap_or(Duration::MAX);
    let mut gtp = match Gtp::start(&args.gtp, timeout) {
        Ok(gtp) => gtp,
        Err(err) => {
            eprintln!("reversi match: {err}");
            return exit::BAD_INPUT;
        }
    };
    let pairs = args.games.div_ceil(2);
    let openings: Vec<Vec<Square>> = match args.random_opening {
        Some(plies) => (0..pairs)
            .map(|pair| random_opening(plies, args.engine.seed ^ u64::from(pair) << 32))
            .collect(),
        None => balanced_openings(pairs as usize),
    };
    let mut tally = Tally::default();
    for number in 1..=args.games {
        let opening = &openings[(number as usize - 1) / 2];
        let ours = if number % 2 == 1 {
            Side::Black
        } else {
            Side::White
        };
        let mut player = Player::new(PlayerConfig {
            level: args.engine.level,
            move_time: args.engine.move_time.map(Duration::from_millis),
            seed: args.engine.seed.wrapping_add(u64::from(number)),
            opening_variety: false,
        });
        match play_game(&mut gtp, &mut player, opening, ours) {
            Ok(game) => {
                println!("{}", game_line(number, &game, opening));
                tally.add(&game);
            }
            Err(err) => {
                eprintln!("reversi match: game {number}: {err}");
                if tally.games() > 0 {
                    println!("{}", tally.summary());
                }
                return exit::FAILED;
            }
        }
    }
    println!("against {}: {}", args.gtp, tally.summary());
    exit::OK
}

/// One game from `opening`, our engine playing `ours`. Every pass is told
/// to the opponent; one that passes by itself (GRhino does) may refuse it.
pub fn play_game(
    opponent: &mut impl Opponent,
    player: &mut Player,
    opening: &[Square],
    ours: Side,
) -> Result<Played, GtpError> {
    opponent.new_game()?;
    let mut game = Game::new();
    let mut thinking = Thinking::default();
    let mut ply = 0;
    while let Some(side) = game.side_to_move() {
        // Whether the opponent must be told: it knows the moves it chose.
        let (square, tell) = if let Some(&square) = opening.get(ply) {
            (square, true)
        } else if side == ours {
            let started = Instant::now();
            let square = player.choose(&game).ok_or("our engine found no move")?;
            thinking.add(started.elapsed());
            (square, true)
        } else {
            let square = opponent
                .genmove(side)?
                .ok_or_else(|| format!("the GTP engine passed as {side} with legal moves"))?;
            (square, false)
        };
        let played = game
            .play(square)
            .map_err(|err| format!("{square} by {side} after {:?}: {err}", game.transcript()))?;
        ply += 1;
        if tell {
            opponent.play(side, Some(square))?;
        }
        if played.next == Some(side) {
            let passer = side.opponent();
            if let Err(err) = opponent.play(passer, None) {
                log::debug!("the GTP engine refused the pass of {passer}: {err}");
            }
        }
    }
    Ok(Played {
        ours,
        discs: (game.count(ours), game.count(ours.opponent())),
        transcript: game.transcript(),
        moves: game.moves().len(),
        thinking,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_game_puts_the_winner_first() {
        let game = Played {
            ours: Side::White,
            discs: (20, 44),
            transcript: "f5".into(),
            moves: 60,
            thinking: Thinking::default(),
        };
        let line = game_line(4, &game, &[]);
        assert!(
            line.starts_with("game 4: white, lost 44-20 in 60 moves"),
            "{line}"
        );
    }

    #[test]
    fn openings_are_legal_distinct_and_start_with_f5() {
        let lines = balanced_openings(10);
        assert_eq!(lines.len(), 10);
        for line in &lines {
            assert_eq!(line.len(), OPENING_PLIES);
            assert_eq!(line[0].to_string(), "f5");
            assert_eq!(replay(line).moves(), &line[..]);
        }
        let mut unique = lines.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), lines.len());
    }

    #[test]
    fn random_openings_vary_with_the_seed_and_repeat_with_it() {
        let openings: Vec<Vec<Square>> = (0..20).map(|seed| random_opening(8, seed)).collect();
        for line in &openings {
            assert_eq!(line.len(), 8);
            assert_eq!(replay(line).moves(), &line[..]);
        }
        let mut unique = openings.clone();
        unique.sort();
        unique.dedup();
        assert!(unique.len() >= 18, "{} distinct of 20", unique.len());
        assert_eq!(random_opening(8, 3), openings[3]);
        assert!(random_opening(0, 1).is_empty());
    }

    /// A GTP engine stand-in that plays its first legal move and records
    /// every command, refusing passes like GRhino.
    #[derive(Default)]
    struct Recorder {
        game: Game,
        commands: Vec<String>,
    }

    impl Opponent for Recorder {
        fn new_game(&mut self) -> Result<(), GtpError> {
            self.game = Game::new();
            self.commands.push("clear_board".into());
            Ok(())
        }
        fn play(&mut self, side: Side, square: Option<Square>) -> Result<(), GtpError> {
            let vertex = square.map_or("pass".into(), |sq| sq.to_string());
            self.commands.push(format!("play {side} {vertex}"));
            match square {
                Some(sq) => self.game.play(sq).map(drop).map_err(|e| e.to_string()),
                None => Err("syntax error".into()),
            }
        }
        fn genmove(&mut self, side: Side) -> Result<Option<Square>, GtpError> {
            assert_eq!(self.game.side_to_move(), Some(side));
            let sq = self.game.legal_moves().next();
            self.commands.push(format!("genmove {side}"));
            if let Some(sq) = sq {
                self.game.play(sq).map_err(|e| e.to_string())?;
            }
            Ok(sq)
        }
    }

    #[test]
    fn passes_are_sent_and_both_sides_stay_in_step() {
        // After this opening black has no move: black passes at once.
        let opening: Vec<Square> = ["d3", "c3", "e6", "d2", "d1", "e1", "b2", "c1"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        for ours in [Side::Black, Side::White] {
            let mut opponent = Recorder::default();
            let mut player = Player::new(PlayerConfig {
                level: 2,
                ..PlayerConfig::default()
            });
            let played = play_game(&mut opponent, &mut player, &opening, ours).unwrap();
            let at = opponent
                .commands
                .iter()
                .position(|c| c == "play white c1")
                .unwrap();
            assert_eq!(
                opponent.commands[at + 1],
                "play black pass",
                "{:?}",
                opponent.commands
            );
            assert!(played.transcript.starts_with("d3c3e6d2d1e1b2c1"));
            // Every real move reached the opponent: its game is ours.
            assert_eq!(opponent.game.transcript(), played.transcript);
            assert_eq!(
                played.discs.0 + played.discs.1,
                opponent.game.count(Side::Black) + opponent.game.count(Side::White)
            );
        }
    }
}
