//! The tournament's web page (`/tournaments/ID`, spec/TOURNAMENTS.md §7) in headless Chromium,
//! while a round-robin of four runs and after it ends: the crosstable as a table, the running
//! games linked to watch them (`/#watch=ID`), the finished ones' results in words, linked to
//! their replays. Screenshots are left in
//! the target directory's `browser/` (tournament-running.png, tournament-finished.png).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use reversi_tests::browser::{chromium, Browser};
use reversi_tests::tournament::{
    answer, loopback, play_all, register, wait_finished, Address, Control, Player,
};
use reversi_tests::{target_dir, Server};

const NAMES: [&str; 4] = ["Ann", "Bob", "Cat", "Dan"];

fn set_up(server: &Server, players: &[Player]) {
    let addr = server.addr();
    let mut org = register(addr, loopback(0), "Org");
    answer(
        &mut org,
        "GAME TOURNAMENT CREATE name=Club_Evening game=tictactoe format=rr time=move:30",
    );
    answer(&mut org, "GAME TOURNAMENT OPEN 1");
    for p in players {
        let mut c = register(addr, p.from(), &p.name);
        answer(&mut c, "GAME TOURNAMENT REGISTER 1");
    }
    answer(&mut org, "GAME TOURNAMENT START 1");
}

/// Reloads the page until `expression` holds (the page is made from the store, a moment
/// behind the server).
fn wait_for_page(browser: &mut Browser, url: &str, expression: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        browser.navigate(url).unwrap();
        if browser.eval(expression).unwrap().as_bool() == Some(true) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "never true on {url}: {expression}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn text(browser: &mut Browser) -> String {
    let value = browser.eval("document.body.innerText").unwrap();
    value.as_str().unwrap().to_owned()
}

#[test]
fn the_tournament_page_shows_the_crosstable_while_running_and_after() {
    let Some(program) = chromium() else {
        reversi_tests::skipped(
            "chromium or chromedriver is not installed (scripts/install-tools.sh chromium)",
        );
        return;
    };
    let server = Server::start(&["--organisers", "Org", "--grace", "30"]);
    let players: Vec<Player> = (0..4u32)
        .map(|n| Player {
            // Slow enough that round 2's games are still running when the page is read.
            think: Duration::from_millis(600),
            ..Player::numbered(n, NAMES[n as usize])
        })
        .collect();
    set_up(&server, &players);
    let address = Address::new(server.addr());
    let control = Control::new();
    let threads = play_all(&address, &players, 1, &control);
    let shots = target_dir().join("browser");
    std::fs::create_dir_all(&shots).unwrap();
    let url = format!("http://{}/tournaments/1", server.addr());
    let mut browser = Browser::start(&program, 900, 800).expect("headless chromium");

    server.wait_log("tournament 1 round 2 board 2: game");
    wait_for_page(
        &mut browser,
        &url,
        "document.body.innerText.includes('round 2 of 3') \
         && document.querySelectorAll('a[href^=\"/#watch=\"]').length === 2",
    );
    let running = text(&mut browser);
    browser
        .screenshot(&shots.join("tournament-running.png"))
        .unwrap();
    assert!(running.contains("Club Evening"), "{running}");
    let rows = browser
        .eval("document.querySelectorAll('table.crosstable tr').length")
        .unwrap();
    assert_eq!(
        rows.as_u64(),
        Some(5),
        "a header and four players: {running}"
    );
    assert!(running.contains("watch game"), "{running}");

    wait_finished(&address, 1, Duration::from_secs(60));
    control.done.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    wait_for_page(
        &mut browser,
        &url,
        "document.body.innerText.includes('finished')",
    );
    let replays = browser
        .eval("document.querySelectorAll('a[href^=\"/games/\"]').length")
        .unwrap();
    assert_eq!(replays.as_u64(), Some(6), "every game linked to its replay");
    let finished = text(&mut browser);
    let told = finished.matches(" won: replay").count() + finished.matches("drawn: replay").count();
    assert_eq!(told, 6, "every result in words: {finished}");
    browser
        .screenshot(&shots.join("tournament-finished.png"))
        .unwrap();
    println!("screenshots in {}", shots.display());
}
