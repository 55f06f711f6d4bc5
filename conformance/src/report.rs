//! What a check finds, and the report that prints every check's verdict
//! section by section.

use std::fmt;

use crate::deviations;

/// Why a check stopped before its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// The first difference between what the spec says and what came.
    Differ(Diff),
    /// The check cannot run against this target (a timeout not given, a
    /// listener not named); not a failure.
    Skipped(String),
}

/// The first place where the implementation under test and the spec part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diff {
    /// Who saw it: `X`, `viewer`, `binary black`.
    pub who: String,
    pub expected: String,
    pub got: String,
}

impl Finding {
    pub fn differ(who: &str, expected: impl Into<String>, got: impl Into<String>) -> Finding {
        Finding::Differ(Diff {
            who: who.to_owned(),
            expected: expected.into(),
            got: got.into(),
        })
    }
}

/// A check's result: `Ok` when every exchange went as the spec says.
pub type Judged = Result<(), Finding>;

/// The verdict on one check, known deviations taken into account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail(Diff),
    Skip(String),
    /// Fails, as the known-deviation list says it still does.
    Known(Diff, &'static str),
    /// Passes although listed as a known deviation: remove the entry.
    Fixed(&'static str),
}

impl Verdict {
    /// Judges a check's result against the list of known deviations.
    pub fn of(name: &str, judged: Judged) -> Verdict {
        Verdict::against(deviations::known(name), judged)
    }

    /// The verdict on a check whose known deviation, if any, is `known`.
    fn against(known: Option<&'static str>, judged: Judged) -> Verdict {
        match (judged, known) {
            (Ok(()), None) => Verdict::Pass,
            (Ok(()), Some(why)) => Verdict::Fixed(why),
            (Err(Finding::Skipped(why)), _) => Verdict::Skip(why),
            (Err(Finding::Differ(diff)), None) => Verdict::Fail(diff),
            (Err(Finding::Differ(diff)), Some(why)) => Verdict::Known(diff, why),
        }
    }

    /// Whether this verdict makes the run fail.
    pub fn fails(&self) -> bool {
        matches!(self, Verdict::Fail(_) | Verdict::Fixed(_))
    }
}

/// One check's name and verdict.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The section it checks (`text §6.3`).
    pub section: &'static str,
    /// What it checks (`viewers stay through a rematch`).
    pub what: &'static str,
    pub verdict: Verdict,
}

/// Every verdict of a run, in the order the checks ran.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub entries: Vec<Entry>,
}

impl Report {
    /// Whether no check failed (known deviations and skips do not fail a run).
    pub fn passed(&self) -> bool {
        !self.entries.iter().any(|e| e.verdict.fails())
    }

    fn count(&self, f: impl Fn(&Verdict) -> bool) -> usize {
        self.entries.iter().filter(|e| f(&e.verdict)).count()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut section = "";
        for entry in &self.entries {
            if entry.section != section {
                section = entry.section;
                writeln!(f, "{section}")?;
            }
            write_entry(f, entry)?;
        }
        writeln!(
            f,
            "{} checks: {} passed, {} failed, {} known deviations, {} skipped",
            self.entries.len(),
            self.count(|v| matches!(v, Verdict::Pass)),
            self.count(Verdict::fails),
            self.count(|v| matches!(v, Verdict::Known(..))),
            self.count(|v| matches!(v, Verdict::Skip(_))),
        )
    }
}

fn write_entry(f: &mut fmt::Formatter<'_>, entry: &Entry) -> fmt::Result {
    let what = entry.what;
    match &entry.verdict {
        Verdict::Pass => writeln!(f, "  pass  {what}"),
        Verdict::Skip(why) => writeln!(f, "  skip  {what} ({why})"),
        Verdict::Fail(diff) => {
            writeln!(f, "  FAIL  {what}")?;
            write_diff(f, diff)
        }
        Verdict::Known(diff, why) => {
            writeln!(f, "  known {what} (known deviation: {why})")?;
            write_diff(f, diff)
        }
        Verdict::Fixed(why) => writeln!(
            f,
            "  FIXED {what}: passes, but is listed as a known deviation ({why}): remove it from conformance/src/deviations.rs"
        ),
    }
}

fn write_diff(f: &mut fmt::Formatter<'_>, diff: &Diff) -> fmt::Result {
    writeln!(f, "          {}: expected {}", diff.who, diff.expected)?;
    writeln!(f, "          {}: got      {}", diff.who, diff.got)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff() -> Diff {
        Diff {
            who: "X".into(),
            expected: "\"READY\"".into(),
            got: "\"GAME TURN 2\"".into(),
        }
    }

    #[test]
    fn a_difference_fails_the_run_and_shows_both_lines() {
        let report = Report {
            entries: vec![Entry {
                section: "text §5.2",
                what: "READY goes to the mover",
                verdict: Verdict::of(
                    "text §5.2 READY goes to the mover",
                    Err(Finding::Differ(diff())),
                ),
            }],
        };
        assert!(!report.passed());
        let text = report.to_string();
        assert!(
            text.starts_with("text §5.2\n  FAIL  READY goes to the mover\n"),
            "{text}"
        );
        assert!(text.contains("X: expected \"READY\"\n"), "{text}");
        assert!(text.contains("X: got      \"GAME TURN 2\"\n"), "{text}");
    }

    #[test]
    fn skips_do_not_fail_a_run() {
        let verdict = Verdict::of(
            "text §8 anything",
            Err(Finding::Skipped("no timeout".into())),
        );
        assert_eq!(verdict, Verdict::Skip("no timeout".into()));
        assert!(!verdict.fails());
    }

    #[test]
    fn a_known_deviation_fails_quietly_and_fails_the_run_once_it_passes() {
        let known = Some("a change still to make");
        let failing = Verdict::against(known, Err(Finding::Differ(diff())));
        assert!(matches!(failing, Verdict::Known(..)) && !failing.fails());
        let passing = Verdict::against(known, Ok(()));
        assert!(matches!(passing, Verdict::Fixed(_)) && passing.fails());
    }
}
