//! `reversi bot --game NAME` against the real reversid: bots of every
//! turn-based game play each other, random openings vary a binary Reversi
//! game and repeat with the same seed, and an unknown game is refused.

mod client_support;

use client_support::Reversi;
use reversi_games::registry;
use reversi_tests::Server;

/// Two bots of `name` play `games` games; returns both outputs.
fn two_bots(name: &str, games: &str) -> [client_support::Finished; 2] {
    let server = Server::start(&[]);
    let addr = server.addr().to_string();
    let args = [
        "bot",
        "--game",
        name,
        &addr,
        "--move-time",
        "30",
        "--level",
        "1",
        "--games",
        games,
    ];
    let one = Reversi::start(&args);
    let two = Reversi::start(&[&args[..], &["--seed", "9"]].concat());
    [one.finish(), two.finish()]
}

#[test]
fn bots_of_every_turn_based_game_play_each_other() {
    for module in registry::all().iter().filter(|m| !m.info.realtime) {
        let name = module.info.name;
        for bot in two_bots(name, "2") {
            assert_eq!(bot.code, Some(0), "{name}: {bot:?}");
            let lines: Vec<&str> = bot.stdout.lines().collect();
            assert_eq!(lines.len(), 3, "{name}: {bot:?}");
            assert!(lines[0].starts_with("game 1: "), "{name}: {bot:?}");
            assert!(lines[0].contains(" moves ("), "{name}: {bot:?}");
            assert!(lines[1].starts_with("game 2: "), "{name}: {bot:?}");
            assert!(lines[2].starts_with("2 games: "), "{name}: {bot:?}");
        }
    }
}

/// The moves of the one game two binary bots play with these opening seeds.
fn transcript(seeds: [&str; 2]) -> String {
    let server = Server::start(&["--fixed-colours"]);
    let addr = server.addr().to_string();
    let args = |seed| {
        [
            "bot",
            &addr,
            "--level",
            "1",
            "--random-opening",
            "6",
            "--opening-seed",
            seed,
        ]
    };
    let black = Reversi::start(&args(seeds[0]));
    server.wait_log("queued (1 waiting)");
    let white = Reversi::start(&args(seeds[1]));
    for bot in [black.finish(), white.finish()] {
        assert_eq!(bot.code, Some(0), "{bot:?}");
    }
    let over = server.wait_log("game over: ");
    over.split(" transcript ")
        .nth(1)
        .unwrap()
        .split(" duration")
        .next()
        .unwrap()
        .to_owned()
}

#[test]
fn random_openings_vary_the_game_and_a_seed_repeats_it() {
    let first = transcript(["1", "2"]);
    assert_eq!(transcript(["1", "2"]), first);
    let others: Vec<String> = (3..6).map(|s| transcript([&s.to_string(), "2"])).collect();
    assert!(
        others.iter().any(|t| t[..17] != first[..17]),
        "{first} {others:?}"
    );
}

#[test]
fn an_unknown_game_is_refused_with_the_list() {
    let out = Reversi::scripted(&["bot", "--game", "chess"], "").finish();
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(
        out.stderr.contains("no game \"chess\" here; games: "),
        "{out:?}"
    );
    assert!(out.stderr.contains("tictactoe"), "{out:?}");
}

/// Issue 23 item 11: a computer player answers a draw offer and says why.
/// Black (a line-mode script) offers a draw, then moves; the draughts bot,
/// on its turn with the offer standing, judges the level opening a draw
/// and accepts it.
#[test]
fn the_draughts_bot_answers_a_draw_offer_and_says_why() {
    let server = Server::start(&["--fixed-colours"]);
    let addr = server.addr().to_string();
    let person = Reversi::scripted(
        &["play", "--game", "draughts", &addr],
        "offer draw\n11-15\n",
    );
    server.wait_log("queued (1 waiting) for draughts");
    let bot = Reversi::start(&["bot", "--game", "draughts", &addr, "--move-time", "100"]);
    let (person, bot) = (person.finish(), bot.finish());
    assert_eq!(bot.code, Some(0), "{bot:?}");
    assert!(
        bot.stdout
            .contains("bot: accepts the draw offer: its search ("),
        "{bot:?}"
    );
    assert!(
        person.stdout.contains("news: black offers a draw"),
        "{person:?}"
    );
    assert!(
        person.stdout.contains("news: white accepts the draw"),
        "{person:?}"
    );
    assert!(person.stdout.contains("DRAW"), "{person:?}");
}
