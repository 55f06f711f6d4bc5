//! What the server serves: its games, each one's session settings, and how many
//! players make a team; with the command-line options that choose them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{ArgAction, Args};
use reversi_games::registry::{self, GameOption, Module};

use crate::session::referee::Rules;
use crate::session::{SessionConfig, ViewerLimits};
use crate::terms::{Bounds, TimeControl};

/// The games served, and each game's session settings.
pub struct Games {
    pub modules: Vec<&'static Module>,
    pub sessions: HashMap<&'static str, SessionConfig>,
    /// Players per team (seed 000's `-p N`): team mates take turns.
    pub team_size: usize,
    /// What a challenger may choose for a game's time control (`--min-time`, `--max-time`).
    bounds: Bounds,
}

// The supervisor's challenge check (`GAME INVITE … time=`) asks these.
impl Games {
    /// The time control `game` is played on unless a challenge chose another (the
    /// public queue's): `None` if the game is not served.
    pub fn default_control(&self, game: &str) -> Option<TimeControl> {
        self.sessions.get(game).map(|s| s.rules.control)
    }

    /// What a challenger may choose (the operator's defaults are not bounded).
    pub fn bounds(&self) -> Bounds {
        self.bounds
    }
}

#[derive(Debug, Clone, Args)]
#[group(id = "game_options")]
pub struct Options {
    /// Games to serve, comma-separated (default: every game built in).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = game_names())]
    pub games: Vec<String>,

    /// Players per team: team mates take turns (seed 000's `-p N`).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=8))]
    pub team_size: u64,

    /// No automatic rematch, even for games that have one by default (draughts).
    #[arg(long)]
    pub no_rematch: bool,

    // Its help is the games' own words: each game module declares its parameters.
    #[arg(long = "game-option", value_name = "GAME.KEY=VALUE", action = ArgAction::Append,
          value_parser = registry::game_option, help = GAME_OPTION_HELP,
          long_help = game_options_help())]
    pub game_option: Vec<GameOption>,

    /// Seconds a player has to make a legal move after turn (0 = no limit): the time control
    /// of every turn-based game --time-control does not set (move:SECS).
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    pub move_timeout: u64,

    /// A game's default time control, as [GAME=]SPEC: 5+3 (5 minutes, 3 s a move), 30s+2,
    /// move:60, or none; without GAME, every turn-based game's (TEXT-PROTOCOL.md §8). May be
    /// given several times; a game's own line wins over one for every game.
    #[arg(long, value_name = "[GAME=]SPEC", action = ArgAction::Append, value_parser = game_control)]
    pub time_control: Vec<GameControl>,

    /// Least time a challenger may choose, in seconds of base + 40 × increment.
    #[arg(long, value_name = "SECS", default_value_t = 15)]
    pub min_time: u64,

    /// Most time a challenger may choose, in seconds of base + 40 × increment.
    #[arg(long, value_name = "SECS", default_value_t = 10_800)]
    pub max_time: u64,

    /// Most network round trip, in milliseconds, credited to a move (0: none): measured per
    /// connection, through a quota (TEXT-PROTOCOL.md §8).
    #[arg(long, value_name = "MS", default_value_t = 500)]
    pub lag_allowance: u64,

    /// Seconds after a game in which its players may offer a rematch (0: no offers;
    /// TEXT-PROTOCOL.md §6.4).
    #[arg(long, value_name = "SECS", default_value_t = 20)]
    pub rematch_window: u64,

    /// Seconds a player has for its first move of a game (0 = the move clock). When it runs
    /// out the game never started: it is aborted, not scored, and counts as abandoned.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub first_move_timeout: u64,

    /// Most viewers one game takes; more are refused (TEXT-PROTOCOL.md §7).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub max_viewers: usize,

    /// Most viewers of one game from one address (an IPv6 /64); more are refused.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub max_viewers_per_address: usize,

    /// Give the first team (black, X) to the client that queued first (default: drawn at random
    /// in games that draw them).
    #[arg(long)]
    pub fixed_colours: bool,

    /// Seconds a text or WebSocket player's seat is held after its connection drops, for it to
    /// come back with its resume token (0: a drop loses at once; at most a day).
    #[arg(long, value_name = "SECS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(0..=86_400))]
    pub grace: u64,
}

const GAME_OPTION_HELP: &str = "A value for a game's parameter, as GAME.KEY=VALUE; may be given \
     several times (the last value of a key counts; --help lists every game's parameters)";

/// `--game-option`'s long help: the short one, then every game's parameters.
fn game_options_help() -> String {
    format!("{GAME_OPTION_HELP}\n{}", registry::game_options_help())
}

/// The game names `--games` accepts, with each game's title as its help.
fn game_names() -> clap::builder::PossibleValuesParser {
    registry::all()
        .iter()
        .map(|m| clap::builder::PossibleValue::new(m.info.name).help(m.info.title))
        .collect::<Vec<_>>()
        .into()
}

/// One `--time-control`: a game's default control, or (`game` `None`) every game's.
#[derive(Debug, Clone, Copy)]
pub struct GameControl {
    pub game: Option<&'static str>,
    /// A `move:` control's first-move limit is set from `--first-move-timeout` when used.
    pub control: TimeControl,
}

/// Reads `[GAME=]SPEC`.
fn game_control(arg: &str) -> Result<GameControl, String> {
    let (game, spec) = match arg.split_once('=') {
        Some((name, spec)) => {
            let module = registry::find(name).ok_or_else(|| format!("no game {name:?}"))?;
            if module.info.realtime {
                return Err(format!("{name} is played in real time: it has no clock"));
            }
            (Some(module.info.name), spec)
        }
        None => (None, arg),
    };
    let control = TimeControl::parse(spec, Duration::ZERO).map_err(|e| e.to_string())?;
    Ok(GameControl { game, control })
}

/// Where sessions keep what they write.
#[derive(Debug, Clone, Copy)]
pub struct Dirs<'a> {
    /// Each finished game's record (`--record-dir`).
    pub records: Option<&'a Path>,
    /// Journals of running games.
    pub journals: &'a Path,
}

impl Options {
    /// The games to serve with each one's session settings.
    pub fn games(&self, dirs: Dirs<'_>) -> Games {
        let modules: Vec<&'static Module> = registry::all()
            .iter()
            .filter(|m| self.games.is_empty() || self.games.iter().any(|g| g == m.info.name))
            .collect();
        let sessions = modules
            .iter()
            .map(|m| (m.info.name, self.session(m, dirs)))
            .collect();
        Games {
            modules,
            sessions,
            team_size: usize::try_from(self.team_size).unwrap_or(1),
            bounds: Bounds {
                min_total: Duration::from_secs(self.min_time),
                max_total: Duration::from_secs(self.max_time),
            },
        }
    }

    /// `module`'s default control: its own `--time-control`, else the one for every game,
    /// else the move clock (`--move-timeout`); real-time games have none.
    fn control(&self, module: &Module) -> TimeControl {
        if module.info.realtime {
            return TimeControl::None;
        }
        let first = Duration::from_secs(self.first_move_timeout);
        let own = self.time_control.iter().rev();
        let chosen = own
            .clone()
            .find(|c| c.game == Some(module.info.name))
            .or_else(|| own.clone().find(|c| c.game.is_none()));
        match chosen.map(|c| c.control) {
            Some(TimeControl::PerMove { limit, .. }) if !limit.is_zero() => {
                TimeControl::PerMove { limit, first }
            }
            Some(TimeControl::PerMove { .. }) => TimeControl::None,
            Some(control) => control,
            None if self.move_timeout == 0 => TimeControl::None,
            None => TimeControl::PerMove {
                limit: Duration::from_secs(self.move_timeout),
                first,
            },
        }
    }

    /// What every session of `module` is given.
    pub fn session(&self, module: &Module, dirs: Dirs<'_>) -> SessionConfig {
        let seconds = |secs: u64| (secs > 0).then(|| Duration::from_secs(secs));
        SessionConfig {
            rules: Rules {
                control: self.control(module),
                first_move_timeout: seconds(self.first_move_timeout),
                fixed_teams: self.fixed_colours,
                rematch: module.info.rematch && !self.no_rematch,
                lag_allowance: Duration::from_millis(self.lag_allowance),
                rematch_window: seconds(self.rematch_window),
            },
            record_dir: dirs.records.map(PathBuf::from),
            settings: module.settings(&self.game_option),
            journal_dir: dirs.journals.to_owned(),
            viewers: ViewerLimits {
                per_game: self.max_viewers,
                per_address: self.max_viewers_per_address,
            },
            // The supervisor's handshake timeout: set with it (config.rs).
            silent_first_move_timeout: None,
            grace: seconds(self.grace),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        options: Options,
    }

    fn options(args: &[&str]) -> Options {
        Cli::parse_from(std::iter::once("reversid").chain(args.iter().copied())).options
    }

    fn dirs() -> Dirs<'static> {
        Dirs {
            records: None,
            journals: Path::new("/tmp"),
        }
    }

    fn reversi() -> &'static Module {
        registry::find("reversi").unwrap()
    }

    #[test]
    fn defaults_follow_the_spec_and_zero_disables_the_clock() {
        let rules = options(&[]).session(reversi(), dirs()).rules;
        assert_eq!(
            rules.control,
            TimeControl::PerMove {
                limit: Duration::from_secs(600),
                first: Duration::from_secs(30)
            }
        );
        assert_eq!(rules.lag_allowance, Duration::from_millis(500));
        assert_eq!(rules.rematch_window, Some(Duration::from_secs(20)));
        assert_eq!(
            options(&[]).games(dirs()).modules.len(),
            registry::all().len()
        );
        let untimed = options(&["--move-timeout", "0"]).session(reversi(), dirs());
        assert_eq!(untimed.rules.control, TimeControl::None);
    }

    #[test]
    fn time_controls_are_set_per_game_or_for_every_game() {
        let fischer = |b, i| TimeControl::Fischer {
            base: Duration::from_secs(b),
            increment: Duration::from_secs(i),
        };
        let o = options(&[
            "--time-control",
            "5+3",
            "--time-control",
            "tictactoe=10s+0",
            "--min-time",
            "60",
        ]);
        let games = o.games(dirs());
        assert_eq!(games.default_control("reversi"), Some(fischer(300, 3)));
        assert_eq!(games.default_control("tictactoe"), Some(fischer(10, 0)));
        assert_eq!(games.default_control("foxes"), Some(TimeControl::None));
        assert_eq!(games.default_control("chess"), None);
        assert_eq!(games.bounds().min_total, Duration::from_secs(60));
        assert_eq!(games.bounds().max_total, Duration::from_secs(10_800));
        let per_move = options(&["--time-control", "draughts=move:60"]);
        let draughts = registry::find("draughts").unwrap();
        assert_eq!(
            per_move.session(draughts, dirs()).rules.control,
            TimeControl::PerMove {
                limit: Duration::from_secs(60),
                first: Duration::from_secs(30)
            }
        );
        for bad in ["chess=5+3", "foxes=5+3", "5:3", "reversi=soon"] {
            let why = Cli::try_parse_from(["reversid", "--time-control", bad])
                .unwrap_err()
                .to_string();
            assert!(why.contains("--time-control"), "{bad}: {why}");
        }
    }

    #[test]
    fn seats_are_held_a_minute_unless_the_grace_is_zero() {
        let grace = |args: &[&str]| options(args).session(reversi(), dirs()).grace;
        assert_eq!(grace(&[]), Some(Duration::from_secs(60)));
        assert_eq!(grace(&["--grace", "1"]), Some(Duration::from_secs(1)));
        assert_eq!(grace(&["--grace", "0"]), None);
        assert!(Cli::try_parse_from(["reversid", "--grace", "86401"]).is_err());
    }

    #[test]
    fn games_are_chosen_by_name() {
        let games = options(&["--games", "tictactoe"]).games(dirs());
        let names: Vec<&str> = games.modules.iter().map(|m| m.info.name).collect();
        assert_eq!(names, ["tictactoe"]);
        assert!(Cli::try_parse_from(["reversid", "--games", "chess"]).is_err());
    }

    #[test]
    fn game_options_reach_their_games_sessions_only() {
        let foxes = registry::find("foxes").unwrap();
        let tide = foxes.param("tide-ms").unwrap();
        let settings = |o: &Options, m| o.session(m, dirs()).settings;
        assert_eq!(
            settings(&options(&[]), foxes).params.get(tide),
            tide.default
        );
        let quick = options(&[
            "--game-option",
            "foxes.tide-ms=300",
            "--game-option",
            "foxes.cooldown-ms=20",
        ]);
        assert_eq!(settings(&quick, foxes).params.get(tide), 300);
        assert_eq!(settings(&quick, reversi()), Default::default());
        for bad in [
            "foxes.tide-ms=0",
            "foxes.tide=1",
            "chess.tide-ms=1",
            "foxes",
        ] {
            let why = Cli::try_parse_from(["reversid", "--game-option", bad])
                .unwrap_err()
                .to_string();
            assert!(why.contains("--game-option"), "{bad}: {why}");
        }
    }
}
