//! Accounts in a real browser (spec/TEXT-PROTOCOL.md §15.3, issue 26): the page signs up,
//! signs out (its token revoked), signs in with "remember me" and is still signed in after
//! a reload (the `browser` API token in localStorage, no cookie); it joins a text client's
//! rated challenge by its link, shows both players' names and ratings, and lists the game
//! in "My games" with its replay and files; the profile page draws the rating history.
//! Screenshots go to target/<profile>/browser/. Without Chromium
//! (scripts/install-tools.sh chromium) the test skips and says so.

use std::time::{Duration, Instant};

use reversi_tests::browser::{chromium, Browser};
use reversi_tests::text::TextClient;
use reversi_tests::{target_dir, Server};
use serde_json::Value;

/// How long the page may take to answer one step.
const STEP: Duration = Duration::from_secs(15);
const PASSWORD: &str = "correct horse battery";

fn wait(browser: &mut Browser, expression: &str) -> Value {
    browser.wait_for(expression, STEP).unwrap_or_else(|e| {
        let says = browser.eval("document.body.innerText").unwrap_or_default();
        panic!("{e}; the page says:\n{says}")
    })
}

fn text(browser: &mut Browser, expression: &str) -> String {
    match browser.eval(expression).unwrap() {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

/// Types a name and a password into the account box.
fn fill(browser: &mut Browser, name: &str, remember: bool) {
    browser
        .eval(&format!(
            "document.getElementById('account-name').value = '{name}', \
             document.getElementById('account-password').value = '{PASSWORD}', \
             document.getElementById('remember').checked = {remember}, true"
        ))
        .unwrap();
}

const SIGNED_IN: &str = "document.body.dataset.account === 'signed-in'";

/// `bob` (signed in) makes a rated Reversi challenge, the page (signed in) joins it by its
/// link, plays d3, and wins when Bob leaves; returns the players' line as the page showed it.
fn rated_game(browser: &mut Browser, mut bob: TextClient, page: &str) -> String {
    bob.send("GAME INVITE reversi side=white rated");
    let code = bob.next_is("GAME CODE ");
    assert!(code.ends_with(" rated"), "{code}");
    let code = code.split_whitespace().nth(2).unwrap().to_owned();
    browser.navigate(&format!("{page}#join={code}")).unwrap();
    wait(browser, "document.body.dataset.state === 'playing'");
    bob.expect("GAME TEAM 2");
    wait(
        browser,
        "document.querySelectorAll('#players li').length === 2",
    );
    let players = text(browser, "document.getElementById('players').innerText");
    wait(browser, "document.body.dataset.yourMove === 'yes'");
    browser
        .eval("document.getElementById('typed-move').value = 'd3', true")
        .unwrap();
    browser.click("#typed button[type=submit]").unwrap();
    bob.expect("GAME MOVED 1");
    let shot = target_dir()
        .join("browser")
        .join("accounts-board-names.png");
    browser.screenshot(&shot).unwrap();
    bob.send("GAME QUIT");
    wait(browser, "document.body.dataset.state === 'over'");
    browser.click("#leave").unwrap();
    players
}

#[test]
fn sign_up_out_and_in_remembered_then_a_rated_game_by_link_in_my_games() {
    let Some(program) = chromium() else {
        reversi_tests::skipped(
            "chromium or chromedriver is not installed (scripts/install-tools.sh chromium)",
        );
        return;
    };
    let server = Server::start(&["--fixed-colours"]);
    let mut browser = Browser::start(&program, 1100, 900).expect("headless chromium");
    let shots = target_dir().join("browser");
    let page = format!("http://{}/", server.addr());

    // Sign up: the box warns that http carries the password in clear.
    browser.navigate(&page).unwrap();
    wait(&mut browser, "document.querySelector('#games button')");
    assert!(!browser
        .eval("document.getElementById('http-warning').hidden")
        .unwrap()
        .as_bool()
        .unwrap());
    assert!(browser
        .eval("document.getElementById('invite-rated-label').hidden")
        .unwrap()
        .as_bool()
        .unwrap());
    fill(&mut browser, "Ann", false);
    browser
        .screenshot(&shots.join("accounts-sign-in.png"))
        .unwrap();
    browser.click("#sign-up").unwrap();
    wait(&mut browser, SIGNED_IN);
    assert_eq!(
        text(
            &mut browser,
            "document.getElementById('whoami').textContent"
        ),
        "Signed in as Ann"
    );
    assert_eq!(
        browser
            .eval("localStorage.getItem('reversid.token')")
            .unwrap(),
        Value::Null,
        "not remembered unless asked"
    );
    wait(
        &mut browser,
        "!document.getElementById('invite-rated-label').hidden",
    );

    // Sign out, then in with the password and "remember me".
    browser.click("#sign-out").unwrap();
    wait(
        &mut browser,
        "document.body.dataset.account === 'anonymous'",
    );
    fill(&mut browser, "ann", true);
    browser.click("#sign-in-button").unwrap();
    wait(&mut browser, SIGNED_IN);
    let kept = text(&mut browser, "localStorage.getItem('reversid.token')");
    assert!(kept.contains("\"secret\":\"rvt_"), "{kept}");
    assert!(
        text(&mut browser, "document.cookie").is_empty(),
        "no cookies"
    );

    // A reload signs in with the kept token.
    browser.navigate(&page).unwrap();
    wait(&mut browser, SIGNED_IN);
    assert_eq!(
        text(
            &mut browser,
            "document.getElementById('whoami').textContent"
        ),
        "Signed in as Ann"
    );

    // Bob, signed in on a text connection, makes a rated challenge; the page joins by its link
    // and shows both players; Bob leaves, Ann wins. Their second game shows the ratings it moved.
    let mut bob = TextClient::connect(server.addr());
    bob.send(&format!("GAME REGISTER Bob {PASSWORD}"));
    bob.next_is("GAME SIGNEDIN Bob");
    let players = rated_game(&mut browser, bob, &page);
    assert!(
        players.contains("Ann unrated") && players.contains("Bob unrated"),
        "{players}"
    );
    let profile = text(
        &mut browser,
        "document.querySelector('#players li[data-team=\"2\"] a').getAttribute('href')",
    );
    assert_eq!(profile, "/players/Bob");
    let mut bob = TextClient::connect(server.addr());
    bob.send(&format!("GAME SIGNIN Bob {PASSWORD}"));
    bob.next_is("GAME SIGNEDIN Bob reversi=");
    let players = rated_game(&mut browser, bob, &page);
    assert!(
        players.contains("Ann 1662?") && players.contains("Bob 1338?"),
        "{players}"
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        browser.click("#my-games").unwrap();
        wait(
            &mut browser,
            "document.getElementById('mine').dataset.state === 'listed'",
        );
        if browser
            .eval("document.querySelectorAll('#mine-list tbody tr').length === 2")
            .unwrap()
            == Value::Bool(true)
        {
            break;
        }
        assert!(Instant::now() < deadline, "the game never reached My games");
        browser.click("#mine-back").unwrap();
        std::thread::sleep(Duration::from_millis(300));
    }
    let row = text(
        &mut browser,
        "document.querySelector('#mine-list tbody tr').innerText",
    );
    assert!(row.contains("1-0") && row.contains("rated"), "{row}");
    assert!(row.contains("Ann vs Bob"), "{row}");
    let id = text(
        &mut browser,
        "document.querySelector('#mine-list tbody tr').dataset.id",
    );
    let files = text(
        &mut browser,
        "[...document.querySelectorAll('#mine-list tbody tr a')].map(a => a.getAttribute('href')).join(' ')",
    );
    let id_in_path = id.replace(':', "%3A");
    for href in [
        format!("/games/{id_in_path}"),
        format!("/games/{id_in_path}.json"),
        format!("/games/{id_in_path}.ggf"),
        "/players/Ann".to_owned(),
    ] {
        assert!(files.split(' ').any(|f| f == href), "{href} in {files}");
    }
    browser
        .screenshot(&shots.join("accounts-my-games.png"))
        .unwrap();

    // The replay and the profile, with its chart of the rating that moved.
    browser
        .navigate(&format!("{page}games/{id_in_path}"))
        .unwrap();
    wait(&mut browser, "document.getElementById('moves')");
    browser.navigate(&format!("{page}games/")).unwrap();
    wait(
        &mut browser,
        &format!("document.querySelector('a[href=\"/games/{id}\"]')"),
    );
    browser.navigate(&format!("{page}players/Ann")).unwrap();
    wait(&mut browser, "document.querySelector('svg.chart polyline')");
    let rating = text(
        &mut browser,
        "document.querySelector('td:nth-child(2)').textContent",
    );
    assert!(rating.ends_with('?') && rating != "1500?", "{rating}");
    browser
        .screenshot(&shots.join("accounts-profile.png"))
        .unwrap();
}

/// An account that holds all 20 of its API tokens (pages closed without signing out leave
/// theirs) still signs in on the page: the page gives up its `browser` token used longest
/// ago for its new one.
#[test]
fn a_sign_in_at_the_token_cap_gives_up_the_stalest_page_token() {
    let Some(program) = chromium() else {
        reversi_tests::skipped(
            "chromium or chromedriver is not installed (scripts/install-tools.sh chromium)",
        );
        return;
    };
    let server = Server::start(&[]);
    let mut cy = TextClient::connect(server.addr());
    cy.send(&format!("GAME REGISTER Cyd {PASSWORD}"));
    cy.next_is("GAME SIGNEDIN Cyd");
    // Each made in a millisecond of its own: the page orders unused tokens by the
    // millisecond they were made, and two made in one are equally stale.
    let ids: Vec<String> = (0..20)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(2));
            cy.send("GAME APITOKEN NEW browser");
            let made = cy.next_is("GAME APITOKEN ");
            made.split_whitespace().nth(2).unwrap().to_owned()
        })
        .collect();
    cy.send("GAME APITOKEN NEW browser");
    assert!(cy.next_is("ERROR ").contains("at most 20 API tokens"));

    let mut browser = Browser::start(&program, 1100, 900).expect("headless chromium");
    browser
        .navigate(&format!("http://{}/", server.addr()))
        .unwrap();
    wait(&mut browser, "document.querySelector('#games button')");
    fill(&mut browser, "Cyd", false);
    browser.click("#sign-in-button").unwrap();
    wait(&mut browser, SIGNED_IN);
    cy.send("GAME APITOKENS");
    let listed: Vec<String> = (0..20).map(|_| cy.next_is("GAME APITOKEN ")).collect();
    cy.next_is("GAME APITOKENS 20");
    assert!(
        !listed.iter().any(|l| l.contains(&ids[0])),
        "the oldest unused token is gone: {listed:?}"
    );
    let page_token = text(&mut browser, "JSON.stringify(me.token)");
    assert!(
        !ids.iter().any(|id| page_token.contains(id.as_str())),
        "{page_token}"
    );
}
