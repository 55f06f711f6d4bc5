//! The store's pages (spec/STORE.md §11): a player's profile, a game's leaderboard, a
//! finished game's replay and its exports. Which path is which page ([`route`]) is judged
//! on the loop; the page itself is made by a store worker (`crate::store::workers`), never
//! on the loop, from its own connection.

use std::fmt::Write as _;

use reversi_store::{export, GameId, Name, Outcome, Rating, Store, StoredGame, UnixMillis};

/// A page of the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Page {
    /// `/players/NAME`
    Player(String),
    /// `/leaderboard/GAME`
    Leaderboard(String),
    /// `/games/ID`: the replay.
    Game(String),
    /// `/games/ID.json`
    Json(String),
    /// `/games/ID.ggf`, `.pdn`, `.txt`: the game's own format.
    Standard(String),
    /// `/tournaments`
    Tournaments,
    /// `/tournaments/ID`, `.csv`, `.json` (crate::tournaments::pages).
    Tournament(u64, crate::tournaments::pages::Form),
}

/// The most games a profile lists, and players a leaderboard.
const RECENT: usize = 20;
const LEADERS: usize = 100;

/// The page at `path`, if it is one of the store's.
pub fn route(path: &str) -> Option<Page> {
    if let Some(name) = path.strip_prefix("/players/") {
        return Some(Page::Player(percent_decode(name)?));
    }
    if let Some(game) = path.strip_prefix("/leaderboard/") {
        return Some(Page::Leaderboard(percent_decode(game)?));
    }
    if let Some(page) = tournament_route(path) {
        return Some(page);
    }
    let id = path.strip_prefix("/games/")?;
    Some(match id.rsplit_once('.') {
        Some((id, "json")) => Page::Json(id.to_owned()),
        Some((id, "ggf" | "pdn" | "txt")) => Page::Standard(id.to_owned()),
        _ => Page::Game(id.to_owned()),
    })
}

/// `/tournaments`, `/tournaments/ID`, `/tournaments/ID.csv`, `/tournaments/ID.json`.
fn tournament_route(path: &str) -> Option<Page> {
    use crate::tournaments::pages::Form;
    if path == "/tournaments" {
        return Some(Page::Tournaments);
    }
    let id = path.strip_prefix("/tournaments/")?;
    let (id, form) = match id.rsplit_once('.') {
        Some((id, "csv")) => (id, Form::Csv),
        Some((id, "json")) => (id, Form::Json),
        _ => (id, Form::Html),
    };
    Some(Page::Tournament(id.parse().ok()?, form))
}

/// A page's answer: its status, content type and body.
pub struct Made {
    pub status: &'static str,
    pub kind: &'static str,
    pub body: String,
}

const HTML: &str = "text/html; charset=utf-8";
const PLAIN: &str = "text/plain; charset=utf-8";
const JSON: &str = "application/json";

fn not_found(what: &str) -> Made {
    Made {
        status: "404 Not Found",
        kind: PLAIN,
        body: format!("404 Not Found: {what}\n"),
    }
}

/// Makes `page` from `store`.
pub fn make(store: &mut dyn Store, page: &Page, now: UnixMillis) -> Made {
    let made = match page {
        Page::Player(name) => player(store, name, now),
        Page::Leaderboard(game) => leaderboard(store, game, now),
        Page::Game(id) | Page::Json(id) | Page::Standard(id) => game(store, page, id),
        Page::Tournaments => tournaments(store),
        Page::Tournament(id, form) => tournament(store, *id, *form),
    };
    made.unwrap_or_else(|e| Made {
        status: "503 Service Unavailable",
        kind: PLAIN,
        body: format!("503 Service Unavailable: the store: {e}\n"),
    })
}

type Result = std::result::Result<Made, reversi_store::StoreError>;

fn player(store: &mut dyn Store, name: &str, now: UnixMillis) -> Result {
    let Ok(key) = Name::new(name) else {
        return Ok(not_found(&format!("{name:?} is not a player's name")));
    };
    let Some(profile) = store.profile(&key, RECENT, now)? else {
        return Ok(not_found(&format!("no player {name:?}")));
    };
    let mut body = head(&profile.account.name);
    let _ = write!(body, "<h1>{}</h1>\n<h2>Ratings</h2>\n<table>\n<tr><th>game</th><th>rating</th><th>RD</th><th>games</th></tr>\n", escape(&profile.account.name));
    for kind in &profile.ratings {
        let _ = writeln!(
            body,
            "<tr><td><a href=\"/leaderboard/{0}\">{0}</a></td><td>{1}</td><td>{2:.0}</td><td>{3}</td></tr>",
            escape(&kind.kind),
            rating(&kind.rating),
            kind.rating.deviation,
            kind.games
        );
    }
    body.push_str("</table>\n<h2>Recent games</h2>\n<ul>\n");
    for game in &profile.recent {
        let players: Vec<String> = game.players.iter().map(|(_, n)| escape(n)).collect();
        let _ = writeln!(
            body,
            "<li><a href=\"/games/{}\">{} {}</a>: {}</li>",
            escape(game.id.as_str()),
            escape(&game.kind),
            players.join(" vs "),
            escape(&game.why)
        );
    }
    body.push_str("</ul>\n</body></html>\n");
    Ok(html(body))
}

fn leaderboard(store: &mut dyn Store, game: &str, now: UnixMillis) -> Result {
    let standings = store.leaderboard(game, LEADERS, now)?;
    let mut body = head(&format!("{game} leaderboard"));
    let _ = write!(body, "<h1>{} leaderboard</h1>\n<table>\n<tr><th>#</th><th>player</th><th>rating</th><th>games</th></tr>\n", escape(game));
    for s in &standings {
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td><a href=\"/players/{1}\">{1}</a></td><td>{2}</td><td>{3}</td></tr>",
            s.rank,
            escape(&s.name),
            rating(&s.rating),
            s.games
        );
    }
    body.push_str("</table>\n</body></html>\n");
    Ok(html(body))
}

fn game(store: &mut dyn Store, page: &Page, id: &str) -> Result {
    let found = match GameId::new(id) {
        Some(id) => store.game(&id)?,
        None => None,
    };
    let Some(game) = found else {
        return Ok(not_found(&format!("no game {id:?}")));
    };
    Ok(match page {
        Page::Json(_) => Made {
            status: "200 OK",
            kind: JSON,
            body: export::json(&game),
        },
        Page::Standard(_) => match export::standard(&game) {
            Ok(file) => Made {
                status: "200 OK",
                kind: PLAIN,
                body: file.text,
            },
            Err(why) => Made {
                status: "500 Internal Server Error",
                kind: PLAIN,
                body: format!("500: {why}\n"),
            },
        },
        _ => html(replay(&game)),
    })
}

/// The replay: the players, the result, and the moves, stepped through with the keys or the
/// buttons (the move and its time highlighted; the board is the client's to draw).
fn replay(game: &StoredGame) -> String {
    let id = escape(game.id.as_str());
    let mut body = head(&format!("game {}", game.id));
    let players: Vec<String> = game
        .seats
        .iter()
        .map(|s| match s.account {
            Some(_) => format!("<a href=\"/players/{0}\">{0}</a>", escape(&s.name)),
            None => escape(&s.name),
        })
        .collect();
    let result = match game.outcome {
        Outcome::Aborted => "aborted".to_owned(),
        _ => escape(&game.why),
    };
    let _ = write!(
        body,
        "<h1>{} game {id}</h1>\n<p>{} &mdash; {result}</p>\n<p><a href=\"/games/{id}.json\">JSON</a> \
         <a href=\"/games/{id}.{}\">record</a></p>\n<p><button id=\"back\">&lt;</button> \
         <span id=\"at\">0</span>/{} <button id=\"next\">&gt;</button></p>\n<ol id=\"moves\">\n",
        escape(&game.kind),
        players.join(" vs "),
        standard_ext(&game.kind),
        game.moves.len()
    );
    for m in &game.moves {
        let _ = writeln!(
            body,
            "<li>team {} {} <small>({:.1} s)</small></li>",
            m.team + 1,
            escape(&m.notation),
            f64::from(m.took_ms) / 1000.0
        );
    }
    body.push_str(REPLAY_SCRIPT);
    body.push_str("</body></html>\n");
    body
}

/// Steps through the move list: the moves played so far shown, the last one marked.
const REPLAY_SCRIPT: &str = "</ol>\n<script>\nconst items = [...document.querySelectorAll('#moves li')];\nlet at = items.length;\nfunction show() {\n  items.forEach((li, i) => { li.style.display = i < at ? '' : 'none'; li.style.fontWeight = i === at - 1 ? 'bold' : ''; });\n  document.getElementById('at').textContent = at;\n}\ndocument.getElementById('back').onclick = () => { if (at > 0) at--; show(); };\ndocument.getElementById('next').onclick = () => { if (at < items.length) at++; show(); };\ndocument.onkeydown = e => { if (e.key === 'ArrowLeft') document.getElementById('back').click(); if (e.key === 'ArrowRight') document.getElementById('next').click(); };\nshow();\n</script>\n";

fn standard_ext(kind: &str) -> &'static str {
    reversi_games::registry::find(kind).map_or("txt", |m| m.info.record_ext)
}

fn tournaments(store: &mut dyn Store) -> Result {
    let list = crate::tournaments::pages::list(store)?;
    Ok(html(format!(
        "{}{list}</body></html>\n",
        head("Tournaments")
    )))
}

fn tournament(store: &mut dyn Store, id: u64, form: crate::tournaments::pages::Form) -> Result {
    use crate::tournaments::pages::{one, Form};
    let Some(body) = one(store, id, form)? else {
        return Ok(not_found(&format!("no tournament {id}")));
    };
    Ok(match form {
        Form::Html => html(format!(
            "{}{body}</body></html>\n",
            head(&format!("tournament {id}"))
        )),
        Form::Csv => Made {
            status: "200 OK",
            kind: "text/csv; charset=utf-8",
            body,
        },
        Form::Json => Made {
            status: "200 OK",
            kind: JSON,
            body,
        },
    })
}

fn html(body: String) -> Made {
    Made {
        status: "200 OK",
        kind: HTML,
        body,
    }
}

fn head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title></head><body>\n",
        escape(title)
    )
}

/// A rating as shown: rounded, `?` after a provisional one.
fn rating(r: &Rating) -> String {
    let mark = if r.is_provisional() { "?" } else { "" };
    format!("{:.0}{mark}", r.rating)
}

/// Text safe in HTML, in an element or a quoted attribute.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `%XX` decoded, as UTF-8; `None` if it is not.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_store::*;

    #[test]
    fn paths_name_pages() {
        assert_eq!(route("/players/Zo%C3%AB"), Some(Page::Player("Zoë".into())));
        assert_eq!(
            route("/leaderboard/reversi"),
            Some(Page::Leaderboard("reversi".into()))
        );
        assert_eq!(route("/games/1-2-3-1"), Some(Page::Game("1-2-3-1".into())));
        use crate::tournaments::pages::Form;
        assert_eq!(route("/tournaments"), Some(Page::Tournaments));
        assert_eq!(
            route("/tournaments/3"),
            Some(Page::Tournament(3, Form::Html))
        );
        assert_eq!(
            route("/tournaments/3.csv"),
            Some(Page::Tournament(3, Form::Csv))
        );
        assert_eq!(
            route("/tournaments/3.json"),
            Some(Page::Tournament(3, Form::Json))
        );
        assert_eq!(route("/tournaments/x"), None);
        assert_eq!(
            route("/games/1-2-3-1.json"),
            Some(Page::Json("1-2-3-1".into()))
        );
        assert_eq!(
            route("/games/1-2-3-1.ggf"),
            Some(Page::Standard("1-2-3-1".into()))
        );
        assert_eq!(route("/players/%ZZ"), None);
        assert_eq!(route("/"), None);
        assert_eq!(route("/metrics"), None);
    }

    #[test]
    fn pages_are_made_from_the_store_and_escape_what_they_show() {
        let dir = tempfile_dir();
        let mut store = SqliteStore::open(&dir).unwrap();
        let now = UnixMillis::now();
        let password = Password::new("correct horse").unwrap();
        let ann = store
            .register(&Name::new("Ann").unwrap(), &password, now)
            .unwrap();
        let bob = store
            .register(&Name::new("Bob").unwrap(), &password, now)
            .unwrap();
        let game = FinishedGame {
            id: GameId::new("h:1").unwrap(),
            kind: "tictactoe".into(),
            mode: Mode::Rated,
            time_control: String::new(),
            seed: 0,
            seats: vec![
                Seat {
                    team: 0,
                    player: Player::Account(ann.id),
                },
                Seat {
                    team: 1,
                    player: Player::Account(bob.id),
                },
            ],
            moves: vec![MoveRecord {
                team: 0,
                notation: "b2".into(),
                took_ms: 1500,
            }],
            outcome: Outcome::Win {
                team: 0,
                ending: Ending::Resignation,
            },
            why: "X wins <O left>".into(),
            started: now,
            ended: now,
            host: "h".into(),
        };
        store.record_game(&game).unwrap();
        let profile = make(&mut store, &Page::Player("ann".into()), now);
        assert_eq!(profile.status, "200 OK");
        assert!(profile.body.contains("<h1>Ann</h1>") && profile.body.contains("/games/h:1"));
        assert!(profile.body.contains("X wins &lt;O left&gt;"), "escaped");
        let board = make(&mut store, &Page::Leaderboard("tictactoe".into()), now);
        assert!(board.body.contains("/players/Ann"), "{}", board.body);
        let replay = make(&mut store, &Page::Game("h:1".into()), now);
        assert!(
            replay.body.contains("b2 <small>(1.5 s)</small>"),
            "{}",
            replay.body
        );
        let json = make(&mut store, &Page::Json("h:1".into()), now);
        assert_eq!((json.status, json.kind), ("200 OK", JSON));
        assert!(json.body.contains("\"b2\""));
        let text = make(&mut store, &Page::Standard("h:1".into()), now);
        assert!(text.body.contains("b2"), "{}", text.body);
        assert_eq!(
            make(&mut store, &Page::Game("h:2".into()), now).status,
            "404 Not Found"
        );
        assert_eq!(
            make(&mut store, &Page::Player("nobody1".into()), now).status,
            "404 Not Found"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("reversid-pages-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
