//! The command line (clap derive).

use clap::{Parser, Subcommand};

/// The address `play`, `bot` and friends connect to by default (the
/// default port of [`reversi_client::connection::DEFAULT_PORT`]).
pub const DEFAULT_ADDR: &str = "127.0.0.1:8765";

/// Reversi: play on a reversid server, let the engine play, or use the engine's tools.
#[derive(Debug, Parser)]
#[command(name = "reversi", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Cmd,

    /// Connect over TLS, checking the server's certificate against the public
    /// certificate authorities built into this client (spec/TLS.md).
    #[arg(long, global = true)]
    pub tls: bool,

    /// Connect over TLS, trusting only the certificate authorities in this PEM file
    /// (a private CA, a self-signed server).
    #[arg(long, global = true, value_name = "FILE")]
    pub tls_ca: Option<std::path::PathBuf>,

    /// Connect from this local address (127.0.0.2, …): a server counts sign-ins and
    /// registrations per address, so several bots on one machine may each need their own.
    #[arg(long, global = true, value_name = "IP")]
    pub bind: Option<std::net::IpAddr>,
}

impl Cli {
    /// Whom TLS connections trust, when --tls or --tls-ca asks for TLS.
    pub fn tls(&self) -> Option<reversi_client::transport::tls::Trust> {
        use reversi_client::transport::tls::Trust;
        match (&self.tls_ca, self.tls) {
            (Some(file), _) => Some(Trust::CaFile(file.clone())),
            (None, true) => Some(Trust::PublicRoots),
            (None, false) => None,
        }
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Play a game in the terminal (or from a script on stdin, one command per line).
    ///
    /// Without --game: Reversi over the binary protocol; with --game NAME: any
    /// game the server has, over the text protocol. Either way the same client,
    /// full screen: arrow keys or hjkl move the cursor, space picks the squares of a
    /// move in order, Enter on the last one (or m) sends it, Esc clears, : types a
    /// move (d3, or the squares' numbers: 4 6), ? helps, q twice leaves. NO_COLOR
    /// turns colours off; TERM=dumb, or stdin or stdout not a terminal, gives the
    /// line mode: one command a line (a move, quit, board, help).
    ///
    /// A move the game's rules forbid is refused here with the reason, never
    /// sent (in Tic-Tac-Toe an illegal move loses). Each team's move clock counts
    /// down beside it (LOW under 10 s) over the text protocol; binary Reversi's
    /// protocol sends no clock, so none is shown there. Help (?) has the rules.
    ///
    /// When stdin is not a terminal, each line is held until it is your turn, so a
    /// file of your moves plays them in order; the end of stdin means quit.
    /// Exit codes: 0 game over or quit, 1 the server ended the game (error or
    /// closed connection), 2 could not connect, 3 the server broke the protocol.
    Play {
        /// Server address, host:port (a bare host means port 8765).
        #[arg(default_value = DEFAULT_ADDR)]
        addr: String,
        /// The game to play over the text protocol: tictactoe, reversi, or any
        /// other the server lists.
        #[arg(long, value_name = "NAME")]
        game: Option<String>,
        #[command(flatten)]
        together: Together,
        #[command(flatten)]
        who: Who,
    },
    /// Watch a running game live to its end (any game, binary Reversi too).
    ///
    /// Lists the running games; with no ID, picks one interactively on a
    /// terminal, or the first otherwise. `reversi watch 3` watches game 3 on the
    /// default server.
    Watch {
        /// Server address, host:port (a bare host means port 8765).
        #[arg(default_value = DEFAULT_ADDR)]
        addr: String,
        /// The game to watch, as the listing numbers it.
        id: Option<u64>,
        /// Only list the running games.
        #[arg(long)]
        list: bool,
    },
    /// Let a computer player play games on the server.
    ///
    /// Without --game: Reversi's engine over the binary protocol, at --level or
    /// --move-time. With --game NAME: any game built into this client, over the
    /// text protocol (the same bot driver either way): the game's own player where it has one (Reversi: the
    /// engine; draughts: its search; Duell and Foxes & Dolphins: theirs), else
    /// a Monte Carlo tree search player;
    /// either thinks --move-time per move (default 1000 ms).
    Bot {
        /// Server address, host:port (a bare host means port 8765).
        #[arg(default_value = DEFAULT_ADDR)]
        addr: String,
        /// The game to play over the text protocol.
        #[arg(long, value_name = "NAME")]
        game: Option<String>,
        /// Play the first N moves of each game (both sides' moves counted) at
        /// random, so that two bots do not play the same game every time.
        #[arg(long, value_name = "N", default_value_t = 0)]
        random_opening: u32,
        /// Seed of the random openings (default: a new one each run, printed).
        #[arg(long, value_name = "SEED", requires = "random_opening")]
        opening_seed: Option<u64>,
        #[command(flatten)]
        engine: EngineArgs,
        /// Which player, with --game: the game's own (own), Reversi's engine at --level
        /// (engine), the Monte Carlo search (mcts) or moves at random (random).
        #[arg(long, value_enum, default_value_t = crate::game_bot::Kind::Own, requires = "game")]
        player: crate::game_bot::Kind,
        /// Games to play, one connection each.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        games: u32,
        /// Print the board after every move.
        #[arg(long)]
        show: bool,
        /// Decline rematch offers (by default a bot with games left to play
        /// accepts one, and plays the series on the same connection).
        #[arg(long)]
        no_rematch: bool,
        /// Play every game of this tournament the bot's account (--token) is called to,
        /// from the first round to the final standings: one connection a game, signed in
        /// again each time; byes and forfeits need nothing (spec/TOURNAMENTS.md §7).
        #[arg(long, value_name = "ID", requires = "game", conflicts_with_all = ["invite", "join", "lobby", "games"])]
        tournament: Option<u64>,
        /// With --invite, the code is printed on stdout as one line, `code 4821-0937-5562`.
        #[command(flatten)]
        together: Together,
        #[command(flatten)]
        who: Who,
    },
    /// Tournaments: the list, the standings (crosstable), registering, playing.
    Tournament {
        #[command(subcommand)]
        action: TournamentCmd,
        /// Server address, host:port.
        #[arg(long, default_value = DEFAULT_ADDR, global = true)]
        addr: String,
        #[command(flatten)]
        who: Who,
    },
    /// Make an account, or check that one signs in (the password is read
    /// without echo on a terminal, else the first line of stdin; never an argument).
    Account {
        #[command(subcommand)]
        action: AccountCmd,
        /// Server address, host:port.
        #[arg(long, default_value = DEFAULT_ADDR, global = true)]
        addr: String,
    },
    /// An account's API tokens, for bots and scripts: made, listed, revoked.
    /// Signs in with NAME and the password (read as for `account`).
    Token {
        #[command(subcommand)]
        action: TokenCmd,
        /// Server address, host:port.
        #[arg(long, default_value = DEFAULT_ADDR, global = true)]
        addr: String,
    },
    /// The archive: a player's finished games, newest first (GAME HISTORY).
    /// Without NAME: the account of --token or of the config file.
    History {
        /// Whose games (an account's name).
        #[arg(value_name = "NAME")]
        player: Option<String>,
        /// Only this game's (reversi, draughts, …).
        #[arg(long, value_name = "GAME")]
        game: Option<String>,
        /// How many, 1 to 100.
        #[arg(long, default_value_t = 20)]
        count: u32,
        /// Server address, host:port.
        #[arg(long, default_value = DEFAULT_ADDR)]
        addr: String,
        #[command(flatten)]
        who: Who,
    },
    /// Step through an archived game on the board (its JSON export, GAME EXPORT):
    /// Enter or n the next move, p the previous, a number that move, q leaves;
    /// each side's time spent (and left, on a Fischer clock) under the board.
    /// Not on a terminal: every position in turn.
    Replay {
        /// The game's id, as `reversi history` lists it.
        id: String,
        /// Server address, host:port.
        #[arg(long, default_value = DEFAULT_ADDR)]
        addr: String,
    },
    /// An archived game's record on stdout (GAME EXPORT): the game's own format
    /// (GGF for Reversi, PDN for draughts, txt for the others) or json.
    Export {
        /// The game's id, as `reversi history` lists it.
        id: String,
        #[arg(long, value_parser = ["ggf", "pdn", "txt", "json"])]
        format: Option<String>,
        /// Server address, host:port.
        #[arg(long, default_value = DEFAULT_ADDR)]
        addr: String,
    },
    /// Start a reversid and two bots, and watch them play one game.
    Demo {
        #[command(flatten)]
        engine: EngineArgs,
        /// Pause before each move, in milliseconds, to follow the game.
        #[arg(long, value_name = "MS", default_value_t = 300)]
        delay: u64,
    },
    /// Count the leaf positions of the move tree from the start (perft).
    Perft(crate::tools::perft::PerftArgs),
    /// Solve a position exactly (best move and final disc difference), or
    /// every position of an OBF file with --file.
    Solve(crate::tools::solve::SolveArgs),
    /// Play a match against a GTP engine such as "/usr/games/gtp-rhino -l 3".
    Match(crate::tools::r#match::MatchArgs),
}

/// Who the client says it is on the text protocol (binary Reversi connections
/// stay anonymous). Without --name or --token: the config file's token or name,
/// `$XDG_CONFIG_HOME/reversi/config.toml` (default `~/.config/reversi/config.toml`),
/// lines `token = "rvt_…"` or `name = "bob"`; no file: anonymous.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Who {
    /// Play as a guest of this name (GAME NAME).
    #[arg(long, value_name = "NAME", conflicts_with = "token", global = true)]
    pub name: Option<String>,
    /// Sign in with this API token (GAME SIGNIN; `reversi token new` makes one):
    /// an account's name and rating, rated games. Without --name or --token, the
    /// config file's: $XDG_CONFIG_HOME/reversi/config.toml (default
    /// ~/.config/reversi/config.toml), a line `token = "rvt_…"` or `name = "bob"`.
    /// The token is never printed.
    #[arg(long, value_name = "TOKEN", global = true)]
    pub token: Option<String>,
}

impl Who {
    /// The identity, from the flags or the config file.
    pub fn identity(&self) -> Result<Option<reversi_client::text::Identity>, String> {
        crate::config::identity(self.name.as_deref(), self.token.as_deref())
    }
}

/// `reversi account …`.
#[derive(Debug, Subcommand)]
pub enum AccountCmd {
    /// Make an account NAME (GAME REGISTER) and sign in.
    Register { name: String },
    /// Sign in as NAME with its password (GAME SIGNIN), showing the ratings.
    Signin { name: String },
}

/// `reversi tournament …`.
#[derive(Debug, Subcommand)]
pub enum TournamentCmd {
    /// The server's tournaments: game, format, clock, players, where each is.
    List,
    /// The crosstable of tournament ID: places, points, tie-breaks, a cell a round, and
    /// the games being played with the command that watches each.
    Standings {
        id: u64,
        /// Stay, and draw the table again each time it changes, until the tournament ends.
        #[arg(long)]
        follow: bool,
    },
    /// Register your account (--token, or the config file's) for tournament ID.
    Register { id: u64 },
    /// Play your games of tournament ID on the board screen, the standings between them.
    Play { id: u64 },
}

/// `reversi token …`.
#[derive(Debug, Subcommand)]
pub enum TokenCmd {
    /// Make a token labelled LABEL; its secret is printed this once.
    New {
        /// The account.
        name: String,
        label: String,
    },
    /// The account's tokens (ids and labels, never their secrets).
    List { name: String },
    /// Revoke the token of this id.
    Revoke { name: String, id: String },
}

/// Playing a friend: a challenge by code, or one from the lobby (text protocol).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Together {
    /// Create a challenge of --game and wait for a friend: prints its code and link.
    #[arg(long, requires = "game", conflicts_with_all = ["join", "lobby"])]
    pub invite: bool,
    /// The challenge's clock: 5+3 (5 min, 3 s a move), 30s+2, move:60 (60 s a move).
    #[arg(long, value_name = "TIME", requires = "invite")]
    pub time: Option<String>,
    /// The challenger's side: a team's name or number, or random.
    #[arg(long, value_name = "SIDE", requires = "invite")]
    pub side: Option<String>,
    /// List the challenge in the lobby for anyone to accept.
    #[arg(long, requires = "invite")]
    pub public: bool,
    /// A rated challenge (both players signed in: --token).
    #[arg(long, requires = "invite")]
    pub rated: bool,
    /// Accept the challenge of this code (4821-0937-5562; any separators).
    #[arg(long, value_name = "CODE", conflicts_with = "lobby")]
    pub join: Option<String>,
    /// Accept the oldest public challenge (of --game, if given), waiting for one.
    #[arg(long)]
    pub lobby: bool,
}

impl Together {
    /// The request that opens the game, if not the public queue's `GAME TYPE`;
    /// `Err` says what is wrong with the arguments.
    pub fn request(
        &self,
        game: Option<&str>,
    ) -> Result<Option<reversi_client::text::Request>, String> {
        use reversi_client::text::{read_code, Request, Terms};
        if let Some(code) = &self.join {
            let code = read_code(code).ok_or_else(|| {
                format!("{code:?} is not a code (codes are 12 digits, like 4821-0937-5562)")
            })?;
            return Ok(Some(Request::JoinCode(code)));
        }
        if self.lobby {
            return Ok(Some(Request::Lobby));
        }
        Ok(match game {
            Some(game) if self.invite => Some(Request::Invite {
                game: game.to_owned(),
                terms: Terms {
                    time: self.time.clone(),
                    side: self.side.clone(),
                    public: self.public,
                    other: if self.rated {
                        vec!["rated".to_owned()]
                    } else {
                        Vec::new()
                    },
                },
            }),
            _ => None,
        })
    }
}

/// How strong the engine plays.
#[derive(Debug, Clone, clap::Args)]
pub struct EngineArgs {
    /// Engine strength, 1 (weakest) to 20: the search depth in plies.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(1..=20))]
    pub level: u8,
    /// Time per move in milliseconds; overrides --level.
    #[arg(long, value_name = "MS")]
    pub move_time: Option<u64>,
    /// Seed for the engine's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl EngineArgs {
    /// The strength of a bot for any game.
    pub fn strength(&self) -> reversi_client::bots::Strength {
        reversi_client::bots::Strength {
            move_time: self.move_time.map(std::time::Duration::from_millis),
            seed: self.seed,
        }
    }

    /// A bot of Reversi over the binary protocol with these engine
    /// settings: at --level, or --move-time per move when given.
    pub fn binary_bot(&self) -> crate::game_bot::Options {
        crate::game_bot::Options {
            module: reversi_games::registry::find("reversi").expect("Reversi is built in"),
            kind: crate::game_bot::Kind::Own,
            strength: self.strength(),
            games: 1,
            show: false,
            random_opening: 0,
            opening_seed: 0,
            protocol: reversi_client::transport::Protocol::Binary,
            level: Some(self.level),
            delay: std::time::Duration::ZERO,
            report: true,
            name: "bot".to_owned(),
            shown_as: None,
            together: None,
            identity: None,
            rematch: false,
        }
    }
}
