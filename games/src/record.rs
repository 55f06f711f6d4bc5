//! What every game record needs beyond the moves: who played, when, how it
//! ended; calendar dates without a date crate; and the plain record format of
//! games that have no standard one of their own.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::game::{GameInfo, Millis, Moved, Outcome, Standing, Team};
// What a record is given lives with the trait whose `record` takes it.
pub use crate::game::{How, MoveTime, RecordMeta};

/// `YYYY.MM.DD` and `HH:MM:SS` (UTC) of `t`.
pub fn date_time(t: SystemTime) -> (String, String) {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    (
        format!("{y:04}.{m:02}.{d:02}"),
        format!("{:02}:{:02}:{:02}", rem / 3600, rem / 60 % 60, rem % 60),
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Shift to a calendar that starts on 0000-03-01 so the leap day ends each year,
    // then split into 400-year eras of 146097 days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153; // 0 = March
    let day = (day_of_year - (153 * month_index + 2) / 5 + 1) as u32;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// A clock as PGN's `%clk` comment writes it: `0:04:57.4` (hours, minutes, seconds and
/// tenths, the tenths cut, not rounded: a clock never shows more than was left).
pub fn clk(ms: Millis) -> String {
    let tenths = ms / 100;
    let (hours, minutes) = (tenths / 36_000, tenths / 600 % 60);
    let (seconds, tenth) = (tenths / 10 % 60, tenths % 10);
    format!("{hours}:{minutes:02}:{seconds:02}.{tenth}")
}

/// The `{[%clk …]}` comment of move `i` of `meta`, if its clock is known.
pub fn clk_comment(meta: &RecordMeta, i: usize) -> Option<String> {
    let clock = meta.times.get(i).copied().flatten()?.clock?;
    Some(format!("{{[%clk {}]}}", clk(clock)))
}

/// The result in words, for records and logs: `X wins (three in a line: a1 b2 c3)`.
pub fn result_text(info: &GameInfo, meta: &RecordMeta) -> String {
    match (&meta.outcome, meta.how) {
        (None, _) | (_, How::Aborted) => "aborted".to_owned(),
        (Some(Outcome::Draw { why }), _) => format!("draw ({why})"),
        (Some(Outcome::Win { team, why }), _) => {
            format!("{} wins ({why})", info.team_name(*team))
        }
    }
}

/// The plain record format (`spec/TEXT-PROTOCOL.md`, "Records"): PGN-like
/// tag lines, a blank line, then one move a line as `<team> <notation>`.
pub fn plain(info: &GameInfo, moves: &[Moved], meta: &RecordMeta) -> String {
    let (date, time) = date_time(meta.finished);
    let mut text = format!(
        "[Game \"{}\"]\n[Date \"{date}\"]\n[Time \"{time}\"]\n",
        info.title
    );
    for (i, player) in meta.players.iter().enumerate() {
        let team = Team(i as u8);
        text.push_str(&format!("[{} \"{player}\"]\n", info.team_name(team)));
    }
    let how = match meta.how {
        How::OnTheBoard => "normal",
        How::Forfeit => "forfeit",
        How::OnTime => "time",
        How::Aborted => "aborted",
    };
    text.push_str(&format!(
        "[Result \"{}\"]\n[Termination \"{how}\"]\n",
        result_text(info, meta)
    ));
    if let Some(control) = &meta.time_control {
        text.push_str(&format!("[TimeControl \"{control}\"]\n"));
    }
    text.push('\n');
    for (i, m) in moves.iter().enumerate() {
        text.push_str(&format!("{} {}", info.team_name(m.team), m.notation));
        if let Some(comment) = clk_comment(meta, i) {
            text.push_str(&format!(" {comment}"));
        }
        text.push('\n');
    }
    text
}

/// `team`'s standing in a finished game, `None` if aborted.
pub fn standing(meta: &RecordMeta, team: Team) -> Option<Standing> {
    meta.outcome.as_ref().map(|o| o.standing(team))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates() {
        assert_eq!(
            date_time(UNIX_EPOCH),
            ("1970.01.01".into(), "00:00:00".into())
        );
        let t = UNIX_EPOCH + Duration::from_secs(951_782_400 + 3661); // 2000-02-29 01:01:01
        assert_eq!(date_time(t), ("2000.02.29".into(), "01:01:01".into()));
        let t = UNIX_EPOCH + Duration::from_secs(1_735_689_599); // 2024-12-31 23:59:59
        assert_eq!(date_time(t), ("2024.12.31".into(), "23:59:59".into()));
    }

    #[test]
    fn plain_records_name_teams_moves_and_result() {
        // Tic-Tac-Toe's facts, written out: the games use this module, not it them.
        let info = &GameInfo {
            name: "tictactoe",
            wire_type: "TicTacToe",
            title: "Tic-Tac-Toe",
            board: crate::game::BoardSpec {
                name: "TicTacToeBoard",
                width: 3,
                height: 3,
                labels: None,
            },
            teams: &["X", "O"],
            illegal: crate::game::IllegalPolicy::Retry,
            realtime: false,
            random_teams: false,
            rematch: true,
            record_ext: "txt",
            rules: "Three in a line wins.",
        };
        let meta = RecordMeta {
            players: vec!["127.0.0.1:1".into(), "127.0.0.1:2".into()],
            finished: UNIX_EPOCH,
            outcome: Some(Outcome::Win {
                team: Team::SECOND,
                why: "X left".into(),
            }),
            how: How::Forfeit,
            time_control: None,
            times: Vec::new(),
        };
        let moves = [Moved {
            team: Team::FIRST,
            notation: "b2".into(),
        }];
        let text = plain(info, &moves, &meta);
        assert_eq!(
            text,
            "[Game \"Tic-Tac-Toe\"]\n[Date \"1970.01.01\"]\n[Time \"00:00:00\"]\n\
             [X \"127.0.0.1:1\"]\n[O \"127.0.0.1:2\"]\n[Result \"O wins (X left)\"]\n\
             [Termination \"forfeit\"]\n\nX b2\n"
        );
        assert_eq!(standing(&meta, Team::FIRST), Some(Standing::Lose));
        let timed = RecordMeta {
            time_control: Some("300+3".into()),
            times: vec![Some(MoveTime {
                took: 5_600,
                clock: Some(297_490),
            })],
            ..meta
        };
        let text = plain(info, &moves, &timed);
        assert!(
            text.ends_with(
                "[Termination \"forfeit\"]\n[TimeControl \"300+3\"]\n\nX b2 {[%clk 0:04:57.4]}\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn clocks_are_written_as_pgn_does_tenths_cut() {
        assert_eq!(clk(297_499), "0:04:57.4");
        assert_eq!(clk(0), "0:00:00.0");
        assert_eq!(clk(99), "0:00:00.0");
        assert_eq!(clk(3_600_000 + 61_250), "1:01:01.2");
    }
}
