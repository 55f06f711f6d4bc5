//! Challenges and join codes against the real reversid (spec/TEXT-PROTOCOL.md §4.1–4.3):
//! a text client invites, another (or a WebSocket) joins by code and the game starts on
//! the challenge's side and control; every error line of a join and of an invite; the
//! try limit per address; the lobby; and the public queues, which pair as before.

use std::net::TcpStream;
use std::time::Duration;

use reversi_tests::text::TextClient;
use reversi_tests::Server;
use tungstenite::{Message, WebSocket};

/// Sends `GAME INVITE …` and reads its three lines; returns the code and the `GAME CODE` line.
fn invite(c: &mut TextClient, options: &str) -> (String, String) {
    c.send(&format!("GAME INVITE {options}"));
    let line = c.next_is("GAME CODE ");
    let code = line.split_whitespace().nth(2).unwrap().to_owned();
    assert!(is_code(&code), "{line}");
    (code, line)
}

/// `^\d{4}-\d{4}-\d{4}$`.
fn is_code(code: &str) -> bool {
    let groups: Vec<&str> = code.split('-').collect();
    groups.len() == 3
        && groups
            .iter()
            .all(|g| g.len() == 4 && g.bytes().all(|b| b.is_ascii_digit()))
}

fn error_of(c: &mut TextClient, line: &str) -> String {
    c.send(line);
    c.next_is("ERROR ")
}

#[test]
fn s4_a_friend_joins_by_code_on_the_challenge_side_and_control() {
    let server = Server::start(&["--move-timeout", "7"]);
    let mut alice = TextClient::connect(server.addr());
    let (code, line) = invite(&mut alice, "reversi time=move:7 side=WHITE");
    assert_eq!(
        line,
        format!("GAME CODE {code} 900 reversi time=move:7 side=white private")
    );
    assert_eq!(
        alice.next_is("GAME LINK "),
        format!("GAME LINK http://{}/#join={code}", server.addr())
    );
    alice.next_is("GAME WAITING 1");
    // Inviting: no other game, and not yet a move.
    assert_eq!(
        error_of(&mut alice, "GAME TYPE reversi"),
        "ERROR waiting for a game already (GAME QUIT to leave the queue)"
    );
    assert_eq!(
        error_of(&mut alice, "MOVE d3"),
        "ERROR the game has not started"
    );
    let mut bob = TextClient::connect(server.addr());
    // Any separators, or none.
    bob.send(&format!("GAME JOIN {}", code.replace('-', " ")));
    for (c, team) in [
        (&mut alice, "GAME TEAM 2 white"),
        (&mut bob, "GAME TEAM 1 black"),
    ] {
        c.expect("GAME TYPE");
        c.expect("GAME TEAMS");
        c.next_is(team);
        c.expect("GAME TURN 1");
        assert_eq!(c.next_is("GAME CLOCK 1 "), "GAME CLOCK 1 7000");
    }
    bob.next_is("READY");
    bob.send("MOVE d3");
    alice.expect("GAME MOVED 1 d3");
    // The code is used now.
    let mut late = TextClient::connect(server.addr());
    assert_eq!(
        error_of(&mut late, &format!("GAME JOIN {code}")),
        format!("ERROR challenge {code} was already accepted")
    );
}

#[test]
fn s4_side_random_with_fixed_colours_is_team_1_and_the_link_is_the_public_url() {
    let server = Server::start(&["--fixed-colours", "--public-url", "https://play.example/"]);
    let mut alice = TextClient::connect(server.addr());
    let (code, line) = invite(&mut alice, "tictactoe public");
    assert!(
        line.ends_with(" tictactoe time=move:600 side=random public"),
        "{line}"
    );
    assert_eq!(
        alice.next_is("GAME LINK "),
        format!("GAME LINK https://play.example/#join={code}")
    );
    let mut bob = TextClient::connect(server.addr());
    bob.send(&format!("GAME JOIN {}", code.replace('-', "")));
    alice.expect("GAME TEAM 1 X");
    bob.expect("GAME TEAM 2 O");
}

fn socket(server: &Server) -> WebSocket<TcpStream> {
    let stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let url = format!("ws://{}/ws", server.addr());
    tungstenite::client(url.as_str(), stream).unwrap().0
}

/// Reads text messages until one starts with `prefix`.
fn until(ws: &mut WebSocket<TcpStream>, prefix: &str) -> String {
    loop {
        if let Message::Text(text) = ws.read().unwrap() {
            if text.starts_with(prefix) {
                return text.to_string();
            }
        }
    }
}

#[test]
fn s4_a_web_page_invites_and_joins_by_code_in_messages() {
    let server = Server::start(&[]);
    let mut alice = TextClient::connect(server.addr());
    let (code, _) = invite(&mut alice, "reversi side=black");
    let mut ws = socket(&server);
    ws.send(Message::text(format!("GAME JOIN {code}"))).unwrap();
    assert_eq!(until(&mut ws, "GAME TEAM "), "GAME TEAM 2 white");
    alice.expect("GAME TEAM 1 black");
    // And the other way round: the page invites, one message a line.
    let mut page = socket(&server);
    page.send(Message::text("GAME INVITE tictactoe side=2"))
        .unwrap();
    let line = until(&mut page, "GAME CODE ");
    let code = line.split_whitespace().nth(2).unwrap().to_owned();
    assert!(
        line.ends_with("tictactoe time=move:600 side=O private"),
        "{line}"
    );
    assert!(until(&mut page, "GAME LINK ").ends_with(&format!("#join={code}")));
    assert_eq!(until(&mut page, "GAME WAITING"), "GAME WAITING 1");
    let mut carol = TextClient::connect(server.addr());
    carol.send(&format!("GAME JOIN {code}"));
    carol.expect("GAME TEAM 1 X");
    assert_eq!(until(&mut page, "GAME TEAM "), "GAME TEAM 2 O");
}

#[test]
fn s4_every_join_error_is_its_line_and_the_connection_stays_waiting() {
    let server = Server::start(&["--code-ttl", "1"]);
    let mut joiner = TextClient::connect(server.addr());
    // Malformed: not a try.
    for _ in 0..12 {
        assert_eq!(
            error_of(&mut joiner, "GAME JOIN 4821-0937"),
            "ERROR \"4821-0937\" is not a code (codes are 12 digits, like 4821-0937-5562)"
        );
    }
    assert_eq!(
        error_of(&mut joiner, "GAME JOIN 4821-0937-5562"),
        "ERROR no challenge 4821-0937-5562 (check the code)"
    );
    // Withdrawn: its creator quits.
    let mut alice = TextClient::connect(server.addr());
    let (withdrawn, _) = invite(&mut alice, "reversi");
    alice.send("GAME QUIT");
    alice.expect_closed(&["GAME LINK", "GAME WAITING"]);
    assert_eq!(
        error_of(&mut joiner, &format!("GAME JOIN {withdrawn}")),
        format!("ERROR challenge {withdrawn} was withdrawn by its creator")
    );
    // Expired: its creator is told and waits again.
    let mut bob = TextClient::connect(server.addr());
    let (expired, line) = invite(&mut bob, "reversi");
    assert!(line.contains(" 1 reversi "), "{line}");
    bob.next_is("GAME LINK");
    bob.next_is("GAME WAITING 1");
    assert_eq!(
        bob.next_is("GAME EXPIRED"),
        format!("GAME EXPIRED {expired}")
    );
    assert_eq!(
        error_of(&mut joiner, &format!("GAME JOIN {expired}")),
        format!("ERROR challenge {expired} has expired")
    );
    // The creator waits again: it may invite anew.
    invite(&mut bob, "reversi");
    // Not a token, then an unknown one.
    assert_eq!(
        error_of(&mut joiner, "GAME RESUME x7"),
        "ERROR \"x7\" is not a token (GAME TOKEN gave you 27 letters and digits)"
    );
    assert_eq!(
        error_of(&mut joiner, "GAME RESUME 3KQ7M2X9AV0C4TZP8RWD5NHJ6EB"),
        "ERROR no running game has this token (the game may have ended)"
    );
    // Four tries so far: unknown, withdrawn, expired, the token.
    for n in 0..6 {
        assert_eq!(
            error_of(&mut joiner, &format!("GAME JOIN 0000-0000-000{n}")),
            format!("ERROR no challenge 0000-0000-000{n} (check the code)")
        );
    }
    // The eleventh: the wait until the next try (the expiry above took a second of it).
    let limit = "ERROR too many wrong codes or tokens from your address; wait ";
    let waits = |line: String| -> u64 {
        let seconds = line.strip_prefix(limit).and_then(|s| s.strip_suffix(" s"));
        seconds
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{line}"))
    };
    assert!((8..=10).contains(&waits(error_of(&mut joiner, "GAME JOIN 0000-0000-0009"))));
    // Another connection from the same address is limited too, for tokens as for codes.
    let mut other = TextClient::connect(server.addr());
    let line = error_of(&mut other, "GAME RESUME 3KQ7M2X9AV0C4TZP8RWD5NHJ6EB");
    assert!((8..=10).contains(&waits(line)));
    // Every join and resume gets it, a malformed one too.
    assert!((8..=10).contains(&waits(error_of(&mut other, "GAME JOIN 12"))));
    assert!((8..=10).contains(&waits(error_of(&mut other, "GAME RESUME x7"))));
    // Still waiting, not closed.
    other.send("GAME VERSION");
    other.next_is("GAME VERSION 1");
}

#[test]
fn s4_every_invite_error_is_its_line() {
    let server = Server::start(&["--max-challenges", "1"]);
    let mut c = TextClient::connect(server.addr());
    for (line, error) in [
        ("GAME INVITE chess", "ERROR no game \"chess\" here; games: "),
        (
            "GAME INVITE reversi time=5:3",
            "ERROR bad time \"5:3\" (write 5+3 for 5 minutes and 3 s a move, 30s+2, or move:60)",
        ),
        (
            "GAME INVITE reversi time=0+1",
            "ERROR time=0+1 is outside this server's bounds: base at least 10 s, increment at most \
             60 s, base + 40 × increment from 15 s to 180 min; move:5 to move:3600",
        ),
        (
            "GAME INVITE foxes time=5+3",
            "ERROR foxes is played in real time and takes no time=",
        ),
        (
            "GAME INVITE draughts side=green",
            "ERROR side=green: draughts's sides are ",
        ),
        (
            "GAME INVITE reversi ranked",
            "ERROR unknown option \"ranked\" (options: time=, side=, public, private, rated, casual)",
        ),
    ] {
        let got = error_of(&mut c, line);
        assert!(got.starts_with(error), "{line}: {got}");
    }
    let mut full = TextClient::connect(server.addr());
    invite(&mut c, "reversi");
    assert_eq!(
        error_of(&mut full, "GAME INVITE reversi"),
        "ERROR this server has 1 open challenges; try again later"
    );
    c.next_is("GAME LINK");
    c.next_is("GAME WAITING");
    for line in ["GAME INVITE reversi", "GAME JOIN 1", "GAME WATCH 1"] {
        assert_eq!(
            error_of(&mut c, line),
            "ERROR waiting for a game already (GAME QUIT to leave the queue)"
        );
    }
}

#[test]
fn s4_the_lobby_lists_public_challenges_until_their_creator_leaves() {
    let server = Server::start(&[]);
    let mut public = TextClient::connect(server.addr());
    let (code, _) = invite(&mut public, "reversi time=5+3 public");
    let mut private = TextClient::connect(server.addr());
    invite(&mut private, "tictactoe");
    let mut looker = TextClient::connect(server.addr());
    looker.send("GAME LOBBY");
    let listed = looker.next_is("GAME CHALLENGE ");
    assert!(
        listed.starts_with(&format!("GAME CHALLENGE {code} "))
            && listed.ends_with(" reversi time=5+3 side=random public"),
        "{listed}"
    );
    looker.next_is("GAME CHALLENGES 1");
    // The creator may look too, while inviting.
    public.next_is("GAME LINK");
    public.next_is("GAME WAITING");
    public.send("GAME LOBBY");
    public.next_is("GAME CHALLENGE ");
    public.next_is("GAME CHALLENGES 1");
    drop(public);
    // Gone once the server has seen the close.
    for _ in 0..100 {
        looker.send("GAME LOBBY");
        if looker.expect("GAME CHALLENGES ") == "GAME CHALLENGES 0" {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the challenge is still listed after its creator left");
}

#[test]
fn s4_the_public_queues_pair_as_before_beside_a_challenge() {
    let server = Server::start(&[]);
    let mut inviting = TextClient::connect(server.addr());
    invite(&mut inviting, "reversi");
    let mut a = TextClient::join(server.addr(), "reversi");
    a.next_is("GAME WAITING 1");
    let mut b = TextClient::join(server.addr(), "reversi");
    a.expect("GAME TEAM");
    b.expect("GAME TEAM");
    inviting.next_is("GAME LINK");
    inviting.next_is("GAME WAITING 1");
    inviting.send("GAME VERSION");
    inviting.next_is("GAME VERSION");
}

#[test]
fn s4_teams_of_two_fill_in_joining_order_and_a_withdrawal_frees_the_joiners() {
    let server = Server::start(&["--team-size", "2"]);
    let mut alice = TextClient::connect(server.addr());
    let (code, _) = invite(&mut alice, "reversi side=white");
    alice.next_is("GAME LINK");
    alice.next_is("GAME WAITING 3");
    let mut joiners: Vec<TextClient> = (0..3).map(|_| TextClient::connect(server.addr())).collect();
    for (n, joiner) in joiners.iter_mut().take(2).enumerate() {
        joiner.send(&format!("GAME JOIN {code}"));
        joiner.next_is(&format!("GAME WAITING {}", 2 - n));
    }
    joiners[2].send(&format!("GAME JOIN {code}"));
    alice.expect("GAME TEAM 2 white");
    for (joiner, team) in joiners.iter_mut().zip(["1 black", "1 black", "2 white"]) {
        joiner.expect(&format!("GAME TEAM {team}"));
    }
    // A creator who leaves while joiners wait frees them: told, and waiting again.
    let mut bob = TextClient::connect(server.addr());
    let (code, _) = invite(&mut bob, "reversi");
    let mut carol = TextClient::connect(server.addr());
    carol.send(&format!("GAME JOIN {code}"));
    carol.next_is("GAME WAITING 2");
    bob.send("GAME QUIT");
    assert_eq!(
        carol.next_is("ERROR"),
        format!("ERROR challenge {code} was withdrawn by its creator")
    );
    carol.send("GAME TYPE tictactoe");
    carol.next_is("GAME WAITING 3");
}

#[test]
fn s4_the_eleventh_failed_try_waits_10_s_and_the_next_is_allowed_after_them() {
    let server = Server::start(&[]);
    let mut guesser = TextClient::connect(server.addr());
    for n in 0..10 {
        assert_eq!(
            error_of(&mut guesser, &format!("GAME JOIN 1111-1111-11{n:02}")),
            format!("ERROR no challenge 1111-1111-11{n:02} (check the code)")
        );
    }
    assert_eq!(
        error_of(&mut guesser, "GAME JOIN 1111-1111-1110"),
        "ERROR too many wrong codes or tokens from your address; wait 10 s"
    );
    std::thread::sleep(Duration::from_secs(10));
    // The bucket is the address's, not the connection's (which its handshake timeout may
    // have closed meanwhile).
    let mut guesser = TextClient::connect(server.addr());
    assert_eq!(
        error_of(&mut guesser, "GAME JOIN 1111-1111-1110"),
        "ERROR no challenge 1111-1111-1110 (check the code)"
    );
    assert_eq!(
        error_of(&mut guesser, "GAME JOIN 1111-1111-1111"),
        "ERROR too many wrong codes or tokens from your address; wait 10 s"
    );
}
