//! The page's buttons for an opponent who left and for a rematch, in a real browser
//! (spec/TEXT-PROTOCOL.md §5.5 and §6.4, issue 25): a text client's connection is cut
//! mid-game, the page counts the grace down, offers the claims when it ends, and its
//! "Claim win" button wins the game; after a finished game the page offers a rematch
//! that the text client accepts, then accepts the text client's offer. Screenshots go to
//! target/<profile>/browser/. Without Chromium (scripts/install-tools.sh chromium) the
//! tests skip and say so.

use std::time::Duration;

use reversi_tests::browser::{chromium, Browser, Chromium};
use reversi_tests::text::TextClient;
use reversi_tests::{target_dir, Server};
use serde_json::Value;

/// How long the page may take to answer one step.
const STEP: Duration = Duration::from_secs(15);

fn wait(browser: &mut Browser, expression: &str) -> Value {
    browser.wait_for(expression, STEP).unwrap_or_else(|e| {
        let says = browser
            .eval("document.querySelector('main').innerText")
            .unwrap_or_default();
        panic!("{e}; the page says:\n{says}")
    })
}

fn text(browser: &mut Browser, expression: &str) -> String {
    match browser.eval(expression).unwrap() {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

fn browser() -> Option<Chromium> {
    let found = chromium();
    if found.is_none() {
        reversi_tests::skipped(
            "chromium or chromedriver is not installed (scripts/install-tools.sh chromium)",
        );
    }
    found
}

/// A text client's challenge (`options`), joined by the page through its link.
fn joined(server: &Server, browser: &mut Browser, options: &str) -> TextClient {
    let mut creator = TextClient::connect(server.addr());
    creator.send(&format!("GAME INVITE {options}"));
    let code = creator.expect("GAME CODE");
    let code = code.split_whitespace().nth(2).unwrap().to_owned();
    browser
        .navigate(&format!("http://{}/#join={code}", server.addr()))
        .unwrap();
    wait(browser, "document.body.dataset.state === 'playing'");
    creator
}

#[test]
fn the_claim_win_button_ends_the_game_when_the_grace_runs_out() {
    let Some(program) = browser() else { return };
    let server = Server::start(&["--fixed-colours", "--grace", "3"]);
    let mut browser = Browser::start(&program, 1100, 900).expect("headless chromium");
    let shots = target_dir().join("browser");
    let mut creator = joined(&server, &mut browser, "reversi time=5+3 side=white");
    creator.expect("GAME TEAM 2");

    // The connection is cut, not closed by the client: the page counts the grace down.
    creator.stream().shutdown(std::net::Shutdown::Both).unwrap();
    drop(creator);
    wait(&mut browser, "!document.getElementById('away').hidden");
    let away = text(
        &mut browser,
        "document.getElementById('away-text').textContent",
    );
    assert!(away.starts_with("White's connection dropped"), "{away}");
    assert!(browser
        .eval("document.getElementById('claims').hidden")
        .unwrap()
        .as_bool()
        .unwrap());

    // The grace ends: the claims are offered, and the button's claim wins.
    wait(&mut browser, "!document.getElementById('claims').hidden");
    browser
        .screenshot(&shots.join("claims-offered.png"))
        .unwrap();
    browser.click("#claim-win").unwrap();
    wait(&mut browser, "document.body.dataset.state === 'over'");
    assert_eq!(
        text(
            &mut browser,
            "document.getElementById('result').dataset.standing"
        ),
        "win"
    );
    let why = text(
        &mut browser,
        "document.getElementById('result').dataset.why",
    );
    assert!(why.contains("did not come back"), "{why}");
    assert!(browser
        .eval("document.getElementById('away').hidden")
        .unwrap()
        .as_bool()
        .unwrap());
}

/// The page (`page`) and the text client (`other`) play three in a row on column a: the one
/// that moves first, X, wins. `page_first` says whether the page is X.
fn x_wins(browser: &mut Browser, other: &mut TextClient, page_first: bool) {
    let (x, o) = (["a1", "a2", "a3"], ["b1", "b2"]);
    for turn in 0..5 {
        let square = if turn % 2 == 0 {
            x[turn / 2]
        } else {
            o[turn / 2]
        };
        let page_moves = (turn % 2 == 0) == page_first;
        if page_moves {
            wait(browser, "document.body.dataset.yourMove === 'yes'");
            browser
                .eval(&format!(
                    "document.getElementById('typed-move').value = '{square}', true"
                ))
                .unwrap();
            browser.click("#typed button[type=submit]").unwrap();
        } else {
            other.expect("READY");
            other.send(&format!("MOVE {square}"));
        }
    }
    other.expect("GAME OVER");
    wait(browser, "document.body.dataset.state === 'over'");
}

#[test]
fn the_rematch_buttons_offer_and_accept_with_sides_swapped() {
    let Some(program) = browser() else { return };
    // The harness turns rematch offers off unless asked.
    let server = Server::start(&["--fixed-colours", "--rematch-window", "20"]);
    let mut browser = Browser::start(&program, 1100, 900).expect("headless chromium");
    let shots = target_dir().join("browser");
    let mut other = joined(&server, &mut browser, "tictactoe side=2");
    other.expect("GAME TEAM 2");

    // The page wins as X and offers a rematch; the text client accepts: the page is O now.
    x_wins(&mut browser, &mut other, true);
    wait(&mut browser, "!document.getElementById('rematch').hidden");
    assert_eq!(
        text(
            &mut browser,
            "document.getElementById('rematch-yes').textContent"
        ),
        "Rematch"
    );
    browser.click("#rematch-yes").unwrap();
    other.expect("GAME OFFERED REMATCH 1");
    wait(
        &mut browser,
        "document.getElementById('rematch-yes').disabled",
    );
    other.send("GAME ACCEPT REMATCH");
    other.expect("GAME TEAM 1");
    wait(
        &mut browser,
        "document.body.dataset.state === 'playing' && document.getElementById('you').textContent === 'O'",
    );

    // The text client wins as X and offers; the page's button accepts: the page is X again.
    x_wins(&mut browser, &mut other, false);
    other.send("GAME OFFER REMATCH");
    wait(
        &mut browser,
        "document.getElementById('rematch-yes').textContent === 'Accept rematch'",
    );
    browser
        .screenshot(&shots.join("claims-rematch-offered.png"))
        .unwrap();
    browser.click("#rematch-yes").unwrap();
    other.expect("GAME TEAM 2");
    wait(
        &mut browser,
        "document.body.dataset.state === 'playing' && document.getElementById('you').textContent === 'X'",
    );
}
