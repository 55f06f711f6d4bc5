//! The account workers: a few threads, each with a store connection of its own, that
//! answer players' requests (TEXT-PROTOCOL.md §4.4: names, registrations, sign-ins,
//! tokens, history, exports) off the supervisor's loop, which waits neither on the
//! database nor on Argon2. The loop submits a [`Job`] to a bounded queue (full: it says
//! the server is busy) and gets each [`Done`] back through a channel and its waker.
//! Passwords and tokens stay in their own types here, which never print.

use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use log::warn;
use reversi_store::{
    export, Account, AccountId, Name, Outcome, Store, StoreError, TokenId, TokenSignIn, UnixMillis,
    ANONYMOUS,
};

use super::Setting;
use crate::protocols::players::{Answer, Archived, Credentials, Format, Listed, Request};
use crate::terms::ShownRating;

/// Threads, and requests waiting for one at most.
const THREADS: usize = 2;
const QUEUE: usize = 64;

/// The most bytes a `GAME EXPORT` answer sends: a waiting connection is closed with more than
/// `supervisor::turns::OUT_LIMIT` (256 KiB) unsent, so a larger file is refused with a line
/// that says so rather than cut off with the connection.
pub const EXPORT_MAX_BYTES: usize = 192 * 1024;

/// The one answer to a wrong password and to an unknown name alike (no account enumeration).
pub const WRONG_PASSWORD: &str = "wrong name or password";

/// A request of the connection `ticket` names, made as `account` (the signed-in one, if any).
pub struct Job {
    pub ticket: (usize, u64),
    pub request: Request,
    pub account: Option<(AccountId, Name)>,
}

/// A request's answer; `signed` is the account it signed the connection in as, and `via`
/// how, if a `GAME SIGNIN` did (a registration signs in too, but is no sign-in's attempt).
pub struct Done {
    pub ticket: (usize, u64),
    pub answer: Result<Answer, String>,
    pub signed: Option<(AccountId, Name)>,
    pub via: Option<Via>,
}

/// How a `GAME SIGNIN` signed a connection in: with the name typed and its password, or
/// with an API token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Via {
    Password(Name),
    Token(TokenId),
}

/// A read the workers are asked for: `account`'s rating in `kind` once the store has a game
/// of it that ended at `since` or later.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ask {
    pub account: AccountId,
    pub kind: String,
    pub since: UnixMillis,
}

/// A rating to read again once its game is stored (`supervisor::ratings`), and the read's ticket.
pub struct RatingJob {
    pub ticket: u64,
    pub ask: Ask,
}

/// What a worker is given: a player's request, or a rating to read again.
enum Task {
    Player(Job),
    Rating(RatingJob),
}

/// What a worker gives back.
pub enum Out {
    Player(Done),
    /// The rating once its game is stored; `None`: not stored yet, or the read failed.
    Rating(RatingJob, Option<ShownRating>),
}

/// Every worker is busy and the queue is full.
#[derive(Debug)]
pub struct Busy;

pub struct Workers {
    jobs: Option<SyncSender<Task>>,
    done: Receiver<Out>,
    threads: Vec<JoinHandle<()>>,
}

impl Workers {
    /// Starts the threads, each with a connection of its own (opened now: a bad database
    /// fails here); `wake` tells the loop an answer is in.
    pub fn start(setting: &Setting, wake: Arc<dyn Fn() + Send + Sync>) -> std::io::Result<Workers> {
        let (jobs, queue) = mpsc::sync_channel::<Task>(QUEUE);
        let (answers, done) = mpsc::channel();
        let queue = Arc::new(Mutex::new(queue));
        let mut threads = Vec::with_capacity(THREADS);
        for n in 0..THREADS {
            let store = super::open(setting)?;
            let (queue, answers, wake) = (Arc::clone(&queue), answers.clone(), Arc::clone(&wake));
            threads.push(
                std::thread::Builder::new()
                    .name(format!("store-accounts-{n}"))
                    .spawn(move || serve(store, &queue, &answers, &*wake))?,
            );
        }
        Ok(Workers {
            jobs: Some(jobs),
            done,
            threads,
        })
    }

    /// Queues `job`; refused when every worker is busy and the queue full.
    pub fn submit(&self, job: Job) -> Result<(), Busy> {
        self.queue(Task::Player(job))
    }

    /// Queues a rating's read; refused as [`Workers::submit`] is.
    pub fn read_rating(&self, job: RatingJob) -> Result<(), Busy> {
        self.queue(Task::Rating(job))
    }

    fn queue(&self, task: Task) -> Result<(), Busy> {
        let jobs = self.jobs.as_ref().ok_or(Busy)?;
        jobs.try_send(task).map_err(|_| Busy)
    }

    /// The answers that are in.
    pub fn answers(&self) -> Vec<Out> {
        self.done.try_iter().collect()
    }

    /// Stops taking jobs, lets the threads answer what is queued and end, and gives
    /// every answer not taken yet.
    pub fn finish(mut self) -> Vec<Out> {
        self.jobs = None;
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
        self.answers()
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.jobs = None;
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

fn serve(
    mut store: Box<dyn Store>,
    queue: &Mutex<Receiver<Task>>,
    answers: &Sender<Out>,
    wake: &(dyn Fn() + Send + Sync),
) {
    loop {
        let task = match queue.lock() {
            Ok(queue) => queue.recv(),
            Err(_) => return,
        };
        let out = match task {
            Ok(Task::Player(job)) => Out::Player(answer(store.as_mut(), job)),
            Ok(Task::Rating(job)) => {
                let rating = rating_once_stored(store.as_mut(), &job.ask, UnixMillis::now());
                Out::Rating(job, rating)
            }
            Err(_) => return,
        };
        if answers.send(out).is_err() {
            return;
        }
        wake();
    }
}

fn answer(store: &mut dyn Store, job: Job) -> Done {
    let via = match &job.request {
        Request::SignIn(Credentials::Password { name, .. }) => Some(Via::Password(name.clone())),
        Request::SignIn(Credentials::Token(token)) => Some(Via::Token(token.id().clone())),
        _ => None,
    };
    let (answer, signed) = match run(store, job.request, job.account) {
        Ok((answer, signed)) => (Ok(answer), signed),
        Err(why) => (Err(why), None),
    };
    Done {
        ticket: job.ticket,
        answer,
        via: via.filter(|_| signed.is_some()),
        signed,
    }
}

/// `ask`'s account's rating in its kind, once the store has a game of it that ended at
/// `ask.since` or later (the game it waits for, or a later one); `None` before.
pub fn rating_once_stored(
    store: &mut dyn Store,
    ask: &Ask,
    now: UnixMillis,
) -> Option<ShownRating> {
    let mut read = || -> Result<Option<ShownRating>, StoreError> {
        let newest = store.games_of(ask.account, Some(&ask.kind), 1)?;
        if newest.first().is_none_or(|game| game.ended < ask.since) {
            return Ok(None);
        }
        Ok(Some(shown(&store.rating(ask.account, &ask.kind, now)?)))
    };
    read().unwrap_or_else(|e| {
        warn!(
            "store: account {}'s {} rating not read again: {e}",
            ask.account.0, ask.kind
        );
        None
    })
}

type Answered = Result<(Answer, Option<(AccountId, Name)>), String>;

/// Answers one request with the store.
pub fn run(
    store: &mut dyn Store,
    request: Request,
    account: Option<(AccountId, Name)>,
) -> Answered {
    let now = UnixMillis::now();
    let mine = || {
        account
            .clone()
            .ok_or_else(|| "sign in first (GAME SIGNIN)".to_owned())
    };
    match request {
        Request::Name(name) => match store.account(&name).map_err(failed)? {
            Some(_) => Err(format!(
                "\"{name}\" is an account's name; sign in with GAME SIGNIN"
            )),
            None => Ok((Answer::Guest(name.as_str().to_owned()), None)),
        },
        Request::Register { name, password } => match store.register(&name, &password, now) {
            Ok(account) => signed_in(store, account, now),
            Err(StoreError::NameTaken) => Err(format!("the name \"{name}\" is taken")),
            Err(e) => Err(failed(e)),
        },
        Request::SignIn(credentials) => {
            let account = match credentials {
                Credentials::Password { name, password } => store.sign_in(&name, &password),
                Credentials::Token(token) => store
                    .token_account(&token)
                    .map(|found| found.map(|signed| token_used(store, signed, now))),
            };
            match account.map_err(failed)? {
                Some(account) => signed_in(store, account, now),
                None => Err(WRONG_PASSWORD.to_owned()),
            }
        }
        Request::SignOut => Ok((Answer::SignedOut, None)),
        Request::NewToken { label } => {
            let new = store
                .create_token(mine()?.0, &label, now)
                .map_err(refused)?;
            Ok((
                Answer::NewToken {
                    token: new.token,
                    label: new.info.label,
                },
                None,
            ))
        }
        Request::Tokens => {
            let tokens = store.tokens(mine()?.0).map_err(failed)?;
            let listed = tokens
                .into_iter()
                .map(|t| Listed {
                    id: t.id.to_string(),
                    label: t.label,
                    created_ms: t.created.0,
                    last_used_ms: t.last_used.map(|t| t.0),
                })
                .collect();
            Ok((Answer::Tokens(listed), None))
        }
        Request::Revoke(id) => match store.revoke_token(mine()?.0, &id).map_err(failed)? {
            true => Ok((Answer::Revoked(id.to_string()), None)),
            false => Err(format!("you have no API token {id}")),
        },
        Request::History { name, game, count } => {
            let name = match name {
                Some(name) => name,
                None => mine()?.1,
            };
            let kind = game.map(|g| g.info.name);
            history(store, &name, kind, count).map(|games| (Answer::History(games), None))
        }
        Request::Export { id, format } => {
            let game = store
                .game(&id)
                .map_err(failed)?
                .ok_or_else(|| format!("no game {id} in the archive"))?;
            file(&game, format).map(|answer| (answer, None))
        }
    }
}

/// A token signed in: its use is written when due (once a minute at most), and a failure
/// to write it costs the sign-in nothing (the log says so).
fn token_used(store: &mut dyn Store, signed: TokenSignIn, now: UnixMillis) -> Account {
    if signed.use_is_due(now) {
        if let Err(e) = store.record_token_use(&signed.token, now) {
            warn!(
                "store: API token {}'s last use not written: {e}",
                signed.token
            );
        }
    }
    signed.account
}

/// The answer to a sign-in or a registration: the account's ratings now.
fn signed_in(store: &mut dyn Store, account: Account, now: UnixMillis) -> Answered {
    let name = Name::new(&account.name).map_err(|e| format!("the account's name: {e}"))?;
    let ratings = store.ratings(account.id, now).map_err(failed)?;
    let answer = Answer::SignedIn {
        name: account.name.clone(),
        ratings: ratings
            .iter()
            .map(|(kind, r)| (kind.clone(), shown(r)))
            .collect(),
    };
    Ok((answer, Some((account.id, name))))
}

/// A rating as players see it: whole points, provisional marked.
pub fn shown(rating: &reversi_store::Rating) -> ShownRating {
    ShownRating {
        points: rating.rating.round().clamp(0.0, f64::from(u16::MAX)) as u16,
        provisional: rating.is_provisional(),
    }
}

/// The games an account played, newest first; those of `kind` only if given.
fn history(
    store: &mut dyn Store,
    name: &Name,
    kind: Option<&str>,
    count: usize,
) -> Result<Vec<Archived>, String> {
    let account = store
        .account(name)
        .map_err(failed)?
        .ok_or_else(|| format!("no account \"{name}\""))?;
    let summaries = store.games_of(account.id, kind, count).map_err(failed)?;
    let mut games = Vec::with_capacity(summaries.len());
    for summary in summaries {
        // The seats say who was a guest, an account or anonymous; a summary only names them.
        let Some(game) = store.game(&summary.id).map_err(failed)? else {
            continue;
        };
        let mut seats = game.seats.clone();
        seats.sort_by_key(|s| s.team);
        games.push(Archived {
            id: game.id.to_string(),
            game: game.kind.clone(),
            ended_ms: game.ended.0,
            result: result(&game.outcome),
            rated: game.mode == reversi_store::Mode::Rated,
            players: seats.iter().map(player_word).collect(),
        });
    }
    Ok(games)
}

/// A seat as one word: an account's name, a guest's with `~`, `-` for anonymous.
fn player_word(seat: &reversi_store::StoredSeat) -> String {
    match (seat.account, seat.name.as_str()) {
        (Some(_), name) => name.to_owned(),
        (None, ANONYMOUS) => "-".to_owned(),
        (None, name) => format!("{name}~"),
    }
}

/// `1-0`, `0-1` (team order), `1/2`, `aborted`; a third team's win `win:3`.
fn result(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Win { team: 0, .. } => "1-0".to_owned(),
        Outcome::Win { team: 1, .. } => "0-1".to_owned(),
        Outcome::Win { team, .. } => format!("win:{}", team + 1),
        Outcome::Draw { .. } => "1/2".to_owned(),
        Outcome::Aborted => "aborted".to_owned(),
    }
}

/// The game as a file: JSON, or its kind's own format (which `format` must be, if given);
/// refused when its lines would be over [`EXPORT_MAX_BYTES`].
fn file(game: &reversi_store::StoredGame, format: Option<Format>) -> Result<Answer, String> {
    let answer = whole_file(game, format)?;
    let Answer::File { text, .. } = &answer else {
        return Ok(answer);
    };
    // Each line goes as `GAME LINE line\n`; the `GAME FILE` line before them is short.
    let told = text.len() + text.lines().count() * "GAME LINE \n".len();
    if told > EXPORT_MAX_BYTES {
        return Err(format!(
            "game {} is too long to export here ({told} bytes; at most {EXPORT_MAX_BYTES})",
            game.id
        ));
    }
    Ok(answer)
}

fn whole_file(game: &reversi_store::StoredGame, format: Option<Format>) -> Result<Answer, String> {
    let id = game.id.to_string();
    if format == Some(Format::Json) {
        let text = export::json(game);
        return Ok(Answer::File {
            id,
            format: Format::Json,
            text,
        });
    }
    let file = export::standard(game).map_err(|why| format!("cannot export {id}: {why}"))?;
    let own = Format::from_word(file.ext).unwrap_or(Format::Txt);
    match format {
        Some(asked) if asked != own => Err(format!(
            "a {} game exports as {} or json",
            game.kind,
            own.word()
        )),
        _ => Ok(Answer::File {
            id,
            format: own,
            text: file.text,
        }),
    }
}

/// The store failed: the log has why, the player a short line.
fn failed(e: StoreError) -> String {
    warn!("store: {e}");
    "the store failed; try again later".to_owned()
}

/// A request the store refused for a reason the player can mend (a token's label, an
/// account that holds every token it may).
fn refused(e: StoreError) -> String {
    match e {
        StoreError::Invalid(why) => why,
        StoreError::TooManyTokens => {
            format!("{e} (GAME APITOKENS lists them, GAME APITOKEN REVOKE id frees one)")
        }
        other => failed(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_store::{ApiToken, GameId, Password, SqliteStore, TokenId};

    /// A store in a directory of its own, removed afterwards.
    struct Scratch(std::path::PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn store(test: &str) -> (Scratch, Box<dyn Store>) {
        let dir = std::env::temp_dir().join(format!("reversid-{test}-{}", std::process::id()));
        let store = SqliteStore::open(&dir).expect("a scratch store");
        (Scratch(dir), Box::new(store))
    }

    fn name(text: &str) -> Name {
        Name::new(text).unwrap()
    }

    fn password(text: &str) -> Password {
        Password::new(text).unwrap()
    }

    fn error(
        store: &mut dyn Store,
        request: Request,
        account: Option<(AccountId, Name)>,
    ) -> String {
        run(store, request, account).map(|(a, _)| a).unwrap_err()
    }

    #[test]
    fn names_registrations_and_sign_ins_by_password() {
        let (_dir, mut store) = store("names");
        let store = store.as_mut();
        let register = Request::Register {
            name: name("Alice"),
            password: password("correct horse"),
        };
        let (answer, signed) = run(store, register, None).unwrap();
        let signed_in = Answer::SignedIn {
            name: "Alice".into(),
            ratings: vec![],
        };
        assert_eq!(answer, signed_in);
        assert_eq!(signed.map(|(_, n)| n), Some(name("Alice")));
        let again = Request::Register {
            name: name("aLICE"),
            password: password("other horse"),
        };
        assert_eq!(error(store, again, None), "the name \"aLICE\" is taken");
        assert_eq!(
            error(store, Request::Name(name("ALICE")), None),
            "\"ALICE\" is an account's name; sign in with GAME SIGNIN"
        );
        let guest = run(store, Request::Name(name("bob")), None).unwrap();
        assert_eq!(guest, (Answer::Guest("bob".into()), None));
        for (who, words) in [("Alice", "wrong horse"), ("Zelda", "correct horse")] {
            let request = Request::SignIn(Credentials::Password {
                name: name(who),
                password: password(words),
            });
            assert_eq!(error(store, request, None), WRONG_PASSWORD);
        }
        let right = Request::SignIn(Credentials::Password {
            name: name("ALICE"),
            password: password("correct horse"),
        });
        assert_eq!(run(store, right, None).unwrap().0, signed_in);
    }

    #[test]
    fn tokens_are_an_accounts_and_end_when_revoked() {
        let (_dir, mut store) = store("tokens");
        let store = store.as_mut();
        let register = Request::Register {
            name: name("Alice"),
            password: password("correct horse"),
        };
        let alice = run(store, register, None).unwrap().1;
        let new = Request::NewToken {
            label: "bot".into(),
        };
        assert_eq!(
            error(store, new.clone(), None),
            "sign in first (GAME SIGNIN)"
        );
        let Answer::NewToken { token, label } = run(store, new, alice.clone()).unwrap().0 else {
            panic!("no token")
        };
        assert_eq!(label, "bot");
        let token = ApiToken::parse(&token.reveal()).unwrap();
        let by_token = Request::SignIn(Credentials::Token(token.clone()));
        let (answer, signed) = run(store, by_token.clone(), None).unwrap();
        assert!(matches!(answer, Answer::SignedIn { name, .. } if name == "Alice"));
        assert_eq!(signed, alice);
        let Answer::Tokens(listed) = run(store, Request::Tokens, alice.clone()).unwrap().0 else {
            panic!("no list")
        };
        // The sign-in was its first use: written, and listed.
        assert_eq!(listed.len(), 1);
        assert!(listed[0]
            .last_used_ms
            .is_some_and(|ms| ms >= listed[0].created_ms));
        let revoke = Request::Revoke(token.id().clone());
        let id = token.id().to_string();
        assert_eq!(
            run(store, revoke.clone(), alice.clone()).unwrap().0,
            Answer::Revoked(id.clone())
        );
        assert_eq!(
            error(store, revoke, alice.clone()),
            format!("you have no API token {id}")
        );
        assert_eq!(error(store, by_token, None), WRONG_PASSWORD);
        let unknown = Request::Revoke(TokenId::parse("0123456789abcdef").unwrap());
        assert!(error(store, unknown, alice).starts_with("you have no API token"));
    }

    #[test]
    fn a_new_token_past_the_cap_says_how_to_free_one() {
        let (_dir, mut store) = store("cap");
        let store = store.as_mut();
        let register = Request::Register {
            name: name("Alice"),
            password: password("correct horse"),
        };
        let alice = run(store, register, None).unwrap().1;
        let new = Request::NewToken {
            label: "bot".into(),
        };
        for _ in 0..reversi_store::TOKENS_PER_ACCOUNT {
            run(store, new.clone(), alice.clone()).unwrap();
        }
        assert_eq!(
            error(store, new, alice),
            "an account holds at most 20 API tokens; revoke one first \
             (GAME APITOKENS lists them, GAME APITOKEN REVOKE id frees one)"
        );
    }

    #[test]
    fn a_rating_is_read_again_once_its_game_is_stored() {
        use reversi_store::{Ending, FinishedGame, Mode, MoveRecord, Player, Seat};
        let (_dir, mut store) = store("reread");
        let store = store.as_mut();
        let mut account = |who: &str| {
            let register = Request::Register {
                name: name(who),
                password: password("correct horse"),
            };
            run(store, register, None).unwrap().1.unwrap().0
        };
        let (alice, bob) = (account("Alice"), account("Bob"));
        let ask = |account, since| Ask {
            account,
            kind: "tictactoe".into(),
            since: UnixMillis(since),
        };
        let now = UnixMillis(5_000);
        assert_eq!(rating_once_stored(store, &ask(alice, 1_000), now), None);
        let seat = |team, account| Seat {
            team,
            player: Player::Account(account),
        };
        let game = FinishedGame {
            id: GameId::new("h:1").unwrap(),
            kind: "tictactoe".into(),
            mode: Mode::Rated,
            time_control: String::new(),
            seed: 0,
            seats: vec![seat(0, alice), seat(1, bob)],
            moves: vec![MoveRecord {
                team: 0,
                notation: "b2".into(),
                took_ms: 900,
            }],
            outcome: Outcome::Win {
                team: 0,
                ending: Ending::Resignation,
            },
            why: "O left".into(),
            started: UnixMillis(1_000),
            ended: UnixMillis(2_000),
            host: "h".into(),
        };
        store.record_game(&game).unwrap();
        let read =
            |store: &mut dyn Store, who, since| rating_once_stored(store, &ask(who, since), now);
        assert!(read(store, alice, 1_000).is_some_and(|r| r.points > 1500));
        assert!(read(store, bob, 1_000).is_some_and(|r| r.points < 1500));
        // A game that ended later than any stored is not in yet.
        assert_eq!(read(store, alice, 3_000), None);
    }

    #[test]
    fn history_and_export_name_what_is_missing() {
        let (_dir, mut store) = store("history");
        let store = store.as_mut();
        let history = |who: &str| Request::History {
            name: Some(name(who)),
            game: None,
            count: 20,
        };
        assert_eq!(error(store, history("Zed"), None), "no account \"Zed\"");
        let register = Request::Register {
            name: name("Alice"),
            password: password("correct horse"),
        };
        run(store, register, None).unwrap();
        assert_eq!(
            run(store, history("alice"), None).unwrap().0,
            Answer::History(vec![])
        );
        let export = Request::Export {
            id: GameId::new("h:9").unwrap(),
            format: None,
        };
        assert_eq!(error(store, export, None), "no game h:9 in the archive");
    }

    #[test]
    fn an_export_too_long_to_send_is_refused_with_its_size() {
        use reversi_store::{Ending, MoveRecord, StoredGame, StoredSeat};
        let seat = |team, name: &str| StoredSeat {
            team,
            name: name.into(),
            account: None,
            before: None,
            after: None,
        };
        let game = |moves: usize| StoredGame {
            id: GameId::new("h:1").unwrap(),
            kind: "tictactoe".into(),
            mode: reversi_store::Mode::Casual,
            time_control: String::new(),
            seed: 0,
            seats: vec![seat(0, "bob"), seat(1, ANONYMOUS)],
            moves: (0..moves)
                .map(|n| MoveRecord {
                    team: (n % 2) as u8,
                    notation: "b2".into(),
                    took_ms: 1000,
                })
                .collect(),
            outcome: Outcome::Win {
                team: 0,
                ending: Ending::Rules,
            },
            why: "X wins".into(),
            started: UnixMillis(0),
            ended: UnixMillis(1),
            host: "h".into(),
        };
        assert!(file(&game(5), Some(Format::Json)).is_ok());
        let why = file(&game(50_000), Some(Format::Json)).unwrap_err();
        assert!(
            why.starts_with("game h:1 is too long to export here (")
                && why.ends_with("at most 196608)"),
            "{why}"
        );
    }

    #[test]
    fn results_and_players_are_one_word_each() {
        use reversi_store::{Ending, StoredSeat};
        let win = |team| Outcome::Win {
            team,
            ending: Ending::Rules,
        };
        assert_eq!(result(&win(0)), "1-0");
        assert_eq!(result(&win(1)), "0-1");
        assert_eq!(result(&win(2)), "win:3");
        let draw = Outcome::Draw {
            ending: Ending::Agreement,
        };
        assert_eq!(result(&draw), "1/2");
        assert_eq!(result(&Outcome::Aborted), "aborted");
        let seat = |name: &str, account| StoredSeat {
            team: 0,
            name: name.into(),
            account,
            before: None,
            after: None,
        };
        assert_eq!(player_word(&seat("Alice", Some(AccountId(1)))), "Alice");
        assert_eq!(player_word(&seat("bob", None)), "bob~");
        assert_eq!(player_word(&seat(ANONYMOUS, None)), "-");
    }
}
