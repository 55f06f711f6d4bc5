//! The page's files, built into the binary (server/web/: no framework, no build
//! step), and `/games`: the games this server plays, for the page's lobby.

use reversi_games::registry::Module;

pub const PLAIN: &str = "text/plain; charset=utf-8";

/// Path, content type, content.
const FILES: [(&str, &str, &str); 3] = [
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("../../../web/index.html"),
    ),
    (
        "/app.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/app.js"),
    ),
    (
        "/style.css",
        "text/css; charset=utf-8",
        include_str!("../../../web/style.css"),
    ),
];

/// The content type and content at `path`, if any.
pub fn find(path: &str, games: &[&'static Module]) -> Option<(&'static str, Vec<u8>)> {
    if path == "/games" {
        return Some((PLAIN, listing(games).into_bytes()));
    }
    FILES
        .iter()
        .find(|(at, _, _)| *at == path)
        .map(|(_, kind, text)| (*kind, text.as_bytes().to_vec()))
}

/// One line a game: its name (for `GAME TYPE`), its type word (as `GAME TYPE` and
/// `GAME SESSION` name it), its teams joined by commas, its title; separated by tabs.
fn listing(games: &[&'static Module]) -> String {
    games
        .iter()
        .map(|m| {
            let info = m.info;
            format!(
                "{}\t{}\t{}\t{}\n",
                info.name,
                info.wire_type,
                info.teams.join(","),
                info.title
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_games_are_listed_one_a_line() {
        let games: Vec<&'static Module> = reversi_games::registry::all().iter().collect();
        let text = listing(&games);
        assert_eq!(text.lines().count(), games.len());
        let tictactoe = text.lines().find(|l| l.starts_with("tictactoe\t")).unwrap();
        let fields: Vec<&str> = tictactoe.split('\t').collect();
        assert_eq!(fields, ["tictactoe", "TicTacToe", "X,O", "Tic-Tac-Toe"]);
    }

    #[test]
    fn the_page_names_its_script_and_style() {
        let (_, page) = find("/", &[]).unwrap();
        let page = String::from_utf8(page).unwrap();
        assert!(page.contains("src=\"/app.js\""));
        assert!(page.contains("href=\"/style.css\""));
    }
}
