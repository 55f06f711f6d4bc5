//! `reversi demo`: one command starts reversid and two bots, and shows the
//! whole game.

mod client_support;

use client_support::Reversi;

#[test]
fn demo_shows_a_whole_game_and_stops_its_server() {
    let done = Reversi::start(&["demo", "--delay", "0", "--level", "1"]).finish();
    assert_eq!(done.code, Some(0), "{done:?}");
    let out = &done.stdout;
    assert!(out.starts_with("demo: reversid (pid "), "{out}");
    assert!(out.contains("1 black plays "), "{out}");
    assert!(out.contains("game over: "), "{out}");
    assert!(
        out.contains("\nblack bot: ") && out.contains("\nwhite bot: "),
        "{out}"
    );
    assert!(done.stderr.is_empty(), "{}", done.stderr);
}

#[test]
fn demo_without_reversid_says_where_it_looked() {
    let dir = std::env::temp_dir().join(format!("reversi-demo-alone-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lonely = dir.join("reversi");
    std::fs::copy(reversi_tests::reversi_binary(), &lonely).unwrap();
    let out = std::process::Command::new(&lonely)
        .args(["demo", "--delay", "0"])
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("reversid not found next to reversi"), "{err}");
    assert!(
        err.contains(&dir.join("reversid").display().to_string()),
        "{err}"
    );
}
