//! The browser client in a real browser: headless Chromium loads the page from
//! reversid, plays a whole Tic-Tac-Toe game and a whole Reversi game against
//! `reversi bot` by clicking squares, checks the final board the page shows
//! against the result it shows, and watches two bots' game to its end.
//! Screenshots go to target/<profile>/browser/. Without Chromium and its
//! chromedriver (scripts/install-tools.sh chromium) the test skips and says so.

use std::path::PathBuf;
use std::time::Duration;

use reversi_tests::browser::{chromium, Bot, Browser};
use reversi_tests::{target_dir, Server};
use serde_json::Value;

/// How long a whole game may take.
const GAME_TIME: Duration = Duration::from_secs(40);
/// How long the page may take to answer one step.
const STEP: Duration = Duration::from_secs(10);

/// A square the page draws: x, y, and the name of its piece ("" for none).
type Square = (u8, u8, String);

fn shots() -> PathBuf {
    target_dir().join("browser")
}

/// Every square the page draws: (x, y, piece name or "").
fn shown_board(browser: &mut Browser) -> Vec<Square> {
    let squares = browser
        .eval(
            "[...document.querySelectorAll('#board g.sq')]\
             .map(g => [Number(g.dataset.x), Number(g.dataset.y), g.dataset.piece || ''])",
        )
        .unwrap();
    squares
        .as_array()
        .expect("squares")
        .iter()
        .map(|s| {
            (
                s[0].as_u64().unwrap() as u8,
                s[1].as_u64().unwrap() as u8,
                s[2].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// What the page says, for a failure's message: the status line and the messages.
fn page_says(browser: &mut Browser) -> String {
    text_of(
        browser,
        "document.getElementById('status').textContent + '\\nmove: ' + \
         document.getElementById('picked').textContent + '\\n' + \
         [...document.querySelectorAll('#log li')].map(li => li.textContent).join('\\n')",
    )
}

/// Waits for `expression` in the page; a failure shows what the page says.
fn wait(browser: &mut Browser, expression: &str, timeout: Duration) -> Value {
    browser
        .wait_for(expression, timeout)
        .unwrap_or_else(|e| panic!("{e}; the page says:\n{}", page_says(browser)))
}

fn text_of(browser: &mut Browser, expression: &str) -> String {
    match browser.eval(expression).unwrap() {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

/// Plays `game` through the page against a bot until the game is over, choosing each
/// move with `choose` (from the board the page shows and the piece this side plays).
/// Returns the result's standing, why, and the final board.
fn play_against_bot(
    browser: &mut Browser,
    server: &Server,
    game: &str,
    choose: fn(&[Square], &str) -> (u8, u8),
) -> (String, String, Vec<Square>) {
    let _bot = Bot::start(server, game, "30");
    browser
        .navigate(&format!("http://{}/", server.addr()))
        .unwrap();
    let button = format!("#games button[data-game=\"{game}\"]");
    wait(
        browser,
        &format!("document.querySelector('{button}')"),
        STEP,
    );
    if game == "tictactoe" {
        browser.screenshot(&shots().join("lobby.png")).unwrap();
    }
    browser.click(&button).unwrap();
    wait(browser, "document.body.dataset.state === 'playing'", STEP);
    let mine = text_of(browser, "document.getElementById('you').textContent").to_lowercase();
    let mut moves = 0;
    let mut readies = 0;
    loop {
        // A READY not answered yet, or the end.
        let state = wait(
            browser,
            &format!(
                "document.body.dataset.state === 'over' ? 'over' : \
                 document.body.dataset.yourMove === 'yes' && \
                 Number(document.body.dataset.readies) > {readies} ? \
                 document.body.dataset.readies : ''"
            ),
            GAME_TIME,
        );
        if state == "over" {
            break;
        }
        readies = state
            .as_str()
            .and_then(|n| n.parse().ok())
            .expect("a READY count");
        let (x, y) = choose(&shown_board(browser), &mine);
        let square = format!("#board g.sq[data-x=\"{x}\"][data-y=\"{y}\"]");
        // The first click picks the square, the second sends the move.
        browser.click(&square).unwrap();
        wait(
            browser,
            &format!("document.querySelector('{square} rect.pick')"),
            STEP,
        );
        browser.click(&square).unwrap();
        moves += 1;
        wait(
            browser,
            &format!("Number(document.body.dataset.sent) === {moves}"),
            STEP,
        );
        if moves == 3 {
            browser
                .screenshot(&shots().join(format!("{game}-playing.png")))
                .unwrap();
        }
    }
    wait(
        browser,
        "document.getElementById('result').dataset.why",
        STEP,
    );
    browser
        .screenshot(&shots().join(format!("{game}-over.png")))
        .unwrap();
    let standing = text_of(
        browser,
        "document.getElementById('result').dataset.standing",
    );
    let why = text_of(browser, "document.getElementById('result').dataset.why");
    assert!(moves > 0, "{game}: the page never had a move to make");
    (standing, why, shown_board(browser))
}

/// An empty square: the first in reading order.
fn any_empty(board: &[Square], _mine: &str) -> (u8, u8) {
    board
        .iter()
        .find(|(_, _, piece)| piece.is_empty())
        .map(|&(x, y, _)| (x, y))
        .expect("an empty square when it is my move")
}

/// A legal Reversi move, by the engine's rules, on the board the page shows.
fn legal_reversi(board: &[Square], mine: &str) -> (u8, u8) {
    let mut position = vec!['-'; 64];
    for (x, y, piece) in board {
        // Square (x, y) is column x and row 9 - y (spec/TEXT-PROTOCOL.md §10.2).
        let index = usize::from(8 - y) * 8 + usize::from(x - 1);
        position[index] = match piece.as_str() {
            "black" => 'X',
            "white" => 'O',
            _ => '-',
        };
    }
    let side = if mine == "black" { 'X' } else { 'O' };
    let text: String = position.into_iter().collect();
    let game = reversi_engine::Game::from_position(&format!("{text} {side}")).unwrap();
    let square = game.legal_moves().next().expect("a legal move when READY");
    let name = square.to_string();
    let column = name.as_bytes()[0] - b'a' + 1;
    let row = name.as_bytes()[1] - b'0';
    (column, 9 - row)
}

fn count(board: &[Square], piece: &str) -> usize {
    board.iter().filter(|(_, _, p)| p == piece).count()
}

/// The discs on the board are the count `why` gives (`33-31`, the winner's
/// first); returns them as (black, white).
fn assert_reversi_count(why: &str, board: &[Square]) -> (usize, usize) {
    let (winner, loser): (usize, usize) = why
        .split_once('-')
        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        .unwrap_or_else(|| panic!("a disc count, not {why:?}"));
    let (black, white) = (count(board, "black"), count(board, "white"));
    assert_eq!(
        (black.max(white), black.min(white)),
        (winner, loser),
        "the board shown against {why}"
    );
    (black, white)
}

fn start() -> Option<(Server, Browser)> {
    let Some(program) = chromium() else {
        reversi_tests::skipped(
            "chromium or chromedriver is not installed (scripts/install-tools.sh chromium)",
        );
        return None;
    };
    let server = Server::start(&["--first-move-timeout", "60"]);
    let browser = Browser::start(&program, 1100, 860).expect("headless chromium");
    Some((server, browser))
}

#[test]
fn the_page_plays_tictactoe_and_reversi_against_a_bot_and_watches_a_game() {
    let Some((server, mut browser)) = start() else {
        return;
    };

    let (standing, why, board) = play_against_bot(&mut browser, &server, "tictactoe", any_empty);
    let full = board.iter().all(|(_, _, p)| !p.is_empty());
    if let Some(line) = why.strip_prefix("three in a line: ") {
        // Every square of the line holds the winner's piece.
        let pieces: Vec<&str> = line
            .split(' ')
            .map(|name| {
                let (x, y) = (name.as_bytes()[0] - b'a' + 1, name.as_bytes()[1] - b'0');
                let (_, _, piece) = board.iter().find(|s| (s.0, s.1) == (x, y)).unwrap();
                piece.as_str()
            })
            .collect();
        assert!(
            pieces.iter().all(|p| *p == pieces[0] && !p.is_empty()),
            "{why}: {board:?}"
        );
        let mine = text_of(&mut browser, "document.getElementById('you').textContent");
        let won = pieces[0].eq_ignore_ascii_case(&mine);
        assert_eq!(standing, if won { "win" } else { "lose" }, "{why}");
    } else {
        assert_eq!(why, "the board is full");
        assert!(full, "{board:?}");
        assert_eq!(standing, "draw");
    }

    let (standing, why, board) = play_against_bot(&mut browser, &server, "reversi", legal_reversi);
    let (black, white) = assert_reversi_count(&why, &board);
    let mine = text_of(&mut browser, "document.getElementById('you').textContent").to_lowercase();
    let (me, them) = if mine == "black" {
        (black, white)
    } else {
        (white, black)
    };
    let expected = match me.cmp(&them) {
        std::cmp::Ordering::Greater => "win",
        std::cmp::Ordering::Less => "lose",
        std::cmp::Ordering::Equal => "draw",
    };
    assert_eq!(standing, expected, "{why}, I am {mine}");

    // Two bots play; the page lists their game and watches it to its end, at phone width.
    let _one = Bot::start(&server, "reversi", "80");
    let _two = Bot::start(&server, "reversi", "80");
    server.wait_logs("started: game", 3);
    browser.viewport(390, 844, true).unwrap();
    browser
        .navigate(&format!("http://{}/", server.addr()))
        .unwrap();
    wait(
        &mut browser,
        "document.querySelector('#running button[data-watch]')",
        STEP,
    );
    browser.click("#running button[data-watch]").unwrap();
    wait(
        &mut browser,
        "document.body.dataset.state === 'playing'",
        STEP,
    );
    wait(
        &mut browser,
        "document.querySelectorAll('#board g.sq[data-piece]').length >= 12",
        GAME_TIME,
    );
    browser
        .screenshot(&shots().join("watching-phone.png"))
        .unwrap();
    wait(
        &mut browser,
        "document.body.dataset.state === 'over'",
        GAME_TIME,
    );
    wait(
        &mut browser,
        "document.getElementById('result').dataset.why",
        STEP,
    );
    browser
        .screenshot(&shots().join("watched-over-phone.png"))
        .unwrap();
    let why = text_of(
        &mut browser,
        "document.getElementById('result').dataset.why",
    );
    let shown = shown_board(&mut browser);
    assert_reversi_count(&why, &shown);
    assert_eq!(
        text_of(
            &mut browser,
            "document.getElementById('result').dataset.standing"
        ),
        "none",
        "a viewer has no result of its own"
    );
}
