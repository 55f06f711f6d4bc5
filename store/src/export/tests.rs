use super::*;
use crate::types::{AccountId, GameId, MoveRecord, StoredSeat, UnixMillis};

fn game(kind: &str, moves: &[&str], outcome: Outcome, why: &str) -> StoredGame {
    StoredGame {
        id: GameId::new("host1:42").unwrap(),
        kind: kind.into(),
        mode: Mode::Rated,
        time_control: "5m".into(),
        seed: 0,
        seats: vec![
            StoredSeat {
                team: 0,
                name: "alice".into(),
                account: Some(AccountId(1)),
                before: Some(Rating::NEW),
                after: Some(Rating {
                    rating: 1662.3,
                    deviation: 290.3,
                    volatility: 0.06,
                }),
            },
            StoredSeat {
                team: 1,
                name: "bob".into(),
                account: None,
                before: None,
                after: None,
            },
        ],
        moves: moves
            .iter()
            .enumerate()
            .map(|(i, m)| MoveRecord {
                team: (i % 2) as u8,
                notation: (*m).into(),
                took_ms: 1000 + i as u32,
            })
            .collect(),
        outcome,
        why: why.into(),
        started: UnixMillis(0),
        ended: UnixMillis(1000),
        host: "host1".into(),
    }
}

const REVERSI: [&str; 9] = ["e6", "f4", "e3", "f6", "g5", "d6", "e7", "f5", "c5"];

#[test]
fn reversi_exports_as_the_servers_ggf() {
    let win = Outcome::Win {
        team: 0,
        ending: Ending::Rules,
    };
    let file = standard(&game("reversi", &REVERSI, win, "13-0")).unwrap();
    assert_eq!(file.ext, "ggf");
    assert!(
        file.text.starts_with(
            "(;GM[Othello]PC[reversid]DT[1970.01.01_00:00:01.GMT]PB[alice]PW[bob]RE[+13]"
        ),
        "{}",
        file.text
    );
    assert!(file.text.ends_with("B[e7]W[f5]B[c5];)"), "{}", file.text);
}

#[test]
fn a_resignation_is_a_forfeit_in_ggf() {
    let resigned = Outcome::Win {
        team: 1,
        ending: Ending::Resignation,
    };
    let file = standard(&game("reversi", &REVERSI[..2], resigned, "black left")).unwrap();
    assert!(file.text.contains("RE[-64:r]"), "{}", file.text);
}

#[test]
fn draughts_exports_as_pdn() {
    let draw = Outcome::Draw {
        ending: Ending::Agreement,
    };
    let file = standard(&game("draughts", &["11-15", "23-19"], draw, "agreed")).unwrap();
    assert_eq!(file.ext, "pdn");
    assert!(
        file.text.contains("[Black \"alice\"]\n[White \"bob\"]\n"),
        "{}",
        file.text
    );
    assert!(
        file.text.contains("1. 11-15 23-19 {draw (agreed)} 1/2-1/2"),
        "{}",
        file.text
    );
}

#[test]
fn a_move_the_rules_refuse_is_named() {
    let aborted = Outcome::Aborted;
    let error = standard(&game("reversi", &["e6", "a1"], aborted, "shutdown")).unwrap_err();
    assert!(error.starts_with("move 2 (a1)"), "{error}");
    assert!(standard(&game("chess", &[], Outcome::Aborted, "")).is_err());
}

#[test]
fn other_games_export_in_the_plain_format() {
    let win = Outcome::Win {
        team: 1,
        ending: Ending::Abandonment,
    };
    let file = standard(&game("tictactoe", &["b2"], win, "X left")).unwrap();
    assert_eq!(file.ext, "txt");
    assert!(
        file.text.contains("[X \"alice\"]\n[O \"bob\"]\n"),
        "{}",
        file.text
    );
    assert!(
        file.text.contains("[Termination \"forfeit\"]"),
        "{}",
        file.text
    );
    assert!(file.text.ends_with("\n\nX b2\n"), "{}", file.text);
}

#[test]
fn json_holds_everything() {
    let win = Outcome::Win {
        team: 0,
        ending: Ending::Time,
    };
    let text = json(&game("reversi", &REVERSI[..1], win, "white's flag fell"));
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["id"], "host1:42");
    assert_eq!(value["game"], "reversi");
    assert_eq!(value["result"], "win");
    assert_eq!(value["winner"], 0);
    assert_eq!(value["ending"], "time");
    assert_eq!(
        value["moves"][0],
        json!({"team": 0, "move": "e6", "ms": 1000})
    );
    assert_eq!(value["players"][0]["rating_before"]["rating"], 1500.0);
    assert_eq!(value["players"][0]["rating_after"]["provisional"], true);
    assert_eq!(value["players"][1]["account"], Value::Null);
    assert_eq!(value["host"], "host1");
}
