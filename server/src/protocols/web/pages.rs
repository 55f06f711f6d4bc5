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
    /// `/games/`: the latest finished games, and the live ones (read by the page itself).
    Recent,
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
    if path == "/games/" {
        return Some(Page::Recent);
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
        Page::Recent => recent(store),
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
    body.push_str(
        "</table>\n<p><small>? marks a provisional rating (deviation over 110).</small></p>\n",
    );
    for kind in profile.ratings.iter().filter(|k| !k.history.is_empty()) {
        let _ = writeln!(
            body,
            "<h3>{} rating, last {} games</h3>",
            escape(&kind.kind),
            kind.history.len()
        );
        body.push_str(&chart(&kind.history));
    }
    body.push_str("<h2>Recent games</h2>\n<ul>\n");
    for game in &profile.recent {
        body.push_str(&summary_item(game));
    }
    body.push_str("</ul>\n</body></html>\n");
    Ok(html(body))
}

/// One finished game in a list: a link to its replay, who played, how it ended.
fn summary_item(game: &reversi_store::GameSummary) -> String {
    let players: Vec<String> = game.players.iter().map(|(_, n)| escape(n)).collect();
    format!(
        "<li><a href=\"/games/{}\">{} {}</a>: {}</li>\n",
        escape(game.id.as_str()),
        escape(&game.kind),
        players.join(" vs "),
        escape(&game.why)
    )
}

/// Chart's size in SVG units, and its margin for the labels.
const CHART_W: f64 = 600.0;
const CHART_H: f64 = 160.0;
const CHART_LEFT: f64 = 48.0;

/// A rating history as an inline SVG line (drawn here: the page needs no script), with
/// its lowest and highest rating written at the left and a dot per game, titled.
fn chart(points: &[reversi_store::RatingPoint]) -> String {
    let ratings: Vec<f64> = points.iter().map(|p| p.rating.rating).collect();
    let low = ratings
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .floor()
        - 10.0;
    let high = ratings
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max)
        .ceil()
        + 10.0;
    let step = (CHART_W - CHART_LEFT - 10.0) / (points.len().max(2) - 1) as f64;
    let at = |i: usize, r: f64| {
        let x = CHART_LEFT + step * i as f64;
        let y = 10.0 + (high - r) / (high - low) * (CHART_H - 20.0);
        (x, y)
    };
    let mut svg = format!(
        "<svg class=\"chart\" viewBox=\"0 0 {CHART_W} {CHART_H}\" width=\"{CHART_W}\" height=\"{CHART_H}\" role=\"img\" aria-label=\"rating history\">\n\
         <rect x=\"{CHART_LEFT}\" y=\"0\" width=\"{}\" height=\"{CHART_H}\" fill=\"#f6f6f2\"/>\n\
         <text x=\"2\" y=\"16\" font-size=\"12\">{high:.0}</text><text x=\"2\" y=\"{}\" font-size=\"12\">{low:.0}</text>\n",
        CHART_W - CHART_LEFT,
        CHART_H - 4.0
    );
    let line: Vec<String> = ratings
        .iter()
        .enumerate()
        .map(|(i, &r)| {
            let (x, y) = at(i, r);
            format!("{x:.1},{y:.1}")
        })
        .collect();
    let _ = writeln!(
        svg,
        "<polyline fill=\"none\" stroke=\"#2a5d8f\" stroke-width=\"2\" points=\"{}\"/>",
        line.join(" ")
    );
    for (i, p) in points.iter().enumerate() {
        let (x, y) = at(i, p.rating.rating);
        let _ = writeln!(
            svg,
            "<a href=\"/games/{0}\"><circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3\" fill=\"#2a5d8f\"><title>{1} after game {0}</title></circle></a>",
            escape(p.game.as_str()),
            rating(&p.rating)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// The latest finished games; the live ones are the server's, not the store's: a short script
/// asks for them over the page's WebSocket (`GAME LIST`) and links each to watching it.
fn recent(store: &mut dyn Store) -> Result {
    let games = store.recent_games(RECENT)?;
    let mut body = head("recent and live games");
    body.push_str("<h1>Games</h1>\n<h2>Being played</h2>\n<ul id=\"live\"><li>…</li></ul>\n<h2>Finished lately</h2>\n<ul>\n");
    for game in &games {
        body.push_str(&summary_item(game));
    }
    body.push_str("</ul>\n");
    body.push_str(LIVE_SCRIPT);
    body.push_str("</body></html>\n");
    Ok(html(body))
}

/// Lists `GAME LIST`'s sessions, each a link to the page watching it (`/#watch=ID`).
const LIVE_SCRIPT: &str = "<script>\nconst live = document.getElementById('live');\nconst ws = new WebSocket((location.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + location.host + '/ws');\nconst items = [];\nws.onopen = () => ws.send('GAME LIST');\nws.onmessage = (m) => {\n  const w = m.data.trim().split(/\\s+/);\n  if (w[1] === 'SESSION') {\n    const li = document.createElement('li');\n    const a = document.createElement('a');\n    a.href = '/#watch=' + encodeURIComponent(w[2]);\n    a.textContent = w[3] + ' game ' + w[2] + ': ' + w.slice(5).join(' vs ');\n    li.append(a);\n    items.push(li);\n  } else if (w[1] === 'SESSIONS' || w[0] === 'ERROR') {\n    if (!items.length) items.push(Object.assign(document.createElement('li'), { textContent: 'none right now' }));\n    live.replaceChildren(...items);\n    ws.close();\n  }\n};\n</script>\n";

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
    body.push_str("</table>\n<p><small>? marks a provisional rating (deviation over 110).</small></p>\n</body></html>\n");
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
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title>\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">{STYLE}</head><body>\n\
         <p><a href=\"/\">&larr; reversid</a></p>\n",
        escape(title)
    )
}

/// The store's pages look like the play page (server/web/style.css), without its script.
const STYLE: &str = "<style>body{margin:0 auto;max-width:48rem;padding:1rem 1.2rem;background:#f6f4ef;color:#23262b;\
font:16px/1.5 system-ui,sans-serif}a{color:#2f6f8f}table{border-collapse:collapse;background:#fff}\
th,td{text-align:left;padding:.3rem .7rem;border-bottom:1px solid #d9d4c9}h1{font-size:1.5rem}\
h2{font-size:1.15rem;margin-top:1.4rem}h3{font-size:1rem}small{color:#646a73}svg.chart{max-width:100%;height:auto}</style>";

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
        assert_eq!(route("/games/"), Some(Page::Recent));
        assert_eq!(route("/players/%ZZ"), None);
        assert_eq!(route("/"), None);
        assert_eq!(route("/metrics"), None);
    }

    #[test]
    fn pages_are_made_from_the_store_and_escape_what_they_show() {
        let dir = tempfile_dir("made");
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
        assert!(
            profile.body.contains("<polyline") && profile.body.contains("after game h:1"),
            "the chart: {}",
            profile.body
        );
        let recent = make(&mut store, &Page::Recent, now);
        assert!(recent.body.contains("/games/h:1") && recent.body.contains("GAME LIST"));
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

    /// However many games a player has, the chart holds the latest 100 (the store's bound):
    /// the page's cost does not grow with them.
    #[test]
    fn the_profile_charts_the_last_hundred_ratings_only() {
        let dir = tempfile_dir("chart");
        let mut store = SqliteStore::open(&dir).unwrap();
        let now = UnixMillis::now();
        let password = Password::new("correct horse").unwrap();
        let [ann, bob] = ["Ann", "Bob"].map(|n| {
            store
                .register(&Name::new(n).unwrap(), &password, now)
                .unwrap()
        });
        for i in 1..=105 {
            let seat = |team, account: &Account| Seat {
                team,
                player: Player::Account(account.id),
            };
            let game = FinishedGame {
                id: GameId::new(&format!("h:{i}")).unwrap(),
                kind: "tictactoe".into(),
                mode: Mode::Rated,
                time_control: String::new(),
                seed: 0,
                seats: vec![seat(0, &ann), seat(1, &bob)],
                moves: Vec::new(),
                outcome: Outcome::Win {
                    team: (i % 2) as u8,
                    ending: Ending::Resignation,
                },
                why: "resigned".into(),
                started: UnixMillis(i * 1000),
                ended: UnixMillis(i * 1000 + 500),
                host: "h".into(),
            };
            store.record_game(&game).unwrap();
        }
        let page = make(&mut store, &Page::Player("Ann".into()), now).body;
        assert_eq!(page.matches("<circle").count(), 100, "{page}");
        assert!(page.contains("last 100 games"));
        let first = page.find("after game h:6<").expect("the 100th last game");
        let last = page.find("after game h:105<").expect("the last game");
        assert!(first < last, "oldest first");
        assert!(
            !page.contains("after game h:5<"),
            "older points are left out"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn tempfile_dir(what: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("reversid-pages-{what}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
