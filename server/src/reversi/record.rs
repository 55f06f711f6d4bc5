//! The record of a finished session: the log line and the GGF file.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reversi_engine::Side;
use reversi_pdu::{Colour, Winner};

use super::table::{End, Table};

/// Everything worth keeping about one session.
pub struct Record {
    pub summary: String,
    pub black: String,
    pub white: String,
    pub end: Option<End>,
    pub result: Option<Winner>,
    pub discs: (u32, u32),
    /// (side, square name) per move, passes implicit.
    pub moves: Vec<(Side, String)>,
    pub duration: Duration,
    pub finished: SystemTime,
}

impl Record {
    pub fn new(table: &Table, duration: Duration) -> Record {
        let peers = table.peers();
        let seat = |c: Colour| usize::from(table.colours()[0] != c);
        let game = table.game();
        Record {
            summary: table.to_string(),
            black: peers[seat(Colour::Black)].to_string(),
            white: peers[seat(Colour::White)].to_string(),
            end: table.end().cloned(),
            result: table.result(),
            discs: (game.count(Side::Black), game.count(Side::White)),
            moves: table
                .movers()
                .zip(game.moves())
                .map(|(side, sq)| (side, sq.to_string()))
                .collect(),
            duration,
            finished: SystemTime::now(),
        }
    }

    /// The game in the Generic Game Format, one line.
    ///
    /// RE is black's disc margin; a game that did not end on the board gets the
    /// winner's full margin of 64 with `:r` (quit, drop, malformed) or `:t`
    /// (move clock), and an aborted game `RE[?]`. Passes are written `PA`.
    pub fn ggf(&self) -> String {
        let (b, w) = self.discs;
        let result = match (&self.end, self.result) {
            (Some(End::Normal), _) => signed(i64::from(b) - i64::from(w)),
            (Some(end), Some(winner)) if end.culprit().is_some() => {
                let margin = match winner {
                    Winner::Black => "+64",
                    Winner::White => "-64",
                    Winner::Draw => "0",
                };
                let how = if matches!(end, End::Timeout(_)) {
                    "t"
                } else {
                    "r"
                };
                format!("{margin}:{how}")
            }
            _ => "?".to_owned(),
        };
        let mut text = format!(
            "(;GM[Othello]PC[reversid]DT[{}]PB[{}]PW[{}]RE[{result}]TY[8]\
             BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]",
            ggf_date(self.finished),
            self.black,
            self.white,
        );
        let mut expected = Side::Black;
        for (side, square) in &self.moves {
            if *side != expected {
                text.push_str(tag(expected));
                text.push_str("[PA]");
            }
            text.push_str(tag(*side));
            text.push('[');
            text.push_str(square);
            text.push(']');
            expected = side.opponent();
        }
        text.push_str(";)");
        text
    }
}

fn tag(side: Side) -> &'static str {
    match side {
        Side::Black => "B",
        Side::White => "W",
    }
}

fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} duration {:.3}s",
            self.summary,
            self.duration.as_secs_f64()
        )
    }
}

/// GGF's date: `YYYY.MM.DD_HH:MM:SS.GMT`.
pub fn ggf_date(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}.{m:02}.{d:02}_{:02}:{:02}:{:02}.GMT",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
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

/// Writes the record as `DIR/<unix-millis>-<pid>.ggf`, via a temporary name and a rename.
pub fn write_ggf(dir: &Path, record: &Record) -> io::Result<PathBuf> {
    let millis = record
        .finished
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let pid = std::process::id();
    let tmp = dir.join(format!(".{millis}-{pid}.ggf.tmp"));
    let path = dir.join(format!("{millis}-{pid}.ggf"));
    let mut file = fs::File::create(&tmp)?;
    writeln!(file, "{}", record.ggf())?;
    file.sync_data()?;
    drop(file);
    fs::rename(&tmp, &path)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(ggf_date(UNIX_EPOCH), "1970.01.01_00:00:00.GMT");
        let t = UNIX_EPOCH + Duration::from_secs(951_782_400 + 3661); // 2000-02-29 01:01:01
        assert_eq!(ggf_date(t), "2000.02.29_01:01:01.GMT");
        let t = UNIX_EPOCH + Duration::from_secs(1_735_689_599); // 2024-12-31 23:59:59
        assert_eq!(ggf_date(t), "2024.12.31_23:59:59.GMT");
    }

    #[test]
    fn passes_and_results() {
        let record = Record {
            summary: String::new(),
            black: "b".into(),
            white: "w".into(),
            end: Some(End::Normal),
            result: Some(Winner::Black),
            discs: (40, 24),
            moves: vec![
                (Side::Black, "f5".into()),
                (Side::White, "d6".into()),
                (Side::White, "c3".into()),
            ],
            duration: Duration::ZERO,
            finished: UNIX_EPOCH,
        };
        let text = record.ggf();
        assert!(text
            .starts_with("(;GM[Othello]PC[reversid]DT[1970.01.01_00:00:00.GMT]PB[b]PW[w]RE[+16]"));
        assert!(text.ends_with("*]B[f5]W[d6]B[PA]W[c3];)"), "{text}");
        let quit = Record {
            end: Some(End::Quit(0)),
            result: Some(Winner::White),
            ..record
        };
        assert!(quit.ggf().contains("RE[-64:r]"));
    }
}
