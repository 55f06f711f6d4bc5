//! `reversi bot`: a computer player for any game built into this client,
//! over the text protocol (`--game NAME`), or for Reversi over the binary
//! protocol, through the same client and the same driver. The bot keeps its own copy of the
//! game ([`Follower`]), rebuilt by replaying each `GAME MOVED team notation` through the
//! game's `parse_action` and `play`, and checks the copy against the board
//! the server draws. Where the two part (a game whose state cannot be
//! rebuilt from its moves: a random set-up), a game's own player, which
//! reads the board, plays from the drawing instead ([`DrawnGame`]); the
//! general player, which needs the rules, stops with the reason.

use std::time::Duration;

use reversi_client::bots::{self, RandomOpening, Strength};
use reversi_client::drawn::DrawnGame;
use reversi_client::exit;
use reversi_client::follow::Follower;
use reversi_client::text::tournament::TournamentLine;
use reversi_client::text::{Event, Game as Drawn, Notice, Offer, Request, Standing};
use reversi_client::transport::{Driver, Protocol};
use reversi_games::registry::Module;
use reversi_games::{Action, Bot, Game, Team};

/// Games won, drawn and lost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub won: u32,
    pub drawn: u32,
    pub lost: u32,
}

impl Tally {
    /// Counts one result.
    pub fn add_standing(&mut self, standing: Standing) {
        match standing {
            Standing::Win => self.won += 1,
            Standing::Draw => self.drawn += 1,
            Standing::Lose => self.lost += 1,
        }
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.won + self.drawn + self.lost
    }

    /// Points (win 1, draw 1/2) as a percentage of the games.
    pub fn points_percent(&self) -> f64 {
        match self.games() {
            0 => 0.0,
            n => (f64::from(self.won) + f64::from(self.drawn) / 2.0) * 100.0 / f64::from(n),
        }
    }
}

/// The record of several games: "3 games: 1 won, 1 drawn, 1 lost; 50.0% of the points".
pub fn record(tally: &Tally) -> String {
    let games = match tally.games() {
        1 => "1 game".to_string(),
        n => format!("{n} games"),
    };
    format!(
        "{games}: {} won, {} drawn, {} lost; {:.1}% of the points",
        tally.won,
        tally.drawn,
        tally.lost,
        tally.points_percent(),
    )
}

/// Which computer player plays (`reversi bot --player`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// The game's own player where it has one (Reversi's engine on the clock, the
    /// draughts search), else the Monte Carlo player.
    #[default]
    Own,
    /// Reversi's engine searching --level plies deep (Reversi only).
    Engine,
    /// The general Monte Carlo tree search player, thinking its time per move.
    Mcts,
    /// A legal move at random: the weakest player, for tests and tournaments.
    Random,
}

/// What the bot plays and how.
#[derive(Clone, Debug)]
pub struct Options {
    pub module: &'static Module,
    /// Which player (the game's own, or another for a weaker or stronger opponent).
    pub kind: Kind,
    pub strength: Strength,
    /// Games to play.
    pub games: u32,
    /// Print the board after every move.
    pub show: bool,
    /// Moves played at random at the start of each game, and their seed.
    pub random_opening: u32,
    pub opening_seed: u64,
    /// The protocol the games are played over.
    pub protocol: Protocol,
    /// Reversi's engine searches this deep (`--level`) instead of on the clock.
    pub level: Option<u8>,
    /// A pause before each of the bot's moves, for people watching.
    pub delay: Duration,
    /// Prints a line for each game and the record at the end.
    pub report: bool,
    /// The name in messages: `bot`, or `demo: first bot`.
    pub name: String,
    /// How the first connection asks for its game: `None` the public queue
    /// (`GAME TYPE`); else a challenge (`--invite`, `--join`, `--lobby`).
    pub together: Option<Request>,
    /// How the lines `show` prints name the bot's own side: `None` says
    /// "you" (`reversi bot --show`); the demo's watcher is not playing, so
    /// there it is `first bot`.
    pub shown_as: Option<String>,
    /// Who the bot says it is (`--token`: an account, for rated games); text only.
    pub identity: Option<reversi_client::text::Identity>,
    /// Accept an opponent's rematch offer while games are left to play (a series).
    pub rematch: bool,
}

/// How a game ended for the bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ended {
    /// The bot's team as people read it: `black (team 1, you)`.
    pub who: String,
    /// `won in 60 moves (33-31)`.
    pub how: String,
}

/// How one game ended: "O (team 2, you)" and "won in 7 moves (X left the game)".
fn ended(drawn: &Drawn, standing: Standing) -> Ended {
    let verdict = match standing {
        Standing::Win => "won",
        Standing::Lose => "lost",
        Standing::Draw => "drew",
    };
    let who = crate::text_ui::team_words(Some(drawn), drawn.team().unwrap_or(0));
    let moves = match drawn.moves.len() {
        1 => "1 move".to_owned(),
        n => format!("{n} moves"),
    };
    let why = drawn.over.as_ref().map_or("", |o| o.why.as_str());
    Ended {
        who,
        how: format!("{verdict} in {moves} ({why})"),
    }
}

pub(crate) struct Run<'a> {
    options: &'a Options,
    pub(crate) driver: Driver,
    /// The rules' copy of the game; `None` before the game starts, or once
    /// it has parted from the drawing and the bot plays from the drawing.
    copy: Option<Follower>,
    bot: Box<dyn Bot>,
    tally: Tally,
    played: u32,
    ended: Vec<Ended>,
    /// The round of the game being played ([`Drawn::round`]).
    round: u32,
    /// Why the server refused the request or the sign-in (`ERROR`), if it did.
    pub(crate) denied: Option<String>,
    /// The server ended the bot's wait for its tournament's games: it was withdrawn.
    pub(crate) withdrawn: bool,
}

impl<'a> Run<'a> {
    /// A bot that has played nothing yet; each connection gets its own driver.
    pub(crate) fn new(addr: &str, options: &'a Options) -> Run<'a> {
        Run {
            options,
            driver: Driver::new(addr, options.protocol).identified(options.identity.clone()),
            copy: None,
            bot: player(options, 0),
            tally: Tally::default(),
            played: 0,
            ended: Vec::new(),
            round: 0,
            denied: None,
            withdrawn: false,
        }
    }

    /// Ready for a new connection to `addr`: a fresh driver and player.
    pub(crate) fn reconnect(&mut self, addr: &str) {
        let options = self.options;
        self.driver = Driver::new(addr, options.protocol).identified(options.identity.clone());
        self.copy = None;
        self.round = 0;
        self.denied = None;
        self.bot = player(options, u64::from(self.played));
    }

    /// The games won, drawn and lost so far.
    pub(crate) fn tally(&self) -> Tally {
        self.tally
    }

    /// Feeds an event; `Some(code)` when the bot is done.
    pub(crate) fn feed(&mut self, event: Event) -> Option<u8> {
        let mut notices = Vec::new();
        let code = self
            .driver
            .handle(event, &mut |n: &Notice| notices.push(n.clone()));
        for notice in &notices {
            if let Some(code) = self.notice(notice) {
                return Some(code);
            }
        }
        code
    }

    fn fail(&mut self, why: &str) -> Option<u8> {
        eprintln!("reversi {}: {why}", self.options.name);
        let mut ignore = |_: &Notice| {};
        self.driver.handle(Event::User(Request::Quit), &mut ignore);
        Some(exit::PROTOCOL)
    }

    fn notice(&mut self, notice: &Notice) -> Option<u8> {
        let game = self.driver.client().game();
        if self.options.show && !matches!(notice, Notice::YourMove | Notice::BoardChanged) {
            if let Some(text) = crate::text_ui::notice_words(notice, game) {
                if !crate::text_ui::is_failure(notice) {
                    println!("{}", self.narrated(&text));
                }
            }
        }
        match notice {
            // The same round started again: the seat was taken back after a drop, and
            // the copy of the game goes on (checked against the board before a move).
            // The same round started again: the seat was taken back after a drop. The
            // server tells the moves so far again (Replayed, TEXT-PROTOCOL §5.5), so the
            // copy is rebuilt from them: a move lost in the drop is not missed.
            Notice::Started if self.copy.is_some() && game.map(|g| g.round) == Some(self.round) => {
                self.copy = Some(Follower::new(self.options.module));
            }
            Notice::Started => {
                self.round = game.map_or(0, |g| g.round);
                self.copy = Some(Follower::new(self.options.module));
                let seed = u64::from(self.played);
                self.bot = player(self.options, seed);
            }
            Notice::Moved { team, notation } | Notice::Replayed { team, notation } => {
                let copy = self.copy.as_mut()?;
                if let Err(why) = copy.follow(*team, notation) {
                    if let Err(why) = self.part(why) {
                        return self.fail(&why);
                    }
                }
            }
            Notice::News(text) => {
                // A draw offer or answer: the copy must know one stands.
                if let Some(copy) = self.copy.as_mut() {
                    copy.follow_news(text);
                }
            }
            Notice::BoardChanged => {
                if self.options.show {
                    let board = crate::text_ui::plain_board(game?);
                    println!("{}", self.narrated(&board));
                }
            }
            Notice::Invited { code, .. } => {
                // One line a script can read: `code 4821-0937-5562`.
                println!("code {code}");
                use std::io::Write;
                let _ = std::io::stdout().flush();
            }
            Notice::Denied(why) => {
                self.denied = Some(why.clone());
                eprintln!("reversi {}: the server refused: {why}", self.options.name);
            }
            Notice::Called(TournamentLine::Released { withdrawn, .. }) => {
                self.withdrawn = *withdrawn;
                if let Some(text) = crate::text_ui::notice_words(notice, game) {
                    eprintln!("reversi {}: {text}", self.options.name);
                }
            }
            Notice::Called(_) if self.options.report => {
                if let Some(text) = crate::text_ui::notice_words(notice, game) {
                    println!("{text}");
                }
            }
            Notice::Reconnecting { .. } | Notice::Resumed(_) | Notice::Expired(_) => {
                if let Some(text) = crate::text_ui::notice_words(notice, game) {
                    eprintln!("reversi {}: {text}", self.options.name);
                }
            }
            Notice::Offered {
                what: Offer::Rematch,
                ..
            } if self.options.rematch && self.played < self.options.games => {
                // A series: the next game on the same connection, sides swapped.
                let mut ignore = |_: &Notice| {};
                self.driver
                    .handle(Event::User(Request::AcceptRematch), &mut ignore);
            }
            Notice::Away { ms: 0, .. } => {
                // The opponent did not come back: the game is the bot's.
                let mut ignore = |_: &Notice| {};
                self.driver
                    .handle(Event::User(Request::ClaimWin), &mut ignore);
            }
            Notice::Result { standing, .. } => {
                let drawn = game?;
                self.played += 1;
                self.tally.add_standing(*standing);
                let end = ended(drawn, *standing);
                if self.options.report {
                    println!("game {}: {}, {}", self.played, end.who, end.how);
                }
                self.ended.push(end);
                // A tournament's game is one game: the bot leaves at once, so that the
                // session's automatic rematches (draughts' series, TEXT-PROTOCOL §6.3)
                // do not follow it, and the server closes the session now.
                let tournament = matches!(self.options.together, Some(Request::Tournament(_)));
                if self.played >= self.options.games || tournament {
                    let mut ignore = |_: &Notice| {};
                    self.driver.handle(Event::User(Request::Quit), &mut ignore);
                    return Some(exit::OK);
                }
            }
            other => {
                if crate::text_ui::is_failure(other) {
                    if let Some(text) = crate::text_ui::notice_words(other, game) {
                        eprintln!("reversi {}: {text}", self.options.name);
                    }
                }
            }
        }
        None
    }

    /// A shown line in the words of whoever watches the bot.
    fn narrated(&self, text: &str) -> String {
        match &self.options.shown_as {
            Some(who) => crate::text_ui::third_person(text, who),
            None => text.to_owned(),
        }
    }

    /// The copy of the game parted from the server's: a game's own player
    /// goes on from the drawing; the general one cannot.
    fn part(&mut self, why: String) -> Result<(), String> {
        if self.options.module.own_bot().is_none() {
            return Err(why);
        }
        log::info!("{why}; playing from the drawn board");
        self.copy = None;
        Ok(())
    }

    /// The bot's move, when the server waits for one (and so has drawn
    /// the whole board): after checking its copy of the game against it.
    fn choose(&mut self) -> Result<Option<Request>, String> {
        let Some(drawn) = self.driver.client().game().cloned() else {
            return Ok(None);
        };
        let Some(team) = drawn.team().map(|k| Team(k - 1)) else {
            return Ok(None);
        };
        if let Some(why) = self.copy.as_ref().and_then(|c| c.differs_from(&drawn)) {
            self.part(why)?;
        }
        let from_drawing;
        let game: &dyn Game = match &self.copy {
            Some(copy) => copy.game(),
            None => {
                from_drawing = DrawnGame::new(self.options.module, &drawn)?;
                &from_drawing
            }
        };
        let budget = self
            .options
            .strength
            .budget_on(&on_the_clock(&drawn, self.options));
        // Only the rules' copy knows whether a draw is offered.
        if self.copy.is_some() {
            let name = &self.options.name;
            if let Some(answer) = answer_draw(&mut *self.bot, name, game, team, budget) {
                return Ok(Some(answer));
            }
        }
        let Some(action) = self.bot.choose(game, team, budget) else {
            return Ok(None);
        };
        Ok(Some(match action {
            Action::Move(points) => Request::Move(points.iter().map(|p| (p.x, p.y)).collect()),
            Action::OfferDraw => Request::OfferDraw,
            Action::AcceptDraw => Request::AcceptDraw,
            Action::DeclineDraw => Request::DeclineDraw,
        }))
    }
}

/// The bot's clock as the server last told it, now.
fn on_the_clock(drawn: &Drawn, options: &Options) -> bots::OnTheClock {
    let team = drawn.team();
    let now = std::time::Instant::now();
    let left = drawn
        .clocks
        .iter()
        .find(|c| Some(c.team) == team)
        .map(|c| c.time.left(now, drawn.running_clock() == team));
    bots::OnTheClock {
        control: drawn.control,
        left,
        moves_made: drawn.moves.iter().filter(|m| Some(m.team) == team).count() as u32,
        typical: bots::typical_moves(options.module.info.name),
    }
}

/// `bot`'s answer to a draw the opponent offers in `game`, if one stands
/// (the rules take an answer only then); prints what it answered and why.
fn answer_draw(
    bot: &mut dyn Bot,
    name: &str,
    game: &dyn Game,
    team: Team,
    budget: Duration,
) -> Option<Request> {
    game.clone_box().play(team, &Action::AcceptDraw, 0).ok()?;
    let answer = bot.answer_draw(game, team, budget);
    let verb = if answer.accept { "accepts" } else { "declines" };
    println!("{name}: {verb} the draw offer: {}", answer.why);
    Some(if answer.accept {
        Request::AcceptDraw
    } else {
        Request::DeclineDraw
    })
}

/// The player for the game with this number (its own seeds).
fn player(options: &Options, number: u64) -> Box<dyn Bot> {
    let strength = Strength {
        seed: options.strength.seed.wrapping_add(number),
        ..options.strength.clone()
    };
    let bot: Box<dyn Bot> = match (options.kind, options.level) {
        (Kind::Random, _) => Box::new(reversi_games::RandomBot::new(strength.seed)),
        (Kind::Mcts, _) => Box::new(reversi_games::mcts::Mcts::new(strength.seed)),
        (_, Some(level)) if options.module.info.name == "reversi" => {
            bots::reversi_engine(level, options.strength.move_time, strength.seed)
        }
        _ => bots::for_game(options.module, &strength),
    };
    if options.random_opening == 0 {
        return bot;
    }
    let seed = options.opening_seed.wrapping_add(number);
    Box::new(RandomOpening::new(
        bot,
        options.random_opening as usize,
        seed,
    ))
}

/// Plays `options.games` games on the server at `addr`; returns the exit code.
pub fn run(addr: &str, options: &Options) -> u8 {
    series(addr, options).0
}

/// Plays `options.games` games on the server at `addr`; returns the exit
/// code and how each game ended.
pub fn series(addr: &str, options: &Options) -> (u8, Vec<Ended>) {
    let mut run = Run::new(addr, options);
    while run.played < options.games {
        run.reconnect(addr);
        let code = play_connection(&mut run, options);
        if code != exit::OK {
            if options.report && run.tally.games() > 0 {
                println!("{}", record(&run.tally));
            }
            return (code, run.ended);
        }
        // The connection ended after a game with no rematch: queue again.
    }
    if options.report {
        println!("{}", record(&run.tally));
    }
    (exit::OK, run.ended)
}

/// One connection: games until the server closes it or enough are played.
pub(crate) fn play_connection(run: &mut Run<'_>, options: &Options) -> u8 {
    let game = options.module.info.name;
    let request = match options.together.clone() {
        None => Request::Join(game.to_owned()),
        Some(Request::Lobby) => {
            match crate::text_ui::pick_from_lobby(&mut run.driver, Some(game)) {
                Ok(code) => Request::JoinCode(code),
                Err(code) => return code,
            }
        }
        Some(request) => request,
    };
    drive(run, Event::User(request))
}

/// Plays on the connection from `event` on (the request that opens it, or the next
/// event once it is open) until the connection is done; returns the exit code.
pub(crate) fn drive(run: &mut Run<'_>, mut event: Event) -> u8 {
    let options = run.options;
    loop {
        if let Some(code) = run.feed(event) {
            return code;
        }
        event = if run.driver.client().may_move() {
            std::thread::sleep(options.delay);
            match run.choose() {
                Err(why) => return run.fail(&why).unwrap_or(exit::PROTOCOL),
                Ok(Some(request)) => Event::User(request),
                Ok(None) if options.module.info.realtime => {
                    // Nothing worth doing now: wait for the board to change.
                    std::thread::sleep(Duration::from_millis(20));
                    run.driver.next_event()
                }
                Ok(None) => Event::User(Request::Quit),
            }
        } else {
            run.driver.next_event()
        };
    }
}
