//! `reversi match` against gtp-rhino, when it is installed (Debian's grhino
//! package puts it in /usr/games); skipped with a note otherwise.

mod client_support;

use std::path::Path;

use client_support::Reversi;

const RHINO: &str = "/usr/games/gtp-rhino";

#[test]
fn a_short_match_against_gtp_rhino() {
    if !Path::new(RHINO).exists() {
        reversi_tests::skipped(&format!(
            "{RHINO} is not installed (scripts/install-tools.sh grhino)"
        ));
        return;
    }
    let gtp = format!("{RHINO} -l 1");
    for random in [None, Some("8")] {
        let mut args = vec!["match", "--gtp", &gtp, "--games", "2", "--level", "2"];
        args.extend(
            random
                .map(|plies| ["--random-opening", plies])
                .into_iter()
                .flatten(),
        );
        let done = Reversi::start(&args).finish();
        check_two_games(&done, &gtp, if random.is_some() { 8 } else { 4 });
    }
}

fn check_two_games(done: &client_support::Finished, gtp: &str, opening_plies: usize) {
    assert_eq!(done.code, Some(0), "{done:?}");
    let lines: Vec<&str> = done.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{done:?}");
    assert!(lines[0].starts_with("game 1: black, "), "{done:?}");
    assert!(lines[1].starts_with("game 2: white, "), "{done:?}");
    // Both games start from the same opening, colours swapped, and every
    // game is played out from it.
    let opening = |line: &str| {
        let rest = line.split("(opening ").nth(1).unwrap();
        rest.split(';').next().unwrap().to_string()
    };
    assert_eq!(opening(lines[0]), opening(lines[1]));
    assert_eq!(opening(lines[0]).len(), 2 * opening_plies, "{done:?}");
    for line in &lines[..2] {
        let transcript = line.rsplit(": ").next().unwrap();
        assert!(transcript.starts_with(&opening(line)), "{line}");
        assert!(line.contains("; our moves avg "), "{line}");
    }
    assert!(
        lines[2].starts_with(&format!("against {gtp}: 2 games: ")),
        "{done:?}"
    );
    assert!(lines[2].contains("% of the points; discs "), "{done:?}");
}
