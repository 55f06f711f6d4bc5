//! The page plays together in a real browser (docs/design/play-together.md §14, W-link):
//! a text client's challenge is joined by opening its link (`/#join=CODE`), the page shows
//! every team's clock with the mover's running, keeps its seat's token for the tab and
//! comes back to the game on a reload; the invite form shows a new challenge's code.
//! Screenshots go to target/<profile>/browser/. Without Chromium
//! (scripts/install-tools.sh chromium) the test skips and says so.

use std::time::Duration;

use reversi_tests::browser::{chromium, Browser};
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

#[test]
fn w_link_joins_a_challenge_and_a_reload_takes_the_seat_back() {
    let Some(program) = chromium() else {
        reversi_tests::skipped(
            "chromium or chromedriver is not installed (scripts/install-tools.sh chromium)",
        );
        return;
    };
    let server = Server::start(&["--fixed-colours", "--grace", "30"]);
    let mut creator = TextClient::connect(server.addr());
    creator.send("GAME INVITE reversi time=5+3 side=white");
    let code = creator.expect("GAME CODE");
    let code = code.split_whitespace().nth(2).unwrap().to_owned();
    let mut browser = Browser::start(&program, 1100, 900).expect("headless chromium");
    let shots = target_dir().join("browser");
    let page = format!("http://{}/", server.addr());

    // The link opens the page straight into the game; the fragment is gone after.
    browser.navigate(&format!("{page}#join={code}")).unwrap();
    wait(&mut browser, "document.body.dataset.state === 'playing'");
    assert_eq!(text(&mut browser, "location.hash"), "");
    creator.expect("GAME TEAM 2");
    wait(
        &mut browser,
        "document.querySelectorAll('#clocks .clock').length === 2",
    );
    wait(
        &mut browser,
        "document.querySelector('#clocks .clock.running[data-team=\"1\"]')",
    );
    let left = text(
        &mut browser,
        "document.querySelector('#clocks .clock[data-team=\"2\"] .left').textContent",
    );
    assert_eq!(left, "5:00", "white's clock waits at 5 min");
    browser
        .screenshot(&shots.join("together-clocks.png"))
        .unwrap();
    let kept = text(&mut browser, "sessionStorage.getItem('reversid.resume')");
    assert!(kept.contains("\"game\":\"reversi\""), "{kept}");

    // A reload takes the seat back with the token: the opponent sees it go and come back.
    browser.navigate(&page).unwrap();
    creator.expect("GAME AWAY 1 ");
    creator.expect("GAME BACK 1");
    wait(&mut browser, "document.body.dataset.yourMove === 'yes'");

    // A new tab's page (no token) offers the invite form; a challenge shows its code.
    browser
        .eval("sessionStorage.clear(), location.assign('/'), true")
        .unwrap();
    wait(
        &mut browser,
        "document.querySelector('#invite-game option')",
    );
    browser.click("#invite button[type=submit]").unwrap();
    wait(&mut browser, "!document.getElementById('code-box').hidden");
    let shown = text(&mut browser, "document.getElementById('code').textContent");
    let groups: Vec<&str> = shown.split('-').collect();
    assert!(
        groups.len() == 3 && groups.iter().all(|g| g.len() == 4),
        "{shown}"
    );
    let link = text(&mut browser, "document.getElementById('link').value");
    assert!(link.ends_with(&format!("#join={shown}")), "{link}");
    browser
        .screenshot(&shots.join("together-invite.png"))
        .unwrap();
}
