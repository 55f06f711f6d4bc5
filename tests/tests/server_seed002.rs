//! Clients written from seed 002 alone (Foxes & Dolphins), against the real
//! reversid on a `--listen-seed foxes=ADDR` listener.
//!
//! The clients here know only the seed's messages, `<sender><addressee><type>[
//! data]`: they join with `PBJ` (or the seed client's `PCJ`) or watch with
//! `QBJ`, are told `BPT F` / `BPT D` / `BQT F`, move with `FBM x1 y1 x2 y2`
//! when told `BFN` (may move), read boards as `BGB <letters>` and the end as
//! `BFS <winner>`. The game's times are shortened (`--game-option foxes.*-ms`) so that a
//! whole game takes seconds, not minutes.

use std::net::SocketAddr;
use std::thread;
use std::time::Instant;

use reversi_games::foxes::{Board, FoxesBot, Species};
use reversi_tests::text::TextClient;
use reversi_tests::Server;

fn quick_server() -> (Server, SocketAddr) {
    let server = Server::start(reversi_tests::QUICK_FOXES);
    let addr = server.seed_addr("foxes");
    (server, addr)
}

/// A seed 002 message as the client reads it: from the board, to `to`, of `kind`.
struct Message {
    to: char,
    kind: char,
    data: Option<String>,
}

/// Reads one line the seed's way; fails if it is not a message of the board's.
fn parse(line: &str) -> Message {
    let bytes = line.as_bytes();
    assert!(
        bytes.len() >= 3 && bytes[0] == b'B',
        "not a message from the board: {line:?}"
    );
    let (to, kind) = (char::from(bytes[1]), char::from(bytes[2]));
    assert!("PQDEFG".contains(to), "no addressee {to:?}: {line:?}");
    assert!(
        "BFNST".contains(kind),
        "no board message {kind:?}: {line:?}"
    );
    let data = match &line[3..] {
        "" => None,
        rest => Some(
            rest.strip_prefix(' ')
                .unwrap_or_else(|| panic!("no space before the data: {line:?}"))
                .to_owned(),
        ),
    };
    Message { to, kind, data }
}

/// The next message, which must be addressed to one of `mine`.
fn next(c: &mut TextClient, mine: &str) -> Message {
    let line = c
        .recv()
        .unwrap_or_else(|| panic!("closed; seen {:?}", c.seen));
    let message = parse(&line);
    assert!(
        mine.contains(message.to),
        "{line:?} is not for {mine}; seen {:?}",
        c.seen
    );
    message
}

/// The seed's letters of a team: its player and its viewer.
fn letters(species: Species) -> (char, char) {
    match species {
        Species::Fox => ('F', 'G'),
        Species::Dolphin => ('D', 'E'),
    }
}

/// A board string as the seed's viewer reads it.
fn board(message: &Message) -> Board {
    let text = message.data.as_deref().expect("a board string");
    assert_eq!(text.len(), 400, "a 20 x 20 board");
    Board::from_letters(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Connects and sends `request` (a join, or anything).
fn join(addr: SocketAddr, request: &str) -> TextClient {
    let mut c = TextClient::connect(addr);
    c.send(request);
    c
}

/// What a player saw of a whole game.
struct Played {
    winner: String,
    moves: u32,
    fails: u32,
    last_board: String,
}

/// Plays `species` to the end with the module's bot: a step each time the server says
/// the player may move (never before: the seed's cooldown), from the board last drawn.
fn play(mut c: TextClient, species: Species, seed: u64) -> Played {
    let (player, viewer) = letters(species);
    let mine = format!("{player}{viewer}");
    let mut bot = FoxesBot::new(seed);
    let mut last_board = String::new();
    let mut may_move = false;
    let (mut moves, mut fails) = (0, 0);
    loop {
        let message = next(&mut c, &mine);
        match (message.to, message.kind) {
            (to, 'B') if to == viewer => {
                last_board = message.data.clone().unwrap();
                board(&message);
            }
            (to, 'N') if to == player => may_move = true,
            (to, 'F') if to == viewer => fails += 1,
            (to, 'S') if to == player => {
                let winner = message.data.expect("a winner");
                c.expect_closed(&[]);
                return Played {
                    winner,
                    moves,
                    fails,
                    last_board,
                };
            }
            (to, kind) => panic!("{player} got B{to}{kind}; seen {:?}", c.seen),
        }
        if !may_move || last_board.is_empty() {
            continue;
        }
        // With nothing worth doing the bot waits for the board to change (a tide comes soon).
        if let Some(step) = bot.plan(&Board::from_letters(&last_board).unwrap(), species) {
            c.send(&format!(
                "{player}BM {} {} {} {}",
                step.from.x, step.from.y, step.to.x, step.to.y
            ));
            may_move = false;
            moves += 1;
        }
    }
}

#[test]
fn seed_002_clients_play_a_whole_game_and_a_viewer_watches_it_to_the_end() {
    let (server, addr) = quick_server();
    let mut fox = join(addr, "PBJ");
    server.wait_log("queued (1 waiting) for foxes");
    let mut dolphin = join(addr, "PBJ");
    // The first to join plays the foxes (the seed's Join).
    let team = next(&mut fox, "P");
    assert_eq!((team.kind, team.data.as_deref()), ('T', Some("F")));
    let team = next(&mut dolphin, "P");
    assert_eq!((team.kind, team.data.as_deref()), ('T', Some("D")));
    let started = Instant::now();
    server.wait_log("started: game 1 foxes");

    let mut viewer = join(addr, "QBJ");
    let team = next(&mut viewer, "Q");
    assert_eq!((team.kind, team.data.as_deref()), ('T', Some("F")));
    let first = next(&mut viewer, "G");
    assert_eq!(first.kind, 'B');
    board(&first);

    let foxes = thread::spawn(move || play(fox, Species::Fox, 1));
    let dolphins = thread::spawn(move || play(dolphin, Species::Dolphin, 2));
    let mut boards = 1;
    let mut last_board = first.data.unwrap();
    let end = loop {
        let message = next(&mut viewer, "G");
        match message.kind {
            'B' => {
                board(&message);
                last_board = message.data.unwrap();
                boards += 1;
            }
            'S' => break message.data.expect("a winner"),
            kind => panic!("a viewer got BG{kind}; seen {:?}", viewer.seen),
        }
    };
    viewer.expect_closed(&[]);
    let foxes = foxes.join().unwrap();
    let dolphins = dolphins.join().unwrap();
    let over = server.wait_log("game over: foxes");
    eprintln!(
        "{} s, {} fox and {} dolphin moves ({} and {} failed), {boards} boards seen; {over}",
        started.elapsed().as_secs_f64(),
        foxes.moves,
        dolphins.moves,
        foxes.fails,
        dolphins.fails
    );
    // Everyone heard the same end, and the last board is the same for all.
    assert!(["F", "D", "N"].contains(&end.as_str()), "{end}");
    assert_eq!(foxes.winner, end);
    assert_eq!(dolphins.winner, end);
    assert_eq!(foxes.last_board, last_board);
    assert_eq!(dolphins.last_board, last_board);
    assert!(foxes.moves > 0 && dolphins.moves > 0);
    // The board tells how it ended: an extinct species lost, else the numbers decided.
    let board = Board::from_letters(&last_board).unwrap();
    let (f, d) = (board.count(Species::Fox), board.count(Species::Dolphin));
    let expected = match f.cmp(&d) {
        std::cmp::Ordering::Greater => "F",
        std::cmp::Ordering::Less => "D",
        std::cmp::Ordering::Equal => "N",
    };
    assert_eq!(end, expected, "{f} foxes and {d} dolphins left");
}

/// Two players in a running game: (fox, dolphin), each past its team, first board and `N`.
fn two_players(server: &Server, addr: SocketAddr) -> (TextClient, TextClient, String) {
    let mut fox = join(addr, "PBJ");
    server.wait_log("queued (1 waiting) for foxes");
    // The seed's own client joins with PCJ (its chapter 3).
    let mut dolphin = join(addr, "PCJ");
    let mut board = String::new();
    for (c, mine, team) in [(&mut fox, "PFG", "F"), (&mut dolphin, "PDE", "D")] {
        let told = next(c, mine);
        assert_eq!((told.kind, told.data.as_deref()), ('T', Some(team)));
        let drawn = next(c, mine);
        assert_eq!(drawn.kind, 'B');
        board = drawn.data.unwrap();
        assert_eq!(next(c, mine).kind, 'N');
    }
    (fox, dolphin, board)
}

#[test]
fn a_bad_move_gets_the_seeds_fail_and_may_move_comes_again() {
    let server = Server::start(&[
        "--listen-seed",
        "foxes=127.0.0.1:0",
        // Tides far away: the board stays as drawn.
        "--game-option",
        "foxes.tide-ms=600000",
    ]);
    let addr = server.seed_addr("foxes");
    let (mut fox, _dolphin, drawn) = two_players(&server, addr);
    // Not a step: fail for the viewer, and N after the cooldown (the attempt cost one).
    fox.send("FBM 1 1 1 3");
    assert_eq!(fox.next_is("BGF"), "BGF");
    assert_eq!(fox.next_is("BFN"), "BFN");
    // The dolphins' letter from the fox, and a line that is no message: fail, N at once.
    fox.send("DBM 4 1 4 2");
    assert_eq!(fox.next_is("BGF"), "BGF");
    assert_eq!(fox.next_is("BFN"), "BFN");
    fox.send("hello");
    assert_eq!(fox.next_is("BGF"), "BGF");
    assert_eq!(fox.next_is("BFN"), "BFN");
    // A refresh sends the board again, unchanged, and costs no move.
    fox.send("FBR");
    assert_eq!(fox.next_is("BGB "), format!("BGB {drawn}"));
    // Two attempts at once: the second falls in the first one's cooldown; one N follows.
    fox.send("FBM 1 1 1 3\nFBM 1 1 1 3");
    assert_eq!(fox.next_is("BGF"), "BGF");
    assert_eq!(fox.next_is("BGF"), "BGF");
    assert_eq!(fox.next_is("BFN"), "BFN");
    // A good step: every viewer gets the new board, the mover an N after its cooldown.
    let species = Species::Fox;
    let step = FoxesBot::new(3)
        .plan(&Board::from_letters(&drawn).unwrap(), species)
        .expect("a fox can step");
    fox.send(&format!(
        "FBM {} {} {} {}",
        step.from.x, step.from.y, step.to.x, step.to.y
    ));
    let after = fox.next_is("BGB ");
    assert_ne!(after, format!("BGB {drawn}"));
    assert_eq!(fox.next_is("BFN"), "BFN");
}

#[test]
fn a_player_that_leaves_makes_the_other_win() {
    let (server, addr) = quick_server();
    let (fox, mut dolphin, _) = two_players(&server, addr);
    drop(fox);
    // Boards may still arrive (tides) before the end.
    let end = dolphin.expect("BDS ");
    assert_eq!(end, "BDS D");
    dolphin.expect_closed(&[]);
    server.wait_log("game over: foxes");
}

#[test]
fn a_line_too_long_breaks_the_protocol_and_loses() {
    let (server, addr) = quick_server();
    let (mut fox, mut dolphin, _) = two_players(&server, addr);
    fox.send_raw(&[b'F'; 2000]);
    assert_eq!(fox.expect("BGF"), "BGF");
    assert_eq!(fox.expect("BFS "), "BFS D");
    assert_eq!(dolphin.expect("BDS "), "BDS D");
    server.wait_log("end malformed by foxes");
}

#[test]
fn a_viewer_with_no_game_to_watch_and_a_client_that_does_not_join_are_rejected() {
    let (_server, addr) = quick_server();
    let mut viewer = join(addr, "QBJ");
    assert_eq!(viewer.next_is("BQT R"), "BQT R");
    viewer.expect_closed(&[]);
    let mut stranger = join(addr, "FBM 4 1 4 2");
    assert_eq!(stranger.next_is("BPT R"), "BPT R");
    stranger.expect_closed(&[]);
}
