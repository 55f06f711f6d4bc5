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

    let mut bot = TextClient::connect(server.addr());
    assert_eq!(
        answer(&mut bot, &format!("GAME SIGNIN {token}")),
        "GAME SIGNEDIN Alice"
    );
    assert_eq!(
        answer(&mut alice, &format!("GAME APITOKEN REVOKE {id}")),
        format!("GAME NEWS API token {id} revoked")
    );
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
