//! Names, accounts and API tokens against the real reversid (spec/TEXT-PROTOCOL.md §4.6):
//! register, sign in with a password and with a token, the one answer to a wrong
//! password, the sign-in limit, guests kept off accounts' names, revoked tokens, rated
//! challenges between accounts, the history and the export of a game, and no password
//! in the server's log.

use reversi_tests::text::TextClient;
use reversi_tests::Server;

const PASSWORD: &str = "correct horse battery";

/// A text connection that registers `name` (and is signed in as it).
fn registered(server: &Server, name: &str) -> TextClient {
    let mut c = TextClient::connect(server.addr());
    c.send(&format!("GAME REGISTER {name} {PASSWORD}"));
    assert_eq!(c.next_is("GAME SIGNEDIN "), format!("GAME SIGNEDIN {name}"));
    c
}

fn answer(c: &mut TextClient, line: &str) -> String {
    c.send(line);
    c.recv().expect("an answer")
}

#[test]
fn register_sign_out_and_in_with_a_password_and_with_a_token() {
    let server = Server::start_with_log(&[], "debug");
    let mut alice = registered(&server, "Alice");
    assert_eq!(answer(&mut alice, "GAME SIGNOUT"), "GAME SIGNEDOUT");
    assert_eq!(
        answer(&mut alice, "GAME SIGNOUT"),
        "ERROR not signed in, and no name to drop"
    );
    // Another spelling of the name signs in as the account (names are keyed without case).
    assert_eq!(
        answer(&mut alice, &format!("GAME SIGNIN ALICE {PASSWORD}")),
        "GAME SIGNEDIN Alice"
    );
    assert_eq!(
        answer(&mut alice, &format!("GAME SIGNIN Alice {PASSWORD}")),
        "ERROR signed in as Alice already; GAME SIGNOUT first"
    );
    alice.send("GAME APITOKEN NEW my bot");
    let line = alice.next_is("GAME APITOKEN ");
    let words: Vec<&str> = line.split_whitespace().collect();
    let (id, token) = (words[2].to_owned(), words[3].to_owned());
    assert!(
        token.starts_with("rvt_") && line.ends_with(" my bot"),
        "{line}"
    );
    alice.send("GAME APITOKENS");
    let listed = alice.next_is("GAME APITOKEN ");
    assert!(
        listed.starts_with(&format!("GAME APITOKEN {id} - my bot ")),
        "{listed}"
    );
    assert!(!listed.contains(&token));
    alice.next_is("GAME APITOKENS 1");

    assert!(listed.ends_with(" -"), "never used yet: {listed}");
    let mut bot = TextClient::connect(server.addr());
    assert_eq!(
        answer(&mut bot, &format!("GAME SIGNIN {token}")),
        "GAME SIGNEDIN Alice"
    );
    // The sign-in is the token's last use, in Unix ms after its creation.
    alice.send("GAME APITOKENS");
    let listed = alice.next_is("GAME APITOKEN ");
    let times: Vec<u64> = listed
        .rsplitn(3, ' ')
        .take(2)
        .map(|w| w.parse().unwrap_or_else(|_| panic!("{listed}")))
        .collect();
    assert!(times[0] >= times[1], "last used before made: {listed}");
    alice.next_is("GAME APITOKENS 1");
    assert_eq!(
        answer(&mut alice, &format!("GAME APITOKEN REVOKE {id}")),
        format!("GAME NEWS API token {id} revoked")
    );
    // The connection signed in with it waits no longer: it is told why and closed.
    assert_eq!(
        bot.recv().as_deref(),
        Some(format!("ERROR API token {id} was revoked; sign in again").as_str())
    );
    assert_eq!(bot.recv(), None, "closed");
    let mut late = TextClient::connect(server.addr());
    assert_eq!(
        answer(&mut late, &format!("GAME SIGNIN {token}")),
        "ERROR wrong name or password"
    );
    // Neither the password nor the token's secret reached the log.
    let secret = token.rsplit('_').next().unwrap().to_owned();
    let logs = server.logs();
    assert!(
        logs.iter()
            .any(|l| l.contains("GAME SIGNIN ALICE <password>")),
        "{logs:?}"
    );
    for line in &logs {
        assert!(!line.contains("horse"), "a password in the log: {line}");
        assert!(!line.contains(&secret), "a token in the log: {line}");
    }
}

#[test]
fn wrong_passwords_unknown_names_and_taken_names_get_their_errors() {
    let server = Server::start(&[]);
    let _alice = registered(&server, "Alice");
    let mut c = TextClient::connect(server.addr());
    for line in [
        "GAME SIGNIN Alice wrong horse battery",
        &format!("GAME SIGNIN Zelda {PASSWORD}"),
    ] {
        assert_eq!(
            answer(&mut c, line),
            "ERROR wrong name or password",
            "{line}"
        );
    }
    assert_eq!(
        answer(&mut c, &format!("GAME REGISTER aLiCe {PASSWORD}")),
        "ERROR the name \"aLiCe\" is taken"
    );
    assert_eq!(
        answer(&mut c, "GAME NAME ALICE"),
        "ERROR \"ALICE\" is an account's name; sign in with GAME SIGNIN"
    );
    assert_eq!(answer(&mut c, "GAME NAME bob"), "GAME GUEST bob");
    assert_eq!(
        answer(&mut c, "GAME APITOKENS"),
        "ERROR API tokens are an account's: sign in first (GAME SIGNIN)"
    );
    assert_eq!(answer(&mut c, "GAME SIGNOUT"), "GAME SIGNEDOUT");
}

#[test]
fn sign_ins_are_limited_per_account() {
    let server = Server::start(&[]);
    let _carol = registered(&server, "Carol");
    let mut guesser = TextClient::connect(server.addr());
    // The account's burst (10), then the limit.
    for n in 0..10 {
        assert_eq!(
            answer(&mut guesser, &format!("GAME SIGNIN Carol guess number {n}")),
            "ERROR wrong name or password"
        );
    }
    let refused = answer(&mut guesser, &format!("GAME SIGNIN Carol {PASSWORD}"));
    assert!(
        refused.starts_with("ERROR too many sign-in attempts; try again in "),
        "{refused}"
    );
}

/// Only wrong sign-ins count against an account's or a token's limit: a bot that signs in
/// with its token for every game (a new connection each) is not held back by it.
#[test]
fn a_bot_signing_in_right_for_every_game_is_not_limited() {
    let server = Server::start(&[]);
    let mut alice = registered(&server, "Alice");
    alice.send("GAME APITOKEN NEW bot");
    let made = alice.next_is("GAME APITOKEN ");
    let token = made.split_whitespace().nth(3).unwrap().to_owned();
    // Past the token's 10 (its address's 20 are not given back: one address, 15 tries).
    for n in 0..15 {
        let mut bot = TextClient::connect(server.addr());
        assert_eq!(
            answer(&mut bot, &format!("GAME SIGNIN {token}")),
            "GAME SIGNEDIN Alice",
            "sign-in {n}"
        );
    }
}

#[test]
fn a_server_without_a_store_keeps_guests_but_no_accounts() {
    let server = Server::start(&["--no-store"]);
    let mut c = TextClient::connect(server.addr());
    assert_eq!(answer(&mut c, "GAME NAME Alice"), "GAME GUEST Alice");
    for line in [
        format!("GAME REGISTER Alice {PASSWORD}"),
        format!("GAME SIGNIN Alice {PASSWORD}"),
        "GAME HISTORY Alice".to_owned(),
    ] {
        assert_eq!(
            answer(&mut c, &line),
            "ERROR this server keeps no accounts (--no-store)"
        );
    }
}

#[test]
fn a_sign_in_sent_with_the_join_is_answered_first() {
    let server = Server::start(&[]);
    drop(registered(&server, "Dave"));
    let mut dave = TextClient::connect(server.addr());
    dave.send(&format!("GAME SIGNIN Dave {PASSWORD}\nGAME TYPE reversi"));
    dave.next_is("GAME SIGNEDIN Dave");
    dave.next_is("GAME WAITING 1");
    assert_eq!(
        answer(&mut dave, "GAME SIGNOUT"),
        "ERROR waiting for a game already (GAME QUIT to leave the queue)"
    );
}

/// A game of Reversi between two seats, stored straight into the server's archive.
fn store_game(
    server: &Server,
    id: &str,
    mode: reversi_store::Mode,
    seats: [reversi_store::Player; 2],
) {
    use reversi_store::*;
    let mut store = SqliteStore::open(server.data_dir().path()).expect("the server's store");
    let now = UnixMillis::now();
    let [black, white] = seats;
    let game = FinishedGame {
        id: GameId::new(id).unwrap(),
        kind: "reversi".into(),
        mode,
        time_control: "move:60".into(),
        seed: 0,
        seats: vec![
            Seat {
                team: 0,
                player: black,
            },
            Seat {
                team: 1,
                player: white,
            },
        ],
        moves: vec![MoveRecord {
            team: 0,
            notation: "f5".into(),
            took_ms: 800,
        }],
        outcome: Outcome::Win {
            team: 0,
            ending: Ending::Resignation,
        },
        why: "white resigned".into(),
        started: now,
        ended: now,
        host: "test".into(),
    };
    assert_eq!(store.record_game(&game), Ok(Recorded::Stored));
}

fn account_id(server: &Server, name: &str) -> reversi_store::AccountId {
    use reversi_store::*;
    let mut store = SqliteStore::open(server.data_dir().path()).expect("the server's store");
    store
        .account(&Name::new(name).unwrap())
        .unwrap()
        .expect("registered")
        .id
}

#[test]
fn history_lists_an_accounts_games_and_export_writes_them() {
    use reversi_store::{Mode, Name, Player};
    let server = Server::start(&[]);
    let mut alice = registered(&server, "Alice");
    let _bob = registered(&server, "Bob");
    let (a, b) = (account_id(&server, "Alice"), account_id(&server, "Bob"));
    store_game(
        &server,
        "t-1",
        Mode::Rated,
        [Player::Account(a), Player::Account(b)],
    );
    let carol = Player::Guest(Name::new("carol").unwrap());
    store_game(&server, "t-2", Mode::Casual, [Player::Anonymous, carol]);
    store_game(
        &server,
        "t-3",
        Mode::Casual,
        [Player::Account(b), Player::Anonymous],
    );

    alice.send("GAME HISTORY");
    let line = alice.next_is("GAME ARCHIVED t-1 reversi ");
    assert!(line.ends_with(" 1-0 rated Alice Bob"), "{line}");
    alice.next_is("GAME HISTORY 1");
    alice.send("GAME HISTORY Bob reversi 5");
    assert!(alice
        .next_is("GAME ARCHIVED t-3 ")
        .ends_with(" 1-0 casual Bob -"));
    alice.next_is("GAME ARCHIVED t-1 ");
    alice.next_is("GAME HISTORY 2");
    assert_eq!(
        answer(&mut alice, "GAME HISTORY Zed"),
        "ERROR no account \"Zed\""
    );
    // An account called like a game: `name=` says which word is the name.
    let _reversi = registered(&server, "reversi");
    let r = account_id(&server, "reversi");
    store_game(
        &server,
        "t-4",
        Mode::Casual,
        [Player::Account(r), Player::Anonymous],
    );
    alice.send("GAME HISTORY name=reversi reversi");
    assert!(alice
        .next_is("GAME ARCHIVED t-4 ")
        .ends_with(" 1-0 casual reversi -"));
    alice.next_is("GAME HISTORY 1");

    // The rated game moved both ratings: a sign-in reads them.
    let mut again = TextClient::connect(server.addr());
    let signed = answer(&mut again, &format!("GAME SIGNIN Bob {PASSWORD}"));
    let points: u32 = signed
        .strip_prefix("GAME SIGNEDIN Bob reversi=")
        .and_then(|r| r.strip_suffix('?'))
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("{signed}"));
    assert!(points < 1500, "Bob lost: {signed}");

    alice.send("GAME EXPORT t-1");
    let head = alice.next_is("GAME FILE t-1 ggf ");
    let n: usize = head.rsplit(' ').next().unwrap().parse().unwrap();
    let lines: Vec<String> = (0..n).map(|_| alice.next_is("GAME LINE ")).collect();
    let ggf = lines.join("\n");
    assert!(
        ggf.contains("PB[Alice]") && ggf.contains("PW[Bob]"),
        "{ggf}"
    );
    alice.send("GAME EXPORT t-2 json");
    alice.next_is("GAME FILE t-2 json ");
    assert!(alice.expect("GAME LINE ").starts_with("GAME LINE {"));
    let mut c = TextClient::connect(server.addr());
    assert_eq!(
        answer(&mut c, "GAME EXPORT t-2 pdn"),
        "ERROR a reversi game exports as ggf or json"
    );
    assert_eq!(
        answer(&mut c, "GAME EXPORT t-9"),
        "ERROR no game t-9 in the archive"
    );
}

#[test]
fn a_rated_challenge_is_between_accounts() {
    let server = Server::start(&[]);
    let mut guest = TextClient::connect(server.addr());
    const NEEDS: &str = "ERROR a rated game needs an account; sign in first (GAME SIGNIN)";
    assert_eq!(answer(&mut guest, "GAME INVITE reversi rated"), NEEDS);
    let mut alice = registered(&server, "Alice");
    alice.send("GAME INVITE reversi public rated");
    let line = alice.next_is("GAME CODE ");
    assert!(
        line.ends_with(" private rated") || line.ends_with(" public rated"),
        "{line}"
    );
    let code = line.split_whitespace().nth(2).unwrap().to_owned();
    alice.next_is("GAME LINK ");
    alice.next_is("GAME WAITING 1");
    guest.send("GAME LOBBY");
    assert!(guest.next_is("GAME CHALLENGE ").ends_with(" public rated"));
    guest.next_is("GAME CHALLENGES 1");
    assert_eq!(answer(&mut guest, &format!("GAME JOIN {code}")), NEEDS);
    assert_eq!(answer(&mut guest, "GAME NAME guesty"), "GAME GUEST guesty");
    assert_eq!(answer(&mut guest, &format!("GAME JOIN {code}")), NEEDS);
    let mut alice_again = TextClient::connect(server.addr());
    alice_again.send(&format!("GAME SIGNIN Alice {PASSWORD}"));
    alice_again.next_is("GAME SIGNEDIN Alice");
    assert_eq!(
        answer(&mut alice_again, &format!("GAME JOIN {code}")),
        "ERROR a rated game is between two accounts: this challenge is yours"
    );
    let mut bob = registered(&server, "Bob");
    bob.send(&format!("GAME JOIN {code}"));
    bob.expect("GAME TEAM ");
    alice.expect("GAME TEAM ");
}

/// Alice (team 1) and Bob (team 2), both signed in, seated in a rated Tic-Tac-Toe game.
fn rated_pair(server: &Server) -> (TextClient, TextClient) {
    let mut alice = registered(server, "Alice");
    let mut bob = registered(server, "Bob");
    alice.send("GAME INVITE tictactoe side=1 rated");
    let code = alice
        .next_is("GAME CODE ")
        .split_whitespace()
        .nth(2)
        .unwrap()
        .to_owned();
    bob.send(&format!("GAME JOIN {code}"));
    bob.expect("GAME TEAM 2");
    (alice, bob)
}

/// Waits until Alice's win over Bob is archived as rated, then checks that her rating went
/// up and his down.
fn alice_won_rated(server: &Server) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let mut c = TextClient::connect(server.addr());
        c.send("GAME HISTORY Bob");
        let first = c.recv().unwrap();
        if first.starts_with("GAME ARCHIVED ") {
            assert!(first.ends_with(" 1-0 rated Alice Bob"), "{first}");
            c.expect("GAME HISTORY 1");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not archived: {first}; {:#?}",
            server.logs()
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    for (name, up) in [("Alice", true), ("Bob", false)] {
        let mut c = TextClient::connect(server.addr());
        let signed = answer(&mut c, &format!("GAME SIGNIN {name} {PASSWORD}"));
        let rating: u32 = signed
            .strip_prefix(&format!("GAME SIGNEDIN {name} tictactoe="))
            .and_then(|r| r.trim_end_matches('?').parse().ok())
            .unwrap_or_else(|| panic!("{name} has no tictactoe rating: {signed}"));
        assert_eq!(rating > 1500, up, "{signed}");
    }
}

/// The whole way: a rated game played over the wire ends (Bob resigns), its journal names
/// both accounts and `rated`, and the archive moves both ratings.
#[test]
fn a_rated_game_played_to_its_end_moves_both_ratings() {
    let server = Server::start(&["--fixed-colours"]);
    let (mut alice, mut bob) = rated_pair(&server);
    bob.send("GAME QUIT");
    alice.expect("GAME OVER");
    alice_won_rated(&server);
}

/// A connection signed in before a rated game of its account ended plays its next game
/// with the rating the game left, not the one read at its sign-in (GAME PLAYER).
#[test]
fn the_next_game_shows_the_rating_the_last_one_left() {
    let server = Server::start(&["--fixed-colours"]);
    let (mut alice, mut bob) = rated_pair(&server);
    let mut bob_waits = TextClient::connect(server.addr()).keep_every_line();
    assert_eq!(
        answer(&mut bob_waits, &format!("GAME SIGNIN Bob {PASSWORD}")),
        "GAME SIGNEDIN Bob"
    );
    bob.send("GAME QUIT");
    alice.expect("GAME OVER");
    alice_won_rated(&server);
    // The stored game's rating reaches the waiting connection within a tick or so (the
    // connection is the one signed in before: a new sign-in would read the store anyway).
    std::thread::sleep(std::time::Duration::from_secs(3));
    bob_waits.send("GAME INVITE tictactoe side=1");
    let code = bob_waits.next_is("GAME CODE ");
    let code = code.split_whitespace().nth(2).unwrap().to_owned();
    let mut other = TextClient::connect(server.addr());
    other.send(&format!("GAME JOIN {code}"));
    let shown = bob_waits.expect("GAME PLAYER 1 ");
    let rating: u32 = shown
        .strip_prefix("GAME PLAYER 1 account Bob ")
        .and_then(|r| r.strip_suffix('?'))
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("Bob's rating is not the game's: {shown}"));
    assert!(rating < 1500, "Bob lost: {shown}");
}

/// A rated game's loser cannot dodge the rating by leaving: a seat that drops and does not
/// come back in its grace loses by abandonment, and the archive moves both ratings.
#[test]
fn a_rated_game_abandoned_by_a_player_still_moves_both_ratings() {
    let server = Server::start(&["--fixed-colours", "--grace", "1"]);
    let (mut alice, mut bob) = rated_pair(&server);
    alice.expect("READY");
    alice.send("MOVE b2");
    bob.expect("READY");
    let _ = bob.stream().shutdown(std::net::Shutdown::Both);
    alice.expect("GAME AWAY 2 0");
    alice.send("GAME CLAIM WIN");
    alice.expect("GAME OVER 1 ");
    drop(alice);
    alice_won_rated(&server);
}

/// What one half of the figures' run measured.
#[derive(Default)]
struct Figures {
    sign_in: Vec<std::time::Duration>,
    set_up: Vec<std::time::Duration>,
    round_trip: Vec<std::time::Duration>,
}

impl Figures {
    fn print(&mut self, what: &str) {
        use reversi_tests::quantile;
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
        let mean = self.set_up.iter().sum::<std::time::Duration>() / self.set_up.len() as u32;
        println!(
            "{what}: {} set-ups, {:.1} a second one after another (p50 {:.2} ms, p99 {:.2} ms); \
             move round trip p50 {:.2} ms, p99 {:.2} ms ({} moves); sign-in p50 {:.2} ms, p99 {:.2} ms",
            self.set_up.len(),
            1.0 / mean.as_secs_f64(),
            ms(quantile(&mut self.set_up, 0.5)),
            ms(quantile(&mut self.set_up, 0.99)),
            ms(quantile(&mut self.round_trip, 0.5)),
            ms(quantile(&mut self.round_trip, 0.99)),
            self.round_trip.len(),
            ms(quantile(&mut self.sign_in, 0.5)),
            ms(quantile(&mut self.sign_in, 0.99)),
        );
    }
}

/// A text connection from `from` (a loopback address of its own: the sign-in limits count
/// per address, and the figures' players are many).
fn connect_from(server: &Server, from: &str) -> TextClient {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    let from: std::net::SocketAddr = from.parse().unwrap();
    socket.bind(&from.into()).unwrap();
    socket.connect(&server.addr().into()).unwrap();
    TextClient::from_stream(socket.into())
}

/// One game of tic-tac-toe, its players signed in (`accounts`) or anonymous: the sign-ins,
/// the set-up (the second `GAME TYPE` to both `GAME TEAM` lines) and four moves' round
/// trips (`MOVE` to its own `GAME MOVED`), then both leave.
fn measured_game(server: &Server, g: usize, accounts: Option<[String; 2]>, figures: &mut Figures) {
    use std::time::Instant;
    let from = format!("127.0.0.{}:0", 2 + g % 250);
    let mut a = connect_from(server, &from);
    let mut b = connect_from(server, &from);
    if let Some(names) = accounts {
        for (c, name) in [(&mut a, &names[0]), (&mut b, &names[1])] {
            let t = Instant::now();
            c.send(&format!("GAME SIGNIN {name} {PASSWORD}"));
            c.next_is("GAME SIGNEDIN ");
            figures.sign_in.push(t.elapsed());
        }
    }
    a.send("GAME TYPE tictactoe");
    a.next_is("GAME WAITING 1");
    let t = Instant::now();
    b.send("GAME TYPE tictactoe");
    let team_of_a = a.expect("GAME TEAM ");
    b.expect("GAME TEAM ");
    figures.set_up.push(t.elapsed());
    let (mut x, mut o) = match team_of_a.starts_with("GAME TEAM 1 ") {
        true => (a, b),
        false => (b, a),
    };
    for (i, square) in ["a1", "b1", "a2", "b2"].iter().enumerate() {
        let mover = if i % 2 == 0 { &mut x } else { &mut o };
        mover.expect("READY");
        let t = Instant::now();
        mover.send(&format!("MOVE {square}"));
        mover.expect("GAME MOVED ");
        figures.round_trip.push(t.elapsed());
    }
    x.send("GAME QUIT");
    o.send("GAME QUIT");
}

/// Issue 26's figure: set-ups and the move round trip with signed-in players against
/// anonymous ones, in one run (games alternate), the store on for both.
#[test]
#[ignore = "a figure: cargo test -p reversi-tests --test server_accounts figures -- --ignored --nocapture"]
fn figures_signed_in_players_against_anonymous_ones() {
    use reversi_store::{Name, Password, SqliteStore, Store, UnixMillis};
    const GAMES: usize = 100;
    let unlimited = "1000000";
    let server = Server::start(&[
        "--game-starts-per-address",
        unlimited,
        "--game-start-rate",
        unlimited,
    ]);
    let names = |g: usize| [format!("benchx{g}"), format!("bencho{g}")];
    {
        let mut store = SqliteStore::open(server.data_dir().path()).unwrap();
        let password = Password::new(PASSWORD).unwrap();
        for g in (0..2 * GAMES).filter(|g| g % 2 == 1) {
            for name in names(g) {
                let name = Name::new(&name).unwrap();
                store.register(&name, &password, UnixMillis::now()).unwrap();
            }
        }
    }
    let (mut anonymous, mut signed_in) = (Figures::default(), Figures::default());
    for g in 0..2 * GAMES {
        match g % 2 {
            0 => measured_game(&server, g, None, &mut anonymous),
            _ => measured_game(&server, g, Some(names(g)), &mut signed_in),
        }
    }
    anonymous.print("anonymous players");
    signed_in.print("signed-in players");
}

/// The page's WebSocket speaks the same lines, one message a line.
#[test]
fn the_page_registers_and_signs_in_over_its_websocket() {
    use tungstenite::Message;
    let server = Server::start(&[]);
    let stream = std::net::TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    let url = format!("ws://{}/ws", server.addr());
    let mut ws = tungstenite::client(url.as_str(), stream).unwrap().0;
    let mut say = |line: &str| -> String {
        ws.send(Message::text(line)).unwrap();
        loop {
            if let Message::Text(text) = ws.read().unwrap() {
                return text.trim_end().to_owned();
            }
        }
    };
    assert_eq!(
        say(&format!("GAME REGISTER Erin {PASSWORD}")),
        "GAME SIGNEDIN Erin"
    );
    let new = say("GAME APITOKEN NEW browser");
    let token = new.split_whitespace().nth(3).unwrap().to_owned();
    assert!(new.ends_with(" browser"), "{new}");
    assert_eq!(say("GAME SIGNOUT"), "GAME SIGNEDOUT");
    assert_eq!(say(&format!("GAME SIGNIN {token}")), "GAME SIGNEDIN Erin");
    assert_eq!(say("GAME HISTORY"), "GAME HISTORY 0");
}

/// An answer whose connection left meanwhile is dropped: the next connection (in the slot
/// the first left free) is told nothing and is nobody but itself.
#[test]
fn an_answer_to_a_connection_that_left_goes_to_no_one() {
    let server = Server::start(&[]);
    let mut gone = TextClient::connect(server.addr());
    gone.send(&format!("GAME REGISTER Frank {PASSWORD}"));
    gone.stream().shutdown(std::net::Shutdown::Both).unwrap();
    drop(gone);
    std::thread::sleep(std::time::Duration::from_millis(5));
    let mut next = TextClient::connect(server.addr());
    next.set_timeout(std::time::Duration::from_millis(500));
    assert_eq!(next.recv(), None, "nothing was asked");
    let mut next = TextClient::connect(server.addr());
    assert_eq!(
        answer(&mut next, "GAME SIGNOUT"),
        "ERROR not signed in, and no name to drop"
    );
    // The registration itself was made.
    assert_eq!(
        answer(&mut next, "GAME NAME frank"),
        "ERROR \"frank\" is an account's name; sign in with GAME SIGNIN"
    );
}
