//! The page's clocks and timers in a real browser: headless Chromium plays Reversi
//! against `reversi bot` with a short move clock and lets it run out, and plays
//! Foxes & Dolphins with a short tide. The page must show the running clock
//! counting down, warn in words (not colour alone) under 10 s, and show the
//! game's tide and quiet timers. Screenshots go to target/<profile>/browser/.
//! Without Chromium (scripts/install-tools.sh chromium) the test skips and says so.

use std::time::Duration;

use reversi_tests::browser::{chromium, Bot, Browser};
use reversi_tests::{target_dir, Server};
use serde_json::Value;

/// How long the page may take to answer one step.
const STEP: Duration = Duration::from_secs(10);

fn wait(browser: &mut Browser, expression: &str, timeout: Duration) -> Value {
    browser.wait_for(expression, timeout).unwrap_or_else(|e| {
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

/// Opens the page and joins `game`, which a bot joins too.
fn join(browser: &mut Browser, server: &Server, game: &str) -> Bot {
    browser
        .navigate(&format!("http://{}/", server.addr()))
        .unwrap();
    let button = format!("#games button[data-game=\"{game}\"]");
    wait(
        browser,
        &format!("document.querySelector('{button}')"),
        STEP,
    );
    browser.click(&button).unwrap();
    wait(browser, "document.body.dataset.state === 'waiting'", STEP);
    let bot = Bot::start(server, game, "30");
    wait(browser, "document.body.dataset.state === 'playing'", STEP);
    bot
}

#[test]
fn the_page_counts_the_move_clock_down_warns_in_words_and_shows_the_tide() {
    let Some(program) = chromium() else {
        reversi_tests::skipped(
            "chromium or chromedriver is not installed (scripts/install-tools.sh chromium)",
        );
        return;
    };
    let server = Server::start(&[
        "--move-timeout",
        "12",
        "--fixed-colours",
        "--game-option",
        "foxes.tide-ms=4000",
    ]);
    let mut browser = Browser::start(&program, 1100, 860).expect("headless chromium");
    let shots = target_dir().join("browser");

    // Reversi: the page joined first, so it is black and to move, with 12 s.
    let _bot = join(&mut browser, &server, "reversi");
    let clock = "document.querySelector('#clocks .clock.running')";
    wait(&mut browser, clock, STEP);
    assert_eq!(
        text(&mut browser, &format!("{clock}.dataset.team")),
        "1",
        "black's clock runs"
    );
    let first = text(
        &mut browser,
        &format!("{clock}.querySelector('.left').textContent"),
    );
    assert!(
        ["0:12", "0:11", "0:10"].contains(&first.as_str()),
        "{first}"
    );
    // Under 10 s: a warning colour and the words.
    wait(
        &mut browser,
        "document.querySelector('#clocks .clock.running.low')",
        STEP,
    );
    let note = text(
        &mut browser,
        &format!("{clock}.querySelector('.note').textContent"),
    );
    assert_eq!(note, "hurry: move now!");
    wait(
        &mut browser,
        &format!("{clock}.querySelector('.left').textContent <= '0:07'"),
        STEP,
    );
    browser
        .screenshot(&shots.join("reversi-clock-low.png"))
        .unwrap();
    // The server's clock is the authority: the game ends on it.
    wait(&mut browser, "document.body.dataset.state === 'over'", STEP);
    let why = text(
        &mut browser,
        "document.getElementById('result').dataset.why",
    );
    assert_eq!(why, "black ran out of time");
    assert_eq!(
        text(
            &mut browser,
            "document.querySelectorAll('#clocks .running').length"
        ),
        "0",
        "every clock stops at the end"
    );

    // Foxes & Dolphins: no move clock; the tide and the quiet limit count down.
    let _bot = join(&mut browser, &server, "foxes");
    let tide = "document.querySelector('#timers [data-timer=tide]')";
    wait(&mut browser, tide, STEP);
    let said = text(&mut browser, &format!("{tide}.textContent"));
    assert!(
        said.starts_with("Tide in ") && said.ends_with(" s: the tide turns"),
        "{said}"
    );
    let quiet = text(
        &mut browser,
        "document.querySelector('#timers [data-timer=quiet]').textContent",
    );
    assert!(
        (quiet.starts_with("Quiet in 2 min") || quiet.starts_with("Quiet in 1 min 5"))
            && quiet.ends_with(": the game ends on numbers if nothing is eaten"),
        "{quiet}"
    );
    assert_eq!(
        text(
            &mut browser,
            "document.querySelectorAll('#clocks li').length"
        ),
        "0"
    );
    // After a tide the timer starts again from the next one.
    wait(
        &mut browser,
        "[...document.querySelectorAll('#log li')].some(li => li.textContent.startsWith('tide:'))",
        STEP,
    );
    wait(
        &mut browser,
        &format!("{tide}.textContent.startsWith('Tide in 4 s')"),
        STEP,
    );
    wait(
        &mut browser,
        &format!("{tide}.textContent.startsWith('Tide in 2 s')"),
        STEP,
    );
    browser.screenshot(&shots.join("foxes-timers.png")).unwrap();
}
