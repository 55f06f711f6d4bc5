//! What the server serves: its games, each one's session settings, and how many
//! players make a team; with the command-line options that choose them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{ArgAction, Args};
use reversi_games::registry::{self, GameOption, Module};

use crate::session::referee::Rules;
use crate::session::{SessionConfig, ViewerLimits};

/// The games served, and each game's session settings.
pub struct Games {
    pub modules: Vec<&'static Module>,
    pub sessions: HashMap<&'static str, SessionConfig>,
    /// Players per team (seed 000's `-p N`): team mates take turns.
    pub team_size: usize,
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

    /// Seconds a player has to make a legal move after turn (0 = no limit).
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    pub move_timeout: u64,

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
        }
    }

    /// What every session of `module` is given.
    pub fn session(&self, module: &Module, dirs: Dirs<'_>) -> SessionConfig {
        let seconds = |secs: u64| (secs > 0).then(|| Duration::from_secs(secs));
        SessionConfig {
            rules: Rules {
                move_timeout: seconds(self.move_timeout),
                first_move_timeout: seconds(self.first_move_timeout),
                fixed_teams: self.fixed_colours,
                rematch: module.info.rematch && !self.no_rematch,
            },
            record_dir: dirs.records.map(PathBuf::from),
            settings: module.settings(&self.game_option),
            journal_dir: dirs.journals.to_owned(),
            // Set with the store's options (config.rs).
            keep_journals: false,
            viewers: ViewerLimits {
                per_game: self.max_viewers,
                per_address: self.max_viewers_per_address,
            },
            // The supervisor's handshake timeout: set with it (config.rs).
            silent_first_move_timeout: None,
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
        assert_eq!(rules.move_timeout, Some(Duration::from_secs(600)));
        assert_eq!(
            options(&[]).games(dirs()).modules.len(),
            registry::all().len()
        );
        let untimed = options(&["--move-timeout", "0"]).session(reversi(), dirs());
        assert_eq!(untimed.rules.move_timeout, None);
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
