//! How a game ended, and what is kept of it: the log's summary line and the record.

use std::fmt::Write as _;
use std::time::SystemTime;

use reversi_games::record::{How, RecordMeta};
use reversi_games::Team;

use super::Referee;
use crate::terms::TimeControl;

/// Why a game ended. Seats are numbered in the order they joined.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum End {
    /// By the rules (or agreement): the game's own outcome.
    Board,
    /// The seat sent a quit.
    Quit(usize),
    /// The seat's connection closed or failed.
    Drop(usize),
    /// The seat, being the mover, ran out of time.
    Timeout(usize),
    /// The seat broke the protocol.
    Violation(usize, String),
    /// The seat played an illegal move in a game where that loses.
    Illegal(usize, String),
    /// The seat did not make its first move in time: the game never started.
    NeverMoved(usize),
    /// Fast shutdown.
    Aborted,
    /// The seat dropped and did not come back: its opponent claimed the win (or the server
    /// did for it).
    Left(usize),
    /// The seat dropped and did not come back: its opponent claimed a draw.
    LeftDraw(usize),
    /// Every player dropped and none came back in its grace.
    Deserted,
}

impl End {
    pub fn culprit(&self) -> Option<usize> {
        match *self {
            End::Quit(s) | End::Drop(s) | End::Timeout(s) | End::NeverMoved(s) => Some(s),
            End::Violation(s, _) | End::Illegal(s, _) => Some(s),
            End::Left(s) | End::LeftDraw(s) => Some(s),
            End::Board | End::Aborted | End::Deserted => None,
        }
    }

    /// The seat that abandoned the game (left without a word, ran out of time, or never
    /// moved), for the supervisor's penalties; a resignation is not abandonment.
    pub fn abandoned_by(&self) -> Option<usize> {
        match *self {
            End::Drop(s) | End::Timeout(s) | End::NeverMoved(s) | End::Left(s) => Some(s),
            _ => None,
        }
    }

    /// One word for the log.
    pub fn kind(&self) -> &'static str {
        match self {
            End::Board => "normal",
            End::Quit(_) => "quit",
            End::Drop(_) => "drop",
            End::Timeout(_) => "timeout",
            End::Violation(..) => "malformed",
            End::Illegal(..) => "illegal",
            End::NeverMoved(_) => "never-started",
            End::Aborted => "aborted",
            End::Left(_) => "left",
            End::LeftDraw(_) => "left-draw",
            End::Deserted => "deserted",
        }
    }

    pub(super) fn how(&self) -> How {
        match self {
            End::Board => How::OnTheBoard,
            End::Timeout(_) => How::OnTime,
            End::Aborted | End::NeverMoved(_) | End::Deserted => How::Aborted,
            _ => How::Forfeit,
        }
    }

    /// Whether a rematch may follow a game that ended so (a player who left ends the series).
    pub(super) fn series_goes_on(&self) -> bool {
        matches!(self, End::Board | End::Timeout(_) | End::Illegal(..))
    }

    /// Why the culprit's team lost, in words for the players, its name being `name`.
    pub(super) fn why(&self, name: &str) -> String {
        match self {
            End::Quit(_) => format!("{name} left the game"),
            End::Drop(_) => format!("{name} was disconnected"),
            End::Timeout(_) => format!("{name} ran out of time"),
            End::Violation(_, why) => format!("{name} broke the protocol: {why}"),
            End::Illegal(_, why) => format!("{name} played an illegal move: {why}"),
            End::NeverMoved(_) => format!("{name} never moved"),
            End::Left(_) => format!("{name} left the game and did not come back"),
            // A claimed draw's words name the claimer too: said where it is claimed.
            End::Board | End::Aborted | End::LeftDraw(_) | End::Deserted => String::new(),
        }
    }
}

/// A finished game, for the log and the record.
pub struct Finished {
    /// One line: the game, the players, how it ended, the time control, the lag credited,
    /// how late a flag fell, the moves.
    pub summary: String,
    pub record: String,
    pub ext: &'static str,
    pub round: u32,
}

impl Referee {
    /// Keeps the game that just ended (at wall-clock time `wall`), to log and record.
    pub(super) fn record(&mut self, wall: SystemTime) {
        let end = self.end.as_ref().expect("the game has ended");
        let meta = RecordMeta {
            players: self.table.players(),
            finished: wall,
            outcome: self.outcome.clone(),
            how: end.how(),
            time_control: self
                .pace
                .is_turn_based()
                .then(|| pgn_time_control(self.clock.control())),
            times: self.times.clone(),
        };
        let record = self.game.record(&meta);
        let summary = self.summary(end, &meta);
        let end = end.clone();
        self.journal_end(&end, &meta);
        self.finished.push(Finished {
            summary,
            record,
            ext: self.info().record_ext,
            round: self.round,
        });
    }

    /// The journal's `finished` line, from which the supervisor archives the game.
    fn journal_end(&mut self, end: &End, meta: &RecordMeta) {
        use reversi_games::Outcome;
        let ended_ms = meta
            .finished
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        let teams: Vec<u8> = self.table.seats.iter().map(|s| s.team.0).collect();
        let winner = match (&meta.outcome, meta.how) {
            (None, _) | (_, How::Aborted) => None,
            (Some(Outcome::Draw { .. }), _) => Some(None),
            (Some(Outcome::Win { team, .. }), _) => Some(Some(team.0)),
        };
        let why = reversi_games::record::result_text(self.info(), meta);
        let line =
            crate::session::journal::finished_line(ended_ms, end.kind(), &teams, winner, &why);
        self.journal.push(line);
    }

    /// The one-line account of a finished game, for the log.
    fn summary(&self, end: &End, meta: &RecordMeta) -> String {
        let info = self.info();
        let mut s = info.name.to_owned();
        if self.rules.rematch {
            let _ = write!(s, " round {}", self.round);
        }
        for (t, players) in self.table.logged().iter().enumerate() {
            let _ = write!(s, " {} {players}", info.team_name(Team(t as u8)));
        }
        let _ = write!(s, " end {}", end.kind());
        if let Some(seat) = end.culprit() {
            let _ = write!(s, " by {}", info.team_name(self.table.seats[seat].team));
        }
        if let End::Violation(_, why) | End::Illegal(_, why) = end {
            let _ = write!(s, " ({why})");
        }
        s += &self.away_summary(meta.finished);
        let _ = write!(
            s,
            " result {}",
            reversi_games::record::result_text(info, meta)
        );
        if self.pace.is_turn_based() {
            let _ = write!(s, " control {}", self.clock.control());
            if self.lag.is_on() {
                let _ = write!(s, " lag {}", self.lag_summary());
            }
        }
        if let (End::Timeout(_), Some(late)) = (end, self.flag_late) {
            let _ = write!(s, " flag late {:.1} ms", late.as_secs_f64() * 1000.0);
        }
        let moves: Vec<String> = self
            .game
            .history()
            .into_iter()
            .map(|m| m.notation)
            .collect();
        let transcript = if moves.is_empty() {
            "-".to_owned()
        } else {
            moves.join(" ")
        };
        let _ = write!(s, " moves {} transcript {transcript}", moves.len());
        s
    }
}

/// A time control as PGN's `TimeControl` tag writes it: `300+3` (base and increment in
/// seconds), `1/600` (one move in 600 s), `-` (none).
fn pgn_time_control(control: TimeControl) -> String {
    match control {
        TimeControl::None => "-".to_owned(),
        TimeControl::PerMove { limit, .. } => format!("1/{}", limit.as_secs()),
        TimeControl::Fischer { base, increment } => {
            format!("{}+{}", base.as_secs(), increment.as_secs())
        }
    }
}
